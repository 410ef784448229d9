package sims

import (
	"fmt"
	"math"
	"math/rand/v2"

	"apic/nets"
)

func init() { Register(newAdvDiff()) }

var (
	_ System  = (*advDiff)(nil)
	_ Closure = advdiffReaction{}
	_ nets.Op = reactionRateOp{}
	_ nets.Op = (*spectralOp)(nil)
)

// The advdiff grid: x_i = i/advdiffNX on the periodic unit interval and
// t_n = n/(advdiffNT − 1).
const (
	advdiffNX = 64
	advdiffNT = 64
	// advdiffVelocities is the number of candidate velocities along which
	// EncodeContext transports the initial field.
	advdiffVelocities = 8
)

// ReactionRateMax bounds the reaction rate of the "reaction" closure:
// c = ReactionRateMax·sigmoid(f) lies in (0, 2), wide enough for the true
// law's range [0.36, 1] with room on both sides.
const ReactionRateMax = 2.0

// advdiffSolver is the spectral solver on the advdiff grid.
var advdiffSolver = newSpectralSolver(advdiffNX, advdiffNT, 1.0/(advdiffNT-1))

// advdiffCandidates are the candidate velocities v_j of EncodeContext,
// evenly spaced over the prior range [0.3, 2.0].
var advdiffCandidates = func() []float64 {
	vs := make([]float64, advdiffVelocities)
	for j := range vs {
		vs[j] = 0.3 + (2.0-0.3)*float64(j)/(advdiffVelocities-1)
	}
	return vs
}()

// advDiff is the advection-diffusion benchmark of BENCHMARKS.md §3 on the
// periodic unit interval:
//
//	Nominal:  u_t + v u_x = κ u_xx
//	Truth:    u_t + v u_x = κ u_xx − c(θ) u,
//	          c(θ) = min(softplus(0.5 log v − 0.3 log κ − 1), 1),
//
// both solved exactly in Fourier space (see spectralSolver) from the known
// initial field u0, the side information. The model's discrepancy form is
// the "reaction" closure: f_ψ predicts the reaction rate fed to the same
// spectral solver.
type advDiff struct {
	grid Grid
}

func newAdvDiff() *advDiff {
	states := make([][]float64, advdiffNT*advdiffNX)
	for n := range advdiffNT {
		t := float64(n) / (advdiffNT - 1)
		for i := range advdiffNX {
			states[n*advdiffNX+i] = []float64{t, float64(i) / advdiffNX}
		}
	}
	return &advDiff{grid: Grid{
		StateNames: []string{"t", "x"},
		Channels:   []string{"u"},
		States:     states,
		Lo:         []float64{0, 0},
		Hi:         []float64{1, 1},
		Shape:      []int{advdiffNT, advdiffNX},
		Periodic:   []bool{false, true},
		Aliases:    []ColumnAlias{timeAlias},
	}}
}

func (*advDiff) Name() string  { return "advdiff" }
func (*advDiff) Title() string { return "Advection-diffusion" }

func (*advDiff) Formulas() []string {
	return []string{
		"F: u_t + v·u_x = κ·u_xx on periodic x ∈ [0, 1),  u(0, x) = u0(x)",
		"G: u_t + v·u_x = κ·u_xx − c·u,  c = min(softplus(0.5 ln v − 0.3 ln κ − 1), 1)",
		"δ = G − F: the decay of the sink c·u that F leaves out",
	}
}

func (*advDiff) Params() []Param {
	return []Param{{Name: "v", Lo: 0.3, Hi: 2.0, Symbol: "v"}, {Name: "kappa", Lo: 0.002, Hi: 0.08, Symbol: "κ"}}
}

func (s *advDiff) Grid() Grid { return s.grid }

// Side is the initial field u0 at the 64 grid points; draws lie in
// [0.2, 1] with maximum 1.
func (*advDiff) Side() SideInfo {
	return SideInfo{Name: "u0", Len: advdiffNX, Meaning: "u at t = 0 at each grid position x", Lo: 0, Hi: 1.0}
}

func (*advDiff) TrainContext() (lo, hi int) { return 100, 500 }
func (*advDiff) TestContext() int           { return 256 }

