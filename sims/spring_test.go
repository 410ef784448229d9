package sims

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"apic/nets"
)

func TestSpringRegistered(t *testing.T) {
	sys, err := Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	if g.Points() != 100 || g.Size() != 100 || g.Lo[0] != 0 || g.Hi[0] != 4 {
		t.Fatalf("grid: %d points on [%g, %g]", g.Points(), g.Lo[0], g.Hi[0])
	}
	for j, st := range g.States {
		if st[0] != 4*float64(j)/99 {
			t.Fatalf("t_%d = %g", j, st[0])
		}
	}
	if lo, hi := sys.TrainContext(); lo != 15 || hi != 100 || sys.TestContext() != 30 {
		t.Errorf("context sizes %d..%d, test %d", lo, hi, sys.TestContext())
	}
	if p := sys.Params(); len(p) != 1 || p[0].Lo != 3 || p[0].Hi != 8 {
		t.Errorf("params %+v", p)
	}
	if sys.Side().Len != 0 {
		t.Errorf("side %+v", sys.Side())
	}
}

func TestSpringClosedForm(t *testing.T) {
	sp := newSpring()
	rng := rand.New(rand.NewPCG(20, 21))
	for range 20 {
		th := sp.SampleTheta(rng)
		w := th[0]
		if w < 3 || w >= 8 {
			t.Fatalf("ω = %g outside U(3, 8)", w)
		}
		nom, tr := sp.Nominal(th, nil), sp.True(th, nil)
		for j := range 100 {
			tj := 4 * float64(j) / 99
			if math.Abs(nom[j]-math.Sin(w*tj)) > 1e-15 || math.Abs(tr[j]-math.Sin(w*tj)*math.Exp(-0.15*w*tj)) > 1e-15 {
				t.Fatalf("ω %g, t %g: nominal %g, true %g", w, tj, nom[j], tr[j])
			}
		}
		if !sp.Valid(tr) {
			t.Fatal("spring rejected a draw")
		}
	}
}

func TestSpringReference(t *testing.T) {
	ref := loadSpringLVReference(t)
	if len(ref.Spring) != 3 {
		t.Fatalf("%d spring reference cases", len(ref.Spring))
	}
	sp := newSpring()
	for _, c := range ref.Spring {
		th := []float64{c.Omega}
		if e := max(slvMaxDiff(sp.Nominal(th, nil), c.Nominal), slvMaxDiff(sp.True(th, nil), c.True)); e > 1e-12 {
			t.Errorf("ω %g: differs from the reference by %.3g", c.Omega, e)
		}
	}
}

// TestSpringSampleSide checks that SampleSide consumes no randomness.
func TestSpringSampleSide(t *testing.T) {
	sp := newSpring()
	a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	if s := sp.SampleSide(a); s != nil {
		t.Fatalf("side %v, want nil", s)
	}
	if a.Uint64() != b.Uint64() {
		t.Error("SampleSide consumed randomness")
	}
}

func TestSpringNominalOp(t *testing.T) {
	sp := newSpring()
	theta := nets.FromSlice(3, 1, []float64{3.2, 5.5, 7.9})
	tp := nets.NewTape()
	out := sp.NominalOp(tp, tp.Input(theta), nil)
	if out.Value.Rows != 3 || out.Value.Cols != 100 {
		t.Fatalf("shape %s", out.Value.Shape())
	}
	for b := range 3 {
		// sinCosRamp is within a few ulps of math.Sin.
		if e := slvMaxDiff(out.Value.Row(b), sp.Nominal(theta.Row(b), nil)); e > 1e-14 {
			t.Errorf("realization %d: NominalOp off Nominal by %g", b, e)
		}
	}
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, sp.NominalOp(tp, in[0], nil))
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta}, 1e-6, 1e-7); err != nil {
		t.Error(err)
	}
}

