package bcpi

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"apic/core"
	"apic/sims"
)

// Name is the method's name in tables and JSON.
const Name = "bcpi"

// Options configure a fit. Zero values take the defaults.
type Options struct {
	// Starts is the number of L-BFGS starts of the MAP search (default
	// 10, the authors' "PI_opt").
	Starts int
	// MaxIterations caps L-BFGS iterations per start (default 200 for a
	// system of time alone, fieldMaxIterations for a field).
	MaxIterations int
	// Steps is the adaptive Metropolis budget after the MAP (default
	// DefaultSteps); the second half is kept.
	Steps int
	// Draws is how many kept draws the prediction mixes (default 20,
	// evenly spaced over the kept half).
	Draws int
	// Collocation is the number of collocation states (default 50 for a
	// system of time alone, as the authors' spring; 256 otherwise).
	Collocation int
	// Seed seeds the starts, the collocation subset and the chain.
	Seed uint64
}

// fieldMaxIterations is the default L-BFGS budget per start for a field
// over time and space (ours): each of advdiff's iterations factorises
// and inverts a 576-row covariance, and on nominal data θ settles
// within 30 iterations (the remaining ones shrink the GP on w towards
// zero).
const fieldMaxIterations = 40

// DefaultSteps is the default Metropolis budget, DefaultStarts the
// MAP search's.
const (
	DefaultSteps  = 2000
	DefaultStarts = 10
)

func (o Options) withDefaults(dims int) Options {
	if o.Starts < 1 {
		o.Starts = DefaultStarts
	}
	if o.MaxIterations < 1 {
		o.MaxIterations = 200
		if dims > 1 {
			o.MaxIterations = fieldMaxIterations
		}
	}
	if o.Steps < 1 {
		o.Steps = DefaultSteps
	}
	if o.Draws < 1 {
		o.Draws = 20
	}
	if o.Collocation < 1 {
		o.Collocation = 50
		if dims > 1 {
			o.Collocation = 256
		}
	}
	return o
}

// Calibrator is the BCPI method for one system. It implements
// core.Method and is safe for concurrent use.
type Calibrator struct {
	Sys sims.System
	Eq  sims.LinearEquations
	Opt Options
}

// New returns a BCPI calibrator for sys, or an error for a system whose
// nominal model is not a linear equation with one observed channel.
func New(sys sims.System, opt Options) (*Calibrator, error) {
	eq, ok := sys.(sims.LinearEquations)
	if !ok || len(sys.Grid().Channels) > maxChannels {
		return nil, fmt.Errorf("%s: system %s has no linear(ised) nominal equation of at most %d channels", Name, sys.Name(), maxChannels)
	}
	return &Calibrator{Sys: sys, Eq: eq, Opt: opt}, nil
}

// Name returns "bcpi".
func (*Calibrator) Name() string { return Name }

// Calibrate fits the realization and predicts on the whole grid.
func (c *Calibrator) Calibrate(ctx context.Context, obs sims.Context, side []float64) (core.Prediction, error) {
	f, err := c.Fit(ctx, obs, side)
	if err != nil {
		return core.Prediction{}, err
	}
	return c.predict(ctx, f, side)
}

// Fit is one realization's posterior: the MAP and the kept chain.
type Fit struct {
	MAP     []float64   // unconstrained MAP
	Chain   [][]float64 // kept draws (unconstrained), the chain's second half
	Accept  float64     // the chain's acceptance rate
	ThetaSD []float64
	Theta   []float64 // posterior mean of θ over the kept draws
	model   *model
}

