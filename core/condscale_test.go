package core

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"apic/nets"
	"apic/sims"
)

// With few points the fit can match the data exactly: RSS/n would give a
// zero noise and collapse the spread. The estimate must then fall back to
// the learned noise, and with many points follow the residuals.
func TestShrunkNoiseVarFewAndManyPoints(t *testing.T) {
	const learned = 0.04
	// One point, fitted exactly (its leverage is 1): no information.
	if got := shrunkNoiseVar(0, 1-1, learned); math.Abs(got-learned) > 1e-12 {
		t.Errorf("one exactly fitted point: σ̂² = %g, want the learned %g", got, learned)
	}
	// Two points, one parameter, RSS tiny: still mostly the prior.
	if got := shrunkNoiseVar(1e-12, 2-1.9, learned); got < learned/4 {
		t.Errorf("two points, 1.9 parameters: σ̂² = %g collapsed below %g", got, learned/4)
	}
	// 1000 points of variance 0.01, 10 parameters: the data.
	rss := 0.01 * 990
	if got := shrunkNoiseVar(rss, 1000-10, learned); math.Abs(got-0.01)/0.01 > 0.01 {
		t.Errorf("many points: σ̂² = %g, want ≈ 0.01", got)
	}
	// One residual that the fit cannot move (leverage 0) and that is
	// zero is still no estimate of the noise.
	if got := shrunkNoiseVar(0, 1, learned); got < learned/2 {
		t.Errorf("one zero residual: σ̂² = %g collapsed below %g", got, learned/2)
	}
	if got := shrunkNoiseVar(math.NaN(), 5, learned); got != learned {
		t.Errorf("NaN residuals: σ̂² = %g, want the learned %g", got, learned)
	}
}

// A one-pass prediction's context fit of the noise (no parameters fitted
// to the context) falls back on the learned noise at one point and
// keeps its fit from three points on.
func TestShrinkContextNoiseOnePass(t *testing.T) {
	const learned = 0.04
	term := obsTerm{idx: []int{0}}
	for _, tc := range []struct {
		points int
		want   float64
	}{{1, 2.0/3*learned + 1.0/3*1e-10}, {3, 1e-10}, {10, 1e-10}} {
		noise := []float64{1e-10}
		terms := make([]obsTerm, tc.points)
		for i := range terms {
			terms[i] = term
		}
		shrinkContextNoise(noise, terms, nil, []float64{learned}, 1)
		if want := math.Max(tc.want, noiseFloor*learned); math.Abs(noise[0]-want) > 1e-12 {
			t.Errorf("%d points: σ̂² = %g, want %g", tc.points, noise[0], want)
		}
	}
}

// The leverages of a linear fit without prior rows sum to its number of
// parameters; prior rows take some of it.
func TestDataLeverages(t *testing.T) {
	j := mat.NewDense(4, 2, []float64{1, 0, 1, 1, 1, 2, 1, 3})
	lev := dataLeverages(j, 4)
	sum := 0.0
	for _, l := range lev {
		sum += l
	}
	if math.Abs(sum-2) > 1e-9 {
		t.Errorf("leverages %v sum to %g, want 2", lev, sum)
	}
	// The hat matrix of a straight line: 1/n + (x_i − x̄)²/Σ(x − x̄)².
	for i, want := range []float64{0.7, 0.3, 0.3, 0.7} {
		if math.Abs(lev[i]-want) > 1e-9 {
			t.Errorf("leverage %d = %g, want %g", i, lev[i], want)
		}
	}
	// A view with a stride wider than its columns reads the same rows.
	wide := mat.NewDense(4, 3, []float64{1, 0, 9, 1, 1, 9, 1, 2, 9, 1, 3, 9})
	if lv := dataLeverages(wide.Slice(0, 4, 0, 2).(*mat.Dense), 4); !floats.EqualApprox(lv, lev, 1e-12) {
		t.Errorf("strided view: leverages %v, want %v", lv, lev)
	}
	// The same fit with a prior row per parameter: fewer used.
	jp := mat.NewDense(6, 2, []float64{1, 0, 1, 1, 1, 2, 1, 3, 1, 0, 0, 1})
	lev = dataLeverages(jp, 4)
	sum = 0
	for _, l := range lev {
		sum += l
	}
	if !(sum < 2 && sum > 1) {
		t.Errorf("with prior rows the data leverages sum to %g, want in (1, 2)", sum)
	}
}

