package sims

import (
	"fmt"

	"apic/nets"
)

// LVModelSubsteps is the number of RK4 sub-steps per grid interval of the
// model's differentiable Lotka–Volterra integrator. With 2 sub-steps the
// grid values differ from the 16-sub-step data integrator by at most
// 7.6e-6 over 100 prior draws (1 sub-step: 1.2e-4; 4 sub-steps: 4.8e-7),
// far below the accuracy targets, at one eighth of the data integrator's
// cost. TestLVModelSubstepsAccuracy pins the bound at 1e-5.
const LVModelSubsteps = 2

// LVDataSubsteps is the number of RK4 sub-steps per grid interval used to
// make the data (the reference integration of BENCHMARKS.md).
const LVDataSubsteps = 16

// The Lotka–Volterra grid: t_j = lvHorizon·j/lvIntervals, j = 0..lvIntervals.
const (
	lvIntervals = 99
	lvHorizon   = 10.0
)

// lvScheme is classical RK4 for the forced Lotka–Volterra system
//
//	x' = α x − β x y + d(t),  y' = η x y − γ y,
//
// with substeps equal steps of size h = dt/substeps per grid interval and
// the forcing d given at the half-step lattice τ_m = m h/2 (step n reads
// d at τ_{2n}, τ_{2n+1} for stages 2 and 3, and τ_{2n+2}). Each step's
// result is projected onto the populations' domain x, y ≥ 0: a learned
// forcing that drives the prey below zero (a noisy context can give one)
// would otherwise make y' = y(ηx − γ) stiff for the fixed step and
// overflow; with d ≥ 0, as the truth's, the projection never acts. It
// holds no mutable state, so it is safe for concurrent use.
type lvScheme struct {
	substeps  int
	intervals int
	dt        float64 // grid interval
}

func newLVScheme(substeps, intervals int, dt float64) lvScheme {
	if substeps < 1 || intervals < 1 {
		panic(fmt.Sprintf("sims: LV RK4 with %d sub-steps over %d intervals", substeps, intervals))
	}
	return lvScheme{substeps: substeps, intervals: intervals, dt: dt}
}

// steps is the total number of RK4 steps.
func (s lvScheme) steps() int { return s.substeps * s.intervals }

// forcingLen is the number of lattice times M = 2·steps + 1.
func (s lvScheme) forcingLen() int { return 2*s.steps() + 1 }

// outLen is the number of output values: 2 channels at intervals+1 points.
func (s lvScheme) outLen() int { return 2 * (s.intervals + 1) }

// stageTimes returns the lattice τ_m = m·h/2, m = 0..2·steps.
func (s lvScheme) stageTimes() []float64 {
	m := s.forcingLen()
	den := float64(2 * s.substeps)
	ts := make([]float64, m)
	for i := range ts {
		ts[i] = float64(i) * s.dt / den
	}
	return ts
}

// integrate runs the scheme for nb realizations at once. For realization
// i, th[4i:4i+4] = (α, β, η, γ), u0[2i:2i+2] = (x0, y0), and
// d[i·M:(i+1)·M] is the forcing on the lattice (d nil for none). It writes
// the grid values to out[i·outLen:] (layout [g*2 + c]) and, when st is not
// nil, the four stage states of step n to st[(n·nb + i)·8:] (x1 y1 x2 y2
// x3 y3 x4 y4).
//
// The loop runs over realizations inside the loop over steps: one
// realization's step is a chain of dependent operations, and interleaving
// independent realizations lets the processor overlap them (about twice
// as fast as one realization at a time).
func (s lvScheme) integrate(nb int, th, u0, d, out, st []float64) {
	h := s.dt / float64(s.substeps)
	hh := h / 2
	h6 := h / 6
	m, ol := s.forcingLen(), s.outLen()
	u := make([]float64, 2*nb)
	copy(u, u0[:2*nb])
	for i := range nb {
		out[i*ol], out[i*ol+1] = u[2*i], u[2*i+1]
	}
	var d1, d2, d3 float64
	for n := range s.steps() {
		g := -1 // grid point reached by this step, if any
		if (n+1)%s.substeps == 0 {
			g = (n + 1) / s.substeps
		}
		for i := range nb {
			p := th[4*i : 4*i+4 : 4*i+4]
			alpha, beta, eta, gamma := p[0], p[1], p[2], p[3]
			x, y := u[2*i], u[2*i+1]
			if d != nil {
				di := d[i*m+2*n : i*m+2*n+3 : i*m+2*n+3]
				d1, d2, d3 = di[0], di[1], di[2]
			}
			k1x := alpha*x - beta*x*y + d1
			k1y := eta*x*y - gamma*y
			x2, y2 := x+hh*k1x, y+hh*k1y
			k2x := alpha*x2 - beta*x2*y2 + d2
			k2y := eta*x2*y2 - gamma*y2
			x3, y3 := x+hh*k2x, y+hh*k2y
			k3x := alpha*x3 - beta*x3*y3 + d2
			k3y := eta*x3*y3 - gamma*y3
			x4, y4 := x+h*k3x, y+h*k3y
			k4x := alpha*x4 - beta*x4*y4 + d3
			k4y := eta*x4*y4 - gamma*y4
			if st != nil {
				k := (n*nb + i) * 8
				w := st[k : k+8 : k+8]
				w[0], w[1], w[2], w[3] = x, y, x2, y2
				w[4], w[5], w[6], w[7] = x3, y3, x4, y4
			}
			x = max(x+h6*(k1x+2*k2x+2*k3x+k4x), 0)
			y = max(y+h6*(k1y+2*k2y+2*k3y+k4y), 0)
			u[2*i], u[2*i+1] = x, y
			if g >= 0 {
				out[i*ol+2*g], out[i*ol+2*g+1] = x, y
			}
		}
	}
}

