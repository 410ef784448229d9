package kohgp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/core"
	"apic/sims"
)

// gpDraw returns a draw of GP(0, k) on the grid's states, from a source
// seeded with seed.
func gpDraw(states [][]float64, k RBF, seed uint64) []float64 {
	n := len(states)
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := k.At(states[i], states[j])
			if i == j {
				v += 1e-10 * k.Std * k.Std
			}
			K.SetSym(i, j, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(K) {
		panic("gpDraw: kernel matrix not positive definite")
	}
	var L mat.TriDense
	chol.LTo(&L)
	rng := rand.New(rand.NewPCG(seed, 11))
	z := mat.NewVecDense(n, nil)
	for i := range n {
		z.SetVec(i, rng.NormFloat64())
	}
	var d mat.VecDense
	d.MulVec(&L, z)
	return d.RawVector().Data
}

// springTask builds a spring task whose observations are
// values (on the grid), with the first n points of a seeded permutation
// as context.
func springTask(t *testing.T, theta float64, values []float64, n int, noise float64, seed uint64) (sims.System, sims.Task) {
	t.Helper()
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	r := sims.Realization{Theta: []float64{theta}, Nominal: sys.Nominal([]float64{theta}, nil), True: values}
	task, err := sims.NewSplit(sys, rand.New(rand.NewPCG(seed, 3))).Task(sys, r, values, n, noise)
	if err != nil {
		t.Fatal(err)
	}
	return sys, task
}

// springGPData is F(t; θ) + a seeded draw of GP(0, k_RBF(0.2, 1)) on
// the spring grid, θ drawn in [3.5, 7.5].
func springGPData(sys sims.System, seed uint64) (theta float64, y []float64) {
	theta = 3.5 + 4*rand.New(rand.NewPCG(seed, 99)).Float64()
	d := gpDraw(sys.Grid().States, RBF{Std: 0.2, Scales: []float64{1}}, seed)
	y = sys.Nominal([]float64{theta}, nil)
	for i := range y {
		y[i] += d[i]
	}
	return theta, y
}

// TestRecoversThetaUnderGPDiscrepancy fits data that follow the KOH
// model exactly: F + a GP draw + noise 0.01, 30 context points. Over 12
// seeds the errors were ≤ 0.003 with Laplace standard deviations of
// 0.001–0.003 (errors within 2σ), so the test asks for |θ̂ − θ| < 0.02
// (≈ 10σ, far below the 5-wide prior and the ~1.6 spacing of the
// likelihood's local optima in ω) and for the error to lie within 4σ of
// the reported ThetaStd, and for σ_n to be found within a factor 2.
func TestRecoversThetaUnderGPDiscrepancy(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	for seed := uint64(1); seed <= 3; seed++ {
		theta, y := springGPData(sys, seed)
		_, task := springTask(t, theta, y, 30, 0.01, seed)
		f, err := New(sys, Options{}).Fit(context.Background(), task.Context, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := math.Abs(f.Theta[0] - theta)
		if e > 0.02 {
			t.Errorf("seed %d: θ̂ = %.4f, true %.4f", seed, f.Theta[0], theta)
		}
		if s := f.ThetaStd[0]; !(s > 0) || e > 4*s {
			t.Errorf("seed %d: error %.4f against Laplace std %.4f", seed, e, s)
		}
		if sn := f.Hyper[0].NoiseStd; sn < 0.005 || sn > 0.02 {
			t.Errorf("seed %d: σ_n = %.4f, want ≈ 0.01", seed, sn)
		}
	}
}

// TestNominalDataHasNoDiscrepancy fits exact nominal data: the GP has
// nothing to explain, so its amplitude collapses (σ_f below 1% of the
// data's rms) and θ is pinned down to the optimiser's precision.
func TestNominalDataHasNoDiscrepancy(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	for _, theta := range []float64{3.7, 6.2} {
		_, task := springTask(t, theta, sys.Nominal([]float64{theta}, nil), 30, 0, 4)
		f, err := New(sys, Options{}).Fit(context.Background(), task.Context, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(f.Theta[0] - theta); e > 1e-4 {
			t.Errorf("θ = %v: θ̂ = %.6f", theta, f.Theta[0])
		}
		// rms of sin(ωt) over the grid is ≈ 0.7.
		if sf := f.Hyper[0].Kernel.Std; sf > 0.007 {
			t.Errorf("θ = %v: σ_f = %.3g, want ≪ data scale", theta, sf)
		}
		p := f.Predict()
		m := core.Score(sys, task, p)
		if v := m.Values[core.KeyDeltaMAE]; v > 1e-3 {
			t.Errorf("θ = %v: δ MAE %.3g on data without discrepancy", theta, v)
		}
	}
}

func TestFitIsDeterministic(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	theta, y := springGPData(sys, 5)
	_, task := springTask(t, theta, y, 25, 0.01, 5)
	k := New(sys, Options{Seed: 42})
	a, err := k.Fit(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.Fit(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.NLML != b.NLML || a.Theta[0] != b.Theta[0] || a.Evaluations != b.Evaluations {
		t.Errorf("two fits with one seed differ: NLML %v vs %v, θ %v vs %v", a.NLML, b.NLML, a.Theta, b.Theta)
	}
	for i := range a.StartNLML {
		if a.StartNLML[i] != b.StartNLML[i] {
			t.Errorf("start %d: NLML %v vs %v", i, a.StartNLML[i], b.StartNLML[i])
		}
	}
	if len(a.StartNLML) != 8 {
		t.Errorf("%d starts, want the default 8", len(a.StartNLML))
	}
	c, err := New(sys, Options{Seed: 43, Starts: 9}).Fit(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.StartNLML) != 9 || c.StartNLML[0] == a.StartNLML[0] {
		t.Errorf("another seed gave the same first start (%v)", c.StartNLML)
	}
}

func TestFitRejectsDegenerateInput(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	_, task := springTask(t, 5, sys.Nominal([]float64{5}, nil), 10, 0, 1)
	one := sims.Context{
		States: task.Context.States[:1], Values: task.Context.Values[:1],
		Mask: task.Context.Mask[:1], GridIndex: task.Context.GridIndex[:1],
	}
	nan := task.Context
	nan.Values = append([][]float64(nil), nan.Values...)
	nan.Values[3] = []float64{math.NaN()}
	off := task.Context
	off.GridIndex = append([]int(nil), off.GridIndex...)
	off.GridIndex[2] = -1
	k := New(sys, Options{})
	for _, tc := range []struct {
		name string
		obs  sims.Context
		side []float64
		want string
	}{
		{"one point", one, nil, "at least 2 context observations"},
		{"NaN value", nan, nil, "NaN"},
		{"off grid", off, nil, "not on the grid"},
		{"side info", task.Context, []float64{1}, "side values"},
	} {
		_, err := k.Fit(context.Background(), tc.obs, tc.side)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	lv, _ := sims.Lookup("lv")
	tasks, _ := core.TestTasks(lv, core.EvalOptions{Tasks: 1, Context: 5, Seed: 1})
	obs := tasks[0].Context
	obs.Mask = [][]bool{{true, false}, {true, false}, {true, true}, {true, false}, {true, false}}
	if _, err := New(lv, Options{}).Fit(context.Background(), obs, tasks[0].Real.Side); err == nil || !strings.Contains(err.Error(), "predator has 1 observations") {
		t.Errorf("lv with one predator observation: error %v", err)
	}
}

func TestFitStopsOnCancel(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	_, task := springTask(t, 5, sys.Nominal([]float64{5}, nil), 30, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(sys, Options{}).Calibrate(ctx, task.Context, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit returned %v", err)
	}
}

// TestSmokeLVAndAdvdiff runs one small benchmark task of each
// multi-dimensional system: multi-channel (lv) and (t, x) (advdiff) fits
// must finish, stay inside the prior and give finite, scoreable
// predictions.
func TestSmokeLVAndAdvdiff(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{{"lv", 20}, {"advdiff", 60}} {
		sys, _ := sims.Lookup(tc.name)
		tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 1, Context: tc.n, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		task := tasks[0]
		p, err := New(sys, Options{}).Calibrate(context.Background(), task.Context, task.Real.Side)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, prm := range sys.Params() {
			if p.Theta[i] < prm.Lo || p.Theta[i] > prm.Hi {
				t.Errorf("%s: θ̂_%s = %v outside its prior", tc.name, prm.Name, p.Theta[i])
			}
		}
		for i := range p.Mean {
			if math.IsNaN(p.Mean[i]) || !(p.Std[i] > 0) || math.IsNaN(p.DeltaMean[i]) || !(p.DeltaStd[i] > 0) {
				t.Fatalf("%s: value %d: mean %v std %v δ %v δ std %v", tc.name, i, p.Mean[i], p.Std[i], p.DeltaMean[i], p.DeltaStd[i])
			}
		}
		m := core.Score(sys, task, p)
		t.Logf("%s: θ̂ %.4g (true %.4g), recon MAE %.4f, δ MAE %.4f", tc.name, p.Theta, task.Real.Theta, m.Values[core.KeyReconMAE], m.Values[core.KeyDeltaMAE])
		if v := m.Values[core.KeyReconMAE]; !(v < 0.1) {
			t.Errorf("%s: recon MAE %v", tc.name, v)
		}
	}
}

// TestParallelRunIsDeterministic fits lv tasks (the multi-channel path,
// whose simulator pools workspaces) on two workers and on one: the
// results must be identical and in task order.
func TestParallelRunIsDeterministic(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 4, Context: 12, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	k := New(sys, Options{Starts: 8, Seed: 1})
	par, err := core.RunMethod(context.Background(), sys, k, tasks, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := core.RunMethod(context.Background(), sys, k, tasks, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tasks {
		for _, key := range core.MetricKeys {
			if a, b := par.Metrics[i].Values[key], seq.Metrics[i].Values[key]; a != b {
				t.Errorf("task %d %s: parallel %v, sequential %v", i, key, a, b)
			}
		}
	}
}