// SampleTheta draws v, then κ.
func (s *advDiff) SampleTheta(rng *rand.Rand) []float64 {
	ps := s.Params()
	theta := make([]float64, len(ps))
	for i, p := range ps {
		theta[i] = p.Lo + (p.Hi-p.Lo)*rng.Float64()
	}
	return theta
}

// advdiffBump is one periodic Gaussian bump of the initial field.
type advdiffBump struct{ amp, centre, width float64 }

// SampleSide draws 2 or 3 bumps (equally likely), each as amplitude
// U(0.3, 1.3), centre U(0, 1), width U(0.03, 0.11) in that order, and
// returns their rescaled sum (advdiffInitial).
func (*advDiff) SampleSide(rng *rand.Rand) []float64 {
	bumps := make([]advdiffBump, 2+rng.IntN(2))
	for i := range bumps {
		bumps[i].amp = 0.3 + 1.0*rng.Float64()
		bumps[i].centre = rng.Float64()
		bumps[i].width = 0.03 + 0.08*rng.Float64()
	}
	return advdiffInitial(bumps)
}

// advdiffInitial evaluates the initial field of bumps on the grid:
//
//	s(x) = Σ a exp(−d²/(2σ²)),  d = min(|x − c|, 1 − |x − c|),
//	u0   = 0.2 + 0.8 s/max(s),
//
// so that u0 ∈ [0.2, 1] with maximum exactly 1.
func advdiffInitial(bumps []advdiffBump) []float64 {
	u0 := make([]float64, advdiffNX)
	top := math.Inf(-1)
	for i := range u0 {
		x := float64(i) / advdiffNX
		var s float64
		for _, b := range bumps {
			d := math.Abs(x - b.centre)
			d = math.Min(d, 1-d)
			s += b.amp * math.Exp(-d*d/(2*b.width*b.width))
		}
		u0[i] = s
		top = math.Max(top, s)
	}
	for i, s := range u0 {
		// For s/top a hair below 1 the sum can round up past 1; the min
		// keeps the range [0.2, 1] exact (s = top still gives exactly 1).
		u0[i] = math.Min(0.2+0.8*s/top, 1)
	}
	return u0
}

// ReactionRate is the true sink rate of the advdiff system,
//
//	c(v, κ) = min(softplus(0.5 log v − 0.3 log κ − 1), 1),
//
// which lies in [0.357, 1] over the prior.
func ReactionRate(v, kappa float64) float64 {
	return math.Min(advdiffSoftplus(0.5*math.Log(v)-0.3*math.Log(kappa)-1), 1)
}

// advdiffSoftplus is log(1 + eˣ), computed without overflow.
func advdiffSoftplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Nominal solves u_t + v u_x = κ u_xx on the grid.
func (s *advDiff) Nominal(theta, side []float64) []float64 {
	return advdiffSolve(theta, side, 0)
}

// True solves u_t + v u_x = κ u_xx − c(θ) u on the grid.
func (s *advDiff) True(theta, side []float64) []float64 {
	return advdiffSolve(theta, side, ReactionRate(theta[0], theta[1]))
}

// advdiffSolve returns the grid solution (t-major) with reaction rate c.
func advdiffSolve(theta, side []float64, c float64) []float64 {
	sv := advdiffSolver
	if len(theta) != 2 || len(side) != sv.nx {
		panic(fmt.Sprintf("sims: advdiff needs θ of 2 and u0 of %d values, got %d and %d", sv.nx, len(theta), len(side)))
	}
	out := make([]float64, sv.nt*sv.nx)
	uhat := make([]complex128, sv.modes())
	ws := sv.work()
	defer sv.release(ws)
	sv.transform(ws, uhat, side)
	sv.solve(ws, out, uhat, theta[0], theta[1], c)
	return out
}

// Valid is always true: every draw is acceptable.
func (*advDiff) Valid([]float64) bool { return true }

// NominalOp is the spectral solver with no reaction (c = 0, a constant),
// theta [B, 2] = (v, κ) and side [B, 64] the initial fields.
func (*advDiff) NominalOp(tp *nets.Tape, theta *nets.Var, side *nets.Tensor) *nets.Var {
	zero := tp.Const(nets.NewTensor(theta.Value.Rows, 1))
	return SpectralSolve(tp, theta, zero, tp.Const(side))
}

func (*advDiff) Closure() Closure { return advdiffReaction{} }

