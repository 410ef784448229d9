package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"apic/sims"
)

// Method is a calibration method: from one realization's context and the
// side information its simulator needs (never the realization's truth),
// it returns the predictive distribution on the grid and θ̂ as a
// Prediction. APIC, KOH-GP and later baselines (BCPI, Correction-PINN)
// all implement it, so they are scored by the same code on the same
// tasks.
//
// A Method bound to a system knows that system; Calibrate must be safe
// for concurrent use when RunMethod is given more than one worker.
type Method interface {
	// Name identifies the method in tables and JSON ("apic-lnp", "koh-gp").
	Name() string
	// Calibrate fits (or amortizes) one realization.
	Calibrate(ctx context.Context, obs sims.Context, side []float64) (Prediction, error)
}

// BatchMethod is a Method that can also calibrate many realizations in
// one call — the amortized methods, whose throughput is the point.
type BatchMethod interface {
	Method
	CalibrateBatch(ctx context.Context, obs []sims.Context, sides [][]float64) ([]Prediction, error)
}

// APIC adapts a trained Model to Method: amortized inference with the
// prediction options Opt — Samples Monte-Carlo latent samples (32 when
// < 1), whose noise comes from Seed, and Refine refinement steps on the
// context (negative: the model's setting; 0: pure one-pass amortized).
// Opt.Theta must be nil.
//
// Calibrate is not safe for concurrent use (the tape registers gradient
// buffers on the shared parameters); run it with one worker.
type APIC struct {
	Model *Model
	Opt   PredictOptions
	// Label overrides Name; by default "apic-" + the backbone.
	Label string
	// Noise is the observation noise σ of the contexts it is given,
	// where the caller knows it (compare --noise): a realization that
	// fails at a noise beyond the model's training range says so
	// (failureAtNoise). 0 words failures as they are.
	Noise float64
}

// wordFailure is reason, why a realization failed, as the model's
// training range explains it at the contexts' noise (failureAtNoise).
func (a *APIC) wordFailure(reason string) string { return a.Model.failureAtNoise(reason, a.Noise) }

// failureWording is a Method that words its realizations' failures
// itself (APIC, at a noise beyond its training range).
type failureWording interface{ wordFailure(reason string) string }

var _ BatchMethod = (*APIC)(nil)

// Name returns Label or "apic-BACKBONE".
func (a *APIC) Name() string {
	if a.Label != "" {
		return a.Label
	}
	return "apic-" + string(a.Model.Config.Arch.Backbone)
}

// options returns Opt with the default sample count and a seed offset.
func (a *APIC) options(seedOffset uint64) PredictOptions {
	o := a.Opt
	if o.Samples < 1 {
		o.Samples = 32
	}
	o.Seed += seedOffset
	return o
}

// Calibrate runs the whole amortized pipeline (encoders, θ map,
// simulator, discrepancy network, Monte-Carlo collapse) for one
// realization.
func (a *APIC) Calibrate(ctx context.Context, obs sims.Context, side []float64) (Prediction, error) {
	return a.calibrateOne(ctx, obs, side, a.options(0))
}

// CalibrateTask is Calibrate for task i of an evaluation set: its latent
// noise is the one eval draws for that task (TaskStream), so compare's
// APIC rows equal eval's for the same flags (to within rounding for
// ANP: docs/baselines.md).
func (a *APIC) CalibrateTask(ctx context.Context, i int, obs sims.Context, side []float64) (Prediction, error) {
	o := a.options(0)
	o.Seed, o.First = TaskStream(o.Seed, i)
	return a.calibrateOne(ctx, obs, side, o)
}

// calibrateOne predicts one realization with options o.
func (a *APIC) calibrateOne(ctx context.Context, obs sims.Context, side []float64, o PredictOptions) (Prediction, error) {
	if err := ctx.Err(); err != nil {
		return Prediction{}, err
	}
	preds, err := a.Model.PredictContext(ctx, []sims.Context{obs}, [][]float64{side}, o)
	if err != nil {
		return Prediction{}, err
	}
	return preds[0], nil
}

// taskCalibrator is a Method that calibrates task i of a set as the set's
// evaluation would (APIC: with the same latent noise).
type taskCalibrator interface {
	CalibrateTask(ctx context.Context, i int, obs sims.Context, side []float64) (Prediction, error)
}

