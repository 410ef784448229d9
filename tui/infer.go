package tui

import (
	"fmt"
	"math"
	"time"

	tea "charm.land/bubbletea/v2"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// inferRequest is everything one amortized inference needs, captured on
// the UI goroutine so that the command reads nothing the UI may change.
type inferRequest struct {
	gen   int // generation: results of older generations are dropped
	sys   sims.System
	real  sims.Realization
	split sims.Split
	n     int     // context size
	noise float64 // context noise σ
	// theta, when set, holds θ values set by hand; NaN entries keep
	// their estimate θ̂.
	theta []float64
	// model is immutable while the request runs. When weights is set the
	// request first builds a fresh model from cfg and those weights (a
	// training snapshot) and returns it for later requests.
	model   *core.Model
	cfg     core.Config
	weights map[string]*nets.Tensor
	runID   int
	samples int
	seed    uint64
	// refine is 0 for the one-pass amortized prediction, or -1 for the
	// model's own setting (its Levenberg–Marquardt refinement steps).
	refine int
}

// inferMsg is the result of an inference.
type inferMsg struct {
	gen     int
	task    sims.Task
	pred    core.Prediction
	metrics core.TaskMetrics
	// est and estStd are the amortized estimate θ̂ ± σ, also when pred
	// was made with θ set by hand.
	est, estStd []float64
	built       *core.Model // model built from snapshot weights, if any
	runID       int
	refined     int // refinement steps behind the prediction (0: one pass)
	elapsed     time.Duration
	err         error
}

// cmd runs the request off the UI goroutine.
func (r inferRequest) cmd() tea.Cmd {
	return func() tea.Msg { return r.run() }
}

// run builds the task (the first n points of the fixed split, so growing
// the context keeps earlier points and their noise), predicts and scores.
func (r inferRequest) run() inferMsg {
	start := time.Now()
	out := inferMsg{gen: r.gen, runID: r.runID}
	m := r.model
	if r.weights != nil {
		built, err := core.NewModel(r.cfg)
		if err == nil {
			err = built.Params.Restore(r.weights)
		}
		if err != nil {
			out.err = fmt.Errorf("snapshot: %w", err)
			return out
		}
		m, out.built = built, built
	}
	task, err := r.split.Task(r.sys, r.real, r.real.True, r.n, r.noise)
	if err != nil {
		out.err = err
		return out
	}
	ctxs, sides := []sims.Context{task.Context}, [][]float64{r.real.Side}
	opt := core.PredictOptions{Samples: r.samples, Seed: r.seed, Refine: r.refine}
	if r.refine < 0 {
		// With θ set by hand this still refines the estimate θ̂ ± σ the
		// readout shows beside the set values.
		out.refined = m.Config.Infer.Refine
	}
	preds, err := m.PredictWith(ctxs, sides, opt)
	if err != nil {
		out.err = err
		return out
	}
	out.est, out.estStd = preds[0].Theta, preds[0].ThetaStd
	if r.theta != nil {
		// The hand-set values replace θ̂; the other parameters keep
		// their estimates from this context.
		th := make([]float64, len(r.theta))
		for i, v := range r.theta {
			th[i] = v
			if math.IsNaN(v) {
				th[i] = out.est[i]
			}
		}
		opt.Theta = [][]float64{th}
		if preds, err = m.PredictWith(ctxs, sides, opt); err != nil {
			out.err = err
			return out
		}
	}
	out.task, out.pred = task, preds[0]
	out.metrics = core.Score(r.sys, task, preds[0])
	out.elapsed = time.Since(start)
	return out
}

// samplesFor is the number of Monte-Carlo latent samples the explorer
// asks for: the system's interactive budget (sims.Hints). It is what the
// commands the explorer matches are run with (--samples); what a model
// draws is samplesDrawn.
func samplesFor(sys sims.System) int { return sims.HintsFor(sys).InteractiveSamples }

// samplesDrawn is how many latent samples a model of backbone b draws
// when asked for samplesFor(sys), by core's rule (a cnp draws one
// whatever is asked), the count core records in its reports.
func samplesDrawn(sys sims.System, b string) int {
	return core.Backbone(b).SamplesDrawn(samplesFor(sys))
}
