package sims

import (
	"math"
	"math/rand/v2"

	"apic/nets"
)

func init() { Register(newLotkaVolterra()) }

// lotkaVolterra is the Lotka–Volterra benchmark of BENCHMARKS.md §2.
//
//	Nominal:  x' = α x − β x y,         y' = η x y − γ y,
//	Truth:    x' = α x − β x y + d(t),  y' = η x y − γ y,
//
// with (x, y)(0) = u0 known and the prey forcing d of LVTrueForcing. Both
// are integrated by classical RK4 with LVDataSubsteps sub-steps per grid
// interval. The model's discrepancy form is a learned prey forcing inside
// the same (differentiable) RK4 integrator.
type lotkaVolterra struct {
	grid    Grid
	data    lvScheme // the data integrator
	queries [][]float64
	knots   *nets.Tensor // grid-time → stage-time interpolation
	band    *knotBand    // knots' band form, for the closure's tangent
	bumps   lvBumpTable  // the truth's bumps at the data integrator's stage times
}

// lvAliases are the other names lv's observation files may give its
// columns: time, predators, and x and y together, the populations' names
// in its equations (Formulas: x prey, y predator; u0 is x0,y0).
var lvAliases = []ColumnAlias{
	timeAlias,
	{Alias: "predators", Column: "predator"},
	{Alias: "x", Column: "prey", Paired: true},
	{Alias: "y", Column: "predator", Paired: true},
}

func newLotkaVolterra() *lotkaVolterra {
	states := make([][]float64, lvIntervals+1)
	for j := range states {
		states[j] = []float64{lvHorizon * float64(j) / lvIntervals}
	}
	data := newLVScheme(LVDataSubsteps, lvIntervals, lvHorizon/lvIntervals)
	knots := lvKnotInterpolation(LVModelSubsteps)
	return &lotkaVolterra{
		grid: Grid{
			StateNames: []string{"t"},
			Channels:   []string{"prey", "predator"},
			States:     states,
			Lo:         []float64{0},
			Hi:         []float64{lvHorizon},
			Aliases:    lvAliases,
		},
		data:    data,
		queries: states,
		knots:   knots,
		band:    newKnotBand(knots),
		bumps:   newLVBumpTable(data.stageTimes(), LVForcingBumps),
	}
}

// lvKnotInterpolation is the [grid points, stage times] matrix A of linear
// interpolation from forcing values at the grid times (the knots where
// f_ψ is evaluated) to every RK4 stage time: forcing = f·A. The forcing
// is smooth on the grid spacing, so this loses little (the interpolation
// error is O(Δt² f”)) and cuts f_ψ's work by 2·substeps.
func lvKnotInterpolation(substeps int) *nets.Tensor {
	taus := LVStageTimes(substeps)
	a := nets.NewTensor(lvIntervals+1, len(taus))
	per := 2 * substeps // stage-time lattice points per grid interval
	for m := range taus {
		k, r := m/per, m%per
		if k >= lvIntervals {
			a.Set(lvIntervals, m, 1)
			continue
		}
		w := float64(r) / float64(per)
		a.Set(k, m, 1-w)
		a.Set(k+1, m, w)
	}
	return a
}

func (*lotkaVolterra) Name() string  { return "lv" }
func (*lotkaVolterra) Title() string { return "Lotka-Volterra" }

func (*lotkaVolterra) Formulas() []string {
	return []string{
		"F: x′ = αx − βxy,  y′ = ηxy − γy,  (x, y)(0) = u0  (x prey, y predator)",
		"G: x′ = αx − βxy + d(t), y′ as F;  d(t) = (1 − e^(−t))·Σₖ wₖ·e^(−(t − cₖ)²/2) ≥ 0, wₖ from θ, u0",
		"δ = G − F: the populations' response to the prey forcing d that F leaves out",
	}
}

