package core

import (
	"context"
	"fmt"
	"math/rand/v2"

	"apic/nets"
	"apic/sims"
)

// A recalibration holds its validation realizations and their
// predictions until its fits are done: the table of scales per condition
// holds every cell's at once (cellSample), so its memory grows with the
// realizations per condition times the conditions times the grid, and
// for advdiff's 4096-value grid it can exceed the training's. A run that
// runs out of memory there loses the weights it trained for hours, so
// the memory check (CheckTrainMemory) covers it before training starts.

// RecalScope is how a recalibration of N realizations draws them.
type RecalScope int

const (
	// RecalWhole is Recalibrate: N realizations for the single fits,
	// then max(8, N/4) per condition for the table.
	RecalWhole RecalScope = iota
	// RecalPerCondition is a part that fits a table (--recalibrate-only
	// conditions, theta-shape, band-shape, one-pass, delta-theta,
	// disagreement): N realizations per condition, held at once.
	RecalPerCondition
	// RecalOnce is a part fitted on N realizations in all
	// (--recalibrate-only theta, theta-prior, delta-profile).
	RecalOnce
)

// recalSlack is how much more memory a recalibration takes than the
// floats its held realizations and predictions count: the fits' working
// copies of the bands and the collector's goal of a quarter past the
// live heap (apic train keeps trainGCPercent through the recalibration).
// TestRecalMemoryMatchesMeasuredPeak measures the peak heap of small
// recalibrations of shipped files at 0.68 to 1.27 times the estimate
// (the most, advdiff-anp's whole recalibration at 32, where the batch
// dominates); at 576 per condition on advdiff, where the held
// realizations do, the resident peak was 0.61 times it
// (docs/training.md).
const recalSlack = 2

// predictionGridVectors is how many grid-sized float64 vectors a
// recalibration keeps per realization: the prediction's Mean, Std,
// DeltaMean, DeltaStd, Nominal, the sample and noise variances (three)
// and the refined fit's start (two), and the task's True, Nominal,
// Observed and Targets.
const predictionGridVectors = 10 + 4

// recalSamples is the latent samples a recalibration's predictions draw
// (recalibrationPredict, predictKept).
const recalSamples = 16

// RecalMemory is the estimate of a recalibration's peak memory beside
// the model: the validation realizations it holds at once, each with its
// prediction on the grid, and the batch being predicted.
type RecalMemory struct {
	Tasks      int        // --recalibrate's N; 0: no recalibration
	Scope      RecalScope // how the N are drawn
	Conditions int        // the table's conditions
	Held       int        // realizations held at once
	// PerRealization is one held realization's task and prediction, in
	// bytes.
	PerRealization int64
	// Batch is the most realizations predicted at once (one context
	// size, at most BatchCap, split among the cores), and Context the
	// largest context they are predicted at.
	Batch, BatchCap, Context int
	// PredictPerRealization is one realization's share of the batch's
	// prediction: its arena, the arena's slack included. Probed says it
	// was measured at Context (ProbeRecalMemory); otherwise it is 0, and
	// the estimate a lower bound.
	PredictPerRealization int64
	Probed                bool
}

// PredictBytes is the batch's prediction.
func (r RecalMemory) PredictBytes() int64 { return int64(r.Batch) * r.PredictPerRealization }

// withTasks is r for n realizations instead.
func (r RecalMemory) withTasks(n int) RecalMemory {
	r.Tasks, r.Held, r.Batch = n, RecalibrationHeld(r.Conditions, n, r.Scope), min(n, r.BatchCap)
	return r
}

// Bytes is the recalibration's estimated memory beside the model and
// the runtime.
func (r RecalMemory) Bytes() int64 {
	if r.Tasks < 1 {
		return 0
	}
	return recalSlack*int64(r.Held)*r.PerRealization + r.PredictBytes()
}

// EstimateRecalMemory estimates the memory of a recalibration of cfg's
// model on n realizations drawn as scope says, from the configuration
// alone: the realizations it holds, a lower bound until
// ProbeRecalMemory measures the batch. Config.Validate must pass first.
func EstimateRecalMemory(cfg Config, n int, scope RecalScope) RecalMemory {
	if n < 1 {
		return RecalMemory{}
	}
	sys, _ := sims.Lookup(cfg.Arch.System)
	conds := tableConditionsOf(sys)
	r := RecalMemory{Tasks: n, Scope: scope, Conditions: len(conds), Held: RecalibrationHeld(len(conds), n, scope)}
	r.PerRealization = predictionGridVectors * int64(sys.Grid().Size()) * 8
	r.Context = sys.TestContext()
	if scope != RecalOnce {
		for _, c := range conds {
			r.Context = max(r.Context, c.cond.Context)
		}
	}
	queries := len(closureFor(sys, cfg.Arch.Form).Queries())
	r.BatchCap = batchCapOf(sys.Grid().Size(), queries, cfg.Arch.DecHidden, cfg.Arch.Backbone.SamplesDrawn(recalSamples))
	r.Batch = min(n, r.BatchCap)
	return r
}

