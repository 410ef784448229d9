package core

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/sims"
)

// syntheticPosterior draws n (truth, estimate, reported σ) triples of a
// Gaussian posterior whose true deviation is sd and which reports
// sd·report: report 1 is calibrated, below 1 over-confident, above 1
// under-confident.
func syntheticPosterior(seed uint64, n int, report float64) (truth, est, sd []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for range n {
		s := 0.1 + rng.Float64() // deviations vary between realizations
		mu := 5 * rng.NormFloat64()
		truth = append(truth, mu+s*rng.NormFloat64())
		est = append(est, mu)
		sd = append(sd, s*report)
	}
	return truth, est, sd
}

// sbcOf is the SBC histogram and chi-square p-value of the triples.
func sbcOf(seed uint64, truth, est, sd []float64) ([]int, float64) {
	rng := rand.New(rand.NewPCG(seed, sbcStream))
	ranks := make([]int, len(truth))
	for i := range truth {
		ranks[i] = SBCRank(rng, SBCDraws, truth[i], est[i], sd[i])
	}
	counts := RankHistogram(ranks, SBCDraws, SBCBins(len(truth)))
	_, _, p := ChiSquareUniform(counts)
	return counts, p
}

func coverageOf(truth, est, sd []float64) *Coverage {
	c := NewCoverage(DiagnosticLevels)
	for i := range truth {
		c.Add(est[i], sd[i], truth[i])
	}
	return c
}

// A calibrated Gaussian posterior has a flat SBC histogram (uniformity
// not rejected) and a diagonal reliability curve, for several seeds.
func TestCalibratedGaussianIsFlatAndDiagonal(t *testing.T) {
	const n = 2000
	for seed := uint64(1); seed <= 5; seed++ {
		truth, est, sd := syntheticPosterior(seed, n, 1)
		counts, p := sbcOf(seed, truth, est, sd)
		if len(counts) != 20 {
			t.Fatalf("seed %d: %d bins for %d realizations, want 20", seed, len(counts), n)
		}
		if p < 0.001 {
			t.Errorf("seed %d: calibrated posterior rejected as non-uniform: p = %.2g, counts %v", seed, p, counts)
		}
		// Binomial standard error at n = 2000 is at most 0.011; four of
		// them is far beyond sampling noise.
		for l, s := range coverageOf(truth, est, sd).Signed() {
			if math.Abs(s) > 0.045 {
				t.Errorf("seed %d: level %.2f coverage off the diagonal by %+.3f", seed, DiagnosticLevels[l], s)
			}
		}
	}
}

// An over-confident posterior (reporting a third of its deviation) has a
// reliability curve below the diagonal at every level and a U-shaped
// SBC histogram: the truth falls in the tails of the draws.
func TestOverConfidentGaussianIsBelowAndUShaped(t *testing.T) {
	truth, est, sd := syntheticPosterior(3, 2000, 1.0/3)
	for l, s := range coverageOf(truth, est, sd).Signed() {
		if s >= -0.02 {
			t.Errorf("level %.2f: signed coverage %+.3f, want clearly below 0", DiagnosticLevels[l], s)
		}
	}
	counts, p := sbcOf(3, truth, est, sd)
	if p > 1e-6 {
		t.Errorf("over-confident posterior not rejected: p = %.2g", p)
	}
	b := len(counts)
	edges := float64(counts[0]+counts[b-1]) / 2
	middle := 0.0
	for _, c := range counts[b/2-1 : b/2+1] {
		middle += float64(c) / 2
	}
	if edges < 3*middle {
		t.Errorf("histogram not U-shaped: edge bins %.0f against middle %.0f (%v)", edges, middle, counts)
	}
	// And an under-confident one lies above the diagonal.
	truth, est, sd = syntheticPosterior(3, 2000, 3)
	for l, s := range coverageOf(truth, est, sd).Signed() {
		if s <= 0.02 {
			t.Errorf("under-confident, level %.2f: signed coverage %+.3f, want above 0", DiagnosticLevels[l], s)
		}
	}
}

