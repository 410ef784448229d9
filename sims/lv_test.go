package sims

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"apic/nets"
)

// slvReference is testdata/reference/spring_lv.json, written by the
// independent Python implementation ref_spring_lv.py.
type slvReference struct {
	Spring []struct {
		Omega         float64
		T             []float64
		Nominal, True []float64
	}
	LV []struct {
		Theta, U0       []float64
		T               []float64
		NominalPrey     []float64 `json:"nominal_prey"`
		NominalPredator []float64 `json:"nominal_predator"`
		TruePrey        []float64 `json:"true_prey"`
		TruePredator    []float64 `json:"true_predator"`
	}
}

func loadSpringLVReference(t *testing.T) slvReference {
	t.Helper()
	raw, err := os.ReadFile("../testdata/reference/spring_lv.json")
	if err != nil {
		t.Fatalf("reading reference: %v", err)
	}
	var ref slvReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("parsing reference: %v", err)
	}
	return ref
}

func TestLVRegistered(t *testing.T) {
	sys, err := Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	if g.Points() != 100 || g.Size() != 200 || len(g.Channels) != 2 {
		t.Fatalf("grid: %d points, %d values", g.Points(), g.Size())
	}
	for j, st := range g.States {
		if st[0] != 10*float64(j)/99 {
			t.Fatalf("t_%d = %g", j, st[0])
		}
	}
	if lo, hi := sys.TrainContext(); lo != 20 || hi != 100 || sys.TestContext() != 30 {
		t.Errorf("context sizes %d..%d, test %d", lo, hi, sys.TestContext())
	}
	if s := sys.Side(); s.Len != 2 || s.Lo != 0.7 || s.Hi != 1.8 {
		t.Errorf("side %+v", s)
	}
	if len(sys.Params()) != 4 {
		t.Errorf("params %+v", sys.Params())
	}
}

func TestLVReference(t *testing.T) {
	ref := loadSpringLVReference(t)
	if len(ref.LV) != 3 {
		t.Fatalf("%d lv reference cases", len(ref.LV))
	}
	lv := newLotkaVolterra()
	for _, c := range ref.LV {
		nom, tr := lv.Nominal(c.Theta, c.U0), lv.True(c.Theta, c.U0)
		var worst float64
		for g := range 100 {
			for _, p := range [][2]float64{
				{nom[2*g], c.NominalPrey[g]}, {nom[2*g+1], c.NominalPredator[g]},
				{tr[2*g], c.TruePrey[g]}, {tr[2*g+1], c.TruePredator[g]},
			} {
				worst = max(worst, math.Abs(p[0]-p[1]))
			}
		}
		t.Logf("θ %v u0 %v: max |Go − reference| = %.2g", c.Theta, c.U0, worst)
		if worst > 1e-6 {
			t.Errorf("θ %v u0 %v: differs from the reference by %.3g", c.Theta, c.U0, worst)
		}
		if !lv.Valid(tr) {
			t.Errorf("θ %v u0 %v: reference trajectory rejected", c.Theta, c.U0)
		}
	}
}

// TestLVInvariant checks that the nominal data trajectory conserves the
// Lotka–Volterra first integral V = ηx − γ ln x + βy − α ln y.
func TestLVInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	lv := newLotkaVolterra()
	for range 20 {
		th, u0 := lv.SampleTheta(rng), lv.SampleSide(rng)
		a, b, e, g := th[0], th[1], th[2], th[3]
		v := func(x, y float64) float64 { return e*x - g*math.Log(x) + b*y - a*math.Log(y) }
		nom := lv.Nominal(th, u0)
		v0 := v(u0[0], u0[1])
		for j := range 100 {
			if d := math.Abs(v(nom[2*j], nom[2*j+1]) - v0); d > 1e-6 {
				t.Fatalf("θ %v u0 %v: invariant drifts by %.3g at t_%d", th, u0, d, j)
			}
		}
	}
}

