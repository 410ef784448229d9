package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// trainMode is how a training run starts.
type trainMode string

const (
	modeFineTune trainMode = "fine-tune" // a short stage 2 from the current weights
	modeScratch  trainMode = "scratch"   // both stages, briefly, from fresh weights
	modeFull     trainMode = "full"      // both stages with the system's full budget
)

var trainModes = []string{string(modeFineTune), string(modeScratch), string(modeFull)}

// quickBudget is the explorer's short training budget per system, sized so
// a user sees learning within a minute or two on a laptop.
type quickBudget struct{ fineTune, steps1, steps2, batch int }

func budgetFor(sys sims.System) quickBudget {
	if sys.Grid().Size() > 1000 { // the advection–diffusion field
		return quickBudget{fineTune: 200, steps1: 100, steps2: 300, batch: 8}
	}
	return quickBudget{fineTune: 300, steps1: 150, steps2: 450, batch: 16}
}

// trainConfig is the configuration of a run in mode from base (the
// current model's configuration) with the controls' λθ, λδ and
// regularizer. Quick modes skip validation so every step trains.
func trainConfig(sys sims.System, base core.Config, mode trainMode, lamTheta, lamDelta float64, reg core.Regularizer, run int) core.Config {
	cfg := base
	t := &cfg.Train
	t.LambdaTheta, t.LambdaDelta, t.Reg = lamTheta, lamDelta, reg
	t.Seed = base.Train.Seed + uint64(run)*7919
	b := budgetFor(sys)
	switch mode {
	case modeFineTune:
		t.Steps1, t.Steps2, t.Batch = 0, b.fineTune, b.batch
		t.LR, t.LRFinal = 3e-4, 1e-4
		t.ValEvery = 0
	case modeScratch:
		t.Steps1, t.Steps2, t.Batch = b.steps1, b.steps2, b.batch
		t.LR, t.LRFinal = 1e-3, 1e-4
		t.ValEvery = 0
	case modeFull:
		def := core.DefaultConfig(sys, base.Arch.Backbone).Train
		t.Steps1, t.Steps2, t.Batch, t.LR, t.LRFinal = def.Steps1, def.Steps2, def.Batch, def.LR, def.LRFinal
		t.ValEvery, t.ValTasks = def.ValEvery, def.ValTasks
	}
	return cfg
}

// trainRun is one background training run. The goroutine owns model
// until done is closed; afterwards the UI may read model, res and err.
type trainRun struct {
	id     int
	key    entryKey
	mode   trainMode
	base   *entry // the entry the run started from
	cancel context.CancelFunc
	events chan tea.Msg  // progress and snapshots, dropped when full
	done   chan struct{} // closed when the goroutine has ended
	cfg    core.Config   // the run's configuration
	model  *core.Model   // the trained model (valid after done)
	res    core.TrainResult
	err    error
	// stopping is set (on the UI goroutine only) once the run was
	// cancelled; its snapshots are no longer shown.
	stopping bool
	// recalibrating is set (on the UI goroutine only) once training has
	// ended and the predictive spread is being refitted: the status
	// line's state, which a late trainRecalibratingMsg may never set.
	recalibrating bool
	// refitStarted is set by the run's goroutine before done is closed
	// (so the UI reads it after done): training finished and the refit
	// began, whatever happened to the message saying so.
	refitStarted bool
}

// info is what a checkpoint of the run's weights records (the run has
// ended): its steps and wall time, those of the weights it fine-tuned
// added, and whether it was stopped before its training ended, when
// the inference settings it carries were fitted to other weights.
func (r *trainRun) info() core.Info {
	info := core.Info{Steps1: r.res.Steps1, Steps2: r.res.Steps2, WallSeconds: r.res.Wall.Seconds(), Metrics: r.res.Val}
	if r.mode == modeFineTune {
		info.Steps1 += r.base.info.Steps1
		info.Steps2 += r.base.info.Steps2
		info.WallSeconds += r.base.info.WallSeconds
		info.Init, info.InitSHA256 = r.base.parent()
	}
	info.Unfinished = r.err != nil && !r.refitStarted
	return info
}

// trainRecalibratingMsg says training has ended and recalibration begun.
type trainRecalibratingMsg struct{ run *trainRun }

// recalibrationTasks is how many validation realizations the end of a
// run recalibrates on: apic train's default for the full budget, fewer
// for the quick modes, whose runs take a minute or two.
func recalibrationTasks(mode trainMode) int {
	if mode == modeFull {
		return core.DefaultRecalibrationTasks
	}
	return 16
}

// trainProgressMsg reports a training step.
type trainProgressMsg struct {
	run *trainRun
	p   core.Progress
}

// trainSnapshotMsg carries a deep copy of the weights.
type trainSnapshotMsg struct {
	run     *trainRun
	weights map[string]*nets.Tensor
}

// trainDoneMsg says the run's goroutine has ended.
type trainDoneMsg struct{ run *trainRun }

// snapshotEvery is the least time between weight snapshots, so the plots
// re-infer a few times a second while a run trains.
const snapshotEvery = 300 * time.Millisecond

// startTraining starts the run's goroutine; model is the run's own copy.
func startTraining(parent context.Context, r *trainRun, model *core.Model) {
	ctx, cancel := context.WithCancel(parent)
	r.cancel = cancel
	r.events = make(chan tea.Msg, 32)
	r.done = make(chan struct{})
	send := func(msg tea.Msg) {
		select {
		case r.events <- msg:
		default: // the UI is behind; it will get the next one
		}
	}
	var last time.Time
	hooks := core.Hooks{
		ProgressEvery: 1,
		Progress:      func(p core.Progress) { send(trainProgressMsg{run: r, p: p}) },
		SnapshotEvery: 1,
		Snapshot: func(_, _ int, w map[string]*nets.Tensor) {
			if time.Since(last) >= snapshotEvery {
				last = time.Now()
				send(trainSnapshotMsg{run: r, weights: w})
			}
		},
	}
	go func() {
		defer close(r.done)
		defer cancel()
		res, err := model.Train(ctx, hooks)
		// The predictive spread, the refinement's z_θ prior and θ's
		// interval scale were fitted to the weights the run started
		// from; as apic train does, refit them to the new weights. A run
		// that stops first keeps none of the old fit: the plain mixture
		// collapse and z_θ fixed in refinement (prior 0, the untuned
		// setting).
		refitted := false
		if err == nil {
			r.refitStarted = true
			select {
			case r.events <- trainRecalibratingMsg{run: r}:
			case <-ctx.Done():
			}
			if err = model.Recalibrate(ctx, recalibrationTasks(r.mode)); err == nil {
				refitted = true
				if res.Val != nil {
					// The run's validation scored the old fit; as apic
					// train does, score the refitted model instead.
					val, verr := model.Validate(ctx)
					res.Val = nil
					if verr == nil {
						res.Val = &val
					}
				}
			} else {
				err = fmt.Errorf("recalibration: %w", err)
			}
		}
		if !refitted {
			model.DropFit()
		}
		if err != nil && !r.refitStarted {
			model.PlanRemainder(r.cfg.Train, res)
		}
		r.model, r.res, r.err = model, res, err
	}()
}

// next waits for the run's next event, or its end.
func (r *trainRun) next() tea.Cmd {
	return func() tea.Msg {
		select {
		case ev := <-r.events:
			return ev
		case <-r.done:
			return trainDoneMsg{run: r}
		}
	}
}

// wait cancels the run and blocks until its goroutine has ended.
func (r *trainRun) wait() {
	r.cancel()
	<-r.done
}
