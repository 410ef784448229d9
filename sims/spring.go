package sims

import (
	"fmt"
	"math"
	"math/rand/v2"

	"apic/nets"
)

func init() { Register(newSpring()) }

// The spring grid: t_j = springHorizon·j/(springPoints − 1).
const (
	springPoints  = 100
	springHorizon = 4.0
	springDamping = 0.15 // true envelope exp(−springDamping·ω t)
)

// spring is the damped-spring benchmark of BENCHMARKS.md §1.
//
//	Nominal:  F(t; ω) = sin(ω t)   (solves ü + ω² u = 0, u(0) = 0, u̇(0) = ω)
//	Truth:    G(t; ω) = sin(ω t) exp(−0.15 ω t)
//
// The model's discrepancy form is a multiplicative envelope
// m(t) = exp(f(t)) applied to the nominal.
type spring struct {
	grid  Grid
	times []float64
	// gridSin[j·springCandidates + c] is sin(ω_c t_j), the matched
	// filter's candidates at the grid times (EncodeContext's sines for
	// observations on the grid, which is where contexts usually sit).
	gridSin []float64
}

func newSpring() *spring {
	states := make([][]float64, springPoints)
	times := make([]float64, springPoints)
	for j := range states {
		times[j] = springHorizon * float64(j) / (springPoints - 1)
		states[j] = []float64{times[j]}
	}
	gridSin := make([]float64, springPoints*springCandidates)
	for j, t := range times {
		springCandidateSines(gridSin[j*springCandidates:(j+1)*springCandidates], t)
	}
	return &spring{
		gridSin: gridSin,
		grid: Grid{
			StateNames: []string{"t"},
			Channels:   []string{"y"},
			Aliases:    []ColumnAlias{timeAlias},
			States:     states,
			Lo:         []float64{0},
			Hi:         []float64{springHorizon},
		},
		times: times,
	}
}

func (*spring) Name() string  { return "spring" }
func (*spring) Title() string { return "Damped spring" }

// Formulas prints the damping from springDamping, so that the text
// cannot drift from the law True computes.
func (*spring) Formulas() []string {
	envelope := fmt.Sprintf("e^(−%gωt)", springDamping)
	return []string{
		"F(t) = sin(ωt)  (undamped: ü + ω²u = 0, u(0) = 0, u̇(0) = ω)",
		"G(t) = sin(ωt)·" + envelope + "  (damped)",
		"δ(t) = G − F = sin(ωt)·(" + envelope + " − 1), the damping F leaves out",
	}
}

func (*spring) Params() []Param { return []Param{{Name: "omega", Lo: 3, Hi: 8, Symbol: "ω"}} }

func (s *spring) Grid() Grid { return s.grid }

func (*spring) Side() SideInfo { return SideInfo{} }

func (*spring) TrainContext() (lo, hi int) { return 15, 100 }
func (*spring) TestContext() int           { return 30 }

func (s *spring) SampleTheta(rng *rand.Rand) []float64 {
	p := s.Params()[0]
	return []float64{p.Lo + (p.Hi-p.Lo)*rng.Float64()}
}

// SampleSide returns nil and consumes no randomness: there is no side
// information.
func (*spring) SampleSide(*rand.Rand) []float64 { return nil }

func (s *spring) Nominal(theta, _ []float64) []float64 {
	out := make([]float64, len(s.times))
	for j, t := range s.times {
		out[j] = math.Sin(theta[0] * t)
	}
	return out
}

func (s *spring) True(theta, _ []float64) []float64 {
	w := theta[0]
	out := make([]float64, len(s.times))
	for j, t := range s.times {
		out[j] = math.Sin(w*t) * math.Exp(-springDamping*w*t)
	}
	return out
}

func (*spring) Valid([]float64) bool { return true }

func (s *spring) NominalOp(tp *nets.Tape, theta *nets.Var, _ *nets.Tensor) *nets.Var {
	return tp.Apply(newSpringOp(s.times), theta)
}

func (s *spring) Closure() Closure {
	var knots []float64
	var states [][]float64
	for j := 0; j < springPoints; j += springKnotStride {
		knots = append(knots, s.times[j])
		states = append(states, []float64{s.times[j]})
	}
	interp := knotInterpolation(knots, s.times)
	return springEnvelope{queries: states, times: s.times, interp: interp, band: newKnotBand(interp)}
}

// springKnotStride is the spacing, in grid points, of the knots where f_ψ
// evaluates the log-envelope: every 9th of the 100 grid times (12 knots,
// the first and last grid times among them). The true log-envelope
// −0.15ωt is linear in t, so linear interpolation between knots loses
// nothing on the benchmark, and f_ψ does 1/8 of the work.
const springKnotStride = 9