// The statistics' closed forms at hand-checked values.
func TestDiagnosticFormulas(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("CentralZ(0.95)", CentralZ(0.95), 1.959963984540054)
	near("CentralZ(0.6827)", CentralZ(math.Erf(1/math.Sqrt2)), 1)
	near("PIT at the mean", PIT(2, 2, 0.5), 0.5)
	near("PIT one σ above", PIT(3, 2, 1), 0.8413447460685429)
	near("Contraction", Contraction(1, 4), 0.75)
	near("UniformPriorVariance", UniformPriorVariance(1, 7), 3)
	near("ZScore", ZScore(1, 2, 0.5), 2)
	if !math.IsNaN(Contraction(0, 1)) || !math.IsNaN(ZScore(1, 2, 0)) || !math.IsNaN(PIT(1, 2, 0)) {
		t.Error("a point estimate (σ = 0) must give NaN, not a number")
	}
	// X² of (10, 30) against 20 each is 10 on 1 df: p = erfc(√5).
	stat, df, p := ChiSquareUniform([]int{10, 30})
	near("X²", stat, 10)
	near("p", p, math.Erfc(math.Sqrt(5)))
	if df != 1 {
		t.Errorf("df = %d, want 1", df)
	}
	if got := RankHistogram([]int{0, 49, 50, 99, -1}, 99, 2); got[0] != 2 || got[1] != 2 {
		t.Errorf("RankHistogram = %v, want [2 2] (rank −1 left out)", got)
	}
	// SBCRank is the count of draws below the truth: always L far
	// above, 0 far below, −1 without spread.
	rng := rand.New(rand.NewPCG(1, 2))
	if r := SBCRank(rng, 99, 100, 0, 1); r != 99 {
		t.Errorf("rank far above = %d, want 99", r)
	}
	if r := SBCRank(rng, 99, -100, 0, 1); r != 0 {
		t.Errorf("rank far below = %d, want 0", r)
	}
	if r := SBCRank(rng, 99, 0, 0, 0); r != -1 {
		t.Errorf("rank without spread = %d, want -1", r)
	}
	c := NewCoverage([]float64{0.5})
	c.Add(0, 0, 1)
	c.Add(0, math.Inf(1), 1)
	c.Add(0, 1, 0.1)
	if c.N != 1 || c.Skipped != 2 || c.Hits[0] != 1 {
		t.Errorf("Coverage = %+v, want 1 counted (covered) and 2 skipped", c)
	}
	for _, n := range []int{1, 10, 20, 25, 50, 100, 2000} {
		if b := SBCBins(n); 100%b != 0 || (n >= 10 && float64(n)/float64(b) < 5) {
			t.Errorf("SBCBins(%d) = %d: must divide 100 and leave 5 per bin", n, b)
		}
	}
}