// Fit runs the multi-start MAP search, then the adaptive Metropolis chain
// from the MAP.
func (c *Calibrator) Fit(ctx context.Context, obs sims.Context, side []float64) (*Fit, error) {
	m, err := c.newModel(obs, side)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	opt := c.Opt.withDefaults(m.dims)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x62637069))
	xMAP, err := m.mapSearch(ctx, rng, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	chain, accept, err := m.metropolis(ctx, rng, xMAP, opt.Steps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	f := &Fit{MAP: xMAP, Chain: chain, Accept: accept, model: m}
	P := m.nTheta()
	f.Theta, f.ThetaSD = make([]float64, P), make([]float64, P)
	for _, x := range chain {
		th := m.decode(x).theta
		for p := range P {
			f.Theta[p] += th[p] / float64(len(chain))
		}
	}
	for _, x := range chain {
		th := m.decode(x).theta
		for p := range P {
			d := th[p] - f.Theta[p]
			f.ThetaSD[p] += d * d / float64(len(chain))
		}
	}
	for p := range f.ThetaSD {
		f.ThetaSD[p] = math.Sqrt(f.ThetaSD[p])
	}
	return f, nil
}

// newModel validates the context and sets up the likelihood.
func (c *Calibrator) newModel(obs sims.Context, side []float64) (*model, error) {
	sys := c.Sys
	g := sys.Grid()
	if want := sys.Side().Len; len(side) != want {
		return nil, fmt.Errorf("%d side values, want %d", len(side), want)
	}
	for i, v := range side {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("side value %d is %v", i, v)
		}
	}
	D, C := len(g.StateNames), len(g.Channels)
	m := &model{eq: c.Eq, side: side, dims: D, channels: C, period: make([]float64, 2)}
	for d := range D {
		if g.IsPeriodic(d) {
			m.period[d] = g.Hi[d] - g.Lo[d]
		}
	}
	for _, p := range sys.Params() {
		m.lo, m.hi = append(m.lo, p.Lo), append(m.hi, p.Hi)
	}
	n := obs.Len()
	if len(obs.Values) != n || len(obs.Mask) != n || len(obs.GridIndex) != n {
		return nil, fmt.Errorf("malformed context: %d states, %d values, %d masks, %d grid indices", n, len(obs.Values), len(obs.Mask), len(obs.GridIndex))
	}
	// A prior mean (lv's nominal solution) is known on the grid only.
	m.jitter = physicsJitter
	if usesNominalMean(sys, c.Eq, side) {
		m.nominalMean, m.jitter = sys.Nominal, fieldPhysicsJitter
	}
	m.hasMean = m.priorMean(midBox(m.lo, m.hi)) != nil
	ss := make([]float64, C)
	counts := make([]int, C)
	for i := range n {
		if len(obs.States[i]) != D || len(obs.Values[i]) != C || len(obs.Mask[i]) != C {
			return nil, fmt.Errorf("observation %d has %d state values, %d values and %d mask entries, want %d, %d, %d",
				i, len(obs.States[i]), len(obs.Values[i]), len(obs.Mask[i]), D, C, C)
		}
		for ch := range C {
			if !obs.Mask[i][ch] {
				continue
			}
			v := obs.Values[i][ch]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("observation %d, channel %s is %v", i, g.Channels[ch], v)
			}
			if m.hasMean && (obs.GridIndex[i] < 0 || obs.GridIndex[i] >= g.Points()) {
				return nil, fmt.Errorf("observation %d is not on the grid (grid index %d); BCPI's prior mean for %s is known on the grid only", i, obs.GridIndex[i], sys.Name())
			}
			m.data = append(m.data, datum{state: obs.States[i], grid: obs.GridIndex[i], ch: ch, y: v})
			ss[ch] += v * v
			counts[ch]++
		}
	}
	for ch := range C {
		if counts[ch] < 2 {
			return nil, fmt.Errorf("channel %s has %s, need at least 2", g.Channels[ch], core.Count(counts[ch], "context observation"))
		}
	}
	opt := c.Opt.withDefaults(D)
	m.col = collocation(g, opt.Collocation, opt.Seed)
	// Prior means per channel: the GP at the data's scale with
	// priorLengthScale as length scales, a discrepancy a tenth of that,
	// a noise a hundredth.
	for ch := range C {
		rms := math.Max(math.Sqrt(ss[ch]/float64(counts[ch])), 1e-3)
		m.priorMu = append(m.priorMu, math.Log(m.solutionScale(rms)))
		for d := range D {
			m.priorMu = append(m.priorMu, math.Log(priorLengthScale(g, d)))
		}
		m.priorMu = append(m.priorMu, math.Log(0.1*rms))
		for d := range D {
			m.priorMu = append(m.priorMu, math.Log(priorLengthScale(g, d)))
		}
		m.priorMu = append(m.priorMu, math.Log(0.01*rms))
	}
	return m, nil
}

// solutionScale is the prior mean of the GP's amplitude α given the
// data's root mean square: that scale, or a tenth of it (the
// discrepancy's) when the GP is on the deviation from the nominal
// solution (nominalMean; ours). With the data's scale, the random
// design's hyperparameters let w absorb the misfit of any θ, and the
// best of 20 candidates lay in another basin of v; a single start then
// converged there.
func (m *model) solutionScale(rms float64) float64 {
	if m.nominalMean != nil {
		return 0.1 * rms
	}
	return rms
}

// priorLengthScale is the prior mean of the length scales along state
// dimension d (ours): a fifth of the domain for a system of time alone
// (spring's and lv's trajectories vary over a few such lengths), four
// grid spacings for a field over time and space. advdiff's bumps are
// 0.03 to 0.11 wide and travel at up to 2 domains per unit time, so a
// fifth of the domain (0.2) is far smoother than any solution: there
// the marginal likelihood is dominated by the misfit of an over-smooth
// GP and hardly depends on θ (negative log-likelihood 1.8·10⁶ at every
// θ on nominal data, against a clear minimum near the true θ at 0.06).
func priorLengthScale(g sims.Grid, d int) float64 {
	span := g.Hi[d] - g.Lo[d]
	if len(g.StateNames) == 1 || len(g.Shape) <= d || g.Shape[d] < 2 {
		return span / 5
	}
	return 4 * span / float64(g.Shape[d])
}

