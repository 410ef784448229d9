package core

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// The widened band is √(σ² + κ (μ − μ₀)²) at every value.
func TestWidenByMove(t *testing.T) {
	std := []float64{0.3, 0, 2}
	mean := []float64{1, -1, 5}
	start := []float64{1.4, -1, 2}
	widenByMove(std, mean, start, 0.5)
	want := []float64{math.Sqrt(0.09 + 0.5*0.16), 0, math.Sqrt(4 + 0.5*9)}
	for g := range want {
		if math.Abs(std[g]-want[g]) > 1e-15 {
			t.Errorf("value %d: %g, want %g", g, std[g], want[g])
		}
	}
}

// widenByMove reports the largest ratio of a widened deviation to its
// own, and the warning names it from twice the band's own on.
func TestMoveWideningWarned(t *testing.T) {
	std := []float64{0.1, 0.2, 0}
	got := widenByMove(std, []float64{1, 1, 1}, []float64{1.3, 1, 0.5}, 1)
	if want := math.Sqrt(0.01+0.09) / 0.1; math.Abs(got-want) > 1e-12 {
		t.Errorf("largest ratio %g, want %g", got, want)
	}
	if w := moveWarnings(Prediction{moveWidening: got}); len(w) != 1 || !strings.Contains(w[0], "up to 3.16 times the fit's own") {
		t.Errorf("ratio %g: warnings %q, want one naming 3.16", got, w)
	}
	for _, r := range []float64{0, 1, 1.9} {
		if w := moveWarnings(Prediction{moveWidening: r}); w != nil {
			t.Errorf("ratio %g: warnings %q, want none", r, w)
		}
	}
}

// At five clean points some of spring/cnp's refined fits move far from
// the one pass, and calibrate's warnings say so for those; at the test
// context none does.
func TestMoveWarningsOnSparseSpring(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	count := func(n int) int {
		tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 40, Context: n, Seed: 13})
		if err != nil {
			t.Fatal(err)
		}
		ctxs, sides := contextsOf(tasks)
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 1, Seed: 3, Refine: -1})
		if err != nil {
			t.Fatal(err)
		}
		warned := 0
		for i, p := range preds {
			for _, w := range Warnings(m, ctxs[i], sides[i], p) {
				if strings.Contains(w, "moved far from where the network's one pass put it") {
					warned++
				}
			}
		}
		return warned
	}
	if n := count(5); n == 0 {
		t.Error("no realization at five clean points is warned of a band widened by the fit's move")
	}
	if n := count(30); n != 0 {
		t.Errorf("%d realizations at the test context are warned of a widened band, want none", n)
	}
}

// A value whose start is not finite keeps its band: there is no move
// to measure.
func TestWidenByMoveSkipsNonFiniteStart(t *testing.T) {
	std := []float64{0.3, 0.3, 0.3}
	widenByMove(std, []float64{1, 1, 1}, []float64{math.NaN(), math.Inf(1), 0}, 1)
	if std[0] != 0.3 || std[1] != 0.3 || math.Abs(std[2]-math.Sqrt(1.09)) > 1e-15 {
		t.Errorf("bands %v, want 0.3, 0.3 and √1.09", std)
	}
	// The band-shape fit reads the deviations as predictions report
	// them: a non-finite start leaves the cell's band, not a NaN that
	// drops the value from the fit.
	start := []float64{math.NaN(), 0}
	if got := reportedStd(2, 0.15, 1, start, 0, 1); got != 0.3 {
		t.Errorf("band-shape deviation with a NaN start %v, want 0.3", got)
	}
	if got, want := reportedStd(2, 0.15, 1, start, 1, 1), math.Sqrt(0.09+shapeUnit*shapeUnit); math.Abs(got-want) > 1e-15 {
		t.Errorf("band-shape deviation after a move of 1: %v, want %v", got, want)
	}
}

