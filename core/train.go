package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"apic/nets"
	"apic/sims"
)

// Progress is reported during training.
type Progress struct {
	Stage   int // 1 or 2
	Step    int // steps done in this stage
	Steps   int // steps planned in this stage
	Losses  Losses
	LR      float64
	Elapsed time.Duration // since training started
	// ETA is the time left for both stages at the mean step rate since
	// training started, stage 1's cheaper steps included: an
	// underestimate (a stage 2 step costs about three of stage 1 on
	// spring and lv), so train and the explorer show StageETA.
	ETA time.Duration
	// StageETA is the time left in this stage at its own mean step rate:
	// in stage 2, the time left for the training steps of the run.
	StageETA time.Duration
	Val      *Report // set when this report carries a validation
}

// Hooks observe a training run. All are optional and are called from the
// training goroutine.
type Hooks struct {
	Progress      func(Progress)
	ProgressEvery int // steps between Progress calls (default 10)
	// Snapshot receives a deep copy of the weights every SnapshotEvery
	// steps; it may hand it to other goroutines.
	Snapshot      func(stage, step int, weights map[string]*nets.Tensor)
	SnapshotEvery int
}

// TrainResult summarises a finished (or stopped) run.
type TrainResult struct {
	Steps1, Steps2 int // steps completed per stage
	Wall           time.Duration
	Final          Losses
	Val            *Report
	ValStep        int // the stage-2 step Val was measured at
}

// TrainsAny reports whether the plan trains any step.
func (t Train) TrainsAny() bool { return t.Steps1 > 0 || t.Steps2 > 0 }

// PlanRemainder sets m's plan to what remains of plan after the steps
// res completed: a stopped run's weights record it, so that inspect
// reads it as the steps left and train --init trains them, not the
// whole plan again on top of those done.
func (m *Model) PlanRemainder(plan Train, res TrainResult) {
	m.Config.Train.Steps1 = max(plan.Steps1-res.Steps1, 0)
	m.Config.Train.Steps2 = max(plan.Steps2-res.Steps2, 0)
}

// ErrNonFinite is returned when the loss or gradients become NaN or Inf.
var ErrNonFinite = errors.New("training diverged: non-finite loss or gradient")

// Stream constants of the seeded PCG sources; distinct streams keep
// training, validation and evaluation draws disjoint.
const (
	trainStream = 0x617069632d74726e
	valStream   = 0x617069632d76616c
)

// sampler draws training batches: fresh realizations every step, or
// from a fixed pool when Trajectories > 0.
type sampler struct {
	sys   sims.System
	rng   *rand.Rand
	pool  []sims.Realization
	noise float64
	// noiseMax > noise draws each realization's σ from [noise, noiseMax],
	// a share lowShare of them at noise.
	noiseMax, lowShare float64
	lo, hi             int // context sizes
}

// newSampler makes t's sampler for sys; the fixed pool, if any, is drawn
// by drawPool.
func newSampler(sys sims.System, t Train) *sampler {
	s := &sampler{sys: sys, rng: rand.New(rand.NewPCG(t.Seed, trainStream)), noise: t.Noise, noiseMax: t.NoiseMax, lowShare: t.NoiseLowShare}
	s.lo, s.hi = t.contextRange(sys)
	return s
}

// drawPool draws the fixed training set of n realizations, stopping
// with ctx.Err() when ctx is cancelled: a large pool takes minutes.
func (s *sampler) drawPool(ctx context.Context, n int) error {
	if err := TrajectoriesLimit(s.sys).Check(n); err != nil {
		return err
	}
	s.pool = make([]sims.Realization, 0, n)
	for range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.pool = append(s.pool, sims.Draw(s.sys, s.rng))
	}
	return nil
}

func (s *sampler) contextSize() int {
	return s.lo + s.rng.IntN(s.hi-s.lo+1)
}

// batch draws b realizations and splits them with context size n. When
// nominal is set, contexts and targets come from the nominal process and
// the batch carries the true θ.
func (s *sampler) batch(b, n int, nominal bool) (*Batch, error) {
	ctxs := make([]sims.Context, b)
	sides := make([][]float64, b)
	values := make([][]float64, b)
	thetas := make([][]float64, b)
	for i := 0; i < b; i++ {
		var r sims.Realization
		if len(s.pool) > 0 {
			r = s.pool[s.rng.IntN(len(s.pool))]
		} else {
			r = sims.Draw(s.sys, s.rng)
		}
		v := r.True
		if nominal {
			v = r.Nominal
		}
		sp := sims.NewSplit(s.sys, s.rng)
		sigma := s.noiseOf()
		t, err := sp.Task(s.sys, r, v, n, sigma)
		if err != nil {
			return nil, err
		}
		ctxs[i], sides[i], thetas[i] = t.Context, r.Side, r.Theta
		// The targets carry the same noise as the context: training data
		// are measurements, noisy everywhere, and the likelihood learns
		// the noise from them. (Evaluation adds noise to the context only,
		// as BENCHMARKS.md says, and scores against the noise-free truth.)
		values[i] = make([]float64, len(v))
		for j := range v {
			values[i][j] = v[j] + sigma*sp.Eps[j]
		}
	}
	return NewBatch(s.sys, ctxs, sides, values, thetas)
}

