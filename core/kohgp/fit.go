package kohgp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"apic/core"
	"apic/sims"
)

// Options configure a fit. Zero values take the defaults.
type Options struct {
	// Starts is the number of L-BFGS starts (default 8), placed by a
	// Latin hypercube over θ's prior box and the hyperparameter ranges
	// of startPoint.
	Starts int
	// Seed seeds the design of starts; a fit is a deterministic function
	// of the context, the side information and Seed.
	Seed uint64
	// MaxIterations caps L-BFGS major iterations per start (default 500).
	MaxIterations int
}

func (o Options) withDefaults() Options {
	if o.Starts < 1 {
		o.Starts = 8
	}
	if o.MaxIterations < 1 {
		o.MaxIterations = 500
	}
	return o
}

// Name is the method's name in tables and JSON.
const Name = "koh-gp"

// MinContext is the fewest context observations a fit takes: the GP's
// hyperparameters cannot be estimated from one.
const MinContext = 2

// Calibrator is the KOH-GP method for one system. It implements
// core.Method and is safe for concurrent use: each call builds its own
// workspace.
type Calibrator struct {
	Sys sims.System
	Opt Options
}

// New returns a KOH-GP calibrator for sys.
func New(sys sims.System, opt Options) *Calibrator { return &Calibrator{Sys: sys, Opt: opt} }

// Name returns "koh-gp".
func (*Calibrator) Name() string { return Name }

// Calibrate fits the context and predicts on the whole grid.
func (k *Calibrator) Calibrate(ctx context.Context, obs sims.Context, side []float64) (core.Prediction, error) {
	f, err := k.Fit(ctx, obs, side)
	if err != nil {
		return core.Prediction{}, err
	}
	return f.Predict(), nil
}

// Fit is one realization's calibration: the maximum of the marginal
// likelihood over θ and the hyperparameters.
type Fit struct {
	Theta []float64
	// ThetaStd is the Laplace standard deviation at fixed
	// hyperparameters (thetaStd): 0 where the Hessian is not positive
	// definite, and near 0 when θ̂ sits on its prior bound.
	ThetaStd []float64
	Hyper    []Hyper // per channel, in grid channel order
	NLML     float64 // negative log marginal likelihood at the optimum
	// StartNLML is each start's final NLML (+Inf for a start that failed).
	StartNLML []float64
	// Evaluations and Gradients count objective evaluations, all starts.
	Evaluations, Gradients int

	obj *objective
	u   []float64
}

// startRanges of the hyperparameters, relative to the channel's rms s and
// each state dimension's span L, drawn log-uniformly:
//
//	σ_f ∈ [0.03 s, s],   ℓ_d ∈ [L_d/20, L_d],   σ_n ∈ [10⁻³ s, 0.1 s].
//
// θ is drawn uniformly over its prior box, kept a hair inside it.
const (
	startAmpLo, startAmpHi     = 0.03, 1.0
	startScaleLo, startScaleHi = 1.0 / 20, 1.0
	startNoiseLo, startNoiseHi = 1e-3, 0.1
	startBoxMargin             = 1e-3
)

// startPoint maps a point q of the unit hypercube to a starting u.
func startPoint(lay layout, grid sims.Grid, chans []*channel, q []float64) []float64 {
	u := make([]float64, lay.size())
	logMix := func(lo, hi, t float64) float64 { return math.Log(lo) + t*(math.Log(hi)-math.Log(lo)) }
	for p := range lay.nTheta() {
		t := min(max(q[p], startBoxMargin), 1-startBoxMargin)
		u[p] = lay.thetaU(p, lay.lo[p]+t*(lay.hi[p]-lay.lo[p]))
	}
	for c, ch := range chans {
		o := lay.off(c)
		u[o] = logMix(startAmpLo*ch.rms, startAmpHi*ch.rms, q[o])
		for d := range lay.dims {
			span := grid.Hi[d] - grid.Lo[d]
			u[o+1+d] = logMix(startScaleLo*span, startScaleHi*span, q[o+1+d])
		}
		u[o+1+lay.dims] = logMix(startNoiseLo*ch.rms, startNoiseHi*ch.rms, q[o+1+lay.dims])
	}
	return u
}

// channels validates a context and splits it into per-channel data.
// KOH-GP evaluates F on the grid, so every observation must sit on a
// grid point.
func channels(sys sims.System, obs sims.Context, side []float64) ([]*channel, error) {
	g := sys.Grid()
	C := len(g.Channels)
	if want := sys.Side().Len; len(side) != want {
		return nil, fmt.Errorf("%d side values, want %d", len(side), want)
	}
	for i, v := range side {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("side value %d is %v", i, v)
		}
	}
	n := obs.Len()
	if len(obs.Values) != n || len(obs.Mask) != n || len(obs.GridIndex) != n {
		return nil, fmt.Errorf("malformed context: %d states, %d values, %d masks, %d grid indices",
			n, len(obs.Values), len(obs.Mask), len(obs.GridIndex))
	}
	if n < MinContext {
		return nil, fmt.Errorf("need at least %d context observations, got %d", MinContext, n)
	}
	chans := make([]*channel, C)
	for c := range C {
		var values []int
		var states [][]float64
		var y []float64
		for i := range n {
			gi := obs.GridIndex[i]
			if gi < 0 || gi >= g.Points() {
				return nil, fmt.Errorf("observation %d is not on the grid (grid index %d); KOH-GP needs on-grid observations", i, gi)
			}
			if len(obs.Values[i]) != C || len(obs.Mask[i]) != C {
				return nil, fmt.Errorf("observation %d has %d values and %d mask entries, want %d", i, len(obs.Values[i]), len(obs.Mask[i]), C)
			}
			if !obs.Mask[i][c] {
				continue
			}
			v := obs.Values[i][c]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("observation %d, channel %s is %v", i, g.Channels[c], v)
			}
			values = append(values, gi*C+c)
			states = append(states, g.States[gi])
			y = append(y, v)
		}
		if len(y) < 2 {
			return nil, fmt.Errorf("channel %s has %d observations; its GP needs at least 2", g.Channels[c], len(y))
		}
		chans[c] = newChannel(c, values, states, y)
	}
	return chans, nil
}

