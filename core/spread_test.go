package core

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"apic/sims"
)

// gaussianTerms returns n on-grid observation terms of one channel with
// residuals r_i ~ N(0, v + s²) around a zero mean, and the sample
// variance v at every grid value.
func gaussianTerms(n int, v, s float64, seed uint64) ([]obsTerm, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	terms := make([]obsTerm, n)
	mean, sv := make([]float64, n), make([]float64, n)
	for i := range terms {
		sv[i] = v
		terms[i] = obsTerm{idx: []int{i}, w: []float64{1}, y: math.Sqrt(v+s*s) * rng.NormFloat64()}
	}
	return terms, mean, sv
}

// TestFitContextNoiseRecoversVariance: with Gaussian residuals the
// coverage fit returns the noise variance, with and without a sample
// spread under it.
func TestFitContextNoiseRecoversVariance(t *testing.T) {
	for _, tc := range []struct{ v, s float64 }{{0, 0.01}, {0, 2}, {1e-4, 0.02}} {
		terms, mean, sv := gaussianTerms(4000, tc.v, tc.s, 3)
		got := fitContextNoise(terms, mean, sv, nil, 1, []float64{1})
		if r := got[0] / (tc.s * tc.s); r < 0.8 || r > 1.25 {
			t.Errorf("v %v, σ %v: fitted σ² %v, ratio to the truth %v, want within [0.8, 1.25]", tc.v, tc.s, got[0], r)
		}
	}
}

// TestFitContextNoiseBadResiduals: a NaN or infinite observation counts
// as a residual outside every interval but does not move the grid of
// candidate variances, so the fit stays near the other residuals'
// variance instead of going to the floor or to infinity.
func TestFitContextNoiseBadResiduals(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		terms, mean, sv := gaussianTerms(400, 0, 0.1, 4)
		terms[7].y = bad
		got := fitContextNoise(terms, mean, sv, nil, 1, []float64{1})[0]
		if r := got / 0.01; !(r > 0.7 && r < 1.5) {
			t.Errorf("one observation %v: fitted σ² %v, want near 0.01", bad, got)
		}
	}
}

// TestFitContextNoiseChannels: channels are fitted separately, and a
// channel without observations keeps the learned variance.
func TestFitContextNoiseChannels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	var terms []obsTerm
	mean := make([]float64, 3*3000)
	sv := make([]float64, len(mean))
	for i := 0; i < 3000; i++ {
		terms = append(terms, obsTerm{idx: []int{3 * i}, w: []float64{1}, y: 0.1 * rng.NormFloat64()})
		terms = append(terms, obsTerm{idx: []int{3*i + 1}, w: []float64{1}, y: 3 * rng.NormFloat64()})
	}
	got := fitContextNoise(terms, mean, sv, nil, 3, []float64{1, 1, 0.5})
	for ch, want := range []float64{0.01, 9, 0.5} {
		if r := got[ch] / want; r < 0.8 || r > 1.25 {
			t.Errorf("channel %d: σ² %v, want about %v", ch, got[ch], want)
		}
	}
}

// TestFitContextNoiseExactFit: residuals that are all zero get the floor,
// not zero or NaN.
func TestFitContextNoiseExactFit(t *testing.T) {
	terms, mean, sv := gaussianTerms(50, 0, 0, 1)
	got := fitContextNoise(terms, mean, sv, nil, 1, []float64{0.3})
	if want := noiseFloor * 0.3; got[0] != want {
		t.Errorf("σ² = %v, want the floor %v", got[0], want)
	}
}