// usesNominalMean reports whether BCPI puts the nominal solution
// F(·; θ) from the known initial field as the prior mean of u (ours, as
// for lv): for a field over time and space whose equation has no prior
// mean of its own (advdiff). The constraints are unchanged — L_θ F = 0
// and F(0) = u₀, so L_θ u = 0 and u(0) = u₀ hold exactly when
// L_θ w = 0 and w(0) = 0 for w = u − F — but the prior between the
// collocation states is. With a zero mean, the separable squared
// exponential cannot follow a profile travelling along x − vt: the
// marginal likelihood prefers a GP that varies slowly in t, hence a
// small v, and the discrepancy absorbs the transport (on nominal data
// from v = 1.1, κ = 0.02 the MAP sat at the box's corner v = 0.30,
// κ = 0.0025).
func usesNominalMean(sys sims.System, eq sims.LinearEquations, side []float64) bool {
	if len(sys.Grid().StateNames) < 2 {
		return false
	}
	lo, hi := paramBox(sys)
	return eq.PriorMean(midBox(lo, hi), side) == nil
}

// paramBox returns θ's prior box.
func paramBox(sys sims.System) (lo, hi []float64) {
	for _, p := range sys.Params() {
		lo, hi = append(lo, p.Lo), append(hi, p.Hi)
	}
	return lo, hi
}

// midBox is the centre of θ's prior box.
func midBox(lo, hi []float64) []float64 {
	out := make([]float64, len(lo))
	for i := range lo {
		out[i] = (lo[i] + hi[i]) / 2
	}
	return out
}

// collocation returns n states spread over the grid: evenly spaced
// indices for a one-dimensional grid, a seeded subset otherwise.
func collocation(g sims.Grid, n int, seed uint64) [][]float64 {
	G := g.Points()
	if n >= G {
		return g.States
	}
	out := make([][]float64, n)
	if len(g.StateNames) == 1 {
		for i := range n {
			out[i] = g.States[i*(G-1)/max(1, n-1)]
		}
		return out
	}
	perm := rand.New(rand.NewPCG(seed, 0x636f6c)).Perm(G)
	for i := range n {
		out[i] = g.States[perm[i]]
	}
	return out
}

// candidatesPerStart is how many random points of the design each
// start is chosen from: the likelihood is sharply peaked in θ (the
// collocation constraints hold exactly), so L-BFGS from a uniform θ
// rarely reaches the right basin.
const candidatesPerStart = 20

// startPoints draws candidatesPerStart·starts points (θ uniform over the
// inner 90% of its box, the log hyperparameters around their prior
// means) and returns the starts with the lowest negLogPost (ours: the
// authors start from random points).
func (m *model) startPoints(rng *rand.Rand, starts int) [][]float64 {
	type cand struct {
		x []float64
		v float64
	}
	cands := make([]cand, candidatesPerStart*starts)
	for k := range cands {
		x := make([]float64, m.size())
		for p := range m.nTheta() {
			q := 0.05 + 0.9*rng.Float64()
			x[p] = math.Log(q / (1 - q))
		}
		for i, mu := range m.priorMu {
			x[m.nTheta()+i] = mu + startSpread*rng.NormFloat64()
		}
		cands[k] = cand{x, m.negLogPost(x)}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.v, b.v) })
	out := make([][]float64, starts)
	for i := range out {
		out[i] = cands[i].x
	}
	return out
}

// startSpread is the standard deviation of the starts' log
// hyperparameters around their prior means.
const startSpread = 0.5

// mapSearch minimises negLogPost by L-BFGS from opt.Starts starts
// (startPoints) with the analytic gradient (grad.go), keeping the best.
// The gradient reuses the factorisation of the value at the same point.
func (m *model) mapSearch(ctx context.Context, rng *rand.Rand, opt Options) ([]float64, error) {
	var lastX []float64
	var lastF *factor
	var lastV float64
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			lastV, lastF = m.negLogPostFactor(x)
			lastX = append(lastX[:0], x...)
			return lastV
		},
		Grad: func(grad, x []float64) {
			if lastF == nil || !slices.Equal(x, lastX) {
				lastV, lastF = m.negLogPostFactor(x)
				lastX = append(lastX[:0], x...)
			}
			m.gradAt(grad, x, lastF)
		},
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-5,
		MajorIterations:   opt.MaxIterations,
		FuncEvaluations:   4 * opt.MaxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 5},
	}
	best, bestX := math.Inf(1), []float64(nil)
	for _, x0 := range m.startPoints(rng, opt.Starts) {
		res, _ := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{Store: 10})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if res != nil && res.F < best {
			best, bestX = res.F, append([]float64(nil), res.X...)
		}
	}
	if bestX == nil {
		return nil, fmt.Errorf("no start reached a finite posterior density")
	}
	return bestX, nil
}
