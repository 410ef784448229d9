package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"apic/sims"
)

// Metric keys, as in the eval JSON.
const (
	KeyReconMAE = "recon_mae"
	KeyReconLL  = "recon_ll"
	KeyReconECE = "recon_ece"
	KeyDeltaMAE = "delta_mae"
	KeyDeltaLL  = "delta_ll"
	KeyDeltaECE = "delta_ece"
	KeyThetaMAE = "theta_mae"
)

// KeyNominalMAE is a diagnostic beside the BENCHMARKS.md metrics: the
// MAE of the calibrated simulator F(x; θ̂) against F(x; θ). The
// discrepancy error is δ̂ − δ = (ŷ − y) − (F(θ̂) − F(θ)), so this is the
// part of it that comes from θ̂ alone.
const KeyNominalMAE = "nominal_mae"

// KeyThetaCover is a diagnostic of θ's uncertainty: the share of the
// parameters whose true value lies in θ̂ ± 1.96 σ_θ, the reported 95%
// interval (0.95 when the intervals are calibrated); NaN where no
// parameter has a deviation (θ given, a one-pass CNP).
const KeyThetaCover = "theta_cover95"

// KeyObsCover and KeyObsECE score the observation band (the function
// band plus the estimated noise, Prediction.ObservationStd) on held-out
// noisy observations of the same realization at its targets
// (sims.Task.Observed): the share inside the band's 95% interval (0.95
// when calibrated) and the ECE of its central intervals. The function
// band's LL and ECE (KeyReconLL, KeyReconECE), scored against G, stay
// the headline metrics.
const (
	KeyObsCover = "obs_cover95"
	KeyObsECE   = "obs_ece"
)

// metricBounds are the values a metric can take, by its key: a coverage
// is a share, an ECE the mean gap between nominal and empirical
// coverage, an MAE a mean of absolute errors; a log-likelihood is
// unbounded, as is a key missing here.
var metricBounds = map[string][2]float64{
	KeyReconMAE: {0, math.Inf(1)}, KeyDeltaMAE: {0, math.Inf(1)}, KeyThetaMAE: {0, math.Inf(1)}, KeyNominalMAE: {0, math.Inf(1)},
	KeyReconECE: {0, 1}, KeyDeltaECE: {0, 1}, KeyObsECE: {0, 1}, KeyThetaCover: {0, 1}, KeyObsCover: {0, 1},
}

// MetricRange is the interval of values the metric of key k can take
// ((−∞, ∞) for an unbounded or unknown one): where an interval over
// realizations or seeds, symmetric about its mean, runs past it, a
// figure cuts it there.
func MetricRange(k string) (lo, hi float64) {
	if b, ok := metricBounds[k]; ok {
		return b[0], b[1]
	}
	return math.Inf(-1), math.Inf(1)
}

// DiagnosticKeys lists the diagnostic keys reported after MetricKeys.
var DiagnosticKeys = []string{KeyNominalMAE, KeyThetaCover, KeyObsCover, KeyObsECE}

// MetricKeys lists the metric keys in report order.
var MetricKeys = []string{KeyReconMAE, KeyReconLL, KeyReconECE, KeyDeltaMAE, KeyDeltaLL, KeyDeltaECE, KeyThetaMAE}

// TaskMetrics are the BENCHMARKS.md metrics of one realization, computed
// over its target points.
type TaskMetrics struct {
	Values   map[string]float64
	ThetaAE  []float64 // |θ̂_p − θ_p| per parameter
	ThetaErr []float64 // θ̂_p − θ_p per parameter (signed)
	ThetaStd []float64 // the reported deviation per parameter (0: none)
	// UnrefinedThetaAE is |θ̂_p − θ_p| per parameter of the θ̂ refinement
	// started from (Prediction.UnrefinedTheta); nil without refinement.
	UnrefinedThetaAE []float64
	// Bound counts the parameters whose estimate lies at a prior bound
	// (AtPriorBound) and has a deviation, and how many of their
	// intervals hold the true value.
	Bound BoundCoverage
	// ReconCovered and DeltaCovered count, per ECE level, the targets
	// inside the central interval of the function band (reconstruction
	// and δ), out of Targets: Summarise pools them over realizations.
	ReconCovered, DeltaCovered []int
	Targets                    int
	// ContextMeanMAE is the reconstruction MAE of a flat line at each
	// channel's context mean (contextMeanMAE): the yardstick of
	// reconGuessWarnings; NaN where it has none.
	ContextMeanMAE float64
	// Failed says why the realization has no metrics: its prediction
	// failed (Prediction.Problem) or the method returned an error.
	// Summarise counts it and leaves it out of the means.
	Failed string
}

