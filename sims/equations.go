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

// advdiffResidualScale divides the advdiff equation so that its residual
// is of the order of u. u is of order one, but its narrow bumps move at
// v ~ 1 with slopes u_x of order 2π·v·k for harmonics k ≳ 2, so u_t and
// v u_x are of order ten. Unscaled, the squared residual outweighs the
// data misfit a hundredfold, and a solution network that cannot yet
// follow the data lowers it most by a flatter u with a small v: θ then
// falls towards the bottom of its box (docs/baselines.md).
const advdiffResidualScale = 10.0

// Residual is (u_t + v u_x − κ u_xx)/advdiffResidualScale − s.
func (*advDiff) Residual(tp *nets.Tape, theta *nets.Var, u nets.Jet, s *nets.Var) *nets.Var {
	v, kappa := thetaCol(tp, theta, 0), thetaCol(tp, theta, 1)
	r := tp.Sub(tp.Add(u.D1[0], tp.Mul(u.D1[1], v)), tp.Mul(u.D2[1], kappa))
	return tp.Sub(tp.Scale(r, 1/advdiffResidualScale), s)
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

// OpTerm is one term c ∂tᵃ ∂xᵇ u_ch of a linear differential operator
// (T = a, X = b; X is 0 for a system without x), applied to channel Ch.
type OpTerm struct {
	Coef float64
	T, X int
	Ch   int
}

// OpObservation is an observation of a linear operator applied to the
// solution at a state: (Σ_j c_j ∂t^{a_j} ∂x^{b_j} u_{ch_j})(State) = Value.
type OpObservation struct {
	State []float64
	Op    []OpTerm
	Value float64
}

// LinearEquations is a system whose nominal model, around a prior mean
// m_θ, is a linear differential equation L_θ w = 0 in w = u − m_θ, for
// the BCPI baseline (core/bcpi), which puts a Gaussian-process prior on
// w and observes L_θ w = 0 at collocation states. spring and advdiff are
// linear (m_θ = 0, constant coefficients); lv is linearised around its
// nominal RK4 solution (our extension of BCPI).
type LinearEquations interface {
	// Operators returns, for each of the states (grid states), the
	// operators L_e of the equations L_e w = 0 there.
	Operators(theta, side []float64, states [][]float64) [][][]OpTerm
	// PriorMean returns m_θ on the grid (layout as Grid values), or nil
	// for a zero mean.
	PriorMean(theta, side []float64) []float64
	// InitialObservations are the initial conditions as observations of
	// w or its derivatives, given θ and the side information.
	InitialObservations(theta, side []float64) []OpObservation
}

var (
	_ LinearEquations = (*spring)(nil)
	_ LinearEquations = (*advDiff)(nil)
	_ LinearEquations = (*lotkaVolterra)(nil)
)

// constantOperator repeats one operator for every state.
func constantOperator(op []OpTerm, states [][]float64) [][][]OpTerm {
	out := make([][][]OpTerm, len(states))
	for i := range out {
		out[i] = [][]OpTerm{op}
	}
	return out
}

// Operators is L = ∂t² + ω² everywhere.
func (*spring) Operators(theta, _ []float64, states [][]float64) [][][]OpTerm {
	return constantOperator([]OpTerm{{Coef: 1, T: 2}, {Coef: theta[0] * theta[0]}}, states)
}

// PriorMean is zero.
func (*spring) PriorMean(_, _ []float64) []float64 { return nil }

// InitialObservations are u(0) = 0 and u_t(0) = ω.
func (*spring) InitialObservations(theta, _ []float64) []OpObservation {
	return []OpObservation{
		{State: []float64{0}, Op: []OpTerm{{Coef: 1}}, Value: 0},
		{State: []float64{0}, Op: []OpTerm{{Coef: 1, T: 1}}, Value: theta[0]},
	}
}

// Operators is L = ∂t + v ∂x − κ ∂x² everywhere.
func (*advDiff) Operators(theta, _ []float64, states [][]float64) [][][]OpTerm {
	return constantOperator([]OpTerm{{Coef: 1, T: 1}, {Coef: theta[0], X: 1}, {Coef: -theta[1], X: 2}}, states)
}

// PriorMean is zero.
func (*advDiff) PriorMean(_, _ []float64) []float64 { return nil }

// InitialObservations are u(0, x_i) = u0_i at the 64 grid positions.
func (a *advDiff) InitialObservations(_, side []float64) []OpObservation {
	states := a.InitialStates()
	out := make([]OpObservation, len(states))
	for i, s := range states {
		out[i] = OpObservation{State: s, Op: []OpTerm{{Coef: 1}}, Value: side[i]}
	}
	return out
}

// Operators linearise the nominal Lotka–Volterra equations around the
// nominal solution ū = (x̄, ȳ) from u0 (our extension: BCPI needs a
// linear operator): w′ − J_θ(t) w = 0 with the Jacobian of the nominal
// right-hand side along ū,
//
//	J = [[α − βȳ, −βx̄], [ηȳ, ηx̄ − γ]],
//
// ū linearly interpolated between grid times (the states are grid
// times in practice).
func (l *lotkaVolterra) Operators(theta, side []float64, states [][]float64) [][][]OpTerm {
	nom := l.Nominal(theta, side)
	alpha, beta, eta, gamma := theta[0], theta[1], theta[2], theta[3]
	out := make([][][]OpTerm, len(states))
	dt := lvHorizon / lvIntervals
	for i, s := range states {
		pos := min(max(s[0]/dt, 0), lvIntervals)
		j := min(int(pos), lvIntervals-1)
		w := pos - float64(j)
		x := (1-w)*nom[2*j] + w*nom[2*(j+1)]
		y := (1-w)*nom[2*j+1] + w*nom[2*(j+1)+1]
		jac := [2][2]float64{{alpha - beta*y, -beta * x}, {eta * y, eta*x - gamma}}
		for e := range 2 {
			out[i] = append(out[i], []OpTerm{{Coef: 1, T: 1, Ch: e}, {Coef: -jac[e][0], Ch: 0}, {Coef: -jac[e][1], Ch: 1}})
		}
	}
	return out
}

// PriorMean is the nominal solution ū_θ.
func (l *lotkaVolterra) PriorMean(theta, side []float64) []float64 { return l.Nominal(theta, side) }

// InitialObservations are w(0) = 0 for both channels: ū starts at u0.
func (*lotkaVolterra) InitialObservations(_, _ []float64) []OpObservation {
	return []OpObservation{
		{State: []float64{0}, Op: []OpTerm{{Coef: 1, Ch: 0}}},
		{State: []float64{0}, Op: []OpTerm{{Coef: 1, Ch: 1}}},
	}
}