// adjoint is the discrete adjoint of integrate for nb realizations (same
// layouts). Given og = d loss / d out, it adds d loss / d θ to gth,
// d loss / d u0 to gu0 and d loss / d forcing to gd (each skipped when
// nil), using the stage states st stored by integrate and its output
// out. A state the projection onto x, y ≥ 0 set to zero passes no
// gradient back: integrate's result is exactly 0 there, and nowhere else
// in practice, so the post-step state, read from the next step's first
// stage or the last grid value, tells where it acted.
//
// One step u⁺ = u + h/6 (k1 + 2k2 + 2k3 + k4), k_i = f(U_i), with
// U1 = u, U2 = u + h/2 k1, U3 = u + h/2 k2, U4 = u + h k3, is reversed
// as follows, λ being d loss / d u⁺ and J_i = ∂f/∂u at U_i:
//
//	a4 = h/6 λ,                 μ4 = J4ᵀ a4
//	a3 = h/3 λ + h μ4,          μ3 = J3ᵀ a3
//	a2 = h/3 λ + h/2 μ3,        μ2 = J2ᵀ a2
//	a1 = h/6 λ + h/2 μ2,        μ1 = J1ᵀ a1
//	d loss / d u = λ + μ1 + μ2 + μ3 + μ4,
//
// where a_i = d loss / d k_i; θ collects (∂f/∂θ at U_i)ᵀ a_i and the
// forcing at stage i's lattice time collects the prey component of a_i.
func (s lvScheme) adjoint(nb int, th, og, out, st, gth, gu0, gd []float64) {
	h := s.dt / float64(s.substeps)
	hh := h / 2
	h6, h3 := h/6, h/3
	m, ol := s.forcingLen(), s.outLen()
	lam := make([]float64, 2*nb) // λ per realization
	gp := make([]float64, 4*nb)  // θ gradient per realization
	for n := s.steps() - 1; n >= 0; n-- {
		g := -1
		if (n+1)%s.substeps == 0 {
			g = (n + 1) / s.substeps
		}
		for i := range nb {
			p := th[4*i : 4*i+4 : 4*i+4]
			alpha, beta, eta, gamma := p[0], p[1], p[2], p[3]
			lx, ly := lam[2*i], lam[2*i+1]
			if g >= 0 {
				lx += og[i*ol+2*g]
				ly += og[i*ol+2*g+1]
			}
			px, py := s.postStep(nb, n, i, out, st)
			if px == 0 {
				lx = 0
			}
			if py == 0 {
				ly = 0
			}
			q := gp[4*i : 4*i+4 : 4*i+4]
			ga, gb, ge, gg := q[0], q[1], q[2], q[3]
			k := (n*nb + i) * 8
			w := st[k : k+8 : k+8]
			// Each stage: μ = Jᵀ a with J = [[α − βy, −βx], [ηy, ηx − γ]]
			// at the stage state, and θ collects (∂f/∂θ)ᵀ a =
			// (a_x x, −a_x xy, a_y xy, −a_y y). Written out by hand: a
			// closure here costs a third of the backward pass.
			x, y := w[6], w[7]
			a4x, a4y := h6*lx, h6*ly
			xy := x * y
			ga, gb, ge, gg = ga+a4x*x, gb-a4x*xy, ge+a4y*xy, gg-a4y*y
			m4x, m4y := a4x*(alpha-beta*y)+a4y*eta*y, a4y*(eta*x-gamma)-a4x*beta*x

			x, y = w[4], w[5]
			a3x, a3y := h3*lx+h*m4x, h3*ly+h*m4y
			xy = x * y
			ga, gb, ge, gg = ga+a3x*x, gb-a3x*xy, ge+a3y*xy, gg-a3y*y
			m3x, m3y := a3x*(alpha-beta*y)+a3y*eta*y, a3y*(eta*x-gamma)-a3x*beta*x

			x, y = w[2], w[3]
			a2x, a2y := h3*lx+hh*m3x, h3*ly+hh*m3y
			xy = x * y
			ga, gb, ge, gg = ga+a2x*x, gb-a2x*xy, ge+a2y*xy, gg-a2y*y
			m2x, m2y := a2x*(alpha-beta*y)+a2y*eta*y, a2y*(eta*x-gamma)-a2x*beta*x

			x, y = w[0], w[1]
			a1x, a1y := h6*lx+hh*m2x, h6*ly+hh*m2y
			xy = x * y
			ga, gb, ge, gg = ga+a1x*x, gb-a1x*xy, ge+a1y*xy, gg-a1y*y
			m1x, m1y := a1x*(alpha-beta*y)+a1y*eta*y, a1y*(eta*x-gamma)-a1x*beta*x
			if gd != nil {
				gi := gd[i*m+2*n : i*m+2*n+3 : i*m+2*n+3]
				gi[0] += a1x
				gi[1] += a2x + a3x
				gi[2] += a4x
			}
			lam[2*i] = lx + m1x + m2x + m3x + m4x
			lam[2*i+1] = ly + m1y + m2y + m3y + m4y
			q[0], q[1], q[2], q[3] = ga, gb, ge, gg
		}
	}
	for i := range nb {
		if gth != nil {
			for j := range 4 {
				gth[4*i+j] += gp[4*i+j]
			}
		}
		if gu0 != nil {
			gu0[2*i] += lam[2*i] + og[i*ol]
			gu0[2*i+1] += lam[2*i+1] + og[i*ol+1]
		}
	}
}

