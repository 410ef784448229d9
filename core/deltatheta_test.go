package core

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"apic/sims"
)

// The nominal Jacobian matches spring's by hand: F = sin(ωt), ∂F/∂ω =
// t cos(ωt), at an interior ω and at the prior's bounds (one-sided).
func TestNominalJacobianMatchesSpring(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	times := sys.Grid().States
	p := sys.Params()[0]
	for _, w := range []float64{p.Lo, 4.7, p.Hi} {
		jac := nominalJacobian(sys, []float64{w}, nil)
		if len(jac) != len(times) {
			t.Fatalf("ω=%g: %d derivatives, want %d", w, len(jac), len(times))
		}
		for g, st := range times {
			tt := st[0]
			want := tt * math.Cos(w*tt)
			if d := math.Abs(jac[g] - want); d > 1e-4*(1+math.Abs(want)) {
				t.Fatalf("ω=%g t=%g: ∂F/∂ω = %g, want %g", w, tt, jac[g], want)
			}
		}
	}
}

// The term adds w Σ_q J_qg² r_q² (σ_q² + b_q²) at each grid value.
func TestDeltaThetaVariance(t *testing.T) {
	d := &DeltaTheta{Factor: []float64{2, 0.5}, Floor: []float64{0, 3}}
	jac := []float64{1, -2, 0, 4, 1, -1} // q=0: 1, −2, 0; q=1: 4, 1, −1
	std := []float64{0.1, 4}
	v := []float64{1, 1, 1}
	d.variance(v, 2, std, jac)
	// w r²(σ²+b²): q=0: 2·4·0.01 = 0.08; q=1: 2·0.25·(16+9) = 12.5.
	want := []float64{1 + 0.08*1 + 12.5*16, 1 + 0.08*4 + 12.5*1, 1 + 0 + 12.5*1}
	for g := range v {
		if math.Abs(v[g]-want[g]) > 1e-12 {
			t.Fatalf("v[%d] = %g, want %g", g, v[g], want[g])
		}
	}
}

// The weight is read between the cells as the table's scales are:
// linearly in σ̂ within a context size, in log n between sizes, held
// beyond the ends.
func TestDeltaThetaWeightInterpolates(t *testing.T) {
	d := &DeltaTheta{Cells: []DeltaThetaCell{
		{Context: 10, NoiseStd: 0.01, Weight: 1}, {Context: 10, NoiseStd: 0.11, Weight: 3},
		{Context: 40, NoiseStd: 0.01, Weight: 5}, {Context: 40, NoiseStd: 0.11, Weight: 5},
	}}
	for _, tc := range []struct {
		n     int
		sigma float64
		want  float64
	}{
		{10, 0.01, 1}, {10, 0.06, 2}, {10, 1, 3}, {5, 0, 1}, {20, 0.01, 3}, {80, 0.5, 5},
	} {
		if got := d.weight(tc.n, tc.sigma); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("n=%d σ̂=%g: weight %g, want %g", tc.n, tc.sigma, got, tc.want)
		}
	}
}

func TestDeltaThetaCheck(t *testing.T) {
	cell := []DeltaThetaCell{{Context: 5, NoiseStd: 0.1, Weight: 1}}
	for _, tc := range []struct {
		d    *DeltaTheta
		want string
	}{
		{&DeltaTheta{Factor: []float64{-1}, Cells: cell}, "≥ 0"},
		{&DeltaTheta{Factor: []float64{math.NaN()}, Cells: cell}, "finite"},
		{&DeltaTheta{Factor: []float64{1}, Floor: []float64{math.Inf(1)}, Cells: cell}, "finite"},
		{&DeltaTheta{Factor: []float64{1, 2}, Floor: []float64{1}, Cells: cell}, "as many"},
		{&DeltaTheta{Factor: make([]float64, maxThetaBase+1), Cells: cell}, "at most"},
		{&DeltaTheta{Factor: []float64{1}}, "no cells"},
		{&DeltaTheta{Factor: []float64{1}, Cells: []DeltaThetaCell{{Context: 0, Weight: 1}}}, "context must be ≥ 1"},
		{&DeltaTheta{Factor: []float64{1}, Cells: []DeltaThetaCell{{Context: 3, Weight: -1}}}, "the weight in [0, 1048576]"},
		{&DeltaTheta{Factor: []float64{1}, Cells: []DeltaThetaCell{{Context: 3, Weight: 1e300}}}, "the weight in [0, 1048576]"},
		{&DeltaTheta{Factor: []float64{1}, Cells: []DeltaThetaCell{{Context: 3, NoiseStd: math.NaN()}}}, "σ̂ finite"},
		{&DeltaTheta{Factor: []float64{1}, Cells: make([]DeltaThetaCell, LimitConditionCells.Max+1)}, "cells"},
	} {
		err := SpreadFit{DeltaTheta: tc.d}.check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.d, err, tc.want)
		}
	}
	if err := (SpreadFit{DeltaTheta: &DeltaTheta{Factor: []float64{0, 1}, Floor: []float64{2, 0}, Cells: cell}}).check(); err != nil {
		t.Errorf("a valid term: %v", err)
	}
}