// EncodeContext writes, per observation, [t/2 − 1, y] followed by
// matched-filter features against the nominal simulator at the candidate
// frequencies ω_j (see matchedFeatures).
func (s *spring) EncodeContext(dst *nets.Tensor, ctx Context, _ []float64) {
	var buf [springCandidates]float64
	for i, st := range ctx.States {
		row := dst.Row(i)
		t, y := st[0], ctx.Values[i][0]
		springFeatures(row, t, y)
		cand := buf[:]
		if g := s.gridPoint(ctx, i); g >= 0 {
			cand = s.gridSin[g*springCandidates : (g+1)*springCandidates]
		} else {
			springCandidateSines(cand, t)
		}
		matchedFeatures(row[2:], y, cand)
	}
}

// gridPoint is the grid index of observation i when it sits exactly on
// a grid time, else −1.
func (s *spring) gridPoint(ctx Context, i int) int {
	if i >= len(ctx.GridIndex) {
		return -1
	}
	g := ctx.GridIndex[i]
	if g < 0 || g >= len(s.times) || s.times[g] != ctx.States[i][0] {
		return -1
	}
	return g
}

// springCandidateSines sets dst[j] = sin(ω_j t) for the candidates ω_j.
func springCandidateSines(dst []float64, t float64) {
	for j := range dst {
		dst[j] = math.Sin(springCandidate(j) * t)
	}
}

// springCandidates is the number of candidate frequencies, evenly spaced
// over the prior.
const springCandidates = 16

func springCandidate(j int) float64 { return 3 + 5*float64(j)/(springCandidates-1) }

func (*spring) FeatureLen() int { return 2 + 2*springCandidates }

func (*spring) QueryFeatures(dst, state []float64) { dst[0] = springTimeFeature(state[0]) }
func (*spring) QueryFeatureLen() int               { return 1 }

// springTimeFeature maps t ∈ [0, 4] to [−1, 1].
func springTimeFeature(t float64) float64 { return t/2 - 1 }

// springFeatures is the encoder input of one observation.
func springFeatures(dst []float64, t, y float64) {
	dst[0] = springTimeFeature(t)
	dst[1] = y
}

// springOp is the fused spring simulator, with an optional log-envelope:
//
//	y[b, j] = sin(ω_b t_j) · exp(f[b, j]),
//	∂y/∂ω = t_j cos(ω_b t_j) · exp(f[b, j]),  ∂y/∂f = y.
//
// Inputs: theta [B, 1] and, optionally, f with B·len(times) values
// (realization-major). It holds no state.
type springOp struct {
	times []float64
	step  float64 // h > 0 when times[j] = j·h (a uniform grid from 0)
}

// newSpringOp returns the op for the given times, noting whether they are
// a uniform grid from 0 (sinCosRamp then replaces most sin/cos calls).
func newSpringOp(times []float64) springOp {
	op := springOp{times: times}
	if len(times) < 2 || times[0] != 0 {
		return op
	}
	h := times[1]
	for j, t := range times {
		if math.Abs(t-float64(j)*h) > 1e-12*math.Max(1, math.Abs(t)) {
			return op
		}
	}
	op.step = h
	return op
}

// sinCos writes sin(ω t_j) and cos(ω t_j) for every time.
func (op springOp) sinCos(sin, cos []float64, w float64) {
	if op.step > 0 {
		sinCosRamp(sin, cos, w*op.step)
		return
	}
	for j, t := range op.times {
		sin[j], cos[j] = math.Sincos(w * t)
	}
}

// sinCosRamp writes s_j = sin(j·a) and c_j = cos(j·a) by the angle-addition
// recurrence
//
//	s_{j+1} = s_j cos a + c_j sin a,   c_{j+1} = c_j cos a − s_j sin a,
//
// re-anchored with math.Sincos every 16 steps so the rounding error stays
// at a few ulps; it needs 1/8 of the sin/cos evaluations.
func sinCosRamp(s, c []float64, a float64) {
	sa, ca := math.Sincos(a)
	n := min(len(s), len(c))
	j0 := 0
	// Four segments at a time: each is a serial chain of dependent
	// products, and four independent chains keep the multipliers busy.
	for ; j0+4*rampSegment <= n; j0 += 4 * rampSegment {
		s0, c0 := math.Sincos(float64(j0) * a)
		s1, c1 := math.Sincos(float64(j0+rampSegment) * a)
		s2, c2 := math.Sincos(float64(j0+2*rampSegment) * a)
		s3, c3 := math.Sincos(float64(j0+3*rampSegment) * a)
		for j := j0; j < j0+rampSegment; j++ {
			s[j], c[j] = s0, c0
			s[j+rampSegment], c[j+rampSegment] = s1, c1
			s[j+2*rampSegment], c[j+2*rampSegment] = s2, c2
			s[j+3*rampSegment], c[j+3*rampSegment] = s3, c3
			s0, c0 = s0*ca+c0*sa, c0*ca-s0*sa
			s1, c1 = s1*ca+c1*sa, c1*ca-s1*sa
			s2, c2 = s2*ca+c2*sa, c2*ca-s2*sa
			s3, c3 = s3*ca+c3*sa, c3*ca-s3*sa
		}
	}
	for j := j0; j < n; j++ {
		if (j-j0)%rampSegment == 0 {
			s[j], c[j] = math.Sincos(float64(j) * a)
			continue
		}
		s[j] = s[j-1]*ca + c[j-1]*sa
		c[j] = c[j-1]*ca - s[j-1]*sa
	}
}