// TestApplySpreadModes: each mode gives positive finite deviations; the
// residual mode's deviations are one number per channel, and a model
// whose noise is refitted on the context covers the context better than
// a badly scaled learned noise.
func TestApplySpreadModes(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 3, 40, 8)
	ctxs, sides := contextsOf(tasks)
	for _, mode := range spreadModes {
		m := tinyModel(t, "spring", LNP, func(c *Config) { c.Infer.Spread = mode })
		perturb(m, 2, 0.02)
		m.logNoise.Value.Data[0] = math.Log(1e6) // far too wide
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 4, Seed: 1, Refine: 0})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range preds {
			if !allFinite(p.Std) || slices.Min(p.Std) <= 0 || !allFinite(p.DeltaStd) || slices.Min(p.DeltaStd) <= 0 {
				t.Fatalf("%q: non-positive or non-finite deviations", mode)
			}
			if mode == SpreadResidual && slices.Min(p.Std) != slices.Max(p.Std) {
				t.Errorf("%q: deviations vary over the grid (%v..%v)", mode, slices.Min(p.Std), slices.Max(p.Std))
			}
			ece := ECE(p.Mean, p.Std, tasks[i].Real.True, targetValues(sys, tasks[i].Targets))
			if mode == SpreadModel && ece < 0.4 {
				t.Errorf("learned noise 1e6: ECE %v, want near 0.5 (every interval covers)", ece)
			}
			if mode != SpreadModel && ece > 0.3 {
				t.Errorf("%q: ECE %v with the noise fitted to the context, want < 0.3", mode, ece)
			}
		}
	}
}

