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
	start := time.Now()
	s := newSampler(m.Sys, t)
	var res TrainResult
	if err := s.drawPool(ctx, t.Trajectories); err != nil {
		return res, err
	}
	opt := nets.NewAdam(t.LR)
	opt.ClipNorm = t.ClipNorm
	total := t.Steps1 + t.Steps2
	done := 0
	physOnly := m.physicsParams()

	run := func(stage, steps int) error {
		// A fresh optimizer per stage: stage 2 adds parameters and a new
		// objective, so stage 1's moment estimates do not carry over.
		opt = nets.NewAdam(t.LR)
		opt.ClipNorm = t.ClipNorm
		arena := new(nets.Arena)
		stageStart := time.Now()
		for i := 0; i < steps; i++ {
			arena.Reset()
			if err := ctx.Err(); err != nil {
				return err
			}
			n := s.contextSize()
			tp := newStepTape(arena)
			var loss *nets.Var
			var ls Losses
			if stage == 1 {
				nb, err := s.batch(t.Batch, n, true)
				if err != nil {
					return err
				}
				loss, ls = m.stage1Loss(tp, nb, s.rng)
			} else {
				rb, err := s.batch(t.Batch, n, false)
				if err != nil {
					return err
				}
				var nb *Batch
				if t.LambdaTheta > 0 {
					if nb, err = s.batch(t.Batch, n, true); err != nil {
						return err
					}
				}
				loss, ls = m.stage2Loss(tp, rb, nb, s.rng)
			}
			if math.IsNaN(ls.Total) || math.IsInf(ls.Total, 0) {
				return fmt.Errorf("stage %d step %d: loss %v: %w", stage, i+1, ls.Total, ErrNonFinite)
			}
			m.Params.ZeroGrad()
			tp.Backward(loss)
			ps := m.Params
			if stage == 1 {
				ps = physOnly
			}
			if g := ps.GradNorm(); math.IsNaN(g) || math.IsInf(g, 0) {
				return fmt.Errorf("stage %d step %d: gradient norm %v: %w", stage, i+1, g, ErrNonFinite)
			}
			opt.LR = lrAt(t, i, steps)
			opt.Step(ps)
			done++
			if stage == 1 {
				res.Steps1++
			} else {
				res.Steps2++
			}
			res.Final = ls
			if h.Snapshot != nil && h.SnapshotEvery > 0 && (i+1)%h.SnapshotEvery == 0 {
				h.Snapshot(stage, i+1, m.Params.Snapshot())
			}
			var val *Report
			if stage == 2 && t.ValEvery > 0 && t.ValTasks > 0 && ((i+1)%t.ValEvery == 0 || i+1 == steps) {
				r, err := m.validate(ctx)
				if err != nil {
					return fmt.Errorf("stage 2 step %d: %w", i+1, err)
				}
				val, res.Val, res.ValStep = &r, &r, i+1
			}
			if h.Progress != nil && ((i+1)%h.ProgressEvery == 0 || i+1 == steps || val != nil) {
				el := time.Since(start)
				eta := time.Duration(float64(el) / float64(done) * float64(total-done))
				stageETA := time.Duration(float64(time.Since(stageStart)) / float64(i+1) * float64(steps-i-1))
				h.Progress(Progress{Stage: stage, Step: i + 1, Steps: steps, Losses: ls, LR: opt.LR, Elapsed: el, ETA: eta, StageETA: stageETA, Val: val})
			}
		}
		return nil
	}
	err := run(1, t.Steps1)
	if err == nil {
		err = run(2, t.Steps2)
	}
	res.Wall = time.Since(start)
	return res, err
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