// rampSegment is how many steps sinCosRamp takes from one math.Sincos
// anchor.
const rampSegment = 16

func (op springOp) check(inputs []*nets.Tensor) (theta, f *nets.Tensor) {
	if len(inputs) != 1 && len(inputs) != 2 {
		panic(fmt.Sprintf("sims: spring op takes 1 or 2 inputs, got %d", len(inputs)))
	}
	theta = inputs[0]
	if theta.Cols != 1 {
		panic(fmt.Sprintf("sims: spring op theta %s, want [B, 1]", theta.Shape()))
	}
	if len(inputs) == 2 {
		f = inputs[1]
		if f.Len() != theta.Rows*len(op.times) {
			panic(fmt.Sprintf("sims: spring envelope %s for batch %d, want %d values per realization", f.Shape(), theta.Rows, len(op.times)))
		}
	}
	return theta, f
}

func (op springOp) Forward(inputs []*nets.Tensor) *nets.Tensor {
	out := nets.NewTensor(op.OutShape(inputs))
	op.ForwardInto(out, inputs)
	return out
}

// OutShape is [B, grid times] for θ [B, 1].
func (op springOp) OutShape(inputs []*nets.Tensor) (rows, cols int) {
	return inputs[0].Rows, len(op.times)
}

// ForwardInto is Forward into out (nets.IntoOp), which a batched
// prediction's arena provides.
func (op springOp) ForwardInto(out *nets.Tensor, inputs []*nets.Tensor) {
	theta, f := op.check(inputs)
	n := len(op.times)
	var buf, ebuf [128]float64
	cos, env := buf[:], ebuf[:]
	if n > len(buf) {
		cos, env = make([]float64, n), make([]float64, n)
	}
	cos, env = cos[:n], env[:n]
	for b := range theta.Rows {
		row := out.Row(b)
		op.sinCos(row, cos, theta.Data[b])
		if f != nil {
			nets.ExpInto(env, f.Data[b*n:(b+1)*n])
			for j, e := range env {
				row[j] *= e
			}
		}
	}
}

func (op springOp) Backward(inputs []*nets.Tensor, output, outGrad *nets.Tensor, inGrads []*nets.Tensor) {
	theta, f := op.check(inputs)
	n := len(op.times)
	gth := inGrads[0]
	var gf *nets.Tensor
	if len(inGrads) > 1 {
		gf = inGrads[1]
	}
	sin, cos, env := make([]float64, n), make([]float64, n), make([]float64, n)
	for b := range theta.Rows {
		og := outGrad.Row(b)
		if gth != nil {
			op.sinCos(sin, cos, theta.Data[b])
			if f != nil {
				nets.ExpInto(env, f.Data[b*n:(b+1)*n])
			}
			var sum float64
			for j, t := range op.times {
				dy := t * cos[j]
				if f != nil {
					dy *= env[j]
				}
				sum += og[j] * dy
			}
			gth.Data[b] += sum
		}
		if gf != nil {
			y := output.Row(b)
			g := gf.Data[b*n : (b+1)*n]
			for j := range g {
				g[j] += og[j] * y[j]
			}
		}
	}
}

// springEnvelope is the "envelope" discrepancy form: f_ψ(t) is the log of
// a positive multiplicative envelope, so the prediction is
// sin(ω̂ t) exp(f(t)) and f ≈ 0 starts at the nominal. f_ψ is evaluated
// at knot times and interpolated linearly to the grid (knotInterpolation).
type springEnvelope struct {
	queries [][]float64  // the knot states
	times   []float64    // the grid times
	interp  *nets.Tensor // [knots, grid times]
	band    *knotBand    // interp's band form, for the tangent (nil: none)
}

func (springEnvelope) Name() string { return "envelope" }
func (springEnvelope) Doc() string {
	return "f(t) is a log-envelope: prediction sin(ωt)·exp(f(t))"
}
func (e springEnvelope) Queries() [][]float64 { return e.queries }
func (springEnvelope) Outputs() int           { return 1 }

// Apply returns sin(ω t_j)·exp(f̃_j), f̃ = f·A the log-envelope
// interpolated from the knots to the grid; f [B·K, 1] (K knots) is
// realization-major.
func (e springEnvelope) Apply(tp *nets.Tape, theta *nets.Var, _ *nets.Tensor, f *nets.Var) *nets.Var {
	b := theta.Value.Rows
	logEnv := tp.MatMul(tp.Reshape(f, b, e.interp.Rows), tp.Const(e.interp), false, false)
	return tp.Apply(newSpringOp(e.times), theta, logEnv)
}

func (springEnvelope) Clipped([]float64) bool { return false }

// Hints follow the paper's appendix A budget (3000 + 4000 steps, batch
// 64) with the widths this implementation needs.
func (*spring) Hints() Hints {
	return Hints{Hidden: 64, Latent: 8, DecHidden: 64, Steps1: 3000, Steps2: 4000, Batch: 64}
}