func TestSpringEnvelope(t *testing.T) {
	sp := newSpring()
	cl := sp.Closure()
	q := cl.Queries()
	if cl.Name() != "envelope" || cl.Outputs() != 1 || len(q) != 12 || cl.Clipped(nil) {
		t.Fatalf("closure %s: %d outputs, %d queries", cl.Name(), cl.Outputs(), len(q))
	}
	// The knots are grid times and span the grid.
	g := sp.Grid()
	if q[0][0] != g.States[0][0] || q[len(q)-1][0] != g.States[g.Points()-1][0] || q[1][0] != g.States[9][0] {
		t.Fatalf("knots %v do not span the grid every 9th time", q)
	}
	k := len(q)
	theta := nets.FromSlice(2, 1, []float64{4.1, 6.7})
	// f = 0 gives the nominal; f = −0.15 ω t at the knots gives the truth
	// (the log-envelope is linear in t, so interpolation is exact).
	zero := nets.NewTensor(2*k, 1)
	exact := nets.NewTensor(2*k, 1)
	for b := range 2 {
		for j, s := range q {
			exact.Data[b*k+j] = -0.15 * theta.Data[b] * s[0]
		}
	}
	tp := nets.NewTape()
	th := tp.Input(theta)
	nom := cl.Apply(tp, th, nil, tp.Const(zero))
	tr := cl.Apply(tp, th, nil, tp.Const(exact))
	for b := range 2 {
		// The op's sin/cos recurrence is within a few ulps of math.Sin.
		if e := slvMaxDiff(nom.Value.Row(b), sp.Nominal(theta.Row(b), nil)); e > 1e-14 {
			t.Errorf("f = 0: off the nominal by %g", e)
		}
		if e := slvMaxDiff(tr.Value.Row(b), sp.True(theta.Row(b), nil)); e > 1e-14 {
			t.Errorf("f = −0.15ωt: off the truth by %g", e)
		}
	}
	rng := rand.New(rand.NewPCG(22, 23))
	f0 := slvUniform(rng, 2*k, 1, -0.5, 0.5)
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, cl.Apply(tp, in[0], nil, in[1]))
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, f0}, 1e-6, 1e-7); err != nil {
		t.Error(err)
	}
}

func TestSpringFeatures(t *testing.T) {
	sp := newSpring()
	ctx := Context{
		States: [][]float64{{0}, {2}, {4}},
		Values: [][]float64{{0.5}, {-0.3}, {0.1}},
		Mask:   [][]bool{{true}, {true}, {true}},
	}
	dst := nets.NewTensor(3, sp.FeatureLen())
	sp.EncodeContext(dst, ctx, nil)
	// Each row starts with [t/2 − 1, y], then y·sin(ω_j t) and
	// (y − sin(ω_j t))² for the candidate frequencies.
	want := [][]float64{{-1, 0.5}, {0, -0.3}, {1, 0.1}}
	for i, w := range want {
		row := dst.Row(i)
		if row[0] != w[0] || row[1] != w[1] {
			t.Fatalf("row %d starts %v, want %v", i, row[:2], w)
		}
		tm, y := ctx.States[i][0], ctx.Values[i][0]
		for j := 0; j < springCandidates; j++ {
			f := math.Sin(springCandidate(j) * tm)
			if math.Abs(row[2+j]-y*f) > 1e-15 || math.Abs(row[2+springCandidates+j]-(y-f)*(y-f)) > 1e-15 {
				t.Fatalf("row %d candidate %d: %v, %v", i, j, row[2+j], row[2+springCandidates+j])
			}
		}
	}
	q := make([]float64, sp.QueryFeatureLen())
	sp.QueryFeatures(q, []float64{3})
	if q[0] != 0.5 {
		t.Errorf("query feature of t = 3: %g", q[0])
	}
}

func TestSinCosRamp(t *testing.T) {
	// Lengths that end inside and outside the four-segment blocks.
	for _, n := range []int{1000, 100, 64, 17, 1} {
		for _, a := range []float64{0, 1e-3, 0.3, 2.9, 31.7} {
			s, c := make([]float64, n), make([]float64, n)
			sinCosRamp(s, c, a)
			for j := range s {
				// The reference angle j·a is itself rounded to an ulp of j·a.
				ws, wc := math.Sincos(float64(j) * a)
				tol := 1e-14 * math.Max(1, float64(j)*a/8)
				if math.Abs(s[j]-ws) > tol || math.Abs(c[j]-wc) > tol {
					t.Fatalf("n = %d, a = %g, j = %d: (%v, %v), want (%v, %v)", n, a, j, s[j], c[j], ws, wc)
				}
			}
		}
	}
}

