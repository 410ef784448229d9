package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"apic/sims"
)

// trainedTiny builds a tiny model of system/backbone with the given seed
// and trains it for a few steps.
func trainedTiny(t *testing.T, system string, b Backbone, seed uint64) *Model {
	t.Helper()
	m := tinyModel(t, system, b, func(c *Config) {
		c.Train.Steps1, c.Train.Steps2, c.Train.Seed = 3, 3, seed
		c.Train.Batch = 4
		c.Arch.Hidden, c.Arch.DecHidden = 16, 16
	})
	if _, err := m.Train(context.Background(), Hooks{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEvaluateDeterministic: the same seed gives the same numbers, on the
// same model and on a model rebuilt and retrained from the same config;
// another evaluation seed or training seed gives other numbers.
func TestEvaluateDeterministic(t *testing.T) {
	type combo struct {
		system string
		b      Backbone
	}
	combos := []combo{{"spring", LNP}, {"spring", ANP}, {"spring", CNP}, {"lv", LNP}, {"advdiff", LNP}}
	for _, c := range combos {
		t.Run(c.system+"/"+string(c.b), func(t *testing.T) {
			opt := EvalOptions{Tasks: 6, Seed: 11, Samples: 4}
			if c.system == "advdiff" {
				opt.Tasks = 3
			}
			eval := func(m *Model, o EvalOptions) (Report, []TaskMetrics) {
				rep, per, err := Evaluate(context.Background(), m, o)
				if err != nil {
					t.Fatal(err)
				}
				return rep, per
			}
			m := trainedTiny(t, c.system, c.b, 1)
			r1, p1 := eval(m, opt)
			r2, p2 := eval(m, opt)
			if !sameValues(r1, r2) || !sameValues(p1, p2) {
				t.Fatalf("two evaluations differ:\n%+v\n%+v", r1, r2)
			}
			r3, p3 := eval(trainedTiny(t, c.system, c.b, 1), opt)
			if !sameValues(r1, r3) || !sameValues(p1, p3) {
				t.Fatalf("a model rebuilt from the same config evaluates differently:\n%+v\n%+v", r1, r3)
			}
			other := opt
			other.Seed = 12
			if r4, _ := eval(m, other); reflect.DeepEqual(r1.Metrics, r4.Metrics) {
				t.Error("another evaluation seed gives the same metrics")
			}
			if r5, _ := eval(trainedTiny(t, c.system, c.b, 2), opt); reflect.DeepEqual(r1.Metrics, r5.Metrics) {
				t.Error("another training seed gives the same metrics")
			}
			if r1.System != c.system || r1.Backbone != string(c.b) || r1.Tasks != opt.Tasks || r1.Seed != 11 || r1.Samples != samplesDrawn(c.b, 4) ||
				r1.Context != m.Sys.TestContext() {
				t.Errorf("report header %+v", r1)
			}
		})
	}
}

func TestEvaluateOptions(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	rep, per, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 3, Context: 12, Noise: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Context != 12 || rep.Noise != 0.1 || rep.Samples != 32 || len(per) != 3 {
		t.Errorf("report %+v with %d per-task metrics: want context 12, noise 0.1, default 32 samples", rep, len(per))
	}
	cnp := tinyModel(t, "spring", CNP, nil)
	if rep, _, err := Evaluate(context.Background(), cnp, EvalOptions{Tasks: 2, Samples: 16, Refine: 0}); err != nil || rep.Samples != 1 {
		t.Errorf("CNP report says %d samples (err %v), want 1: the deterministic CNP draws none", rep.Samples, err)
	}
	// Test tasks use the requested context size and hold every other grid
	// point as a target.
	for _, tk := range testTasks(t, m.Sys, 3, 12, 1) {
		if tk.Context.Len() != 12 || len(tk.Targets) != m.Sys.Grid().Points()-12 {
			t.Errorf("task with %d context points and %d targets", tk.Context.Len(), len(tk.Targets))
		}
	}
	if _, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 0}); err == nil {
		t.Error("zero tasks accepted")
	}
	// The error says which step failed, not the command's name, which
	// the CLI already prints before it ("apic eval: eval: …" otherwise).
	if _, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 2, Context: m.Sys.Grid().Points() + 1}); err == nil {
		t.Error("a context larger than the grid accepted")
	} else if msg := err.Error(); strings.HasPrefix(msg, "eval:") || !strings.Contains(msg, "test realizations") {
		t.Errorf("error %q: want the failed step named, without an \"eval:\" prefix", msg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Evaluate(ctx, m, EvalOptions{Tasks: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled evaluation: %v, want context.Canceled", err)
	}
}

// TestReportJSON: the report serialises with the keys of `apic eval
// --json`.
func TestReportJSON(t *testing.T) {
	m := tinyModel(t, "lv", CNP, nil)
	rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 2, Seed: 3, Samples: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"system", "backbone", "tasks", "context", "noise", "seed", "metrics", "theta_mae_per_param"} {
		if _, ok := got[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	var metrics map[string]map[string]any // a NaN diagnostic is a string
	if err := json.Unmarshal(got["metrics"], &metrics); err != nil {
		t.Fatal(err)
	}
	for _, k := range MetricKeys {
		s, ok := metrics[k]
		if _, hasStd := s["std"]; !ok || len(s) != 2 || !hasStd {
			t.Errorf("metrics.%s = %v, want {mean, std}", k, s)
		}
	}
	var per map[string]map[string]float64
	if err := json.Unmarshal(got["theta_mae_per_param"], &per); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Sys.Params() {
		if _, ok := per[p.Name]; !ok {
			t.Errorf("theta_mae_per_param lacks %s", p.Name)
		}
	}
}

// TestTestTasksDisjointFromTraining: evaluation draws come from their own
// stream, so the first test realization is not the first training one.
func TestTestTasksDisjointFromTraining(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 1, 0, 1)
	s := newSampler(sys, Train{Seed: 1})
	b, err := s.batch(1, 30, false)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(b.Theta.Row(0), tasks[0].Real.Theta) {
		t.Error("evaluation seed 1 reproduces training seed 1's first realization")
	}
}

// TestEvaluateTrueTheta: with the true θ given, θ MAE is zero, the
// nominal is exact, and the report says so.
func TestEvaluateTrueTheta(t *testing.T) {
	m := tinyModel(t, "lv", CNP, nil)
	perturb(m, 5, 0.02)
	rep, per, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 3, Seed: 2, Samples: 2, Refine: -1, TrueTheta: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.TrueTheta || rep.Refine != 0 {
		t.Errorf("report: true θ %v, refine %d", rep.TrueTheta, rep.Refine)
	}
	for i, tm := range per {
		if tm.Values[KeyThetaMAE] != 0 || tm.Values[KeyNominalMAE] > 1e-6 { // the model integrates lv with fewer RK4 steps
			t.Errorf("task %d: θ MAE %v, F(θ̂) MAE %v, want 0", i, tm.Values[KeyThetaMAE], tm.Values[KeyNominalMAE])
		}
		// A given θ has no interval: no coverage to report.
		if c := tm.Values[KeyThetaCover]; !math.IsNaN(c) {
			t.Errorf("task %d: θ coverage %v with θ given, want NaN", i, c)
		}
	}
}

// samplesDrawn is the sample count a report gives for asked samples:
// the deterministic CNP draws one.
func samplesDrawn(b Backbone, asked int) int {
	if b == CNP {
		return 1
	}
	return asked
}

// TestEvaluateProgress: progress hears the realizations done as each
// batch is, not only after each chunk of evalChunk (lv's diagnosis in
// the explorer, in batches of 9, went 0, 25, done), one call at a time,
// counting up to the total. Batches below 2·minPiece run as one piece,
// so the counts are the batches' ends on any number of cores.
func TestEvaluateProgress(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	samples := 1
	for m.batchCap(samples) >= 2*minPiece {
		samples *= 2
	}
	per := m.batchCap(samples)
	total := evalChunk + 3
	var want []int
	for lo := 0; lo < total; lo += evalChunk {
		hi := min(lo+evalChunk, total)
		for b := lo; b < hi; b += per {
			want = append(want, min(b+per, hi))
		}
	}
	var got []int
	opt := EvalOptions{Tasks: total, Samples: samples, Refine: 0, Progress: func(done, n int) {
		if n != total {
			t.Errorf("progress says %d of %d, want of %d", done, n, total)
		}
		got = append(got, done)
	}}
	if _, _, err := Evaluate(context.Background(), m, opt); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("in batches of %d (%d samples), progress %v, want %v", per, samples, got, want)
	}
}

// TestProgressChangesNoResult: a Progress callback hears the pieces of
// the batches a prediction runs anyway (PredictOptions.predicted); an
// evaluation's and a diagnosis's numbers are the same bit for bit as
// without it, one pass and refined, across a chunk's boundary, for a
// tiny model and (not -short) two shipped checkpoints.
func TestProgressChangesNoResult(t *testing.T) {
	models := map[string]*Model{"tiny spring/lnp": trainedTiny(t, "spring", LNP, 1)}
	if !testing.Short() {
		models["lv/anp"], _ = shippedModel(t, "lv", ANP, 1)
		models["advdiff/lnp"], _ = shippedModel(t, "advdiff", LNP, 1)
	}
	for name, m := range models {
		for _, refine := range []int{0, -1} {
			opt := EvalOptions{Tasks: evalChunk + 7, Samples: 4, Seed: 3, Refine: refine}
			dopt := DiagnoseOptions{Tasks: opt.Tasks, Samples: opt.Samples, Seed: opt.Seed, Refine: refine}
			want, dwant := evalAndDiagnose(t, m, opt, dopt)
			opt.Progress, dopt.Progress = func(int, int) {}, func(int, int) {}
			got, dgot := evalAndDiagnose(t, m, opt, dopt)
			if !sameValues(got, want) {
				t.Errorf("%s, refine %d: eval with progress %+v, without %+v", name, refine, got, want)
			}
			if !sameValues(dgot, dwant) {
				t.Errorf("%s, refine %d: diagnosis with progress %+v, without %+v", name, refine, dgot, dwant)
			}
		}
	}
}

// evalAndDiagnose is Evaluate's per-realization metrics under opt and
// Diagnose's result under dopt.
func evalAndDiagnose(t *testing.T, m *Model, opt EvalOptions, dopt DiagnoseOptions) ([]TaskMetrics, Diagnostics) {
	t.Helper()
	_, per, err := Evaluate(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Diagnose(context.Background(), m, dopt)
	if err != nil {
		t.Fatal(err)
	}
	return per, d
}

// sameValues reports whether a and b print the same in Go syntax: deep
// equality in which NaN equals NaN (a NaN diagnostic is a legitimate,
// reproducible value).
func sameValues(a, b any) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

// Coverages and ECEs lie in [0, 1], MAEs at or above 0; LLs are free.
func TestMetricRange(t *testing.T) {
	for k, want := range map[string][2]float64{
		KeyThetaCover: {0, 1}, KeyDeltaECE: {0, 1}, KeyReconMAE: {0, math.Inf(1)}, KeyReconLL: {math.Inf(-1), math.Inf(1)}, "nosuch": {math.Inf(-1), math.Inf(1)},
	} {
		if lo, hi := MetricRange(k); lo != want[0] || hi != want[1] {
			t.Errorf("MetricRange(%s) = [%g, %g], want %v", k, lo, hi, want)
		}
	}
}

// A realization whose θ̂ has no deviation has no θ cover95; the mean is
// over the others, and the report counts them, rather than one NaN
// turning the whole mean into NaN.
func TestSummariseThetaCoverSkipsNoDeviation(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	mk := func(cover float64) TaskMetrics {
		vals := map[string]float64{}
		for _, k := range append(MetricKeys[:len(MetricKeys):len(MetricKeys)], DiagnosticKeys...) {
			vals[k] = 0.5
		}
		vals[KeyThetaCover] = cover
		return TaskMetrics{Values: vals, ThetaAE: []float64{0.1}, ThetaErr: []float64{0.1}, ThetaStd: []float64{0.2}}
	}
	rep := Summarise(sys, []TaskMetrics{mk(1), mk(math.NaN()), mk(0), {Failed: "diverged"}})
	if got := rep.Metrics[KeyThetaCover].Mean; got != 0.5 {
		t.Errorf("θ cover95 mean = %v, want 0.5 (over the two realizations with a deviation)", got)
	}
	if rep.ThetaCoverOf != 2 {
		t.Errorf("ThetaCoverOf = %d, want 2", rep.ThetaCoverOf)
	}
	none := Summarise(sys, []TaskMetrics{mk(math.NaN())})
	if !math.IsNaN(none.Metrics[KeyThetaCover].Mean) || none.ThetaCoverOf != 0 {
		t.Errorf("with no deviation at all: cover %v over %d, want NaN over 0", none.Metrics[KeyThetaCover].Mean, none.ThetaCoverOf)
	}
}