// TestRecalibrateChoosesMode: recalibration stores a known mode and
// positive scales, and rejects a bad count.
func TestRecalibrateChoosesMode(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	perturb(m, 3, 0.02)
	if err := m.Recalibrate(context.Background(), 0); err == nil {
		t.Error("Recalibrate(0) succeeded")
	}
	if err := m.Recalibrate(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if checkSpread(m.Config.Infer.Spread) != nil || !(m.Config.Infer.StdScale > 0) || !(m.Config.Infer.DeltaStdScale > 0) {
		t.Errorf("after Recalibrate: %+v", m.Config.Infer)
	}
	if err := m.Config.Validate(); err != nil {
		t.Error(err)
	}
	if m.Config.Infer.Refine > 0 {
		op := m.Config.Infer.OnePass
		if op == nil || checkSpread(op.Spread) != nil || !(op.StdScale > 0) {
			t.Errorf("one-pass spread %+v, want a fitted one (the model refines by default)", op)
		}
	}
}

// TestSpreadFor: one-pass predictions of a refining model use its
// one-pass fit; refined ones and one-pass models use the main fields.
func TestSpreadFor(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	in := &m.Config.Infer
	in.Refine, in.Spread, in.StdScale = 3, SpreadContext, 2
	in.OnePass = &SpreadFit{Spread: SpreadResidual, StdScale: 5}
	if s := m.spreadFor(0); s.Spread != SpreadResidual || s.StdScale != 5 {
		t.Errorf("one-pass: %+v", s)
	}
	if s := m.spreadFor(3); s.Spread != SpreadContext || s.StdScale != 2 {
		t.Errorf("refined: %+v", s)
	}
	in.Refine = 0
	if s := m.spreadFor(0); s.Spread != SpreadContext {
		t.Errorf("one-pass model: %+v", s)
	}
}

// TestConfigRejectsUnknownSpread names the bad mode.
func TestConfigRejectsUnknownSpread(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	cfg := m.Config
	cfg.Infer.Spread = "bogus"
	if err := cfg.Validate(); err == nil {
		t.Error("spread \"bogus\" accepted")
	}
	cfg = m.Config
	cfg.Infer.OnePass = &SpreadFit{Spread: "bogus"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("one-pass spread \"bogus\": %v", err)
	}
	for _, bad := range []SpreadFit{{Shape: -0.1}, {Shape: math.NaN()}, {Shape: maxProfileShape + 1}, {StdScale: math.Inf(1)}, {DeltaStdScale: -1}, {DeltaProfile: -0.5}, {DeltaProfile: math.NaN()}, {DeltaProfile: maxProfileShape + 1}} {
		cfg = m.Config
		cfg.Infer.SpreadFit = bad
		if err := cfg.Validate(); err == nil {
			t.Errorf("spread %+v accepted", bad)
		}
		cfg = m.Config
		cfg.Infer.OnePass = &bad
		if err := cfg.Validate(); err == nil {
			t.Errorf("one-pass spread %+v accepted", bad)
		}
	}
}

// TestCoverageErrorsMatchesECE: the bisected coverage counts of
// fitContextNoise agree with coverageError, the count behind ECE, at
// every candidate of a nondecreasing list with repeats, with and without
// sample variances and with NaN residuals (never covered).
func TestCoverageErrorsMatchesECE(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	s2s := []float64{1e-9, 1e-9, 1e-3, 0.1, 0.1, 0.5, 1, 2, 10, 1e6}
	for _, withVar := range []bool{false, true} {
		rs := make([]coverageResid, 37)
		for i := range rs {
			r := rng.NormFloat64()
			rs[i].r2 = r * r
			if withVar {
				rs[i].v = rng.Float64()
			}
			if i%9 == 4 {
				rs[i].r2 = math.NaN()
			}
		}
		got := make([]float64, len(s2s))
		coverageErrors(got, rs, s2s)
		for k, s2 := range s2s {
			want := coverageError(len(rs), func(i int) (float64, float64) {
				return math.Sqrt(rs[i].r2), math.Sqrt(rs[i].v + s2)
			})
			if math.Abs(got[k]-want) > 1e-15 {
				t.Errorf("sample variances %v, σ² %v: coverageErrors %v, coverageError %v", withVar, s2, got[k], want)
			}
		}
	}
}

// TestBestScaleMatchesECE: the sorted search of bestScale picks the scale
// and the mean ECE that evaluating ECE at every scale of its grid gives,
// with zero deviations (an exact prediction has 0/0) among the values.
func TestBestScaleMatchesECE(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	tasks := testTasks(t, sys, 5, 0, 3)
	rng := rand.New(rand.NewPCG(8, 8))
	mus, sds := make([][]float64, len(tasks)), make([][]float64, len(tasks))
	for i, task := range tasks {
		truth := task.Real.True
		mus[i], sds[i] = make([]float64, len(truth)), make([]float64, len(truth))
		for j, y := range truth {
			sds[i][j] = 0.05 * math.Exp(rng.NormFloat64())
			mus[i][j] = y + 0.07*rng.NormFloat64()
			if j%17 == 0 { // exact and certain: 0/0
				mus[i][j], sds[i][j] = y, 0
			}
		}
	}
	get := func(i int) ([]float64, []float64, []float64) { return mus[i], sds[i], tasks[i].Real.True }
	gotS, gotE := bestScale(tasks, sys, get)
	wantS, wantE := 1.0, math.Inf(1)
	for k := -60; k <= 60; k++ {
		s := math.Pow(4, float64(k)/20)
		e := 0.0
		for i, task := range tasks {
			scaled := make([]float64, len(sds[i]))
			for j, v := range sds[i] {
				scaled[j] = s * v
			}
			e += ECE(mus[i], scaled, task.Real.True, targetValues(sys, task.Targets))
		}
		if e < wantE {
			wantS, wantE = s, e
		}
	}
	wantE /= float64(len(tasks))
	if gotS != wantS || math.Abs(gotE-wantE) > 1e-12 {
		t.Errorf("bestScale = %v (ECE %v), want %v (ECE %v)", gotS, gotE, wantS, wantE)
	}
	if wantS == 1 || wantS == math.Pow(4, 3) || wantS == math.Pow(4, -3) {
		t.Errorf("the test's best scale %v sits at a default or an edge; it would not tell the searches apart", wantS)
	}
}

// TestFitContextNoiseScratchReuse: a scratch that has fitted other
// realizations (more or fewer terms, other channels, a profile) gives
// the fit of a fresh one.
func TestFitContextNoiseScratchReuse(t *testing.T) {
	var sc spreadScratch
	for i, n := range []int{40, 3, 100, 7, 40} {
		terms, mean, sv := gaussianTerms(n, 1e-3*float64(i), 0.1*float64(i+1), uint64(i))
		c := 1 + i%2
		learned := []float64{1, 0.5}[:c]
		var h []float64
		if i%2 == 0 {
			h = make([]float64, n)
			for j := range h {
				h[j] = 1 + float64(j)/float64(n)
			}
		}
		want := fitContextNoise(terms, mean, sv, h, c, learned)
		got := sc.fitContextNoise([]float64{-1}, terms, mean, sv, h, c, learned)
		if !slices.Equal(got[1:], want) || got[0] != -1 {
			t.Errorf("fit %d: reused scratch gives %v, fresh %v (after the kept -1)", i, got, want)
		}
	}
}

// fitContextNoise is spreadScratch.fitContextNoise in fresh storage.
func fitContextNoise(terms []obsTerm, mean, sampleVar, h []float64, c int, learned []float64) []float64 {
	var sc spreadScratch
	return sc.fitContextNoise(nil, terms, mean, sampleVar, h, c, learned)
}

// TestUseRawSpread: a model with a post-hoc scale s predicts deviations
// s times those of the plain mixture collapse; UseRawSpread drops the
// scale (and the one-pass fit) and leaves the means alone.
func TestUseRawSpread(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	perturb(m, 2, 0.3)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 3, 20, 9))
	o := PredictOptions{Samples: 6, Seed: 4, Refine: 0}
	m.Config.Infer.SpreadFit = SpreadFit{StdScale: 3, DeltaStdScale: 2, ThetaStdScale: 5}
	m.Config.Infer.Refine = 2
	m.Config.Infer.OnePass = &SpreadFit{StdScale: 3, DeltaStdScale: 2}
	scaled, err := m.PredictWith(ctxs, sides, o)
	if err != nil {
		t.Fatal(err)
	}
	m.UseRawSpread()
	if m.Config.Infer.OnePass != nil || !reflect.DeepEqual(m.Config.Infer.SpreadFit, SpreadFit{}) {
		t.Fatalf("after UseRawSpread: spread %+v, one pass %v", m.Config.Infer.SpreadFit, m.Config.Infer.OnePass)
	}
	raw, err := m.PredictWith(ctxs, sides, o)
	if err != nil {
		t.Fatal(err)
	}
	for b := range raw {
		for j := range raw[b].Std {
			if raw[b].Mean[j] != scaled[b].Mean[j] {
				t.Fatalf("realization %d value %d: mean %v raw, %v scaled", b, j, raw[b].Mean[j], scaled[b].Mean[j])
			}
			if r := scaled[b].Std[j] / raw[b].Std[j]; math.Abs(r-3) > 1e-9 {
				t.Fatalf("realization %d value %d: scaled/raw deviation %v, want 3", b, j, r)
			}
			if r := scaled[b].DeltaStd[j] / raw[b].DeltaStd[j]; math.Abs(r-2) > 1e-9 {
				t.Fatalf("realization %d value %d: scaled/raw δ deviation %v, want 2", b, j, r)
			}
		}
	}
}