// A condition between cells reads their weights linearly (a weight may
// be 0, which a geometric mean could not interpolate).
func TestDisagreeAtInterpolates(t *testing.T) {
	cells := []ConditionScale{
		{Context: 5, NoiseStd: 0, Recon: 1, Delta: 1, Theta: 1, Disagree: 0},
		{Context: 5, NoiseStd: 0.1, Recon: 1, Delta: 1, Theta: 1, Disagree: 0.4},
	}
	for _, c := range []struct{ sigma, want float64 }{{0, 0}, {0.025, 0.1}, {0.05, 0.2}, {0.2, 0.4}} {
		if got := disagreeAt(cells, cellWeights(cells, 5, c.sigma)); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("σ̂ %g: κ %g, want %g", c.sigma, got, c.want)
		}
	}
}

// A stored weight must be finite and within [0, maxDisagree].
func TestCheckConditionsDisagreeBounds(t *testing.T) {
	for _, k := range []float64{-0.1, math.NaN(), math.Inf(1), maxDisagree + 1} {
		cells := []ConditionScale{{Context: 5, Recon: 1, Delta: 1, Theta: 1, Disagree: k}}
		err := checkConditions(cells)
		if err == nil || !strings.Contains(err.Error(), "disagreement weight") {
			t.Errorf("κ %g: error %v, want one naming the disagreement weight", k, err)
		}
	}
	for _, k := range []float64{0, 1, maxDisagree} {
		if err := checkConditions([]ConditionScale{{Context: 5, Recon: 1, Delta: 1, Theta: 1, Disagree: k}}); err != nil {
			t.Errorf("κ %g: %v", k, err)
		}
	}
}

// A one-pass table with a disagreement weight is refused, naming the
// cell: nothing would read the weight.
func TestOnePassTableRefusesDisagreement(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	cfg := m.Config
	if err := cfg.Validate(); err != nil {
		t.Fatalf("shipped config: %v", err)
	}
	op := *cfg.Infer.OnePass
	op.Conditions = slices.Clone(op.Conditions)
	op.Conditions[2].Disagree = 0.3
	cfg.Infer.OnePass = &op
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "one-pass condition scale 2") || !strings.Contains(err.Error(), "disagreement weight 0.3") {
		t.Errorf("one-pass table with κ 0.3 in cell 2: error %v, want one naming the cell and the weight", err)
	}
}

// disagreeReport is a report with the metrics pickDisagree reads.
func disagreeReport(reconLL, deltaLL, reconECE, deltaECE, pooled float64) Report {
	return Report{
		Metrics: map[string]Summary{
			KeyReconLL: {Mean: reconLL}, KeyDeltaLL: {Mean: deltaLL},
			KeyReconECE: {Mean: reconECE}, KeyDeltaECE: {Mean: deltaECE},
		},
		Pooled: PooledECE{Recon: pooled, Delta: pooled},
	}
}

// The fit takes the highest LL whose ECEs stay within the tolerances of
// the band without the term, and the band without it when none does.
func TestPickDisagreeTolerances(t *testing.T) {
	base := disagreeReport(-60, -150, 0.29, 0.32, 0.13)
	cases := []struct {
		name string
		reps []Report
		want int
	}{
		{"gain within tolerance", []Report{base, disagreeReport(-5, -9, 0.295, 0.325, 0.2), disagreeReport(-1, -3, 0.30, 0.33, 0.22)}, 2},
		{"per-realization ECE too high", []Report{base, disagreeReport(-5, -9, 0.295, 0.325, 0.2), disagreeReport(-1, -3, 0.30, 0.335, 0.22)}, 1},
		{"pooled ECE too high", []Report{base, disagreeReport(-5, -9, 0.295, 0.325, 0.2), disagreeReport(-1, -3, 0.29, 0.32, 0.24)}, 1},
		{"no gain", []Report{base, disagreeReport(-70, -150, 0.28, 0.31, 0.13)}, 0},
		{"NaN LL", []Report{base, disagreeReport(math.NaN(), 0, 0.29, 0.32, 0.13)}, 0},
	}
	for _, c := range cases {
		if got := pickDisagree(c.reps); got != c.want {
			t.Errorf("%s: picked %d, want %d", c.name, got, c.want)
		}
	}
}