// Failure is a realization left out of a report's means because its
// prediction failed.
type Failure struct {
	// Index is the realization's place in the evaluated set: with the
	// report's seed and context size, 'apic eval --seed S' draws it as
	// realization Index (from 0).
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// Failures counts and lists a report's failed realizations.
type Failures struct {
	Count        int       `json:"count"`
	Realizations []Failure `json:"realizations"`
}

// AllFailed is the error of an evaluation in which no realization of
// per could be scored, with the first one's reason: there is nothing to
// report. It is nil when one could (or per is empty).
func AllFailed(per []TaskMetrics) error {
	if len(per) == 0 {
		return nil
	}
	for _, tm := range per {
		if tm.Failed == "" {
			return nil
		}
	}
	return &AllFailedError{Realizations: len(per), First: per[0].Failed}
}

// AllFailedError is AllFailed's error: every one of Realizations
// failed, the first for reason First. A comparison of several methods
// leaves such a method out and goes on (errors.As finds it).
type AllFailedError struct {
	Realizations int
	First        string
}

func (e *AllFailedError) Error() string {
	return fmt.Sprintf("all %s failed (realization 0: %s)", Count(e.Realizations, "realization"), e.First)
}

// targetValues expands target grid points to value indices (all
// channels).
func targetValues(sys sims.System, targets []int) []int {
	c := len(sys.Grid().Channels)
	idx := make([]int, 0, len(targets)*c)
	for _, p := range targets {
		for ch := 0; ch < c; ch++ {
			idx = append(idx, p*c+ch)
		}
	}
	return idx
}

// Score computes the metrics of one prediction against its task.
func Score(sys sims.System, task sims.Task, p Prediction) TaskMetrics {
	idx := targetValues(sys, task.Targets)
	truth := task.Real.True
	delta := task.Real.Discrepancy()
	tm := TaskMetrics{Values: map[string]float64{
		KeyReconMAE: MAE(p.Mean, truth, idx),
		KeyReconLL:  GaussianLL(p.Mean, p.Std, truth, idx),
		KeyReconECE: ECE(p.Mean, p.Std, truth, idx),
		KeyDeltaMAE: MAE(p.DeltaMean, delta, idx),
		KeyDeltaLL:  GaussianLL(p.DeltaMean, p.DeltaStd, delta, idx),
		KeyDeltaECE: ECE(p.DeltaMean, p.DeltaStd, delta, idx),
	}}
	tm.ReconCovered, tm.DeltaCovered, tm.Targets = coveredCounts(p.Mean, p.Std, truth, idx), coveredCounts(p.DeltaMean, p.DeltaStd, delta, idx), len(idx)
	tm.ContextMeanMAE = contextMeanMAE(task, len(sys.Grid().Channels), idx)
	if len(p.Nominal) == len(truth) {
		tm.Values[KeyNominalMAE] = MAE(p.Nominal, task.Real.Nominal, idx)
	} else {
		tm.Values[KeyNominalMAE] = math.NaN()
	}
	tm.Values[KeyObsCover], tm.Values[KeyObsECE] = math.NaN(), math.NaN()
	if len(task.Observed) == len(truth) {
		osd := p.ObservationStd()
		tm.Values[KeyObsCover] = coverage95(p.Mean, osd, task.Observed, idx)
		tm.Values[KeyObsECE] = ECE(p.Mean, osd, task.Observed, idx)
	}
	s, covered, withSD := 0.0, 0.0, 0.0
	for i, th := range task.Real.Theta {
		ae := math.Abs(p.Theta[i] - th)
		tm.ThetaAE = append(tm.ThetaAE, ae)
		tm.ThetaErr = append(tm.ThetaErr, p.Theta[i]-th)
		sd := 0.0
		if i < len(p.ThetaStd) {
			sd = p.ThetaStd[i]
		}
		tm.ThetaStd = append(tm.ThetaStd, sd)
		s += ae
		// A parameter with no deviation (given by hand, or a one-pass
		// CNP's point estimate) has no interval to cover it.
		if i < len(p.ThetaStd) && p.ThetaStd[i] > 0 {
			withSD++
			in := ae <= 1.96*p.ThetaStd[i]
			if in {
				covered++
			}
			tm.Bound.add(sys.Params()[i], p.Theta[i], in)
		}
	}
	tm.Values[KeyThetaMAE] = s / float64(len(task.Real.Theta))
	if len(p.UnrefinedTheta) == len(task.Real.Theta) {
		for i, th := range task.Real.Theta {
			tm.UnrefinedThetaAE = append(tm.UnrefinedThetaAE, math.Abs(p.UnrefinedTheta[i]-th))
		}
	}
	tm.Values[KeyThetaCover] = math.NaN()
	if withSD > 0 {
		tm.Values[KeyThetaCover] = covered / withSD
	}
	return tm
}

// coverage95 is the share of the values y_j, j in idx, inside μ_j ±
// 1.96 σ_j.
func coverage95(mu, sd, y []float64, idx []int) float64 {
	in := 0
	for _, j := range idx {
		if math.Abs(y[j]-mu[j]) <= 1.96*sd[j] {
			in++
		}
	}
	return float64(in) / float64(max(1, len(idx)))
}

// EvalOptions configure the evaluation protocol of BENCHMARKS.md.
type EvalOptions struct {
	Tasks   int     // number of test realizations (200)
	Context int     // context size; 0 means the system's test default
	Noise   float64 // context noise σ
	Seed    uint64  // evaluation seed (its stream is disjoint from training's)
	Samples int     // Monte-Carlo latent samples (32)
	Refine  int     // refinement steps; negative: the model's setting
	// TrueTheta gives the model every realization's true θ (an
	// identifiability diagnostic: what is left is the learned
	// discrepancy's error); it implies one pass, as PredictOptions.Theta.
	TrueTheta bool
	// Progress, when set, is told how many of the realizations are
	// done as each batch or piece of one is (predictWith), one call at
	// a time and counting up, from the goroutines that predict them.
	Progress func(done, total int)
}

// Report is an evaluation's result: each metric's mean and standard
// deviation over realizations.
type Report struct {
	System   string  `json:"system"`
	Backbone string  `json:"backbone"`
	Tasks    int     `json:"tasks"`
	Context  int     `json:"context"`
	Noise    float64 `json:"noise"`
	Seed     uint64  `json:"seed"`    // eval's --seed; in a training validation report, the training seed (its realizations come from the validation stream, which eval never draws)
	Samples  int     `json:"samples"` // latent samples drawn per realization (1 for the deterministic CNP)
	Refine   int     `json:"refine"`
	// ThetaPrior is the form of refinement's prior on θ's logits
	// (Infer.ThetaPrior), "" when nothing was refined.
	ThetaPrior string `json:"theta_prior,omitempty"`
	// ThetaPriorScale is the factor on that prior's width
	// (Infer.ThetaPriorScale, 1 where unset), 0 when nothing was refined.
	ThetaPriorScale float64            `json:"theta_prior_scale,omitempty"`
	TrueTheta       bool               `json:"true_theta,omitempty"`
	Metrics         map[string]Summary `json:"metrics"`
	ThetaPerParam   map[string]Summary `json:"theta_mae_per_param"`
	// ThetaBiasPerParam is the diagnostic mean signed error θ̂_p − θ_p
	// per parameter: the systematic part of the θ error.
	ThetaBiasPerParam map[string]Summary `json:"theta_bias_per_param,omitempty"`
	// ThetaAtBound is the diagnostic coverage of θ's 95% intervals at
	// the prior's bounds, which the pooled θ cover95 hides: few
	// estimates lie there, and their intervals cover least.
	ThetaAtBound BoundCoverage `json:"theta_at_bound"`
	// ThetaCoverOf is how many of the realizations that did not fail
	// had a θ deviation, and so a θ cover95: the metric's mean is over
	// these (a refined fit whose Laplace Gram matrix is singular, or a
	// one-pass CNP, gives none).
	ThetaCoverOf int `json:"theta_cover_realizations"`
	// Failures are the realizations whose prediction failed, counted
	// in Tasks and left out of every mean.
	Failures Failures `json:"failures"`
	// Pooled is the ECE of the function bands over all realizations'
	// targets together (PooledECE): how far the bands are from calibrated
	// as a reliability curve reads them, where the per-realization ECE of
	// Metrics also counts how the errors of one realization move together.
	Pooled PooledECE `json:"pooled_ece"`
	// ContextMeanMAE is the mean over realizations of the reconstruction
	// MAE of a flat line at each channel's context mean (contextMeanMAE),
	// the yardstick of reconGuessWarnings; NaN where a realization has
	// none. Not written: a reader has the warning.
	ContextMeanMAE float64 `json:"-"`
	// Warnings say where the evaluated condition (context size, noise)
	// lies outside what the model was trained on (RangeWarnings).
	Warnings []string `json:"warnings"`
}

// evalStream is the PCG stream of evaluation draws; training uses other
// streams, so no evaluation seed reproduces a training realization.
const evalStream = 0x617069632d65766c

// TestTasks draws the protocol's test realizations and splits.
func TestTasks(sys sims.System, opt EvalOptions) ([]sims.Task, error) {
	return TestTasksContext(context.Background(), sys, opt)
}

// TestTasksContext is TestTasks stopped by ctx, which it checks before
// each realization: each is a simulator solve (advdiff's is a PDE), so
// many take long, and a Ctrl-C must not wait for them all.
func TestTasksContext(ctx context.Context, sys sims.System, opt EvalOptions) ([]sims.Task, error) {
	n := opt.Context
	if n == 0 {
		n = sys.TestContext()
	}
	if opt.Tasks < 1 {
		return nil, fmt.Errorf("need at least one task, got %d", opt.Tasks)
	}
	return drawTasks(ctx, sys, rand.New(rand.NewPCG(opt.Seed, evalStream)), opt.Tasks, n, opt.Noise)
}

// drawTasks draws count realizations from rng, each with a context of
// contextSize points at observation noise σ = noise. Each is a simulator
// solve (advdiff's a PDE), so it stops between them when ctx is done.
func drawTasks(ctx context.Context, sys sims.System, rng *rand.Rand, count, contextSize int, noise float64) ([]sims.Task, error) {
	tasks := make([]sims.Task, count)
	for i := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := sims.Draw(sys, rng)
		t, err := sims.NewTask(sys, r, contextSize, noise, rng)
		if err != nil {
			return nil, err
		}
		tasks[i] = t
	}
	return tasks, nil
}