// noiseOf returns the next realization's noise σ: when the range is
// set, noise with probability lowShare and otherwise uniform on [noise,
// noiseMax] (one draw more from the stream for each; a run without them
// draws exactly what it drew before they existed).
func (s *sampler) noiseOf() float64 {
	if s.noiseMax > s.noise {
		if s.lowShare > 0 && s.rng.Float64() < s.lowShare {
			return s.noise
		}
		return s.noise + s.rng.Float64()*(s.noiseMax-s.noise)
	}
	return s.noise
}

// newStepTape returns a training step's tape, its values and gradients
// taken from the arena that is reset before the next step (a variable so
// that a test can compare training on the heap).
var newStepTape = nets.NewTrainingTape

// lrAt is the learning rate at step i of n: cosine decay from LR to
// LRFinal when LRFinal > 0, otherwise constant.
func lrAt(t Train, i, n int) float64 {
	if t.LRFinal <= 0 || n <= 1 {
		return t.LR
	}
	c := 0.5 * (1 + math.Cos(math.Pi*float64(i)/float64(n-1)))
	return t.LRFinal + (t.LR-t.LRFinal)*c
}

// Train runs stage 1 (L_θ on nominal data, physics path only) for
// Steps1 steps and stage 2 (the full objective) for Steps2 steps,
// continuing from the model's current weights. It stops early, keeping
// the weights of the last completed step, when ctx is cancelled
// (returning ctx.Err()) or when the loss becomes non-finite
// (ErrNonFinite; the offending step is not applied).
func (m *Model) Train(ctx context.Context, h Hooks) (TrainResult, error) {
	t := m.Config.Train
	if h.ProgressEvery <= 0 {
		h.ProgressEvery = 10
	}
	tr := &trainer{m: m, t: t, h: h, start: time.Now(), s: newSampler(m.Sys, t), total: t.Steps1 + t.Steps2, physOnly: m.physicsParams()}
	if err := tr.s.drawPool(ctx, t.Trajectories); err != nil {
		return tr.res, err
	}
	err := tr.runStage(ctx, 1, t.Steps1)
	if err == nil {
		err = tr.runStage(ctx, 2, t.Steps2)
	}
	tr.res.Wall = time.Since(tr.start)
	return tr.res, err
}

// trainer is one Train call's state across its two stages.
type trainer struct {
	m        *Model
	t        Train
	h        Hooks
	s        *sampler
	res      TrainResult
	start    time.Time
	total    int // steps of both stages
	done     int // steps taken so far, both stages
	physOnly *nets.Params
}

// runStage takes steps optimizer steps of stage 1 (the physics encoder
// alone) or 2 (everything), reporting through the hooks.
func (tr *trainer) runStage(ctx context.Context, stage, steps int) error {
	// A fresh optimizer per stage: stage 2 adds parameters and a new
	// objective, so stage 1's moment estimates do not carry over.
	opt := nets.NewAdam(tr.t.LR)
	opt.ClipNorm = tr.t.ClipNorm
	arena := new(nets.Arena)
	stageStart := time.Now()
	for i := 0; i < steps; i++ {
		arena.Reset()
		if err := ctx.Err(); err != nil {
			return err
		}
		ls, err := tr.step(opt, arena, stage, i, steps)
		if err != nil {
			return err
		}
		if h := tr.h; h.Snapshot != nil && h.SnapshotEvery > 0 && (i+1)%h.SnapshotEvery == 0 {
			h.Snapshot(stage, i+1, tr.m.Params.Snapshot())
		}
		var val *Report
		if stage == 2 && tr.t.ValEvery > 0 && tr.t.ValTasks > 0 && ((i+1)%tr.t.ValEvery == 0 || i+1 == steps) {
			r, err := tr.m.validate(ctx)
			if err != nil {
				return fmt.Errorf("stage 2 step %d: %w", i+1, err)
			}
			val, tr.res.Val, tr.res.ValStep = &r, &r, i+1
		}
		if tr.h.Progress != nil && ((i+1)%tr.h.ProgressEvery == 0 || i+1 == steps || val != nil) {
			el := time.Since(tr.start)
			eta := time.Duration(float64(el) / float64(tr.done) * float64(tr.total-tr.done))
			stageETA := time.Duration(float64(time.Since(stageStart)) / float64(i+1) * float64(steps-i-1))
			tr.h.Progress(Progress{Stage: stage, Step: i + 1, Steps: steps, Losses: ls, LR: opt.LR, Elapsed: el, ETA: eta, StageETA: stageETA, Val: val})
		}
	}
	return nil
}

