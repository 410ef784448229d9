package kohgp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/core"
	"apic/sims"
)

// testObjective builds the objective of one test task of sys with a
// context of n points.
func testObjective(t *testing.T, name string, n int, seed uint64) (*objective, sims.Task) {
	t.Helper()
	sys, err := sims.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 1, Context: n, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	task := tasks[0]
	chans, err := channels(sys, task.Context, task.Real.Side)
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	lay := newLayout(sys.Params(), len(g.StateNames), len(g.Channels))
	return newObjective(sys, task.Real.Side, lay, chans), task
}

// randomU draws a point of the unconstrained space around plausible
// values: θ anywhere inside its box, hyperparameters within a decade.
func randomU(o *objective, rng *rand.Rand) []float64 {
	q := make([]float64, o.lay.size())
	for i := range q {
		q[i] = rng.Float64()
	}
	return startPoint(o.lay, o.sys.Grid(), o.chans, q)
}

// TestGradientMatchesFiniteDifferences checks the analytic gradient (GP
// hyperparameters in closed form, θ through the simulator's
// vector-Jacobian product) against central differences of the value, on
// every system.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{{"spring", 12}, {"lv", 8}, {"advdiff", 15}} {
		o, _ := testObjective(t, tc.name, tc.n, 3)
		rng := rand.New(rand.NewPCG(7, 8))
		for trial := range 3 {
			u := randomU(o, rng)
			g := make([]float64, len(u))
			o.gradient(g, u)
			const h = 1e-5
			for i := range u {
				up := append([]float64(nil), u...)
				up[i] += h
				fp := o.value(up)
				up[i] -= 2 * h
				fm := o.value(up)
				num := (fp - fm) / (2 * h)
				if d := math.Abs(num - g[i]); d > 1e-5*math.Max(1, math.Abs(num)) {
					t.Errorf("%s trial %d: ∂/∂u[%d] analytic %.9g, numeric %.9g", tc.name, trial, i, g[i], num)
				}
			}
		}
	}
}

// TestValueMatchesDenseFormula checks the NLML against an independent
// dense evaluation with gonum/mat (explicit inverse and determinant), on
// two channels (lv), and the simulator run against sys.Nominal.
func TestValueMatchesDenseFormula(t *testing.T) {
	o, task := testObjective(t, "lv", 10, 5)
	u := randomU(o, rand.New(rand.NewPCG(1, 1)))
	got := o.value(u)
	theta := make([]float64, o.lay.nTheta())
	o.lay.theta(theta, u)
	F := o.nominal()
	// The model's integrator (NominalOp, 1 RK4 sub-step) agrees with the
	// data integrator to BENCHMARKS.md's ~1e-4.
	for i, v := range o.sys.Nominal(theta, task.Real.Side) {
		if math.Abs(F[i]-v) > 1e-3 {
			t.Fatalf("NominalOp value %d = %v, Nominal %v", i, F[i], v)
		}
	}
	want := 0.0
	for c, ch := range o.chans {
		h := o.lay.hyper(u, c)
		n := len(ch.y)
		K := mat.NewDense(n, n, nil)
		r := mat.NewVecDense(n, nil)
		for i := range n {
			for j := range n {
				v := h.Kernel.At(ch.states[i], ch.states[j])
				if i == j {
					v += h.Kernel.Std*h.Kernel.Std*corrJitter + h.NoiseStd*h.NoiseStd + ch.floor
				}
				K.Set(i, j, v)
			}
			r.SetVec(i, ch.y[i]-F[ch.values[i]])
		}
		var kinv mat.Dense
		if err := kinv.Inverse(K); err != nil {
			t.Fatal(err)
		}
		var a mat.VecDense
		a.MulVec(&kinv, r)
		want += 0.5*mat.Dot(r, &a) + 0.5*math.Log(mat.Det(K)) + 0.5*float64(n)*math.Log(2*math.Pi)
	}
	if d := math.Abs(got - want); d > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("NLML %v, dense formula %v", got, want)
	}
}