func (*lotkaVolterra) Params() []Param {
	return []Param{
		{Name: "alpha", Lo: 0.5, Hi: 1.5, Symbol: "α"},
		{Name: "beta", Lo: 0.5, Hi: 1.5, Symbol: "β"},
		{Name: "eta", Lo: 0.5, Hi: 1.5, Symbol: "η"},
		{Name: "gamma", Lo: 0.5, Hi: 1.5, Symbol: "γ"},
	}
}

func (s *lotkaVolterra) Grid() Grid { return s.grid }

func (*lotkaVolterra) Side() SideInfo {
	return SideInfo{Name: "u0", Len: 2, Labels: []string{"x0", "y0"}, Meaning: "prey and predator at t = 0", Lo: 0.7, Hi: 1.8, Positive: true}
}

func (*lotkaVolterra) TrainContext() (lo, hi int) { return 20, 100 }
func (*lotkaVolterra) TestContext() int           { return 30 }

// SampleTheta draws α, β, η, γ in that order.
func (s *lotkaVolterra) SampleTheta(rng *rand.Rand) []float64 {
	ps := s.Params()
	th := make([]float64, len(ps))
	for i, p := range ps {
		th[i] = p.Lo + (p.Hi-p.Lo)*rng.Float64()
	}
	return th
}

// SampleSide draws x0 then y0.
func (s *lotkaVolterra) SampleSide(rng *rand.Rand) []float64 {
	si := s.Side()
	u0 := make([]float64, si.Len)
	for i := range u0 {
		u0[i] = si.Lo + (si.Hi-si.Lo)*rng.Float64()
	}
	return u0
}

func (s *lotkaVolterra) Nominal(theta, side []float64) []float64 {
	out := make([]float64, s.grid.Size())
	s.data.integrate(1, theta, side, nil, out, nil)
	return out
}

func (s *lotkaVolterra) True(theta, side []float64) []float64 {
	out := make([]float64, s.grid.Size())
	w := LVForcingWeights(theta, side)
	d := s.bumps.forcing(w[:])
	s.data.integrate(1, theta, side, d, out, nil)
	return out
}

// Valid rejects true trajectories that leave [0.01, 10] (or are not
// finite).
func (*lotkaVolterra) Valid(trueValues []float64) bool {
	for _, v := range trueValues {
		if !(v >= 0.01 && v <= 10) {
			return false
		}
	}
	return true
}

// NominalOp integrates the nominal system with LVModelSubsteps sub-steps.
func (*lotkaVolterra) NominalOp(tp *nets.Tape, theta *nets.Var, side *nets.Tensor) *nets.Var {
	return tp.Apply(NewLVRK4(LVModelSubsteps), theta, tp.Const(side))
}

func (s *lotkaVolterra) Closure() Closure {
	return lvForcingClosure{queries: s.queries, knots: s.knots, band: s.band}
}

// EncodeContext writes per observation
// [t/5 − 1, prey·mask, predator·mask, maskPrey, maskPredator, x0, y0]
// followed by the invariant features of lvInvariantFeatures and the
// whole context's regression estimates of θ (lvRegression), the same in
// every row.
func (s *lotkaVolterra) EncodeContext(dst *nets.Tensor, ctx Context, side []float64) {
	var reg [lvRegressionLen]float64
	lvRegressionFeatures(reg[:], lvRegression(ctx, side), s.Params())
	for i, st := range ctx.States {
		row := dst.Row(i)
		lvFeatures(row, st[0], ctx.Values[i], ctx.Mask[i], side)
		lvInvariantFeatures(row[7:], st[0], ctx.Values[i], ctx.Mask[i], side)
		copy(row[7+lvInvariantLen:], reg[:])
	}
}

// lvInvariantLen is the number of lvInvariantFeatures.
const lvInvariantLen = 4 + 10 + 4

func (*lotkaVolterra) FeatureLen() int { return 7 + lvInvariantLen + lvRegressionLen }