// EncodeContext writes, per observation at (t, x) with value u,
//
//	[2t − 1, sin 2πx, cos 2πx, u, u0(x − v_1 t), …, u0(x − v_8 t)],
//
// the last eight the initial field transported back along the candidate
// velocities v_j evenly spaced over [0.3, 2.0]: for the right v the
// transported field is the nominal solution without diffusion, which makes
// v readable from the context. u0 is evaluated off the grid by its
// (periodic, band-limited) Fourier series, so observations may lie
// anywhere in [0, 1] × [0, 1). Matched-filter features against the
// transported fields follow (matchedFeatures): their set means profile the
// squared error over the candidate velocities, and diffusion shows as the
// error that remains at the best one.
func (s *advDiff) EncodeContext(dst *nets.Tensor, ctx Context, side []float64) {
	if dst.Rows != ctx.Len() || dst.Cols != s.FeatureLen() {
		panic(fmt.Sprintf("sims: advdiff EncodeContext dst %s for %d observations, want %d features", dst.Shape(), ctx.Len(), s.FeatureLen()))
	}
	if len(side) != advdiffNX {
		panic(fmt.Sprintf("sims: advdiff EncodeContext with %d side values, want %d", len(side), advdiffNX))
	}
	uhat := advdiffSpectrum(side)
	for i, st := range ctx.States {
		t, x := st[0], st[1]
		row := dst.Row(i)
		row[0] = 2*t - 1
		row[1], row[2] = math.Sincos(2 * math.Pi * x)
		row[3] = ctx.Values[i][0]
		var cand [advdiffVelocities]float64
		for j, v := range advdiffCandidates {
			cand[j] = advdiffSeries(uhat, x-v*t, 0)
			row[4+j] = cand[j]
		}
		matchedFeatures(row[4+advdiffVelocities:], row[3], cand[:])
	}
}

func (*advDiff) FeatureLen() int { return 4 + 3*advdiffVelocities }

// QueryFeatures maps a (t, x) state to [2t − 1, sin 2πx, cos 2πx] (x is
// periodic). The native reaction closure is state-independent (its single
// query has an empty state and reads no features); these serve the
// generic additive and multiplicative forms, which query every grid state.
func (*advDiff) QueryFeatures(dst, state []float64) {
	dst[0] = 2*state[0] - 1
	dst[1] = math.Sin(2 * math.Pi * state[1])
	dst[2] = math.Cos(2 * math.Pi * state[1])
}
func (*advDiff) QueryFeatureLen() int { return 3 }

// advdiffSpectrum returns û/64, the normalised half spectrum of u0.
func advdiffSpectrum(u0 []float64) []complex128 {
	sv := advdiffSolver
	uhat := make([]complex128, sv.modes())
	ws := sv.work()
	sv.transform(ws, uhat, u0)
	sv.release(ws)
	return uhat
}

// advdiffSeries evaluates the band-limited periodic interpolant of the
// advdiff grid with normalised half spectrum uhat, each mode damped by
// exp(−κt·k²):
//
//	Re[ Σ_m w_m (û_m/64) exp(−κt k_m²) e^{i k_m y} ],  k_m = 2π m, m = 0..31, −32,
//
// the same Re-of-the-full-sum convention as the grid solver (at grid points
// it reproduces the inverse FFT). The powers e^{2πi m y} come from one
// sincos by recurrence (error ~m ulp).
func advdiffSeries(uhat []complex128, y, kappaT float64) float64 {
	sv := advdiffSolver
	sin, cos := math.Sincos(2 * math.Pi * y)
	z := complex(cos, sin)
	zm := complex(1, 0)
	var sum float64
	last := len(uhat) - 1
	for m := range last {
		a := uhat[m] * zm
		if kappaT != 0 {
			a *= complex(math.Exp(-kappaT*sv.k[m]*sv.k[m]), 0)
		}
		sum += sv.w[m] * real(a)
		zm *= z
	}
	// Nyquist: signed index −32, e^{−i 64π y} = conj(z^32).
	a := uhat[last] * complex(real(zm), -imag(zm))
	if kappaT != 0 {
		a *= complex(math.Exp(-kappaT*sv.k[last]*sv.k[last]), 0)
	}
	return sum + sv.w[last]*real(a)
}

