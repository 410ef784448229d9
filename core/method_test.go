package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"apic/sims"
)

// echoMethod predicts its task's truth exactly, with θ off by 0.5, after
// sleeping a task-dependent time so that a parallel run finishes out of
// order. It finds the task by the address of the context's first value
// (contexts are passed by value, their slices are shared).
type echoMethod struct {
	byTask map[*float64]sims.Task
	failOn *float64 // the context to fail on
}

func (*echoMethod) Name() string { return "echo" }

func (e *echoMethod) Calibrate(ctx context.Context, obs sims.Context, side []float64) (Prediction, error) {
	if err := ctx.Err(); err != nil {
		return Prediction{}, err
	}
	key := &obs.Values[0][0]
	task, ok := e.byTask[key]
	if !ok {
		return Prediction{}, errors.New("unknown context")
	}
	if key == e.failOn {
		return Prediction{}, errors.New("boom")
	}
	time.Sleep(time.Duration(int(task.Real.Theta[0]*1000)%3) * time.Millisecond)
	g := len(task.Real.True)
	p := Prediction{Mean: append([]float64(nil), task.Real.True...), Std: make([]float64, g),
		DeltaMean: task.Real.Discrepancy(), DeltaStd: make([]float64, g), Theta: []float64{task.Real.Theta[0] + 0.5}}
	for i := range p.Std {
		p.Std[i], p.DeltaStd[i] = 1, 1
	}
	return p, nil
}