// apicChunk is how many realizations CalibrateBatch hands to Predict at
// once: large enough to amortize the per-call overhead, small enough that
// ctx is checked often. (Predict itself caps a batch's memory.)
const apicChunk = 256

// CalibrateBatch predicts many realizations, batched by context size,
// checking ctx between chunks. A realization whose prediction diverges
// comes back marked (Prediction.Failed); the others are unaffected.
func (a *APIC) CalibrateBatch(ctx context.Context, obs []sims.Context, sides [][]float64) ([]Prediction, error) {
	if len(obs) != len(sides) {
		return nil, fmt.Errorf("apic: %d contexts but %d side vectors", len(obs), len(sides))
	}
	out := make([]Prediction, 0, len(obs))
	for lo := 0; lo < len(obs); lo += apicChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+apicChunk, len(obs))
		o := a.options(uint64(lo))
		o.KeepFailed = true
		preds, err := a.Model.PredictContext(ctx, obs[lo:hi], sides[lo:hi], o)
		if err != nil {
			return nil, err
		}
		out = append(out, preds...)
	}
	return out, nil
}

// MethodRun is the outcome of running a method on a list of tasks, in
// task order.
type MethodRun struct {
	Name    string
	Metrics []TaskMetrics
	// Seconds is each realization's wall time inside Calibrate, measured
	// by the worker that ran it.
	Seconds []float64
	// CPUSeconds is the CPU time (user + system) the whole process used
	// during the run, NaN where the platform cannot tell. Unlike wall
	// time it does not grow when other programs compete for the cores.
	CPUSeconds float64
}

// CPUPerRealization is CPUSeconds over the number of realizations: the
// average compute one realization cost, garbage collection included.
func (r MethodRun) CPUPerRealization() float64 { return r.CPUSeconds / float64(len(r.Seconds)) }

// MedianSeconds is the median per-realization wall time.
func (r MethodRun) MedianSeconds() float64 { return median(r.Seconds) }

// TotalSeconds is the summed per-realization wall time (CPU-side work,
// not the elapsed time of a parallel run).
func (r MethodRun) TotalSeconds() float64 {
	s := 0.0
	for _, x := range r.Seconds {
		s += x
	}
	return s
}

// median returns the median of xs (NaN when empty) without modifying it.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// RunMethod calibrates every task with m, one realization per Calibrate
// call, on workers goroutines (GOMAXPROCS when ≤ 0), and scores each
// prediction with Score. A realization whose Calibrate fails or whose
// prediction cannot be scored (Prediction.Problem) is marked failed in
// its TaskMetrics and the run goes on; a run in which every one fails is
// an error. Results come back in task order whatever the
// scheduling, so a deterministic method gives deterministic results.
// Each worker times its own Calibrate calls, so the per-realization times
// are honest single-realization wall times (with one realization per
// core). progress, if set, is called after each realization with the
// number done so far; calls are serialised. ctx cancels between
// realizations (and inside Calibrate, if the method checks it).
func RunMethod(ctx context.Context, sys sims.System, m Method, tasks []sims.Task, workers int, progress func(done, total int)) (MethodRun, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(tasks)))
	run := MethodRun{Name: m.Name(), Metrics: make([]TaskMetrics, len(tasks)), Seconds: make([]float64, len(tasks)), CPUSeconds: math.NaN()}
	cpu0, cpuOK := processCPU()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	next := make(chan int)
	var (
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range workers {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // drain: a failure or the caller stopped the run
				}
				tm, sec, err := calibrateTask(ctx, sys, m, i, tasks[i])
				switch {
				case ctx.Err() != nil:
					continue // stopped: the run returns ctx's error
				case err != nil:
					fail(err)
					continue
				}
				run.Metrics[i] = tm
				run.Seconds[i] = sec
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(tasks))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range tasks {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The first failure wins; a worker's cancellation error wraps
	// context.Canceled, so callers can test it with errors.Is.
	if firstErr != nil {
		return MethodRun{}, firstErr
	}
	if err := ctx.Err(); err != nil {
		return MethodRun{}, err
	}
	if err := AllFailed(run.Metrics); err != nil {
		return MethodRun{}, fmt.Errorf("%s: %w", m.Name(), err)
	}
	if cpu1, ok := processCPU(); ok && cpuOK {
		run.CPUSeconds = (cpu1 - cpu0).Seconds()
	}
	return run, nil
}