// Diagnose on a (tiny, untrained) model: the realizations are eval's,
// every array has one entry per realization, the same seed gives the
// same numbers, and the JSON serialises even with NaN.
func TestDiagnoseModel(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	perturb(m, 1, 0.01)
	opt := DiagnoseOptions{Tasks: 6, Context: 10, Noise: 0.05, Seed: 4, Samples: 4, Refine: 0}
	var calls []int
	opt.Progress = func(done, total int) { calls = append(calls, done) }
	d, err := Diagnose(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d.Tasks != 6 || d.Context != 10 || d.Noise != 0.05 || d.System != "spring" || d.Backbone != "lnp" {
		t.Errorf("header = %+v", d)
	}
	if len(calls) == 0 || calls[len(calls)-1] != 6 {
		t.Errorf("progress calls %v, want to end at 6", calls)
	}
	if len(d.Levels) != 19 || len(d.Reliability) != 2+len(m.Sys.Params()) {
		t.Fatalf("%d levels, %d curves", len(d.Levels), len(d.Reliability))
	}
	if c, ok := d.Curve("reconstruction"); !ok || c.Values != 6*(m.Sys.Grid().Points()-10)*len(m.Sys.Grid().Channels) {
		t.Errorf("reconstruction curve counted %d values", c.Values)
	}
	tasks := testTasks(t, m.Sys, 6, 10, 4)
	for _, th := range d.Theta {
		if len(th.Truth) != 6 || len(th.ZScore) != 6 || len(th.Contraction) != 6 {
			t.Fatalf("%s: arrays of %d, %d, %d", th.Name, len(th.Truth), len(th.ZScore), len(th.Contraction))
		}
		if th.Truth[0] != tasks[0].Real.Theta[0] {
			t.Errorf("truth %v is not eval's first realization's %v", th.Truth[0], tasks[0].Real.Theta[0])
		}
		n := 0
		for _, c := range th.SBC.Counts {
			n += c
		}
		if n != 6 {
			t.Errorf("%s: SBC histogram holds %d ranks, want 6", th.Name, n)
		}
		if !math.IsNaN(float64(th.SBC.PValue)) || !strings.Contains(th.SBC.PValueWithheld, "6, it needs 10") {
			t.Errorf("%s: 6 realizations give p %v (withheld %q), want none", th.Name, th.SBC.PValue, th.SBC.PValueWithheld)
		}
	}
	again, err := Diagnose(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(d)
	b, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Error("the same seed gave different diagnostics")
	}
	for _, key := range []string{`"reliability"`, `"signed"`, `"sbc"`, `"p_value"`, `"contraction"`, `"z_score"`, `"estimate"`} {
		if !strings.Contains(string(a), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// The χ² p-value of an SBC histogram with fewer than SBCMinPerBin
// ranks per bin is withheld, NaN with the reason beside it, in the
// struct and in its JSON; with enough it is given and no reason is.
func TestSBCPValueWithheld(t *testing.T) {
	few := NewSBCHistogram([]int{4, 5})
	if !math.IsNaN(float64(few.PValue)) || few.PValueWithheld != "too few realizations for the χ² test: 9, it needs 10" {
		t.Errorf("9 ranks in 2 bins: p %v, withheld %q", few.PValue, few.PValueWithheld)
	}
	b, err := json.Marshal(few)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"p_value":"NaN","p_value_withheld":"too few realizations for the χ² test: 9, it needs 10"`) {
		t.Errorf("JSON %s does not say why the p-value is absent", b)
	}
	enough := NewSBCHistogram([]int{4, 6})
	if p := float64(enough.PValue); math.IsNaN(p) || enough.PValueWithheld != "" || enough.Draws != SBCDraws || enough.DF != 1 {
		t.Errorf("10 ranks in 2 bins: %+v, want a p-value and no reason", enough)
	}
	if b, _ := json.Marshal(enough); strings.Contains(string(b), "withheld") {
		t.Errorf("JSON %s names a reason beside a p-value", b)
	}
}

func TestDiagnoseErrors(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	if _, err := Diagnose(context.Background(), m, DiagnoseOptions{Tasks: 0}); err == nil || !strings.Contains(err.Error(), "tasks") {
		t.Errorf("0 tasks: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Diagnose(ctx, m, DiagnoseOptions{Tasks: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestJSONFloatsNaN(t *testing.T) {
	b, err := json.Marshal(struct {
		A JSONFloats
		B JSONFloat
	}{JSONFloats{1, math.NaN(), math.Inf(-1)}, JSONFloat(math.Inf(1))})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"A":[1,"NaN","-Infinity"],"B":"Infinity"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// A realization whose prediction diverges is listed in Failures and
// left out of every statistic; the others give what they give alone.
func TestDiagnoseSkipsFailedRealization(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	perturb(m, 3, 0.05)
	tasks := testTasks(t, m.Sys, 5, 0, 5)
	opt := DiagnoseOptions{Seed: 9, Samples: 4, Refine: 0}
	bad := append([]sims.Task(nil), tasks...)
	bad[2] = divergeTask(bad[2])
	d, err := diagnoseTasks(context.Background(), m, bad, opt)
	if err != nil {
		t.Fatalf("one failed realization stopped the diagnostics: %v", err)
	}
	if d.Failures.Count != 1 || d.Failures.Realizations[0].Index != 2 {
		t.Fatalf("failures = %+v, want realization 2", d.Failures)
	}
	for _, th := range d.Theta {
		if len(th.Truth) != 4 {
			t.Errorf("%s counts %d realizations, want the 4 that did not fail", th.Name, len(th.Truth))
		}
	}
	for i := range bad {
		bad[i] = divergeTask(bad[i])
	}
	if _, err := diagnoseTasks(context.Background(), m, bad, opt); err == nil || !strings.Contains(err.Error(), "all 5 realizations failed") {
		t.Errorf("all failed gives %v, want an error", err)
	}
}