// AdvDiffField is the exact advdiff solution with reaction rate c at any
// (t, x), by the Fourier series of the initial field:
//
//	u(t, x) = e^{−ct} Re[ Σ_m w_m (û_m/64) e^{−κ k_m² t} e^{i k_m (x − v t)} ].
//
// It agrees with the grid solution at grid points. Use c = 0 for the
// nominal process and c = ReactionRate(v, κ) for the truth.
type AdvDiffField struct {
	v, kappa, c float64
	uhat        []complex128
}

// NewAdvDiffField returns the solution for θ = (v, κ), initial field u0
// (64 values at x_i = i/64) and reaction rate c.
func NewAdvDiffField(theta, u0 []float64, c float64) (*AdvDiffField, error) {
	if len(theta) != 2 {
		return nil, fmt.Errorf("advdiff field: θ has %d values, want 2 (v, kappa)", len(theta))
	}
	if len(u0) != advdiffNX {
		return nil, fmt.Errorf("advdiff field: initial field has %d values, want %d", len(u0), advdiffNX)
	}
	return &AdvDiffField{v: theta[0], kappa: theta[1], c: c, uhat: advdiffSpectrum(u0)}, nil
}

// At evaluates u(t, x); x is taken periodically.
func (f *AdvDiffField) At(t, x float64) float64 {
	return math.Exp(-f.c*t) * advdiffSeries(f.uhat, x-f.v*t, f.kappa*t)
}

// advdiffReaction is the "reaction" closure: f_ψ (one value per
// realization, state-independent) sets the reaction rate
//
//	c = ReactionRateMax · sigmoid(f) ∈ (0, 2)
//
// of u_t + v̂ u_x = κ̂ u_xx − c u, solved by the same spectral solver as
// the nominal process.
type advdiffReaction struct{}

func (advdiffReaction) Name() string { return "reaction" }
func (advdiffReaction) Doc() string {
	return "f_ψ sets the reaction (sink) rate c = 2·sigmoid(f) of u_t + v u_x = κ u_xx − c u"
}
func (advdiffReaction) Queries() [][]float64 { return [][]float64{{}} }
func (advdiffReaction) Outputs() int         { return 1 }

// Apply solves with θ̂ = theta [B, 2], u0 = side [B, 64] and
// c = ReactionRateMax·sigmoid(f), f [B, 1].
func (advdiffReaction) Apply(tp *nets.Tape, theta *nets.Var, side *nets.Tensor, f *nets.Var) *nets.Var {
	c := tp.Apply(reactionRateOp{}, f)
	return SpectralSolve(tp, theta, c, tp.Const(side))
}

// Clipped reports a rate within 2% of either end of (0, ReactionRateMax).
func (advdiffReaction) Clipped(f []float64) bool {
	c := ReactionRateMax * advdiffSigmoid(f[0])
	return c > 0.98*ReactionRateMax || c < 0.02*ReactionRateMax
}

func advdiffSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// reactionRateOp maps f [B, 1] to c = ReactionRateMax·sigmoid(f):
//
//	dc/df = ReactionRateMax·σ(1 − σ) = c (1 − c/ReactionRateMax).
type reactionRateOp struct{}

func (reactionRateOp) Forward(inputs []*nets.Tensor) *nets.Tensor {
	f := inputs[0]
	if f.Cols != 1 {
		panic(fmt.Sprintf("sims: reaction closure f %s, want [B, 1]", f.Shape()))
	}
	c := nets.NewTensor(f.Rows, 1)
	for i, v := range f.Data {
		c.Data[i] = ReactionRateMax * advdiffSigmoid(v)
	}
	return c
}

func (reactionRateOp) Backward(_ []*nets.Tensor, output, outGrad *nets.Tensor, inGrads []*nets.Tensor) {
	if inGrads[0] == nil {
		return
	}
	for i, c := range output.Data {
		inGrads[0].Data[i] += outGrad.Data[i] * c * (1 - c/ReactionRateMax)
	}
}

// Hints follow the paper's appendix A budget (4000 + 10000 steps, batch
// 64).
func (*advDiff) Hints() Hints {
	return Hints{Hidden: 128, Latent: 16, DecHidden: 128, Steps1: 4000, Steps2: 10000, Batch: 64}
}