// Fit maximises the marginal likelihood of the context from Opt.Starts
// Latin-hypercube starts with L-BFGS and keeps the best optimum (the
// first, on ties). ctx is checked before every objective evaluation.
//
// The line search is gonum's default bisection: it backs off from the
// +Inf that a failed factorisation returns, where More–Thuente (about a
// third fewer evaluations on well-behaved starts) was seen to step to NaN
// and never return.
func (k *Calibrator) Fit(ctx context.Context, obs sims.Context, side []float64) (*Fit, error) {
	opt := k.Opt.withDefaults()
	chans, err := channels(k.Sys, obs, side)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	g := k.Sys.Grid()
	lay := newLayout(k.Sys.Params(), len(g.StateNames), len(g.Channels))
	obj := newObjective(k.Sys, side, lay, chans)

	rng := rand.New(rand.NewPCG(opt.Seed, 0x6b6f682d6770))
	design := latinHypercube(rng, opt.Starts, lay.size())

	prob := optimize.Problem{
		Func: obj.value,
		Grad: func(grad, x []float64) { obj.gradient(grad, x) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-6,
		MajorIterations:   opt.MaxIterations,
		// A safety net against a line search that cannot terminate;
		// starts typically need 50–200 evaluations.
		FuncEvaluations: 4 * opt.MaxIterations,
		// Stop a start once 5 consecutive major iterations each gain
		// less than 1e-6: near the optimum a gain δ of the NLML moves θ
		// by about σ_θ·√(2δ), a thousandth of its own standard deviation.
		Converger: &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 5},
	}
	fit := &Fit{NLML: math.Inf(1), obj: obj}
	for _, q := range design {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		u0 := startPoint(lay, g, chans, q)
		// A line-search failure or an iteration limit still leaves the
		// best location found in res, so its error is not fatal; only a
		// start that never reached a finite value is lost.
		res, _ := optimize.Minimize(prob, u0, settings, &optimize.LBFGS{Store: 10})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := math.Inf(1)
		if res != nil && !math.IsNaN(res.F) {
			f = res.F
		}
		fit.StartNLML = append(fit.StartNLML, f)
		if f < fit.NLML {
			fit.NLML = f
			fit.u = append([]float64(nil), res.X...)
		}
	}
	if math.IsInf(fit.NLML, 1) {
		return nil, fmt.Errorf("%s: no start reached a finite marginal likelihood", Name)
	}
	fit.Theta = make([]float64, lay.nTheta())
	lay.theta(fit.Theta, fit.u)
	fit.ThetaStd = obj.thetaStd(fit.u)
	for c := range chans {
		fit.Hyper = append(fit.Hyper, lay.hyper(fit.u, c))
	}
	fit.Evaluations, fit.Gradients = obj.evals, obj.grads
	return fit, nil
}

// hessStep is the central-difference step in u for the θ Hessian.
const hessStep = 1e-4

// thetaStd returns the Laplace standard deviation of θ at u: the inverse
// of the Hessian H of the NLML in θ's unconstrained coordinates at fixed
// hyperparameters (by central differences of the analytic gradient,
// 2P gradient evaluations), mapped to θ by the Jacobian of the logistic
// box map, Cov(θ) = J H⁻¹ J. Zeros when H is not positive definite (a
// saddle or a flat direction, where the Laplace picture does not hold).
func (o *objective) thetaStd(u []float64) []float64 {
	P := o.lay.nTheta()
	std := make([]float64, P)
	up := append([]float64(nil), u...)
	gp, gm := make([]float64, len(u)), make([]float64, len(u))
	H := mat.NewSymDense(P, nil)
	rows := make([][]float64, P)
	for p := range P {
		up[p] = u[p] + hessStep
		o.gradient(gp, up)
		up[p] = u[p] - hessStep
		o.gradient(gm, up)
		up[p] = u[p]
		rows[p] = make([]float64, P)
		for q := range P {
			rows[p][q] = (gp[q] - gm[q]) / (2 * hessStep)
		}
	}
	for p := range P {
		for q := p; q < P; q++ {
			H.SetSym(p, q, 0.5*(rows[p][q]+rows[q][p]))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(H) {
		return std
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		// Only a Condition warning: a near-flat direction whose Laplace
		// standard deviation would be meaningless.
		return std
	}
	jac := make([]float64, P)
	o.lay.thetaJac(jac, u)
	for p := range P {
		if v := cov.At(p, p); v > 0 {
			std[p] = jac[p] * math.Sqrt(v)
		}
	}
	return std
}

var _ core.Method = (*Calibrator)(nil)