func TestSpringOpNonUniformTimes(t *testing.T) {
	times := []float64{0, 0.1, 0.35, 1, 2.5}
	op := newSpringOp(times)
	if op.step != 0 {
		t.Fatalf("non-uniform times taken as a uniform grid of step %v", op.step)
	}
	if u := newSpringOp([]float64{0, 0.5, 1, 1.5}); u.step != 0.5 {
		t.Errorf("uniform times: step %v, want 0.5", u.step)
	}
	theta := nets.FromSlice(2, 1, []float64{3.3, 7.1})
	out := op.Forward([]*nets.Tensor{theta})
	for b := range 2 {
		for j, tj := range times {
			if want := math.Sin(theta.Data[b] * tj); math.Abs(out.At(b, j)-want) > 1e-15 {
				t.Errorf("ω %v, t %v: %v, want %v", theta.Data[b], tj, out.At(b, j), want)
			}
		}
	}
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, tp.Apply(op, in[0], in[1]))
	}
	env := nets.FromSlice(2, len(times), []float64{0.1, -0.2, 0.3, 0, 0.05, -0.1, 0.2, 0.1, -0.3, 0})
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, env}, 1e-6, 1e-7); err != nil {
		t.Error(err)
	}
}

// TestSpringFeaturesOnGrid: observations on grid times read the matched
// filter's sines from the precomputed table; the features are the same,
// bit for bit, as those computed for the same times without grid
// indices (and an index that does not match its time is not trusted).
func TestSpringFeaturesOnGrid(t *testing.T) {
	sp := newSpring()
	times := []float64{sp.times[0], sp.times[37], sp.times[99], 1.2345, sp.times[5]}
	ctx := Context{GridIndex: []int{0, 37, 99, -1, 6}}
	for _, tm := range times {
		ctx.States = append(ctx.States, []float64{tm})
		ctx.Values = append(ctx.Values, []float64{0.3 - tm/5})
		ctx.Mask = append(ctx.Mask, []bool{true})
	}
	offGrid := ctx
	offGrid.GridIndex = nil
	got, want := nets.NewTensor(len(times), sp.FeatureLen()), nets.NewTensor(len(times), sp.FeatureLen())
	sp.EncodeContext(got, ctx, nil)
	sp.EncodeContext(want, offGrid, nil)
	for i, v := range want.Data {
		if got.Data[i] != v {
			t.Fatalf("feature %d: %v on the grid, %v computed", i, got.Data[i], v)
		}
	}
	if sp.gridPoint(ctx, 0) != 0 || sp.gridPoint(ctx, 2) != 99 || sp.gridPoint(ctx, 3) != -1 || sp.gridPoint(ctx, 4) != -1 {
		t.Error("gridPoint trusts the wrong indices")
	}
}

// TestSpringOpIntoArena: on an arena tape the op writes into the arena
// (nets.IntoOp) the values Forward gives, over storage left dirty by an
// earlier use.
func TestSpringOpIntoArena(t *testing.T) {
	s, _ := Lookup("spring")
	theta := nets.FromSlice(3, 1, []float64{3.5, 5, 7.9})
	f := nets.NewTensor(3, s.Grid().Size())
	for i := range f.Data {
		f.Data[i] = 0.01 * float64(i%17)
	}
	op := newSpringOp(s.(*spring).times)
	var a nets.Arena
	for round := range 2 {
		dirty := a.Tensor(3, s.Grid().Size())
		for i := range dirty.Data {
			dirty.Data[i] = math.NaN()
		}
		a.Reset()
		tp := nets.NewArenaTape(&a)
		for _, in := range [][]*nets.Tensor{{theta}, {theta, f}} {
			vars := make([]*nets.Var, len(in))
			for i, x := range in {
				vars[i] = tp.Const(x)
			}
			got := tp.Apply(op, vars...).Value
			want := op.Forward(in)
			if !slices.Equal(got.Data, want.Data) {
				t.Fatalf("round %d, %d inputs: arena output differs from Forward", round, len(in))
			}
		}
		a.Reset()
	}
}