// TestLVTrueUsesBumpTable checks that True, which reads the bumps from
// a table built once, gives exactly the trajectory of the forcing
// evaluated directly at the data integrator's stage times, so that the
// table changes no realization drawn with a given seed.
func TestLVTrueUsesBumpTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	lv := newLotkaVolterra()
	times := lv.data.stageTimes()
	for range 20 {
		th, u0 := lv.SampleTheta(rng), lv.SampleSide(rng)
		w := LVForcingWeights(th, u0)
		direct := make([]float64, len(times))
		for i, tm := range times {
			var sum float64
			for k, wk := range w {
				r := tm - (1 + 8*float64(k)/5)
				sum += wk * math.Exp(-r*r/2)
			}
			direct[i] = -math.Expm1(-tm) * sum
		}
		want := make([]float64, lv.grid.Size())
		lv.data.integrate(1, th, u0, direct, want, nil)
		got := lv.True(th, u0)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("θ %v u0 %v: value %d = %.17g, want %.17g (bit for bit)", th, u0, i, got[i], want[i])
			}
		}
	}
}

func TestLVTrueForcing(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	lv := newLotkaVolterra()
	times := make([]float64, 1001)
	for i := range times {
		times[i] = 12 * float64(i) / 1000 // beyond the horizon too
	}
	for range 50 {
		d := LVTrueForcing(lv.SampleTheta(rng), lv.SampleSide(rng), times)
		if d[0] != 0 {
			t.Fatalf("d(0) = %g", d[0])
		}
		for i, v := range d {
			// Each w_k lies in (0, 0.2), so d < 0.2·Σ_k exp(...) ≤ 0.2·2.1.
			if !(v >= 0 && v < 0.5) {
				t.Fatalf("d(%g) = %g", times[i], v)
			}
		}
	}
	// A hand evaluation at θ = (1, 1, 1, 1), u0 = (1, 1): f = (0, 0, 0, 0, 1, 1).
	th, u0 := []float64{1, 1, 1, 1}, []float64{1, 1}
	var want float64
	for k := range 6 {
		s := 0.2 * math.Cos(3.1*float64(k+1))
		for _, j := range []int{5, 6} {
			s += 0.8 * math.Sin(1.7*float64(k+1)+2.3*float64(j))
		}
		c := 1 + 1.6*float64(k)
		want += 0.1 * (1 + math.Tanh(s)) * math.Exp(-(3-c)*(3-c)/2)
	}
	want *= 1 - math.Exp(-3)
	if got := LVTrueForcing(th, u0, []float64{3})[0]; math.Abs(got-want) > 1e-14 {
		t.Errorf("d(3) = %.17g, want %.17g", got, want)
	}
}

func TestLVSampling(t *testing.T) {
	lv := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(14, 15))
	for range 1000 {
		for _, v := range lv.SampleTheta(rng) {
			if v < 0.5 || v >= 1.5 {
				t.Fatalf("θ entry %g outside U(0.5, 1.5)", v)
			}
		}
		for _, v := range lv.SampleSide(rng) {
			if v < 0.7 || v >= 1.8 {
				t.Fatalf("u0 entry %g outside U(0.7, 1.8)", v)
			}
		}
	}
	// θ is drawn before u0, each entry from one Float64 in order.
	a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	got := append(lv.SampleTheta(a), lv.SampleSide(a)...)
	lo := []float64{0.5, 0.5, 0.5, 0.5, 0.7, 0.7}
	width := []float64{1, 1, 1, 1, 1.1, 1.1}
	for i := range got {
		if want := lo[i] + width[i]*b.Float64(); got[i] != want {
			t.Fatalf("draw %d: %g, want %g", i, got[i], want)
		}
	}
}

func TestLVValid(t *testing.T) {
	lv := newLotkaVolterra()
	ok := make([]float64, 200)
	for i := range ok {
		ok[i] = 1
	}
	if !lv.Valid(ok) {
		t.Error("constant 1 rejected")
	}
	for _, bad := range []float64{0.005, 10.5, math.NaN(), math.Inf(1)} {
		v := append([]float64(nil), ok...)
		v[77] = bad
		if lv.Valid(v) {
			t.Errorf("value %g accepted", bad)
		}
	}
}

