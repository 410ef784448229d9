package core

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
)

// countdownCtx is a context whose Err is nil for its first calls and
// context.Canceled after: a Ctrl-C arriving at a known point, without
// timing.
type countdownCtx struct {
	context.Context
	left, calls atomic.Int64
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestPredictContextStopsRefinement: a cancellation during refinement
// stops it at the next step, not after all of them.
func TestPredictContextStopsRefinement(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 1, 0, 3))
	const steps = 1000
	cx := &countdownCtx{Context: context.Background()}
	cx.left.Store(3) // the batch check and the first two steps
	_, err := m.PredictContext(cx, ctxs, sides, PredictOptions{Samples: 2, Seed: 1, Refine: steps})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if n := cx.calls.Load(); n != 4 {
		t.Errorf("ctx checked %d times, want 4 (stopping at the third step of %d)", n, steps)
	}
	// Uncancelled, the same call predicts.
	if _, err := m.PredictContext(context.Background(), ctxs, sides, PredictOptions{Samples: 2, Seed: 1, Refine: 2}); err != nil {
		t.Fatal(err)
	}
}

// TestTestTasksContextStops: drawing the test realizations stops at the
// next realization once ctx is cancelled (eval and compare draw them all
// before scoring, which could take minutes).
func TestTestTasksContextStops(t *testing.T) {
	sys := tinyModel(t, "spring", LNP, nil).Sys
	cx := &countdownCtx{Context: context.Background()}
	cx.left.Store(3)
	tasks, err := TestTasksContext(cx, sys, EvalOptions{Tasks: 2000, Seed: 1})
	if !errors.Is(err, context.Canceled) || tasks != nil {
		t.Fatalf("%d tasks, error %v; want context.Canceled", len(tasks), err)
	}
	if n := cx.calls.Load(); n != 4 {
		t.Errorf("ctx checked %d times, want 4 (stopping before the fourth realization)", n)
	}
	// The same draws as TestTasks when not cancelled.
	a, err := TestTasksContext(context.Background(), sys, EvalOptions{Tasks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := testTasks(t, sys, 3, 0, 1)
	for i := range a {
		if a[i].Real.Theta[0] != b[i].Real.Theta[0] {
			t.Errorf("task %d: θ %v vs %v", i, a[i].Real.Theta, b[i].Real.Theta)
		}
	}
}

// TestRecalibrateStoppedKeepsSettings: a recalibration stopped at any
// point, the z_θ prior's trials included, leaves the inference settings
// exactly as they were, not at a candidate it was trying.
func TestRecalibrateStoppedKeepsSettings(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	m.Config.Infer.Refine = 2
	m.Config.Infer.ZThetaPrior = 7
	m.Config.Infer.SpreadFit = SpreadFit{StdScale: 5, DeltaStdScale: 6, ThetaStdScale: 7}
	before := m.Config.Infer
	stopped := 0
	for k := int64(1); k < 40; k += 3 {
		cx := &countdownCtx{Context: context.Background()}
		cx.left.Store(k)
		if err := m.Recalibrate(cx, 3); err == nil {
			break // k outlasts every check: a finished recalibration
		}
		stopped++
		if !reflect.DeepEqual(m.Config.Infer, before) {
			t.Fatalf("stopped after %d checks: settings %+v, want %+v", k, m.Config.Infer, before)
		}
	}
	if stopped < 3 {
		t.Errorf("only %d of the stops fell inside the recalibration", stopped)
	}
}