// A term stored with the default spread of a refining model, where
// nothing fits one, is refused when the inference settings are checked;
// a model that does not refine by default holds its one pass's term
// there.
func TestDeltaThetaOnlyInOnePass(t *testing.T) {
	m, _ := shippedModel(t, "lv", CNP, 1)
	in := m.Config.Infer
	in.SpreadFit.DeltaTheta = in.OnePass.DeltaTheta
	err := in.check()
	if err == nil || !strings.Contains(err.Error(), "belongs to the one-pass fit") {
		t.Fatalf("error %v, want one saying where the term belongs", err)
	}
	in.Refine = 0
	if err := in.check(); err != nil {
		t.Errorf("a one-pass model's default term: %v", err)
	}
}

// SetRefine keeps the one-pass fit where a model with the new count
// reads it, both ways, and moves nothing between two refining counts.
func TestSetRefineKeepsOnePassFit(t *testing.T) {
	m, _ := shippedModel(t, "lv", CNP, 1)
	in := m.Config.Infer
	onePass, refined := *in.OnePass, in.SpreadFit
	if !in.SetRefine(0) || in.OnePass != nil || !reflect.DeepEqual(in.SpreadFit, onePass) || in.OnePassFit() != &in.SpreadFit {
		t.Fatalf("refine 0: default fit %+v, one-pass fit %v", in.SpreadFit, in.OnePass)
	}
	if err := in.check(); err != nil {
		t.Fatal(err)
	}
	if !in.SetRefine(5) || in.OnePass == nil || !reflect.DeepEqual(*in.OnePass, onePass) || in.SpreadFit.DeltaTheta != nil {
		t.Fatalf("refine 5 again: one-pass fit %+v, default θ term %v", in.OnePass, in.SpreadFit.DeltaTheta)
	}
	if err := in.check(); err != nil {
		t.Fatal(err)
	}
	in = m.Config.Infer
	if in.SetRefine(3) || !reflect.DeepEqual(in.SpreadFit, refined) || !reflect.DeepEqual(*in.OnePass, onePass) {
		t.Errorf("refine 5 → 3 moved a fit")
	}
	in = Infer{Refine: 0}
	if in.SetRefine(5) || in.OnePass != nil {
		t.Errorf("an unfitted model got a one-pass fit: %+v", in.OnePass)
	}
}

// A stored term for another number of parameters than the system's is
// refused when the configuration is checked.
func TestDeltaThetaLengthChecked(t *testing.T) {
	m, _ := shippedModel(t, "lv", CNP, 1)
	c := m.Config
	op := *c.Infer.OnePass
	op.DeltaTheta = &DeltaTheta{Factor: []float64{1, 1}, Cells: []DeltaThetaCell{{Context: 5, Weight: 1}}}
	c.Infer.OnePass = &op
	err := c.checkThetaBaseLen()
	if err == nil || !strings.Contains(err.Error(), "δ's θ term for 2 parameters: lv has 4") {
		t.Fatalf("error %v, want one naming the counts", err)
	}
}

