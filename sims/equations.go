package sims

import (
	"math"

	"apic/nets"
)

// Equations is a system's nominal model written as differential
// equations in residual form, for the per-realization physics-informed
// baselines (core/cpinn): they fit a network u(state) whose derivatives
// along every state dimension d come as a jet (nets.Jet: U, D1[d], D2[d],
// each [N, Channels]), and a correction s(state) added inside the
// nominal equation, as Zou, Meng & Karniadakis (2024) do.
//
// Every benchmark system implements it; a system that does not cannot be
// calibrated by those baselines.
type Equations interface {
	// EqFeatureLen is the length of the networks' input features.
	EqFeatureLen() int
	// EqFeatures writes the features of state into f and, when d1 and
	// d2 are not nil, their first and second derivatives along each
	// state dimension d into d1[d] and d2[d] (each EqFeatureLen long).
	// The features put time on [−1, 1] and a periodic coordinate through
	// sines and cosines, so the network is periodic there.
	EqFeatures(state, f []float64, d1, d2 [][]float64)
	// Residual returns the nominal equations' residual [N, Channels] at
	// N collocation states from the solution's jet there, θ [1, P] and
	// the correction s [N, 1], which enters the first equation. Each
	// equation is scaled to order one over the prior (documented per
	// system), and s is in those units.
	Residual(tp *nets.Tape, theta *nets.Var, u nets.Jet, s *nets.Var) *nets.Var
	// InitialStates are the states at which the initial conditions hold.
	InitialStates() [][]float64
	// InitialResidual returns the misfit of the solution's jet at
	// InitialStates to the initial conditions (values, and slopes for a
	// second-order equation), scaled like the data: a [M, K] var.
	InitialResidual(tp *nets.Tape, theta *nets.Var, side []float64, u nets.Jet) *nets.Var
}

var (
	_ Equations = (*spring)(nil)
	_ Equations = (*lotkaVolterra)(nil)
	_ Equations = (*advDiff)(nil)
)

// thetaCol returns θ_p of a [1, P] θ as a [1, 1] var.
func thetaCol(tp *nets.Tape, theta *nets.Var, p int) *nets.Var { return tp.SliceCols(theta, p, p+1) }

// unitTime maps t ∈ [0, horizon] to 2t/horizon − 1 ∈ [−1, 1] and writes
// the derivatives (2/horizon, 0) along dimension 0 when asked.
func unitTime(t, horizon float64, f []float64, d1, d2 [][]float64) {
	f[0] = 2*t/horizon - 1
	if d1 != nil {
		clear(d1[0])
		clear(d2[0])
		d1[0][0] = 2 / horizon
	}
}

// springResidualScale is ω_max², the largest ω² of the prior: the spring
// equation is divided by it so that its residual is of order one.
const springResidualScale = 64.0

func (*spring) EqFeatureLen() int { return 1 }

func (*spring) EqFeatures(state, f []float64, d1, d2 [][]float64) {
	unitTime(state[0], springHorizon, f, d1, d2)
}

// Residual is (u_tt + ω² u)/ω_max² − s.
func (*spring) Residual(tp *nets.Tape, theta *nets.Var, u nets.Jet, s *nets.Var) *nets.Var {
	w2 := tp.Square(thetaCol(tp, theta, 0))
	r := tp.Add(u.D2[0], tp.Mul(u.U, w2))
	return tp.Sub(tp.Scale(r, 1/springResidualScale), s)
}

func (*spring) InitialStates() [][]float64 { return [][]float64{{0}} }

// InitialResidual is [u(0), (u_t(0) − ω)/ω_max]: the nominal spring
// starts at rest position with velocity ω.
func (*spring) InitialResidual(tp *nets.Tape, theta *nets.Var, _ []float64, u nets.Jet) *nets.Var {
	omegaMax := math.Sqrt(springResidualScale)
	slope := tp.Scale(tp.Sub(u.D1[0], thetaCol(tp, theta, 0)), 1/omegaMax)
	return tp.ConcatCols(u.U, slope)
}

func (*lotkaVolterra) EqFeatureLen() int { return 1 }

func (*lotkaVolterra) EqFeatures(state, f []float64, d1, d2 [][]float64) {
	unitTime(state[0], lvHorizon, f, d1, d2)
}

// Residual is [x_t − αx + βxy − s, y_t − ηxy + γy], unscaled: the
// populations and their rates are of order one.
func (*lotkaVolterra) Residual(tp *nets.Tape, theta *nets.Var, u nets.Jet, s *nets.Var) *nets.Var {
	x, y := tp.SliceCols(u.U, 0, 1), tp.SliceCols(u.U, 1, 2)
	xt, yt := tp.SliceCols(u.D1[0], 0, 1), tp.SliceCols(u.D1[0], 1, 2)
	alpha, beta := thetaCol(tp, theta, 0), thetaCol(tp, theta, 1)
	eta, gamma := thetaCol(tp, theta, 2), thetaCol(tp, theta, 3)
	xy := tp.Mul(x, y)
	prey := tp.Sub(tp.Add(tp.Sub(xt, tp.Mul(x, alpha)), tp.Mul(xy, beta)), s)
	pred := tp.Add(tp.Sub(yt, tp.Mul(xy, eta)), tp.Mul(y, gamma))
	return tp.ConcatCols(prey, pred)
}