// postStep returns realization i's state after step n of integrate: the
// first stage of step n+1, or for the last step the last grid value.
func (s lvScheme) postStep(nb, n, i int, out, st []float64) (x, y float64) {
	if n+1 < s.steps() {
		k := ((n+1)*nb + i) * 8
		return st[k], st[k+1]
	}
	k := i*s.outLen() + 2*s.intervals
	return out[k], out[k+1]
}

// LVStageTimes returns the times at which the model's RK4 integrator with
// the given number of sub-steps per grid interval reads the prey forcing:
// the half-step lattice τ_m = m·h/2, h = Δt/substeps, m = 0..2·substeps·99.
func LVStageTimes(substeps int) []float64 {
	return newLVScheme(substeps, lvIntervals, lvHorizon/lvIntervals).stageTimes()
}

// LVRK4 is the fused differentiable RK4 integrator of the forced
// Lotka–Volterra system on the lv grid,
//
//	x' = α x − β x y + d(t),  y' = η x y − γ y,  (x, y)(0) = u0,
//
// used through Tape.Apply(op, theta [B, 4], u0 [B, 2], forcing) → [B, 200]
// with values at grid point g in columns 2g (prey) and 2g+1 (predator).
// forcing holds d at LVStageTimes for every realization: B·M values,
// realization-major (a [B, M] or [B·M, 1] tensor); it may be omitted
// (two inputs) for d = 0. Backward is the exact discrete adjoint of the
// scheme, so gradients are those of the computed trajectory.
//
// Forward keeps the stage states for Backward, which releases them: use a
// new LVRK4 for every Apply, and run Backward at most once per Forward.
type LVRK4 struct {
	scheme lvScheme
	stages []float64 // [steps][B][8], from the last Forward
}

