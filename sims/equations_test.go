package sims

import (
	"math"
	"testing"

	"apic/nets"
)

// jetOf builds a one-channel jet from closed forms of u and its
// derivatives at the states.
func jetOf(tp *nets.Tape, states [][]float64, dims int, u func(s []float64) (v float64, d1, d2 []float64)) nets.Jet {
	n := len(states)
	j := nets.Jet{U: tp.Const(nets.NewTensor(n, 1))}
	for range dims {
		j.D1 = append(j.D1, tp.Const(nets.NewTensor(n, 1)))
		j.D2 = append(j.D2, tp.Const(nets.NewTensor(n, 1)))
	}
	for i, s := range states {
		v, d1, d2 := u(s)
		j.U.Value.Data[i] = v
		for d := range dims {
			j.D1[d].Value.Data[i], j.D2[d].Value.Data[i] = d1[d], d2[d]
		}
	}
	return j
}

func maxAbs(t *nets.Tensor) float64 {
	m := 0.0
	for _, v := range t.Data {
		m = max(m, math.Abs(v))
	}
	return m
}

// TestSpringResidualOfNominal checks that sin(ωt) satisfies the spring's
// residual and initial conditions with s = 0, and that a wrong ω does not.
func TestSpringResidualOfNominal(t *testing.T) {
	s := newSpring()
	const omega = 5.3
	u := func(st []float64) (float64, []float64, []float64) {
		sn, cs := math.Sincos(omega * st[0])
		return sn, []float64{omega * cs}, []float64{-omega * omega * sn}
	}
	for _, th := range []float64{omega, 6} {
		tp := nets.NewTape()
		theta := tp.Const(nets.Scalar(th))
		states := s.Grid().States
		r := s.Residual(tp, theta, jetOf(tp, states, 1, u), tp.Const(nets.NewTensor(len(states), 1)))
		ic := s.InitialResidual(tp, theta, nil, jetOf(tp, s.InitialStates(), 1, u))
		res, icm := maxAbs(r.Value), maxAbs(ic.Value)
		if th == omega && (res > 1e-12 || icm > 1e-12) {
			t.Errorf("true ω: residual %g, initial %g, want 0", res, icm)
		}
		if th != omega && (res < 0.1 || icm < 0.05) {
			t.Errorf("wrong ω: residual %g, initial %g, want clearly nonzero", res, icm)
		}
	}
}

// TestAdvDiffResidualOfFourierMode checks the advdiff residual on the
// exact nominal solution exp(−κk²t) sin(k(x − vt)).
func TestAdvDiffResidualOfFourierMode(t *testing.T) {
	a := newAdvDiff()
	const v, kappa = 1.1, 0.03
	k := 4 * math.Pi
	u := func(st []float64) (float64, []float64, []float64) {
		e := math.Exp(-kappa * k * k * st[0])
		sn, cs := math.Sincos(k * (st[1] - v*st[0]))
		ut := -kappa*k*k*e*sn - v*k*e*cs
		return e * sn, []float64{ut, k * e * cs}, []float64{0, -k * k * e * sn}
	}
	tp := nets.NewTape()
	states := a.Grid().States[:300]
	r := a.Residual(tp, tp.Const(nets.FromSlice(1, 2, []float64{v, kappa})), jetOf(tp, states, 2, u), tp.Const(nets.NewTensor(len(states), 1)))
	if m := maxAbs(r.Value); m > 1e-10 {
		t.Errorf("residual of an exact solution %g, want 0", m)
	}
}

// TestLVResidualOfNominal checks the lv residual on the nominal RK4
// trajectory, with slopes from the right-hand side itself: only the
// initial state and the equations' wiring are tested.
func TestLVResidualOfNominal(t *testing.T) {
	l := newLotkaVolterra()
	theta := []float64{1.1, 0.7, 0.9, 1.3}
	side := []float64{1.2, 0.8}
	nom := l.Nominal(theta, side)
	n := l.Grid().Points()
	tp := nets.NewTape()
	U, D1 := nets.NewTensor(n, 2), nets.NewTensor(n, 2)
	for g := range n {
		x, y := nom[2*g], nom[2*g+1]
		U.Set(g, 0, x)
		U.Set(g, 1, y)
		D1.Set(g, 0, theta[0]*x-theta[1]*x*y)
		D1.Set(g, 1, theta[2]*x*y-theta[3]*y)
	}
	jet := nets.Jet{U: tp.Const(U), D1: []*nets.Var{tp.Const(D1)}, D2: []*nets.Var{tp.Const(nets.NewTensor(n, 2))}}
	th := tp.Const(nets.FromSlice(1, 4, theta))
	if m := maxAbs(l.Residual(tp, th, jet, tp.Const(nets.NewTensor(n, 1))).Value); m > 1e-12 {
		t.Errorf("residual %g, want 0", m)
	}
	first := nets.Jet{U: tp.Const(nets.FromSlice(1, 2, nom[:2]))}
	if m := maxAbs(l.InitialResidual(tp, th, side, first).Value); m > 1e-12 {
		t.Errorf("initial residual %g, want 0", m)
	}
	// The slope from finite differences of the RK4 data agrees with the
	// right-hand side that the residual uses.
	dt := lvHorizon / lvIntervals
	for g := 1; g < n-1; g += 17 {
		fd := (nom[2*(g+1)] - nom[2*(g-1)]) / (2 * dt)
		if d := math.Abs(fd - D1.At(g, 0)); d > 0.01 {
			t.Errorf("t=%g: slope %g vs finite difference %g", float64(g)*dt, D1.At(g, 0), fd)
		}
	}
}