// ProbeRecalMemory measures the batch of a recalibration of m on n
// realizations drawn as scope says: one realization predicted as the
// recalibration predicts it (its latent samples, the model's refinement
// steps) at the largest context, its arena scaled to the batch (a
// batch's values grow in proportion to its realizations), twice over
// for the arena's slack. The draw comes from a stream of its own; the
// model is left as it was.
func (m *Model) ProbeRecalMemory(ctx context.Context, n int, scope RecalScope) (RecalMemory, error) {
	r := EstimateRecalMemory(m.Config, n, scope)
	if n < 1 {
		return r, nil
	}
	rng := rand.New(rand.NewPCG(m.Config.Train.Seed^0x70726f6265, valStream)) // "probe"
	tasks, err := drawTasks(ctx, m.Sys, rng, 1, min(r.Context, m.Sys.Grid().Points()-1), m.Config.Train.Noise)
	if err != nil {
		return r, fmt.Errorf("measuring a recalibration's prediction: %w", err)
	}
	arena := new(nets.Arena)
	bt, err := newBatchIn(arena, m.Sys, []sims.Context{tasks[0].Context}, [][]float64{tasks[0].Real.Side}, nil, nil)
	if err != nil {
		return r, fmt.Errorf("measuring a recalibration's prediction: %w", err)
	}
	k := m.samplesDrawn(recalSamples)
	noise := &noise{per: realizationNoise(m.Config.Train.Seed, 0, 1)}
	if refine := m.Config.Infer.Refine; refine > 0 {
		if _, err := m.predictRefined(ctx, bt, k, refine, noise, true); err != nil {
			return r, fmt.Errorf("measuring a recalibration's prediction: %w", err)
		}
	} else {
		m.predictBatch(bt.inferenceTape(arena), bt, k, noise)
	}
	r.PredictPerRealization = arenaSlack * int64(arena.Used()) * 8
	r.Probed = true
	return r, nil
}

// EstimateRunMemory is a run's estimate from cfg alone, before the
// model is built: its training steps (where cfg trains any) and the
// recalibration of n realizations drawn as scope says that follows
// them, or that the run does alone.
func EstimateRunMemory(cfg Config, n int, scope RecalScope) TrainMemory {
	r := EstimateRecalMemory(cfg, n, scope)
	if !cfg.Train.TrainsAny() {
		return RecalOnly(cfg, r)
	}
	e := EstimateTrainMemory(cfg)
	e.Recal = r
	return e
}

// MeasureRunMemory is EstimateRunMemory measured on m: a training step
// (ProbeTrainMemory) and a recalibration's batch (ProbeRecalMemory),
// each on one realization and scaled.
func (m *Model) MeasureRunMemory(ctx context.Context, n int, scope RecalScope) (TrainMemory, error) {
	r, err := m.ProbeRecalMemory(ctx, n, scope)
	if err != nil {
		return TrainMemory{}, err
	}
	if !m.Config.Train.TrainsAny() {
		return RecalOnly(m.Config, r), nil
	}
	e, err := m.ProbeTrainMemory()
	e.Recal = r
	return e, err
}

// RecalibrationHeld is how many validation realizations a
// recalibration of n realizations drawn as scope says holds at once,
// over a table of conditions conditions.
func RecalibrationHeld(conditions, n int, scope RecalScope) int {
	switch scope {
	case RecalPerCondition:
		return conditions * n
	case RecalOnce:
		return n
	}
	return max(n, conditions*max(8, n/4))
}

// heldWords says what --recalibrate N holds for r's scope, for the
// memory check's error.
func (r RecalMemory) heldWords() string {
	switch r.Scope {
	case RecalPerCondition:
		return fmt.Sprintf("%d per condition at %d conditions", r.Tasks, r.Conditions)
	case RecalOnce:
		return fmt.Sprintf("%d in all", r.Tasks)
	}
	return fmt.Sprintf("the table's max(8, %d/4) per condition at %d conditions", r.Tasks, r.Conditions)
}

// mostTasksWithin is the largest --recalibrate N (within
// LimitRecalTasks) whose recalibration keeps the run within budget, the
// rest of e as it is; 0 when none does.
func (e TrainMemory) mostTasksWithin(budget int64) int {
	lo, hi := 0, LimitRecalTasks.Max
	for lo < hi {
		mid := (lo + hi + 1) / 2
		e.Recal = e.Recal.withTasks(mid)
		if e.Total() <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// tableConditionsOf returns the conditions of CalibrationConditions
// that sys's table has a cell for, in order: those whose context leaves
// at least one target on the system's grid.
func tableConditionsOf(sys sims.System) []indexedCondition {
	var out []indexedCondition
	for i, cond := range CalibrationConditions(sys) {
		if cond.Context <= sys.Grid().Points()-1 {
			out = append(out, indexedCondition{i, cond})
		}
	}
	return out
}