func (*lotkaVolterra) InitialStates() [][]float64 { return [][]float64{{0}} }

// InitialResidual is u(0) − u0.
func (*lotkaVolterra) InitialResidual(tp *nets.Tape, _ *nets.Var, side []float64, u nets.Jet) *nets.Var {
	return tp.Sub(u.U, tp.Const(nets.FromSlice(1, 2, []float64{side[0], side[1]})))
}

// advdiffHarmonics is the number of spatial harmonics among the
// features: sin and cos of 2πkx for k = 1, 2.
const advdiffHarmonics = 2

func (*advDiff) EqFeatureLen() int { return 1 + 2*advdiffHarmonics }

// EqFeatures are (2t − 1, sin 2πx, cos 2πx, sin 4πx, cos 4πx).
func (*advDiff) EqFeatures(state, f []float64, d1, d2 [][]float64) {
	t, x := state[0], state[1]
	f[0] = 2*t - 1
	if d1 != nil {
		for d := range 2 {
			clear(d1[d])
			clear(d2[d])
		}
		d1[0][0] = 2
	}
	for k := 1; k <= advdiffHarmonics; k++ {
		w := 2 * math.Pi * float64(k)
		sn, cs := math.Sincos(w * x)
		f[2*k-1], f[2*k] = sn, cs
		if d1 != nil {
			d1[1][2*k-1], d1[1][2*k] = w*cs, -w*sn
			d2[1][2*k-1], d2[1][2*k] = -w*w*sn, -w*w*cs
		}
	}
}

// Residual is u_t + v u_x − κ u_xx − s, unscaled: u is of order one
// and the transport term v u_x dominates.
func (*advDiff) Residual(tp *nets.Tape, theta *nets.Var, u nets.Jet, s *nets.Var) *nets.Var {
	v, kappa := thetaCol(tp, theta, 0), thetaCol(tp, theta, 1)
	r := tp.Add(u.D1[0], tp.Mul(u.D1[1], v))
	return tp.Sub(tp.Sub(r, tp.Mul(u.D2[1], kappa)), s)
}

// InitialStates are (0, x_i) at the 64 grid positions of u0.
func (*advDiff) InitialStates() [][]float64 {
	out := make([][]float64, advdiffNX)
	for i := range out {
		out[i] = []float64{0, float64(i) / advdiffNX}
	}
	return out
}

// InitialResidual is u(0, x_i) − u0_i.
func (*advDiff) InitialResidual(tp *nets.Tape, _ *nets.Var, side []float64, u nets.Jet) *nets.Var {
	return tp.Sub(u.U, tp.Const(nets.FromSlice(len(side), 1, append([]float64(nil), side...))))
}

// OpTerm is one term c ∂tᵃ ∂xᵇ of a linear differential operator with a
// constant coefficient (T = a, X = b; X is 0 for a system without x).
type OpTerm struct {
	Coef float64
	T, X int
}

// OpObservation is an observation of a linear operator applied to the
// solution at a state: (Σ_j c_j ∂t^{a_j} ∂x^{b_j} u)(State) = Value.
type OpObservation struct {
	State []float64
	Op    []OpTerm
	Value float64
}

// LinearEquations is a system whose nominal model is a linear
// differential equation L_θ u = 0 with constant coefficients, for the
// BCPI baseline (core/bcpi), which puts a Gaussian-process prior on u and
// observes L_θ u = 0 at collocation states.
type LinearEquations interface {
	// Operator returns L_θ's terms.
	Operator(theta []float64) []OpTerm
	// InitialObservations are the initial conditions as observations of
	// u or its derivatives, given θ and the side information.
	InitialObservations(theta, side []float64) []OpObservation
}

var (
	_ LinearEquations = (*spring)(nil)
	_ LinearEquations = (*advDiff)(nil)
)

// Operator is L = ∂t² + ω².
func (*spring) Operator(theta []float64) []OpTerm {
	return []OpTerm{{Coef: 1, T: 2}, {Coef: theta[0] * theta[0]}}
}

// InitialObservations are u(0) = 0 and u_t(0) = ω.
func (*spring) InitialObservations(theta, _ []float64) []OpObservation {
	return []OpObservation{
		{State: []float64{0}, Op: []OpTerm{{Coef: 1}}, Value: 0},
		{State: []float64{0}, Op: []OpTerm{{Coef: 1, T: 1}}, Value: theta[0]},
	}
}

// Operator is L = ∂t + v ∂x − κ ∂x².
func (*advDiff) Operator(theta []float64) []OpTerm {
	return []OpTerm{{Coef: 1, T: 1}, {Coef: theta[0], X: 1}, {Coef: -theta[1], X: 2}}
}

// InitialObservations are u(0, x_i) = u0_i at the 64 grid positions.
func (a *advDiff) InitialObservations(_, side []float64) []OpObservation {
	states := a.InitialStates()
	out := make([]OpObservation, len(states))
	for i, s := range states {
		out[i] = OpObservation{State: s, Op: []OpTerm{{Coef: 1}}, Value: side[i]}
	}
	return out
}