// TestEqFeatureDerivatives checks every system's feature derivatives
// against central differences.
func TestEqFeatureDerivatives(t *testing.T) {
	for _, sys := range []System{newSpring(), newLotkaVolterra(), newAdvDiff()} {
		eq := sys.(Equations)
		F, D := eq.EqFeatureLen(), len(sys.Grid().StateNames)
		feat := func(st []float64) []float64 {
			f := make([]float64, F)
			eq.EqFeatures(st, f, nil, nil)
			return f
		}
		state := []float64{0.37, 0.61}[:D]
		d1, d2 := make([][]float64, D), make([][]float64, D)
		for d := range D {
			d1[d], d2[d] = make([]float64, F), make([]float64, F)
		}
		eq.EqFeatures(state, make([]float64, F), d1, d2)
		const h = 1e-4
		for d := range D {
			sp, sm := append([]float64(nil), state...), append([]float64(nil), state...)
			sp[d] += h
			sm[d] -= h
			fp, f0, fm := feat(sp), feat(state), feat(sm)
			for i := range F {
				n1 := (fp[i] - fm[i]) / (2 * h)
				n2 := (fp[i] - 2*f0[i] + fm[i]) / (h * h)
				if math.Abs(n1-d1[d][i]) > 1e-6*max(1, math.Abs(n1)) || math.Abs(n2-d2[d][i]) > 1e-4*max(1, math.Abs(n2)) {
					t.Errorf("%s: feature %d along %d: (%g, %g), numeric (%g, %g)", sys.Name(), i, d, d1[d][i], d2[d][i], n1, n2)
				}
			}
		}
	}
}

// TestLVLinearisation checks lv's operators against the nominal
// right-hand side: the coefficients of w are −J, with J its Jacobian
// along the nominal solution by central differences, and the prior mean
// is the nominal solution.
func TestLVLinearisation(t *testing.T) {
	l := newLotkaVolterra()
	theta, side := []float64{1.1, 0.7, 0.9, 1.3}, []float64{1.2, 0.8}
	nom := l.Nominal(theta, side)
	rhs := func(x, y float64) [2]float64 {
		return [2]float64{theta[0]*x - theta[1]*x*y, theta[2]*x*y - theta[3]*y}
	}
	const g, h = 37, 1e-6
	ops := l.Operators(theta, side, [][]float64{l.Grid().States[g]})[0]
	x, y := nom[2*g], nom[2*g+1]
	for e := range 2 {
		op := ops[e]
		if op[0] != (OpTerm{Coef: 1, T: 1, Ch: e}) {
			t.Errorf("equation %d starts with %+v, want w_%d′", e, op[0], e)
		}
		dx := (rhs(x+h, y)[e] - rhs(x-h, y)[e]) / (2 * h)
		dy := (rhs(x, y+h)[e] - rhs(x, y-h)[e]) / (2 * h)
		if math.Abs(op[1].Coef+dx) > 1e-8 || math.Abs(op[2].Coef+dy) > 1e-8 || op[1].Ch != 0 || op[2].Ch != 1 {
			t.Errorf("equation %d: terms %+v, want −J = (%g, %g)", e, op[1:], -dx, -dy)
		}
	}
	if m := l.PriorMean(theta, side); len(m) != len(nom) || m[2*g] != x {
		t.Errorf("prior mean is not the nominal solution")
	}
	for _, ic := range l.InitialObservations(theta, side) {
		if ic.Value != 0 || ic.State[0] != 0 {
			t.Errorf("initial observation %+v, want w(0) = 0", ic)
		}
	}
}