// Evaluate runs the protocol: draw tasks, predict in batches, score and
// summarise. ctx cancels between batches.
func Evaluate(ctx context.Context, m *Model, opt EvalOptions) (Report, []TaskMetrics, error) {
	if opt.Samples < 1 {
		opt.Samples = 32
	}
	tasks, err := TestTasksContext(ctx, m.Sys, opt)
	if err != nil {
		return Report{}, nil, fmt.Errorf("drawing the test realizations: %w", err)
	}
	per, err := m.scoreTasks(ctx, tasks, PredictOptions{Samples: opt.Samples, Seed: opt.Seed, Refine: opt.Refine}, opt.Noise, opt.TrueTheta, opt.Progress)
	if err != nil {
		return Report{}, nil, fmt.Errorf("calibrating the test realizations: %w", err)
	}
	rep := Summarise(m.Sys, per)
	rep.System, rep.Backbone = m.Sys.Name(), string(m.Config.Arch.Backbone)
	rep.Tasks, rep.Context, rep.Noise, rep.Seed, rep.Samples = len(tasks), tasks[0].Context.Len(), opt.Noise, opt.Seed, m.samplesDrawn(opt.Samples)
	rep.Refine = opt.Refine
	if rep.Refine < 0 {
		rep.Refine = m.Config.Infer.Refine
	}
	if opt.TrueTheta {
		rep.Refine, rep.TrueTheta = 0, true
	}
	if rep.Refine > 0 {
		rep.ThetaPrior = m.Config.Infer.ThetaPriorForm()
		rep.ThetaPriorScale = m.Config.Infer.ThetaPriorWidthScale()
	}
	rep.Warnings = append(rep.Warnings, m.RangeWarnings(rep.Context, opt.Noise)...)
	return rep, per, nil
}