// lvInvariantFeatures are physics-informed features from the first
// integral of the nominal Lotka–Volterra system,
//
//	V(x, y) = η x − γ ln x + β y − α ln y,   V(x(t), y(t)) = V(x0, y0).
//
// For an observation with both channels, a = (−Δln y, Δy, Δx, −Δln x)
// (differences from the known initial state) satisfies a·(α, β, η, γ) = 0,
// so the set mean of the products a aᵀ (10 unique entries) is a matrix
// whose null direction is θ's direction; a/t adds the time scale. The
// prey forcing of the true process perturbs these relations only mildly,
// which is exactly what the discrepancy path has to explain. Missing
// channels give zeros.
func lvInvariantFeatures(dst []float64, t float64, vals []float64, mask []bool, side []float64) {
	clear(dst[:lvInvariantLen])
	if !mask[0] || !mask[1] {
		return
	}
	const floor = 1e-3
	x, y := math.Max(vals[0], floor), math.Max(vals[1], floor)
	a := [4]float64{
		-(math.Log(y) - math.Log(side[1])),
		y - side[1],
		x - side[0],
		-(math.Log(x) - math.Log(side[0])),
	}
	copy(dst[:4], a[:])
	k := 4
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			dst[k] = a[i] * a[j]
			k++
		}
	}
	inv := 1 / math.Max(t, 0.1)
	for i := 0; i < 4; i++ {
		dst[14+i] = a[i] * inv
	}
}

func (*lotkaVolterra) QueryFeatures(dst, state []float64) { dst[0] = lvTimeFeature(state[0]) }
func (*lotkaVolterra) QueryFeatureLen() int               { return 1 }

// lvTimeFeature maps t ∈ [0, 10] to [−1, 1].
func lvTimeFeature(t float64) float64 { return t/5 - 1 }

// lvFeatures is the encoder input of one observation; unobserved channels
// are zeroed and flagged by the mask features.
func lvFeatures(dst []float64, t float64, vals []float64, mask []bool, side []float64) {
	dst[0] = lvTimeFeature(t)
	for c := range 2 {
		if mask[c] {
			dst[1+c] = vals[c]
			dst[3+c] = 1
		} else {
			dst[1+c] = 0
			dst[3+c] = 0
		}
	}
	dst[5], dst[6] = side[0], side[1]
}

// LVTrueForcing evaluates the hidden prey forcing of the true process at
// the given times:
//
//	d(t) = (1 − e^{−t}) Σ_{k=0..5} w_k exp(−(t − c_k)²/2),  c_k = 1 + 8k/5,
//
// with the weights w of LVForcingWeights. d(0) = 0 and d ≥ 0.
func LVTrueForcing(theta, side, times []float64) []float64 {
	w := LVForcingWeights(theta, side)
	return LVBumpForcing(w[:], times)
}

// LVForcingBumps is the number of bumps K of the true forcing.
const LVForcingBumps = 6

// LVForcingWeights is the true forcing's fixed map from a realization to
// its bump weights,
//
//	w_k = 0.1 (1 + tanh(s_k)),
//	s_k = Σ_{j=1..6} 0.8 sin(1.7(k+1) + 2.3 j) f_j + 0.2 cos(3.1(k+1)),
//
// with f = (log α, log β, log η, log γ, x0, y0).
func LVForcingWeights(theta, side []float64) [LVForcingBumps]float64 {
	f := [6]float64{
		math.Log(theta[0]), math.Log(theta[1]), math.Log(theta[2]), math.Log(theta[3]),
		side[0], side[1],
	}
	var w [LVForcingBumps]float64
	for k := range w {
		kk := float64(k + 1)
		sk := 0.2 * math.Cos(3.1*kk)
		for j := 1; j <= 6; j++ {
			sk += 0.8 * math.Sin(1.7*kk+2.3*float64(j)) * f[j-1]
		}
		w[k] = 0.1 * (1 + math.Tanh(sk))
	}
	return w
}