func TestScalesAtInterpolates(t *testing.T) {
	cells := []ConditionScale{
		{Context: 10, NoiseStd: 0.01, Recon: 1, Delta: 2, Theta: 4},
		{Context: 10, NoiseStd: 0.11, Recon: 4, Delta: 2, Theta: 4},
		{Context: 40, NoiseStd: 0.01, Recon: 16, Delta: 8, Theta: 1},
		{Context: 40, NoiseStd: 0.11, Recon: 16, Delta: 8, Theta: 1},
	}
	for _, tc := range []struct {
		n               int
		sigma           float64
		recon, delta, θ float64
	}{
		{10, 0.01, 1, 2, 4},
		{10, 0.06, 2, 2, 4},   // halfway in σ̂: geometric mean
		{10, 1, 4, 2, 4},      // held beyond the last σ̂
		{10, 0, 1, 2, 4},      // and before the first
		{20, 0.01, 4, 4, 2},   // halfway in log n
		{5, 0.01, 1, 2, 4},    // held below the smallest context
		{1000, 0.5, 16, 8, 1}, // and above the largest
	} {
		r, d, th, ok := scalesAt(cells, tc.n, tc.sigma)
		if !ok || math.Abs(r-tc.recon) > 1e-9 || math.Abs(d-tc.delta) > 1e-9 || math.Abs(th-tc.θ) > 1e-9 {
			t.Errorf("scalesAt(n=%d, σ̂=%g) = %g, %g, %g, %v; want %g, %g, %g", tc.n, tc.sigma, r, d, th, ok, tc.recon, tc.delta, tc.θ)
		}
	}
	if _, _, _, ok := scalesAt(nil, 10, 0.1); ok {
		t.Error("an empty table gave scales")
	}
}

func TestCheckConditionsRefusesBadCells(t *testing.T) {
	good := ConditionScale{Context: 5, Noise: 0.01, NoiseStd: 0.02, Recon: 1, Delta: 1, Theta: 1}
	if err := checkConditions([]ConditionScale{good}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*ConditionScale){
		func(c *ConditionScale) { c.Context = 0 },
		func(c *ConditionScale) { c.Recon = 0 },
		func(c *ConditionScale) { c.Theta = math.Inf(1) },
		func(c *ConditionScale) { c.NoiseStd = math.NaN() },
	} {
		c := good
		bad(&c)
		if err := checkConditions([]ConditionScale{c}); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
	if err := checkConditions(make([]ConditionScale, LimitConditionCells.Max+1)); err == nil || !strings.Contains(err.Error(), "condition cells") {
		t.Errorf("oversized table: %v", err)
	}
}

// The table replaces the single scales; a model without one (an old
// checkpoint) keeps them; the table survives a checkpoint round trip.
func TestConditionScalesApplyAndRoundTrip(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	m := tinyModel(t, "spring", LNP, nil)
	perturb(m, 3, 0.05)
	tasks := testTasks(t, sys, 4, 10, 7)
	ctxs := make([]sims.Context, len(tasks))
	sides := make([][]float64, len(tasks))
	for i, task := range tasks {
		ctxs[i], sides[i] = task.Context, task.Real.Side
	}
	predict := func(m *Model) []Prediction {
		t.Helper()
		preds, err := m.PredictContext(context.Background(), ctxs, sides, PredictOptions{Samples: 4, Seed: 1, Refine: -1})
		if err != nil {
			t.Fatal(err)
		}
		return preds
	}
	m.Config.Infer.StdScale, m.Config.Infer.ThetaStdScale = 2, 3
	single := predict(m)
	m.Config.Infer.Conditions = []ConditionScale{{Context: 10, NoiseStd: 0, Recon: 4, Delta: 1, Theta: 6}}
	table := predict(m)
	for i := range single {
		for g, sd := range single[i].Std {
			if math.Abs(table[i].Std[g]-2*sd) > 1e-9*sd {
				t.Fatalf("realization %d value %d: table std %g, want twice the single scale's %g", i, g, table[i].Std[g], sd)
			}
		}
		for q, sd := range single[i].ThetaStd {
			if math.Abs(table[i].ThetaStd[q]-2*sd) > 1e-9*sd {
				t.Fatalf("realization %d θ %d: table std %g, want twice %g", i, q, table[i].ThetaStd[q], sd)
			}
		}
	}
	back, _, err := DecodeCheckpoint(encodeModel(t, m, Info{}, nets.F64))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Config.Infer, m.Config.Infer) {
		t.Errorf("round trip: infer %+v, want %+v", back.Config.Infer, m.Config.Infer)
	}
}

// The observation band is the function band with the estimated noise
// added: wider by exactly σ̂ in quadrature.
func TestObservationBandAddsNoise(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	m := tinyModel(t, "lv", LNP, nil)
	perturb(m, 3, 0.05)
	tasks := testTasks(t, sys, 2, 30, 7)
	preds := predictAll(t, m, tasks)
	c := len(sys.Grid().Channels)
	for i, p := range preds {
		if len(p.NoiseStd) != c {
			t.Fatalf("realization %d: %d noise estimates, want %d", i, len(p.NoiseStd), c)
		}
		obs := p.ObservationStd()
		for g, sd := range p.Std {
			n := p.NoiseStd[g%c]
			if !(n > 0) || math.Abs(obs[g]*obs[g]-(sd*sd+n*n)) > 1e-9*(obs[g]*obs[g]) || !(obs[g] > sd) {
				t.Fatalf("realization %d value %d: observation std %g, function std %g, σ̂ %g", i, g, obs[g], sd, n)
			}
		}
		lo, hi := NoiseInterval(p, tasks[i].Context)
		for ch := range lo {
			if !(lo[ch] < p.NoiseStd[ch] && p.NoiseStd[ch] < hi[ch]) {
				t.Errorf("realization %d channel %d: σ̂ %g outside its interval [%g, %g]", i, ch, p.NoiseStd[ch], lo[ch], hi[ch])
			}
		}
	}
}