// TestLikelihoodScaleMaximisesLL: the scale likelihoodScale returns
// gives a mean LL at least that of every other scale of a fine grid, and
// it widens for one far-off error that the ECE's scale ignores.
func TestLikelihoodScaleMaximisesLL(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 5, 0, 4)
	rng := rand.New(rand.NewPCG(9, 9))
	mus, sds := make([][]float64, len(tasks)), make([][]float64, len(tasks))
	for i, task := range tasks {
		truth := task.Real.True
		mus[i], sds[i] = make([]float64, len(truth)), make([]float64, len(truth))
		for j, y := range truth {
			sds[i][j] = 0.05
			mus[i][j] = y + 0.05*rng.NormFloat64()
		}
	}
	// One target of one task far outside its band.
	j0 := targetValues(sys, tasks[0].Targets)[0]
	mus[0][j0] += 5
	get := func(i int) ([]float64, []float64, []float64) { return mus[i], sds[i], tasks[i].Real.True }
	meanLL := func(s float64) float64 { return meanScaledLL(tasks, sys, get, s) }
	got := likelihoodScale(tasks, sys, get)
	for k := -40; k <= 40; k++ {
		s := got * math.Pow(2, float64(k)/10)
		if meanLL(s) > meanLL(got)+1e-9 {
			t.Fatalf("scale %v has mean LL %v above the likelihood scale %v's %v", s, meanLL(s), got, meanLL(got))
		}
	}
	if ece, _ := bestScale(tasks, sys, get); got < 2*ece {
		t.Errorf("likelihood scale %v, ECE scale %v: want the far-off error to widen it", got, ece)
	}
}