// step takes step i of a stage's steps: a fresh batch's loss, its
// gradient and the optimizer's update, failing on a loss or gradient
// that is not finite.
func (tr *trainer) step(opt *nets.Adam, arena *nets.Arena, stage, i, steps int) (Losses, error) {
	tp := newStepTape(arena)
	loss, ls, err := tr.loss(tp, stage)
	if err != nil {
		return ls, err
	}
	if math.IsNaN(ls.Total) || math.IsInf(ls.Total, 0) {
		return ls, fmt.Errorf("stage %d step %d: loss %v: %w", stage, i+1, ls.Total, ErrNonFinite)
	}
	tr.m.Params.ZeroGrad()
	tp.Backward(loss)
	ps := tr.m.Params
	if stage == 1 {
		ps = tr.physOnly
	}
	if g := ps.GradNorm(); math.IsNaN(g) || math.IsInf(g, 0) {
		return ls, fmt.Errorf("stage %d step %d: gradient norm %v: %w", stage, i+1, g, ErrNonFinite)
	}
	opt.LR = lrAt(tr.t, i, steps)
	opt.Step(ps)
	tr.done++
	if stage == 1 {
		tr.res.Steps1++
	} else {
		tr.res.Steps2++
	}
	tr.res.Final = ls
	return ls, nil
}

// loss records on tp the stage's loss on fresh batches at one context
// size: stage 1 on nominal realizations, stage 2 on real ones (with a
// nominal batch for the θ term when λθ > 0).
func (tr *trainer) loss(tp *nets.Tape, stage int) (*nets.Var, Losses, error) {
	t, s := tr.t, tr.s
	n := s.contextSize()
	if stage == 1 {
		nb, err := s.batch(t.Batch, n, true)
		if err != nil {
			return nil, Losses{}, err
		}
		loss, ls := tr.m.stage1Loss(tp, nb, s.rng)
		return loss, ls, nil
	}
	rb, err := s.batch(t.Batch, n, false)
	if err != nil {
		return nil, Losses{}, err
	}
	var nb *Batch
	if t.LambdaTheta > 0 {
		if nb, err = s.batch(t.Batch, n, true); err != nil {
			return nil, Losses{}, err
		}
	}
	loss, ls := tr.m.stage2Loss(tp, rb, nb, s.rng)
	return loss, ls, nil
}

// physicsParams is the stage 1 parameter set: the physics encoder and g_φ.
func (m *Model) physicsParams() *nets.Params {
	ps := &nets.Params{}
	for _, p := range m.Params.List() {
		if hasPrefix(p.Name, "phys.") || hasPrefix(p.Name, "gphi.") {
			ps.Add(p)
		}
	}
	return ps
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// Validate evaluates on held-out realizations from the validation stream
// (Train.ValTasks of them, at least one).
func (m *Model) Validate(ctx context.Context) (Report, error) { return m.validate(ctx) }

// valSamples are the latent samples of a validation prediction.
const valSamples = 8

// validate evaluates on held-out realizations from the validation stream.
func (m *Model) validate(ctx context.Context) (Report, error) {
	t := m.Config.Train
	rng := rand.New(rand.NewPCG(t.Seed, valStream))
	tasks, err := drawTasks(ctx, m.Sys, rng, max(t.ValTasks, 1), m.Sys.TestContext(), t.Noise)
	if err != nil {
		return Report{}, err
	}
	per, err := m.ScoreTasks(ctx, tasks, valSamples, t.Seed)
	if err != nil {
		return Report{}, fmt.Errorf("validation: %w", err)
	}
	rep := Summarise(m.Sys, per)
	rep.System, rep.Backbone, rep.Tasks, rep.Context, rep.Samples = m.Sys.Name(), string(m.Config.Arch.Backbone), len(tasks), m.Sys.TestContext(), m.samplesDrawn(valSamples)
	rep.Seed, rep.Refine = t.Seed, m.Config.Infer.Refine // ScoreTasks refines as the model does
	rep.Noise = t.Noise
	return rep, nil
}