// LVBumpForcing is d(t) = (1 − e^{−t}) Σ_k w_k exp(−(t − c_k)²/2),
// c_k = 1 + 8k/5 (k = 0..len(w)−1; the truth has LVForcingBumps), for
// any weights w at the given times.
func LVBumpForcing(w, times []float64) []float64 {
	return newLVBumpTable(times, len(w)).forcing(w)
}

// lvBumpTable holds the factors of LVBumpForcing that do not depend on
// the weights, at fixed times: the ramp 1 − e^{−t} and the bumps
// exp(−(t − c_k)²/2). Drawing a true trajectory then costs no
// exponential (they were a sixth of lv's training time), and the sums
// run in the same order, so the forcing is the same to the last bit.
type lvBumpTable struct {
	ramp  []float64 // [T]
	bumps []float64 // [T, K]
	k     int
}

func newLVBumpTable(times []float64, k int) lvBumpTable {
	tb := lvBumpTable{ramp: make([]float64, len(times)), bumps: make([]float64, len(times)*k), k: k}
	for i, t := range times {
		tb.ramp[i] = -math.Expm1(-t)
		for j := range k {
			r := t - (1 + 8*float64(j)/5)
			tb.bumps[i*k+j] = math.Exp(-r * r / 2)
		}
	}
	return tb
}

// forcing evaluates d at the table's times for weights w (len(w) = K).
func (tb lvBumpTable) forcing(w []float64) []float64 {
	d := make([]float64, len(tb.ramp))
	for i, ramp := range tb.ramp {
		var sum float64
		for j, wj := range w {
			sum += wj * tb.bumps[i*tb.k+j]
		}
		d[i] = ramp * sum
	}
	return d
}

// lvForcingClosure is the "forcing" discrepancy form: f_ψ(t) is an
// additive prey forcing evaluated at the grid times and interpolated
// linearly to the model integrator's stage times.
type lvForcingClosure struct {
	queries [][]float64
	knots   *nets.Tensor
	band    *knotBand // knots' band form (nil: the dense product)
}

func (lvForcingClosure) Name() string { return "forcing" }
func (lvForcingClosure) Doc() string {
	return "f(t) is a prey forcing: x' = αx − βxy + f(t), integrated by RK4"
}
func (c lvForcingClosure) Queries() [][]float64 { return c.queries }
func (lvForcingClosure) Outputs() int           { return 1 }

// Apply integrates the forced system; f [B·K, 1] (K grid-time knots) is
// realization-major, the row-major layout of [B, K].
func (c lvForcingClosure) Apply(tp *nets.Tape, theta *nets.Var, side *nets.Tensor, f *nets.Var) *nets.Var {
	b := theta.Value.Rows
	forcing := tp.MatMul(tp.Reshape(f, b, c.knots.Rows), tp.Const(c.knots), false, false)
	return tp.Apply(NewLVRK4(LVModelSubsteps), theta, tp.Const(side), forcing)
}

func (lvForcingClosure) Clipped([]float64) bool { return false }

// Hints follow the paper's appendix A budget (3000 + 4000 steps, batch
// 64; f_ψ width 128). Each latent sample integrates the corrected ODE, so
// interactive use draws 8.
func (*lotkaVolterra) Hints() Hints {
	return Hints{Hidden: 128, Latent: 16, DecHidden: 128, Steps1: 3000, Steps2: 4000, Batch: 64, InteractiveSamples: 8}
}

// ChannelBounds: both channels are population sizes, never negative.
func (*lotkaVolterra) ChannelBounds() (lo, hi []float64) {
	return []float64{0, 0}, []float64{math.Inf(1), math.Inf(1)}
}

// SideFeatureLen and SideFeatures hand the initial state (x0, y0) to the
// discrepancy network: the hidden forcing's weights depend on it.
func (*lotkaVolterra) SideFeatureLen() int { return 2 }

// SideFeatures centres u0 on its prior range.
func (*lotkaVolterra) SideFeatures(dst, side []float64) {
	dst[0], dst[1] = side[0]-1.25, side[1]-1.25
}