// On lv/cnp, whose one sample has no θ spread of its own, the fitted
// term raises the one-pass δ LL on test realizations the fit never saw,
// keeps δ's ECE within 0.01 of what it was, and leaves the refined
// predictions and everything but δ's one-pass band as they were.
func TestDeltaThetaRaisesOnePassLL(t *testing.T) {
	if testing.Short() {
		t.Skip("recalibrates a shipped file")
	}
	m, tasks := shippedModel(t, "lv", CNP, 100)
	// The baseline drops the shipped file's term and fits its one-pass
	// table on as few realizations as the term's, which refits it.
	op := *m.Config.Infer.OnePass
	op.DeltaTheta = nil
	m.Config.Infer.OnePass = &op
	const n = 48
	if err := m.RecalibrateOnePassConditions(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	score := func(refine int) (ll, ece, recon float64) {
		per, err := m.ScoreTasksWith(context.Background(), tasks, PredictOptions{Samples: 32, Seed: 3, Refine: refine})
		if err != nil {
			t.Fatal(err)
		}
		r := Summarise(m.Sys, per)
		return r.Metrics[KeyDeltaLL].Mean, r.Metrics[KeyDeltaECE].Mean, r.Metrics[KeyReconMAE].Mean
	}
	ll0, ece0, recon0 := score(0)
	rll0, rece0, _ := score(-1)
	if err := m.RecalibrateOnePassDeltaTheta(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	d := m.Config.Infer.OnePass.DeltaTheta
	if d == nil {
		t.Fatal("no term fitted")
	}
	ll, ece, recon := score(0)
	t.Logf("one-pass δ LL %.3f → %.3f, δ ECE %.3f → %.3f (factors %v, cells %v)", ll0, ll, ece0, ece, d.Factor, d.Cells)
	if ll < ll0+0.2 {
		t.Errorf("one-pass δ LL %.3f, want at least 0.2 above %.3f", ll, ll0)
	}
	if ece > ece0+0.01 {
		t.Errorf("one-pass δ ECE %.3f, want at most 0.01 above %.3f", ece, ece0)
	}
	if recon != recon0 {
		t.Errorf("one-pass recon MAE moved: %g, was %g", recon, recon0)
	}
	if rll, rece, _ := score(-1); rll != rll0 || rece != rece0 {
		t.Errorf("refined δ LL/ECE moved: %g/%g, was %g/%g", rll, rece, rll0, rece0)
	}
}

// A model that does not refine by default has no one-pass table for
// the term: the fit says so.
func TestDeltaThetaNeedsOnePassTable(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	m.Config.Infer.OnePass = nil
	err := m.RecalibrateOnePassDeltaTheta(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "no one-pass table") {
		t.Fatalf("error %v, want one saying the model has no one-pass table", err)
	}
}

// A model that does not refine by default is told how to get a one-pass
// fit of its own (refinement steps), not to recalibrate whole: a whole
// recalibration of it fits only its default prediction, the one pass.
func TestOnePassPartsOnModelWithoutRefinementAdviseRefine(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	m.Config.Infer.Refine, m.Config.Infer.OnePass = 0, nil
	err := m.RecalibrateOnePassConditions(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "--refine") || strings.Contains(err.Error(), "recalibrate it whole") {
		t.Errorf("one-pass: error %v, want one advising --refine", err)
	}
}

// A model that does not refine by default, whose default prediction is
// the one pass, gets δ's θ term in its default fit, fitted on its
// default table; without a table it is told to recalibrate whole.
func TestDeltaThetaOnModelWithoutRefinementFitsDefault(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	in := &m.Config.Infer
	in.SetRefine(0)
	in.DeltaTheta = nil
	if err := m.RecalibrateOnePassDeltaTheta(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if d := in.DeltaTheta; in.OnePass != nil || (d != nil && len(d.Cells) != len(in.Conditions)) {
		t.Fatalf("one-pass fit kept apart %t, default θ term %+v", in.OnePass != nil, d)
	}
	in.Conditions = nil
	err := m.RecalibrateOnePassDeltaTheta(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "no table of scales per condition") || !strings.Contains(err.Error(), "recalibrate it whole") {
		t.Errorf("without a table: error %v, want one saying to recalibrate whole", err)
	}
}

// Jacobians computed in one batch are each realization's own: the
// batch's rows (base and steps per realization) are not mixed up. θ at
// a prior bound takes the backward step.
func TestNominalJacobiansBatchMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, sys := range sims.All() {
		var thetas, sides [][]float64
		for i := range 3 {
			th := sys.SampleTheta(rng)
			if i == 2 {
				th[0] = sys.Params()[0].Hi
			}
			thetas, sides = append(thetas, th), append(sides, sys.SampleSide(rng))
		}
		batch := nominalJacobians(sys, thetas, sides)
		for i := range thetas {
			one := nominalJacobian(sys, thetas[i], sides[i])
			for g := range one {
				if d := math.Abs(batch[i][g] - one[g]); d > 1e-9*(1+math.Abs(one[g])) || math.IsNaN(batch[i][g]) {
					t.Fatalf("%s realization %d value %d: batched %g, alone %g", sys.Name(), i, g, batch[i][g], one[g])
				}
			}
		}
	}
}