// A model that predicts in one pass by default has no refined fit to
// widen: the fit refuses it and says how to refine.
func TestRecalibrateDisagreementRefusesOnePass(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	m.Config.Infer.Refine = 0
	err := m.RecalibrateDisagreement(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "--refine") {
		t.Fatalf("error %v, want one advising --refine", err)
	}
}

// On spring/cnp at five clean context points, where a refined fit can
// match every point and be wrong between them, the fitted weights raise
// the refined recon and δ LL by at least 10 over 100 realizations,
// without raising the mean ECE by more than 0.02; one-pass predictions,
// which have no fit to move, are unchanged bit for bit.
func TestDisagreementRaisesSparseLL(t *testing.T) {
	if testing.Short() {
		t.Skip("recalibrates a shipped file")
	}
	m, _ := shippedModel(t, "spring", CNP, 1)
	cells := m.Config.Infer.Conditions
	for i := range cells {
		cells[i].Disagree = 0
	}
	tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 100, Context: 5, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	score := func(refine int) (ll, dll, ece float64, per []TaskMetrics) {
		per, err := m.ScoreTasksWith(context.Background(), tasks, PredictOptions{Samples: 16, Seed: 3, Refine: refine})
		if err != nil {
			t.Fatal(err)
		}
		r := Summarise(m.Sys, per)
		return r.Metrics[KeyReconLL].Mean, r.Metrics[KeyDeltaLL].Mean, r.Metrics[KeyReconECE].Mean, per
	}
	ll0, dll0, ece0, _ := score(-1)
	_, _, _, one0 := score(0)
	if err := m.RecalibrateDisagreement(context.Background(), 256); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Config.Infer.Conditions, func(c ConditionScale) bool { return c.Disagree > 0 }) {
		t.Fatal("no cell got a weight")
	}
	ll, dll, ece, _ := score(-1)
	t.Logf("refined at 5 clean points: recon LL %.2f → %.2f, δ LL %.2f → %.2f, recon ECE %.3f → %.3f", ll0, ll, dll0, dll, ece0, ece)
	if ll < ll0+10 || dll < dll0+10 {
		t.Errorf("recon LL %.2f and δ LL %.2f, want each at least 10 above %.2f and %.2f", ll, dll, ll0, dll0)
	}
	if ece > ece0+0.02 {
		t.Errorf("recon ECE %.3f, want at most 0.02 above %.3f", ece, ece0)
	}
	_, _, _, one := score(0)
	for i := range one {
		for k, v := range one0[i].Values {
			if w := one[i].Values[k]; w != v && !(math.IsNaN(w) && math.IsNaN(v)) {
				t.Fatalf("one pass, realization %d: %s moved from %g to %g", i, k, v, w)
			}
		}
	}
}

// A model without a table of scales per condition is told to fit one
// before any part of it, at once, not that a table of 0 cells is not
// the grid of conditions.
func TestTablePartsWithoutTableSayNoTable(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	m.Config.Infer.Conditions = nil
	for name, part := range map[string]func(context.Context, int) error{
		"disagreement": m.RecalibrateDisagreement,
		"band-shape":   m.RecalibrateBandShapes,
		"theta-shape":  m.RecalibrateThetaShapes,
	} {
		err := part(context.Background(), 1)
		if err == nil || !strings.Contains(err.Error(), "no table of scales per condition") || !strings.Contains(err.Error(), "--recalibrate-only conditions") {
			t.Errorf("%s: error %v, want one saying the model has no table and how to fit it", name, err)
		}
	}
}
