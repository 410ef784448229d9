package core

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// divergeTask makes task t's prediction fail: side information far
// beyond anything sensible sends every latent sample's RK4 integration
// (lv) to infinity.
func divergeTask(t sims.Task) sims.Task {
	t.Real.Side = []float64{1e200, 1e200}
	return t
}

// TestScoreTasksCountsFailures: a realization whose prediction diverges
// is marked failed, the others are scored exactly as without it, and the
// report's means are those over the others.
func TestScoreTasksCountsFailures(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	perturb(m, 3, 0.05)
	tasks := testTasks(t, m.Sys, 6, 0, 5)
	o := PredictOptions{Samples: 4, Seed: 9, Refine: 0}
	clean, err := m.ScoreTasksWith(context.Background(), tasks, o)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]sims.Task(nil), tasks...)
	bad[2] = divergeTask(bad[2])
	if _, err := m.PredictWith([]sims.Context{bad[2].Context}, [][]float64{bad[2].Real.Side}, o); !errors.Is(err, ErrDiverged) {
		t.Fatalf("the crafted realization predicts with error %v, want ErrDiverged", err)
	}
	per, err := m.ScoreTasksWith(context.Background(), bad, o)
	if err != nil {
		t.Fatalf("one failed realization stopped the evaluation: %v", err)
	}
	if per[2].Failed == "" {
		t.Fatalf("realization 2 is not marked failed: %+v", per[2].Values)
	}
	var others []TaskMetrics
	for i, tm := range per {
		if i == 2 {
			continue
		}
		if tm.Failed != "" {
			t.Fatalf("realization %d failed too: %s", i, tm.Failed)
		}
		for k, v := range clean[i].Values {
			if got := tm.Values[k]; got != v && !(math.IsNaN(got) && math.IsNaN(v)) {
				t.Errorf("realization %d %s = %g beside a failed one, %g without", i, k, got, v)
			}
		}
		others = append(others, tm)
	}
	rep, want := Summarise(m.Sys, per), Summarise(m.Sys, others)
	if rep.Failures.Count != 1 || len(rep.Failures.Realizations) != 1 || rep.Failures.Realizations[0].Index != 2 || !strings.Contains(rep.Failures.Realizations[0].Reason, "diverged") {
		t.Errorf("failures = %+v, want realization 2, diverged", rep.Failures)
	}
	for k, s := range want.Metrics {
		if g := rep.Metrics[k]; g != s && !(math.IsNaN(g.Mean) && math.IsNaN(s.Mean)) {
			t.Errorf("%s = %+v, want the mean over the other realizations %+v", k, g, s)
		}
	}
	for k, s := range want.ThetaPerParam {
		if g := rep.ThetaPerParam[k]; g != s {
			t.Errorf("θ %s = %+v, want %+v", k, g, s)
		}
	}
	if want.Failures.Count != 0 || want.Failures.Realizations == nil {
		t.Errorf("no failure gives %+v, want count 0 and an empty list", want.Failures)
	}

	for i := range bad {
		bad[i] = divergeTask(bad[i])
	}
	if _, err := m.ScoreTasksWith(context.Background(), bad, o); err == nil || !strings.Contains(err.Error(), "all 6 realizations failed") {
		t.Errorf("every realization failing gives error %v, want one saying all 6 failed", err)
	}
}

// failingMethod fails on some realizations, by error or with a
// non-finite prediction, and predicts the truth elsewhere.
type failingMethod struct {
	errAt, nanAt map[int]bool
	tasks        []sims.Task
}

func (f *failingMethod) Name() string { return "failing" }

func (f *failingMethod) Calibrate(ctx context.Context, obs sims.Context, side []float64) (Prediction, error) {
	return Prediction{}, errors.New("use CalibrateTask")
}

func (f *failingMethod) CalibrateTask(ctx context.Context, i int, obs sims.Context, side []float64) (Prediction, error) {
	if f.errAt[i] {
		return Prediction{}, errors.New("no fit")
	}
	r := f.tasks[i].Real
	n, np := len(r.True), len(r.Theta)
	p := Prediction{Mean: append([]float64(nil), r.True...), Std: fill(n, 0.1), DeltaMean: r.Discrepancy(), DeltaStd: fill(n, 0.1),
		Nominal: append([]float64(nil), r.Nominal...), Theta: append([]float64(nil), r.Theta...), ThetaStd: fill(np, 0.1)}
	p.Mean[0] += float64(i) // metrics that differ per realization
	if f.nanAt[i] {
		p.Std[3] = math.Inf(1)
	}
	return p, nil
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestRunMethodCountsFailures: compare's RunMethod goes on past a
// realization whose method errs or predicts non-finite values, and fails
// only when every one does.
func TestRunMethodCountsFailures(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 5, 0, 2)
	f := &failingMethod{tasks: tasks, errAt: map[int]bool{1: true}, nanAt: map[int]bool{3: true}}
	run, err := RunMethod(context.Background(), sys, f, tasks, 2, nil)
	if err != nil {
		t.Fatalf("two failed realizations stopped the run: %v", err)
	}
	rep := Summarise(sys, run.Metrics)
	if rep.Failures.Count != 2 || rep.Failures.Realizations[0].Index != 1 || rep.Failures.Realizations[1].Index != 3 {
		t.Fatalf("failures %+v, want realizations 1 and 3", rep.Failures)
	}
	if r := rep.Failures.Realizations[0].Reason; r != "no fit" {
		t.Errorf("realization 1's reason %q, want the method's error", r)
	}
	if r := rep.Failures.Realizations[1].Reason; !strings.Contains(r, "not finite") {
		t.Errorf("realization 3's reason %q, want a non-finite prediction", r)
	}
	want := Summarise(sys, []TaskMetrics{run.Metrics[0], run.Metrics[2], run.Metrics[4]})
	if g, w := rep.Metrics[KeyReconMAE], want.Metrics[KeyReconMAE]; g != w || g.Mean == 0 {
		t.Errorf("recon MAE %+v, want %+v over realizations 0, 2, 4", g, w)
	}
	f.errAt = map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true}
	if _, err := RunMethod(context.Background(), sys, f, tasks, 2, nil); err == nil || !strings.Contains(err.Error(), "all 5 realizations failed") {
		t.Errorf("every realization failing gives %v, want an error", err)
	}
}