func echoTasks(t *testing.T, n int) (sims.System, []sims.Task, *echoMethod) {
	t.Helper()
	sys, _ := sims.Lookup("spring")
	tasks, err := TestTasks(sys, EvalOptions{Tasks: n, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	e := &echoMethod{byTask: map[*float64]sims.Task{}}
	for _, task := range tasks {
		e.byTask[&task.Context.Values[0][0]] = task
	}
	return sys, tasks, e
}

func TestRunMethodKeepsTaskOrder(t *testing.T) {
	sys, tasks, e := echoTasks(t, 12)
	var calls int
	run, err := RunMethod(context.Background(), sys, e, tasks, 3, func(done, total int) {
		calls++
		if done != calls || total != 12 {
			t.Errorf("progress(%d, %d) on call %d", done, total, calls)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Name != "echo" || len(run.Metrics) != 12 || len(run.Seconds) != 12 || calls != 12 {
		t.Fatalf("run %q with %d metrics, %d times, %d progress calls", run.Name, len(run.Metrics), len(run.Seconds), calls)
	}
	for i, m := range run.Metrics {
		if m.Values[KeyReconMAE] != 0 || math.Abs(m.Values[KeyThetaMAE]-0.5) > 1e-12 {
			t.Errorf("realization %d scored %v (out of order?)", i, m.Values)
		}
		if !(run.Seconds[i] >= 0) {
			t.Errorf("realization %d: time %v", i, run.Seconds[i])
		}
	}
	if run.TotalSeconds() < run.MedianSeconds() {
		t.Errorf("total %v below median %v", run.TotalSeconds(), run.MedianSeconds())
	}
}

func TestRunMethodReportsFailureAndCancel(t *testing.T) {
	sys, tasks, e := echoTasks(t, 6)
	e.failOn = &tasks[4].Context.Values[0][0]
	// One realization's failure is counted, not fatal (failures_test.go).
	run, err := RunMethod(context.Background(), sys, e, tasks, 2, nil)
	if err != nil || run.Metrics[4].Failed != "boom" || run.Metrics[3].Failed != "" {
		t.Errorf("failure: %v, realization 4 failed with %q", err, run.Metrics[4].Failed)
	}
	e.failOn = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunMethod(ctx, sys, e, tasks, 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

// BenchmarkAPICLatencySpring is APIC's single-realization latency on
// spring with the shipped checkpoints: one context of the test size, 32
// latent samples, the whole pipeline. refine=0 is the one-pass amortized
// prediction; refine=default adds the checkpoint's refinement steps.
func BenchmarkAPICLatencySpring(b *testing.B) {
	for _, bb := range Backbones {
		m, _, err := LoadCheckpoint(filepath.Join("..", "checkpoints", "spring-"+string(bb)+".safetensors"))
		if err != nil {
			b.Fatal(err)
		}
		tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 1, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, refine := range []int{0, -1} {
			name := string(bb) + "/refine=0"
			if refine < 0 {
				name = fmt.Sprintf("%s/refine=default(%d)", bb, m.Config.Infer.Refine)
			}
			b.Run(name, func(b *testing.B) {
				a := &APIC{Model: m, Opt: PredictOptions{Samples: 32, Seed: 1, Refine: refine}}
				ctx := context.Background()
				for b.Loop() {
					if _, err := a.Calibrate(ctx, tasks[0].Context, tasks[0].Real.Side); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAPICBatchedSpring is APIC's batched one-pass throughput on
// spring: 200 test realizations (APIC_BENCH_TASKS others) in one
// CalibrateBatch call, 32 latent samples (1 for the deterministic CNP).
// ns/op is per batch; divide by the realizations. APIC_BENCH_cnp (_lnp,
// _anp) names another checkpoint file to time in place of the shipped
// one.
func BenchmarkAPICBatchedSpring(b *testing.B) {
	for _, bb := range Backbones {
		path := filepath.Join("..", "checkpoints", "spring-"+string(bb)+".safetensors")
		if p := os.Getenv("APIC_BENCH_" + string(bb)); p != "" {
			path = p
		}
		m, _, err := LoadCheckpoint(path)
		if err != nil {
			b.Fatal(err)
		}
		tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: benchTasks(), Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(bb), func(b *testing.B) {
			a := &APIC{Model: m, Opt: PredictOptions{Samples: 32, Seed: 1, Refine: 0}}
			ctx := context.Background()
			for b.Loop() {
				if _, _, err := CalibrateBatched(ctx, a, tasks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchTasks is BenchmarkAPICBatchedSpring's batch size: 200, or
// APIC_BENCH_TASKS.
func benchTasks() int {
	if n, err := strconv.Atoi(os.Getenv("APIC_BENCH_TASKS")); err == nil && n > 0 {
		return n
	}
	return 200
}

// TestRunMethodDrawsAsEval: APIC through RunMethod (compare's path, one
// realization per call) gives every task the metrics eval gives it for
// the same seed, across eval's call boundaries, refined or not: bit for
// bit for CNP and LNP, and to within rounding for ANP, whose attention
// can round differently for a realization predicted alone than inside
// eval's batch (its --refine 0 rows differ in the last digits;
// docs/baselines.md says so).
func TestRunMethodDrawsAsEval(t *testing.T) {
	for _, system := range []string{"spring", "lv"} {
		for _, backbone := range []Backbone{CNP, LNP, ANP} {
			m := trainedTiny(t, system, backbone, 1)
			for _, refine := range []int{0, -1} {
				checkRunMethodAsEval(t, m, refine)
			}
		}
	}
}

// checkRunMethodAsEval compares RunMethod's metrics of m with eval's.
func checkRunMethodAsEval(t *testing.T, m *Model, refine int) {
	t.Helper()
	ctx := context.Background()
	opt := EvalOptions{Tasks: evalChunk + 5, Samples: 4, Seed: 7, Refine: refine}
	_, want, err := Evaluate(ctx, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := TestTasks(m.Sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	a := &APIC{Model: m, Opt: PredictOptions{Samples: opt.Samples, Seed: opt.Seed, Refine: refine}}
	run, err := RunMethod(ctx, m.Sys, a, tasks, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s/%s refine %d", m.Config.Arch.System, m.Config.Arch.Backbone, refine)
	for i := range want {
		// %v prints each float in the shortest form that reads back to
		// it, NaN as NaN: equal texts are equal bits, NaN included.
		got, exact := fmt.Sprintf("%+v", run.Metrics[i]), fmt.Sprintf("%+v", want[i])
		if m.Config.Arch.Backbone != ANP && got != exact {
			t.Fatalf("%s, task %d: RunMethod %s, eval %s", name, i, got, exact)
		}
		for k, w := range want[i].Values {
			g := run.Metrics[i].Values[k]
			if !(math.IsNaN(g) && math.IsNaN(w)) && !(math.Abs(g-w) <= 1e-12*math.Max(1, math.Abs(w))) {
				t.Fatalf("%s, task %d: %s %v by RunMethod, %v by eval", name, i, k, g, w)
			}
		}
	}
}
