package sims

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// applyRow evaluates a closure's Apply for one realization.
func applyRow(c Closure, theta, side, f []float64) []float64 {
	tp := nets.NewInferenceTape()
	th := tp.Const(nets.FromSlice(1, len(theta), append([]float64(nil), theta...)))
	sd := nets.FromSlice(1, len(side), append([]float64(nil), side...))
	fv := tp.Const(nets.FromSlice(len(f)/c.Outputs(), c.Outputs(), append([]float64(nil), f...)))
	return c.Apply(tp, th, sd, fv).Value.Data
}

// TestTangentClosures: every native closure's ApplyTangent gives Apply's
// prediction and, along random directions in θ and f, its central
// differences: the exact forward-mode derivatives that refinement's
// Jacobian is built from.
func TestTangentClosures(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		sys, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := sys.Closure().(TangentClosure)
		if !ok {
			t.Fatalf("%s: closure %s has no tangent", name, sys.Closure().Name())
		}
		rng := rand.New(rand.NewPCG(81, uint64(len(name))))
		theta, side := sys.SampleTheta(rng), sys.SampleSide(rng)
		f := make([]float64, len(c.Queries())*c.Outputs())
		for i := range f {
			f[i] = 0.3 * (rng.Float64() - 0.5)
		}
		checkTangentAt(t, name, c, theta, side, f, rng)
	}
}

// checkTangentAt compares c's ApplyTangent at (θ, f) with Apply and with
// central differences along four random directions.
func checkTangentAt(t *testing.T, name string, c TangentClosure, theta, side, f []float64, rng *rand.Rand) {
	t.Helper()
	qo := len(f)
	const n = 4
	p := len(theta)
	dtheta, df := make([]float64, n*p), make([]float64, n*qo)
	for j := range n {
		// Direction 0 moves θ only, 1 moves f only, the rest both.
		for i := range p {
			if j != 1 {
				dtheta[j*p+i] = 0.1 * theta[i] * (rng.Float64() - 0.5)
			}
		}
		for i := range qo {
			if j != 0 {
				df[j*qo+i] = rng.Float64() - 0.5
			}
		}
	}
	want := applyRow(c, theta, side, f)
	// A reused buffer holds old values: every derivative must be written.
	buf := make([]float64, n*len(want))
	for i := range buf {
		buf[i] = math.NaN()
	}
	pred, dpred := c.ApplyTangent(buf, theta, side, f, n, dtheta, df)
	if &dpred[0] != &buf[0] {
		t.Fatalf("%s: the derivatives did not go to the buffer given", name)
	}
	for i := range want {
		if !(math.Abs(pred[i]-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: prediction %d = %v, Apply gives %v", name, i, pred[i], want[i])
		}
	}
	g := len(want)
	const eps = 1e-6
	for j := range n {
		at := func(sign float64) []float64 {
			th, fe := append([]float64(nil), theta...), append([]float64(nil), f...)
			for i := range th {
				th[i] += sign * eps * dtheta[j*p+i]
			}
			for i := range fe {
				fe[i] += sign * eps * df[j*qo+i]
			}
			return applyRow(c, th, side, fe)
		}
		plus, minus := at(1), at(-1)
		scale := 0.0
		for i := range g {
			scale = math.Max(scale, math.Abs(plus[i]-minus[i])/(2*eps))
		}
		for i := range g {
			num := (plus[i] - minus[i]) / (2 * eps)
			if got := dpred[j*g+i]; !(math.Abs(got-num) <= 1e-6*math.Max(1, scale)) {
				t.Fatalf("%s: direction %d, value %d: tangent %.10g, central difference %.10g", name, j, i, got, num)
			}
		}
	}
}

// TestApplyTangentAtMatchesApplyTangent: spring's derivatives at chosen
// grid times are ApplyTangent's there, bit for bit, banded or not.
func TestApplyTangentAtMatchesApplyTangent(t *testing.T) {
	sys, err := Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	e := sys.Closure().(springEnvelope)
	rng := rand.New(rand.NewPCG(4, 9))
	k, g, n := e.interp.Rows, len(e.times), 7
	f, df, dth := make([]float64, k), make([]float64, n*k), make([]float64, n)
	for i := range f {
		f[i] = 0.3 * rng.NormFloat64()
	}
	for i := range df {
		df[i] = rng.NormFloat64()
	}
	for i := range dth {
		dth[i] = rng.NormFloat64()
	}
	at := []int{0, 3, 3, 17, g - 1, 50}
	for _, banded := range []bool{true, false} {
		c := e
		if !banded {
			c.band = nil
		}
		pred, full := c.ApplyTangent(nil, []float64{1.7}, nil, f, n, dth, df)
		predAt, dAt := c.ApplyTangentAt(nil, []float64{1.7}, nil, f, n, dth, df, at)
		for i := range pred {
			if pred[i] != predAt[i] {
				t.Fatalf("banded %v: pred[%d] = %v, ApplyTangent %v", banded, i, predAt[i], pred[i])
			}
		}
		for j := range n {
			for i, tt := range at {
				if got, want := dAt[j*len(at)+i], full[j*g+tt]; got != want {
					t.Fatalf("banded %v: direction %d at %d: %v, ApplyTangent %v", banded, j, tt, got, want)
				}
			}
		}
	}
}