// ScoreTasks predicts and scores tasks in chunks, checking ctx between
// chunks.
func (m *Model) ScoreTasks(ctx context.Context, tasks []sims.Task, samples int, seed uint64) ([]TaskMetrics, error) {
	return m.ScoreTasksWith(ctx, tasks, PredictOptions{Samples: samples, Seed: seed, Refine: -1})
}

// ScoreTasksWith is ScoreTasks with prediction options.
func (m *Model) ScoreTasksWith(ctx context.Context, tasks []sims.Task, o PredictOptions) ([]TaskMetrics, error) {
	return m.scoreTasks(ctx, tasks, o, math.NaN(), false, nil)
}

// evalChunk is how many realizations an evaluation predicts per call;
// the call at realization lo draws with seed Seed+lo (see TaskStream).
const evalChunk = 25

// TaskStream returns the seed and stream index (PredictOptions Seed and
// First) with which an evaluation at seed draws the latent noise of its
// task i, so that a caller predicting that task alone (compare) draws
// exactly what eval does.
func TaskStream(seed uint64, i int) (uint64, int) {
	lo := i - i%evalChunk
	return seed + uint64(lo), i - lo
}

// scoreTasks is ScoreTasksWith, giving the model each task's true θ when
// trueTheta is set and telling progress (if set) as predictTasks does; a
// failed realization's reason names the tasks' noise σ = noise when it
// is beyond the training range (failureAtNoise; NaN: unknown).
func (m *Model) scoreTasks(ctx context.Context, tasks []sims.Task, o PredictOptions, noise float64, trueTheta bool, progress func(done, total int)) ([]TaskMetrics, error) {
	per := make([]TaskMetrics, 0, len(tasks))
	err := m.predictTasks(ctx, tasks, o, trueTheta, progress, func(lo int, part []sims.Task, preds []Prediction) {
		for i, t := range part {
			tm := scoreOrFail(m.Sys, t, preds[i])
			if tm.Failed != "" {
				tm.Failed = m.failureAtNoise(tm.Failed, noise)
			}
			per = append(per, tm)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := AllFailed(per); err != nil {
		return nil, err
	}
	return per, nil
}

// predictTasks predicts tasks in chunks of evalChunk realizations, each
// chunk's latent noise from TaskStream (so a realization's latent draws
// do not depend on how many are evaluated beside it), keeping failed
// predictions (Prediction.Problem) for the caller to count, and hands
// every chunk to each as it is done, so that no chunk's predictions
// outlive it. ctx is checked between chunks. progress, when set, hears
// the realizations done as each batch or piece within a chunk is
// (PredictOptions.predicted), not only after the chunk: lv's diagnosis
// in the explorer, in batches of 9, went 0, 25, done.
func (m *Model) predictTasks(ctx context.Context, tasks []sims.Task, o PredictOptions, trueTheta bool, progress func(done, total int), each func(lo int, part []sims.Task, preds []Prediction)) error {
	if progress != nil {
		var mu sync.Mutex
		done := 0
		o.predicted = func(n int) { // from the pieces' goroutines
			mu.Lock()
			defer mu.Unlock()
			done += n
			progress(done, len(tasks))
		}
	}
	for lo := 0; lo < len(tasks); lo += evalChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := tasks[lo:min(lo+evalChunk, len(tasks))]
		ctxs := make([]sims.Context, len(part))
		sides := make([][]float64, len(part))
		for i, t := range part {
			ctxs[i], sides[i] = t.Context, t.Real.Side
		}
		po := o
		po.Seed, po.First = TaskStream(o.Seed, lo)
		if trueTheta {
			po.Theta = make([][]float64, len(part))
			for i, t := range part {
				po.Theta[i] = t.Real.Theta
			}
		}
		po.KeepFailed = true
		preds, err := m.PredictContext(ctx, ctxs, sides, po)
		if err != nil {
			return err
		}
		each(lo, part, preds)
	}
	return nil
}

// scoreOrFail scores p, or marks the realization failed when p cannot
// be scored: not finite, or run away from its data (Runaway).
func scoreOrFail(sys sims.System, t sims.Task, p Prediction) TaskMetrics {
	if why := p.problemIn(t); why != "" {
		return TaskMetrics{Failed: why}
	}
	return Score(sys, t, p)
}

// Summarise reduces per-realization metrics to means and deviations
// over the realizations that did not fail, and lists those that did.
func Summarise(sys sims.System, all []TaskMetrics) Report {
	rep := Report{Metrics: map[string]Summary{}, ThetaPerParam: map[string]Summary{}, ThetaBiasPerParam: map[string]Summary{}}
	// [] rather than null in JSON.
	rep.Failures.Realizations, rep.Warnings = []Failure{}, []string{}
	per := make([]TaskMetrics, 0, len(all))
	for i, tm := range all {
		if tm.Failed != "" {
			rep.Failures.Realizations = append(rep.Failures.Realizations, Failure{Index: i, Reason: tm.Failed})
			continue
		}
		per = append(per, tm)
	}
	rep.Failures.Count = len(rep.Failures.Realizations)
	rep.Pooled = poolECE(per)
	for _, k := range append(MetricKeys[:len(MetricKeys):len(MetricKeys)], DiagnosticKeys...) {
		xs := make([]float64, 0, len(per))
		for _, tm := range per {
			if v := tm.Values[k]; k != KeyThetaCover || !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		if k == KeyThetaCover {
			rep.ThetaCoverOf = len(xs)
		}
		rep.Metrics[k] = Summarize(xs)
	}
	for p, prm := range sys.Params() {
		xs := make([]float64, len(per))
		for i, tm := range per {
			xs[i] = tm.ThetaAE[p]
		}
		rep.ThetaPerParam[prm.Name] = Summarize(xs)
		for i, tm := range per {
			xs[i] = tm.ThetaErr[p]
		}
		rep.ThetaBiasPerParam[prm.Name] = Summarize(xs)
	}
	stds := make([][]float64, len(sys.Params()))
	for q := range stds {
		for _, tm := range per {
			if q < len(tm.ThetaStd) {
				stds[q] = append(stds[q], tm.ThetaStd[q])
			}
		}
	}
	for _, tm := range per {
		rep.ThetaAtBound.merge(tm.Bound)
	}
	rep.Warnings = append(rep.Warnings, nearPriorWarnings(sys.Params(), stds)...)
	if len(per) > 0 {
		maes := make([]float64, len(sys.Params()))
		for q, prm := range sys.Params() {
			maes[q] = rep.ThetaPerParam[prm.Name].Mean
		}
		rep.Warnings = append(rep.Warnings, priorGuessWarnings(sys.Params(), maes)...)
		rep.Warnings = append(rep.Warnings, refinementCarriesWarnings(sys.Params(), maes, unrefinedMAEs(len(maes), per))...)
		rep.ContextMeanMAE = meanContextMeanMAE(per)
		rep.Warnings = append(rep.Warnings, reconGuessWarnings(rep.Metrics[KeyReconMAE].Mean, rep.ContextMeanMAE)...)
	}
	return rep
}

// meanContextMeanMAE is the mean of per's ContextMeanMAE, NaN unless
// every realization has one (a task built without a context's level to
// take, a TaskMetrics not made by Score).
func meanContextMeanMAE(per []TaskMetrics) float64 {
	s := 0.0
	for _, tm := range per {
		if !(tm.ContextMeanMAE > 0) {
			return math.NaN()
		}
		s += tm.ContextMeanMAE
	}
	return s / float64(len(per))
}

// unrefinedMAEs is the mean of each of the n parameters' UnrefinedThetaAE
// over per, or nil unless every realization has one (a method that
// does not refine, a one-pass prediction).
func unrefinedMAEs(n int, per []TaskMetrics) []float64 {
	sums := make([]float64, n)
	for _, tm := range per {
		if len(tm.UnrefinedThetaAE) != n {
			return nil
		}
		for q, ae := range tm.UnrefinedThetaAE {
			sums[q] += ae
		}
	}
	for q := range sums {
		sums[q] /= float64(len(per))
	}
	return sums
}