// calibrateTask calibrates realization i, task t, with m and scores it,
// returning its metrics and wall seconds. A calibration that fails
// counts as a failed realization (TaskMetrics.Failed); only a stopped
// context is an error.
func calibrateTask(ctx context.Context, sys sims.System, m Method, i int, t sims.Task) (TaskMetrics, float64, error) {
	tm, sec, err := calibrateOne(ctx, sys, m, i, t)
	if w, ok := m.(failureWording); ok && tm.Failed != "" {
		tm.Failed = w.wordFailure(tm.Failed)
	}
	return tm, sec, err
}

// calibrateOne is calibrateTask with failures in the words of the
// prediction (or the method's error).
func calibrateOne(ctx context.Context, sys sims.System, m Method, i int, t sims.Task) (TaskMetrics, float64, error) {
	start := time.Now()
	var p Prediction
	var err error
	if tc, ok := m.(taskCalibrator); ok {
		p, err = tc.CalibrateTask(ctx, i, t.Context, t.Real.Side)
	} else {
		p, err = m.Calibrate(ctx, t.Context, t.Real.Side)
	}
	sec := time.Since(start).Seconds()
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return TaskMetrics{}, sec, fmt.Errorf("%s: realization %d: %w", m.Name(), i, err)
	case errors.Is(err, ErrDiverged):
		return TaskMetrics{Failed: ErrDiverged.Error()}, sec, nil
	case err != nil:
		return TaskMetrics{Failed: err.Error()}, sec, nil
	}
	return scoreOrFail(sys, t, p), sec, nil
}

// CalibrateBatched calibrates all tasks in one CalibrateBatch call and
// returns the predictions and the elapsed wall time.
func CalibrateBatched(ctx context.Context, m BatchMethod, tasks []sims.Task) ([]Prediction, time.Duration, error) {
	obs := make([]sims.Context, len(tasks))
	sides := make([][]float64, len(tasks))
	for i, t := range tasks {
		obs[i], sides[i] = t.Context, t.Real.Side
	}
	start := time.Now()
	preds, err := m.CalibrateBatch(ctx, obs, sides)
	el := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", m.Name(), err)
	}
	return preds, el, nil
}

// BatchTiming is the timing of repeated batched calls over the same
// tasks.
type BatchTiming struct {
	// Seconds is the median elapsed time of one call over all tasks.
	Seconds float64
	// Calls is the number of timed calls.
	Calls int
	// CPUPerRealization is the process's CPU time over the timed calls
	// divided by the realizations they calibrated (NaN where the
	// platform cannot tell).
	CPUPerRealization float64
}

// RealizationsPerSecond is the batched throughput.
func (b BatchTiming) RealizationsPerSecond(tasks int) float64 { return float64(tasks) / b.Seconds }

// TimeBatched times CalibrateBatched over tasks: untimed calls first,
// for a fifth of minSeconds and at least one (buffers, pools and the
// garbage collector's heap target reach their working size; a process's
// first tens of millisecond-long calls run up to twice as slow as later
// ones), then calls until minSeconds have passed, at least one and at
// most maxCalls. A single millisecond-long call is at the mercy of a
// scheduler tick; the median of many is not.
func TimeBatched(ctx context.Context, m BatchMethod, tasks []sims.Task, minSeconds float64, maxCalls int) (BatchTiming, error) {
	warm := time.Now()
	for calls := 0; calls == 0 || (calls < max(1, maxCalls) && time.Since(warm).Seconds() < minSeconds/5); calls++ {
		if _, _, err := CalibrateBatched(ctx, m, tasks); err != nil {
			return BatchTiming{}, err
		}
	}
	var secs []float64
	total := 0.0
	cpu0, cpuOK := processCPU()
	for len(secs) < max(1, maxCalls) && (len(secs) == 0 || total < minSeconds) {
		_, el, err := CalibrateBatched(ctx, m, tasks)
		if err != nil {
			return BatchTiming{}, err
		}
		secs = append(secs, el.Seconds())
		total += el.Seconds()
	}
	out := BatchTiming{Seconds: median(secs), Calls: len(secs), CPUPerRealization: math.NaN()}
	if cpu1, ok := processCPU(); ok && cpuOK {
		out.CPUPerRealization = (cpu1 - cpu0).Seconds() / float64(len(secs)*len(tasks))
	}
	return out, nil
}