func TestLVNominalOp(t *testing.T) {
	lv := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(16, 17))
	theta, side := lvBatch(rng, 3)
	tp := nets.NewTape()
	out := lv.NominalOp(tp, tp.Input(theta), side)
	if out.Value.Rows != 3 || out.Value.Cols != 200 {
		t.Fatalf("NominalOp shape %s", out.Value.Shape())
	}
	for b := range 3 {
		want := lv.Nominal(theta.Row(b), side.Row(b))
		if e := slvMaxDiff(out.Value.Row(b), want); e > 1e-5 {
			t.Errorf("realization %d: NominalOp off Nominal by %.3g", b, e)
		}
	}
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, lv.NominalOp(tp, in[0], side))
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta.Clone()}, 1e-6, 1e-6); err != nil {
		t.Error(err)
	}
}

func TestLVForcingClosure(t *testing.T) {
	lv := newLotkaVolterra()
	cl := lv.Closure()
	if cl.Name() != "forcing" || cl.Outputs() != 1 || cl.Clipped(nil) {
		t.Fatalf("closure %s, %d outputs", cl.Name(), cl.Outputs())
	}
	// f_ψ is evaluated at the grid times (knots) and interpolated to the
	// stage times.
	q := cl.Queries()
	g := lv.Grid()
	if len(q) != g.Points() {
		t.Fatalf("%d queries, want the %d grid times", len(q), g.Points())
	}
	for i := range q {
		if len(q[i]) != 1 || q[i][0] != g.States[i][0] {
			t.Fatalf("query %d = %v, want %v", i, q[i], g.States[i])
		}
	}
	taus := make([]float64, len(q))
	for i := range q {
		taus[i] = q[i][0]
	}
	// The true forcing at the query states reproduces the true process.
	rng := rand.New(rand.NewPCG(18, 19))
	const b = 2
	theta, side := lvBatch(rng, b)
	m := len(q)
	fv := nets.NewTensor(b*m, 1)
	for i := range b {
		copy(fv.Data[i*m:(i+1)*m], LVTrueForcing(theta.Row(i), side.Row(i), taus))
	}
	tp := nets.NewTape()
	out := cl.Apply(tp, tp.Input(theta), side, tp.Input(fv))
	for i := range b {
		// Linear interpolation of the forcing between knots costs accuracy
		// of order Δt²·max|d''|/8 integrated over the horizon.
		if e := slvMaxDiff(out.Value.Row(i), lv.True(theta.Row(i), side.Row(i))); e > 2e-3 {
			t.Errorf("realization %d: closure with the true forcing at the knots off True by %.3g", i, e)
		}
	}
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, cl.Apply(tp, in[0], side, in[1]))
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, fv}, 1e-6, 1e-6); err != nil {
		t.Error(err)
	}
}

func TestLVFeatures(t *testing.T) {
	lv := newLotkaVolterra()
	ctx := Context{
		States: [][]float64{{0}, {5}, {10}},
		Values: [][]float64{{1.2, 0.9}, {0, 0.4}, {2.5, 0}},
		Mask:   [][]bool{{true, true}, {false, true}, {true, false}},
	}
	side := []float64{1.1, 1.7}
	dst := nets.NewTensor(3, lv.FeatureLen())
	lv.EncodeContext(dst, ctx, side)
	want := [][]float64{
		{-1, 1.2, 0.9, 1, 1, 1.1, 1.7},
		{0, 0, 0.4, 0, 1, 1.1, 1.7},
		{1, 2.5, 0, 1, 0, 1.1, 1.7},
	}
	for i := range want {
		for j := range want[i] {
			if dst.At(i, j) != want[i][j] {
				t.Fatalf("features row %d: %v, want %v", i, dst.Row(i), want[i])
			}
		}
	}
	q := make([]float64, lv.QueryFeatureLen())
	lv.QueryFeatures(q, []float64{7.5})
	if q[0] != 0.5 {
		t.Errorf("query feature of t = 7.5: %g", q[0])
	}
}