// NewLVRK4 returns the integrator with the given number of RK4 sub-steps
// per grid interval (at least 1).
func NewLVRK4(substeps int) *LVRK4 {
	return &LVRK4{scheme: newLVScheme(substeps, lvIntervals, lvHorizon/lvIntervals)}
}

// newLVRK4 returns the integrator over a shortened grid of the given
// number of intervals of length dt (for fast tests).
func newLVRK4(substeps, intervals int, dt float64) *LVRK4 {
	return &LVRK4{scheme: newLVScheme(substeps, intervals, dt)}
}

// ForcingLen is the number M of forcing values per realization.
func (op *LVRK4) ForcingLen() int { return op.scheme.forcingLen() }

// Forward integrates every realization of the batch.
func (op *LVRK4) Forward(inputs []*nets.Tensor) *nets.Tensor {
	theta, u0, forcing := op.check(inputs)
	b := theta.Rows
	steps := op.scheme.steps()
	op.stages = lvStages.Get(b * steps * 8)
	out := nets.NewTensor(b, op.scheme.outLen())
	var d []float64
	if forcing != nil {
		d = forcing.Data
	}
	op.scheme.integrate(b, theta.Data, u0.Data, d, out.Data, op.stages)
	return out
}

// OutShape is the output's shape, [B, 200] (nets.IntoOp).
func (op *LVRK4) OutShape(inputs []*nets.Tensor) (rows, cols int) {
	theta, _, _ := op.check(inputs)
	return theta.Rows, op.scheme.outLen()
}

// ForwardInto integrates every realization into out (nets.IntoOp)
// without keeping the stage states: a tape calls it only for inference
// into an arena, where Backward never runs (it would panic, as it does
// without a Forward). A one-pass lv prediction integrates 32 latent
// samples, whose stage states were 0.4 MB of garbage per call.
func (op *LVRK4) ForwardInto(out *nets.Tensor, inputs []*nets.Tensor) {
	theta, u0, forcing := op.check(inputs)
	var d []float64
	if forcing != nil {
		d = forcing.Data
	}
	op.stages = nil
	op.scheme.integrate(theta.Rows, theta.Data, u0.Data, d, out.Data, nil)
}

// Backward accumulates the discrete-adjoint gradients into inGrads.
func (op *LVRK4) Backward(inputs []*nets.Tensor, output, outGrad *nets.Tensor, inGrads []*nets.Tensor) {
	theta, _, _ := op.check(inputs)
	b := theta.Rows
	steps := op.scheme.steps()
	if len(op.stages) != b*steps*8 {
		panic("sims: LVRK4 Backward without a matching Forward")
	}
	data := func(t *nets.Tensor) []float64 {
		if t == nil {
			return nil
		}
		return t.Data
	}
	var gd *nets.Tensor
	if len(inGrads) > 2 {
		gd = inGrads[2]
	}
	if inGrads[0] != nil || inGrads[1] != nil || gd != nil {
		op.scheme.adjoint(b, theta.Data, outGrad.Data, output.Data, op.stages, data(inGrads[0]), data(inGrads[1]), data(gd))
	}
	lvStages.Put(op.stages)
	op.stages = nil
}

// lvStagePool recycles stage buffers between training steps: they are
// large (B·steps·8 values, about 0.8 MB for B = 64) and live only from
// Forward to Backward. Buffers of ops that never run Backward are left
// to the garbage collector.
var lvStages nets.FloatPool

// check validates the input shapes; mismatches are programming errors.
func (op *LVRK4) check(inputs []*nets.Tensor) (theta, u0, forcing *nets.Tensor) {
	if len(inputs) != 2 && len(inputs) != 3 {
		panic(fmt.Sprintf("sims: LVRK4 takes 2 or 3 inputs, got %d", len(inputs)))
	}
	theta, u0 = inputs[0], inputs[1]
	b := theta.Rows
	if theta.Cols != 4 || u0.Rows != b || u0.Cols != 2 {
		panic(fmt.Sprintf("sims: LVRK4 theta %s, u0 %s; want [B, 4], [B, 2]", theta.Shape(), u0.Shape()))
	}
	if len(inputs) == 3 {
		forcing = inputs[2]
		if forcing.Len() != b*op.scheme.forcingLen() {
			panic(fmt.Sprintf("sims: LVRK4 forcing %s for batch %d, want %d values per realization", forcing.Shape(), b, op.scheme.forcingLen()))
		}
	}
	return theta, u0, forcing
}
