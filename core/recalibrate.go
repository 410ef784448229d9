package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"apic/sims"
)

// DefaultRecalibrationTasks is how many validation realizations a
// recalibration after a full training run uses (apic train's
// --recalibrate default).
const DefaultRecalibrationTasks = 64

// Recalibrate tunes the model's inference settings on n held-out
// validation realizations (the validation stream, never the test stream).
// For a model that refines by default, it first picks the z_θ prior
// factor of refinement (tuneZThetaPrior) and then the form of the θ
// logits' prior (tuneThetaPrior), which move the point prediction. Then
// it fits the post-hoc scale factors of the predictive standard
// deviations (Kuleshov et al., 2018): for each spread mode
// (spread.go) and exponent of the evolution profile (profile.go), the
// factors s_y and s_δ from a log-spaced grid over [1/64, 64] that
// minimise the ECE of the reconstruction and of the discrepancy,
//
//	s* = argmin_s ECE(μ, s·σ),
//
// keeping the mode and exponent with the lowest sum of the scaled
// reconstruction's and discrepancy's validation ECE, or a flatter
// profile that comes within profileTolerance of it (pickSpread); for a
// model that refines by
// default, the one-pass predictions' spread is fitted too
// (Infer.OnePass). Then θ's deviation gets the scale that makes its 95%
// intervals cover 95% of the validation parameters (thetaScale). Last,
// the default predictions' three scales are fitted again at each
// operating condition (RecalibrateConditions, max(8, n/4) realizations
// per condition). Everything is stored in Config.Infer, with the
// refinement count the default fit was fitted to (FitRefine).
func (m *Model) Recalibrate(ctx context.Context, n int) (err error) {
	// The fits below set the inference settings as they go (the z_θ
	// prior is set to each candidate in turn); a recalibration that
	// stops or fails leaves them as they were.
	before := m.Config.Infer
	defer func() {
		if err != nil {
			m.Config.Infer = before
		}
	}()
	if n < 1 {
		return fmt.Errorf("recalibrate: need at least one realization, got %d", n)
	}
	tasks, ctxs, sides, err := m.recalibrationTasks(ctx, n)
	if err != nil {
		return err
	}
	deltas := taskDiscrepancies(tasks)
	if m.Config.Infer.Refine > 0 {
		if err := m.tuneZThetaPrior(ctx, tasks, ctxs, sides, deltas); err != nil {
			return err
		}
		if err := m.tuneThetaPrior(ctx, tasks, ctxs, sides, deltas); err != nil {
			return err
		}
	}
	fit := func(refine int) (*SpreadFit, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The modes share the means and sample variances; only the
		// deviations are recomputed per mode.
		preds, err := m.recalibrationPredict(ctx, ctxs, sides, refine)
		if err != nil {
			return nil, err
		}
		var cands []spreadCandidate
		for _, mode := range spreadModes {
			for _, q := range profileShapes {
				if err := m.applySpread(preds, ctxs, SpreadFit{Spread: mode, Shape: q}, 0); err != nil {
					return nil, fmt.Errorf("recalibrate: %w", err)
				}
				sy, ey := bestScale(tasks, m.Sys, func(i int) ([]float64, []float64, []float64) {
					return preds[i].Mean, preds[i].Std, tasks[i].Real.True
				})
				_, ed := bestScale(tasks, m.Sys, func(i int) ([]float64, []float64, []float64) {
					return preds[i].DeltaMean, preds[i].DeltaStd, deltas[i]
				})
				cands = append(cands, spreadCandidate{SpreadFit{Spread: mode, Shape: q, StdScale: sy}, bandsECE(ey, ed)})
			}
		}
		chosen := pickSpread(cands)
		if err := m.fitDeltaSpread(tasks, ctxs, deltas, preds, &chosen); err != nil {
			return nil, err
		}
		chosen.ThetaStdScale = thetaScale(tasks, preds)
		return &chosen, nil
	}
	def, err := fit(-1)
	if err != nil {
		return err
	}
	var onePass *SpreadFit
	if m.Config.Infer.Refine > 0 {
		if onePass, err = fit(0); err != nil {
			return err
		}
	}
	// δ's θ term is a recipe, not a scale: the one-pass table below is
	// fitted under it (RecalibrateOnePassDeltaTheta fits it). A model
	// that does not refine by default holds it in its default fit.
	if onePass != nil && before.OnePass != nil {
		onePass.DeltaTheta = before.OnePass.DeltaTheta
	}
	if m.onePassDefault() {
		def.DeltaTheta = before.SpreadFit.DeltaTheta
	}
	m.Config.Infer.SpreadFit, m.Config.Infer.OnePass = *def, onePass
	fitRefine := m.Config.Infer.Refine
	m.Config.Infer.FitRefine = &fitRefine
	// Last, the scales of the default predictions over the operating
	// conditions, under the mode and profile just chosen, on a quarter
	// as many realizations per condition (at least 8): there are 24
	// conditions, and the explorer refits after every training run.
	return m.RecalibrateConditions(ctx, max(8, n/4))
}

// fitDeltaSpread fits the discrepancy's time profile and scale of f
// (tuneDeltaProfile, bestScale) on preds, the validation predictions of
// tasks, and leaves preds with f's deviations. δ's noise term is the one
// fitted under f's mode and evolution profile, so δ's spread is fitted
// after their choice.
func (m *Model) fitDeltaSpread(tasks []sims.Task, ctxs []sims.Context, deltas [][]float64, preds []Prediction, f *SpreadFit) error {
	f.DeltaProfile, f.DeltaStdScale = 0, 0
	if err := m.applySpread(preds, ctxs, *f, 0); err != nil {
		return fmt.Errorf("recalibrate: %w", err)
	}
	f.DeltaProfile = tuneDeltaProfile(m.Sys, tasks, preds, deltas)
	if err := m.applySpread(preds, ctxs, *f, 0); err != nil {
		return fmt.Errorf("recalibrate: %w", err)
	}
	f.DeltaStdScale, _ = bestScale(tasks, m.Sys, func(i int) ([]float64, []float64, []float64) {
		return preds[i].DeltaMean, preds[i].DeltaStd, deltas[i]
	})
	return nil
}

// RecalibrateDeltaProfile fits only the discrepancy's time profile and
// its single scale (fitDeltaSpread) on Recalibrate's n validation
// realizations, for the default predictions and, for a model that
// refines by default, the one-pass ones, keeping every other setting.
// A fit whose profile comes out as stored is left as it was; where it
// changes, the tables were fitted to δ deviations without it, so the
// parts that read them are refitted after it (checkpoints/train-all.sh).
func (m *Model) RecalibrateDeltaProfile(ctx context.Context, n int) error {
	tasks, ctxs, sides, err := m.recalibrationTasks(ctx, n)
	if err != nil {
		return err
	}
	deltas := taskDiscrepancies(tasks)
	in := m.Config.Infer
	type fitOf struct {
		fit    *SpreadFit
		refine int // the predictions it spreads: -1 the default, 0 one pass
	}
	fits := []fitOf{{&in.SpreadFit, -1}}
	if in.Refine > 0 && in.OnePass != nil {
		onePass := *in.OnePass
		in.OnePass = &onePass
		fits = append(fits, fitOf{in.OnePass, 0})
	}
	for _, fo := range fits {
		f := fo.fit
		preds, err := m.recalibrationPredict(ctx, ctxs, sides, fo.refine)
		if err != nil {
			return err
		}
		// The single scales are those of the fit's table-free form.
		raw := *f
		raw.Conditions = nil
		if err := m.fitDeltaSpread(tasks, ctxs, deltas, preds, &raw); err != nil {
			return err
		}
		// An unchanged profile keeps its fitted scale, so that a file
		// whose δ band stays flat is left exactly as it was.
		if raw.DeltaProfile != f.DeltaProfile {
			f.DeltaProfile, f.DeltaStdScale = raw.DeltaProfile, raw.DeltaStdScale
		}
	}
	m.Config.Infer = in
	return nil
}

// recalibrationTasks draws Recalibrate's n validation realizations (the
// validation stream, never the test stream) and their contexts and side
// information.
func (m *Model) recalibrationTasks(ctx context.Context, n int) ([]sims.Task, []sims.Context, [][]float64, error) {
	if err := LimitRecalTasks.Check(n); err != nil {
		return nil, nil, nil, fmt.Errorf("recalibrate: %w", err)
	}
	rng := rand.New(rand.NewPCG(m.Config.Train.Seed^0x5ca1e, valStream))
	tasks, err := drawTasks(ctx, m.Sys, rng, n, m.Sys.TestContext(), m.Config.Train.Noise)
	if err != nil {
		return nil, nil, nil, err
	}
	ctxs := make([]sims.Context, n)
	sides := make([][]float64, n)
	for i, task := range tasks {
		ctxs[i], sides[i] = task.Context, task.Real.Side
	}
	return tasks, ctxs, sides, nil
}

// RecalibrateThetaPrior picks only the form of refinement's prior on
// θ's logits (tuneThetaPrior) on Recalibrate's n validation
// realizations, keeping every other inference setting. The spread's
// tables were fitted to the refined predictions of the form before, so
// the parts that read them are refitted after it
// (checkpoints/train-all.sh).
func (m *Model) RecalibrateThetaPrior(ctx context.Context, n int) error {
	if m.Config.Infer.Refine <= 0 {
		return fmt.Errorf("recalibrate: the model does not refine (its inference default is one pass), so θ's prior has no effect")
	}
	tasks, ctxs, sides, err := m.recalibrationTasks(ctx, n)
	if err != nil {
		return err
	}
	deltas := taskDiscrepancies(tasks)
	return m.tuneThetaPrior(ctx, tasks, ctxs, sides, deltas)
}

// taskDiscrepancies are the tasks' true discrepancies δ = G − F, in
// order: what the fits score δ's predictions against.
func taskDiscrepancies(tasks []sims.Task) [][]float64 {
	deltas := make([][]float64, len(tasks))
	for i, task := range tasks {
		deltas[i] = task.Real.Discrepancy()
	}
	return deltas
}

// recalibrationPredict predicts the validation realizations with refine
// refinement steps and no spread calibration: what every fit of
// Recalibrate and RecalibrateTheta starts from.
func (m *Model) recalibrationPredict(ctx context.Context, ctxs []sims.Context, sides [][]float64, refine int) ([]Prediction, error) {
	preds, err := m.predictWith(ctx, ctxs, sides, PredictOptions{Samples: 16, Seed: m.Config.Train.Seed, Refine: refine}, &SpreadFit{})
	if err != nil {
		return nil, fmt.Errorf("recalibrate: %w", err)
	}
	return preds, nil
}

// RecalibrateTheta fits only θ's interval scale (SpreadFit.ThetaStdScale,
// of the default and of the one-pass predictions) on Recalibrate's n
// validation realizations, keeping every other inference setting: the
// step Recalibrate ends with, for a model recalibrated before it existed.
func (m *Model) RecalibrateTheta(ctx context.Context, n int) error {
	if n < 1 {
		return fmt.Errorf("recalibrate: need at least one realization, got %d", n)
	}
	tasks, ctxs, sides, err := m.recalibrationTasks(ctx, n)
	if err != nil {
		return err
	}
	scale := func(refine int) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		preds, err := m.recalibrationPredict(ctx, ctxs, sides, refine)
		if err != nil {
			return 0, err
		}
		return thetaScale(tasks, preds), nil
	}
	in := &m.Config.Infer
	def, err := scale(-1)
	if err != nil {
		return err
	}
	if in.Refine > 0 {
		onePass, err := scale(0)
		if err != nil {
			return err
		}
		// One-pass predictions without a fit of their own use the
		// default one; they get a copy, to hold their own θ scale.
		op := in.SpreadFit
		if in.OnePass != nil {
			op = *in.OnePass
		}
		op.ThetaStdScale = onePass
		in.OnePass = &op
	}
	in.ThetaStdScale = def
	return nil
}

// thetaScale is the factor s on θ's deviations that makes θ̂ ± 1.96 s σ_θ
// cover 95% of the validation parameters: the 95th percentile of
// |θ̂ − θ| / (1.96 σ_θ), within [1/64, 4096]; 0 (no scaling) when no
// parameter has a deviation.
func thetaScale(tasks []sims.Task, preds []Prediction) float64 {
	return thetaScaleAt(tasks, preds, 0.95)
}

// thetaScaleAt is thetaScale covering the share level instead of 95%.
func thetaScaleAt(tasks []sims.Task, preds []Prediction, level float64) float64 {
	var r []float64
	for i, task := range tasks {
		for q, th := range task.Real.Theta {
			if sd := preds[i].ThetaStd[q]; sd > 0 && !math.IsNaN(preds[i].Theta[q]) {
				r = append(r, math.Abs(preds[i].Theta[q]-th)/(1.96*sd))
			}
		}
	}
	if len(r) == 0 {
		return 0
	}
	s := orderQuantile(r, level)
	// Up to 4096: at the sparsest contexts refinement's deviations can
	// be that far below the error; predictions stop at the prior's
	// deviation (priorStd) whatever the scale.
	return math.Max(1.0/64, math.Min(4096, s))
}

// orderQuantile sorts r (not empty) and returns its empirical quantile
// at level: the smallest value at or below which a share level of r
// lies.
func orderQuantile(r []float64, level float64) float64 {
	slices.Sort(r)
	return r[max(0, min(len(r)-1, int(math.Ceil(level*float64(len(r))))-1))]
}

// spreadCandidate is a spread setting and its validation ECE.
type spreadCandidate struct {
	fit SpreadFit
	ece float64
}

// bandsECE is a spread candidate's score, the sum of its reconstruction
// and discrepancy ECEs: both bands are reported and scored, and the
// mode sets δ's noise term too. A NaN δ ECE (no discrepancy targets)
// leaves the reconstruction's alone.
func bandsECE(recon, delta float64) float64 {
	if math.IsNaN(delta) {
		return recon
	}
	return recon + delta
}

// profileTolerance is how much validation ECE a steeper evolution profile
// must gain to be preferred to a flatter one: about the standard error of
// a validation ECE, so that a profile is kept only for a real gain (a
// profile trades log-likelihood for coverage where the gain is small).
const profileTolerance = 0.002

// pickSpread returns the candidate with the flattest profile among those
// whose ECE is within profileTolerance of the lowest, and the lowest ECE
// among those; ties keep the earlier candidate. NaN ECEs never win; if
// every ECE is NaN the first candidate is returned.
func pickSpread(cands []spreadCandidate) SpreadFit {
	best := math.Inf(1)
	for _, c := range cands {
		if !math.IsNaN(c.ece) {
			best = math.Min(best, c.ece)
		}
	}
	var chosen *spreadCandidate
	for i := range cands {
		c := &cands[i]
		if math.IsNaN(c.ece) || c.ece > best+profileTolerance {
			continue
		}
		if chosen == nil || c.fit.Shape < chosen.fit.Shape || (c.fit.Shape == chosen.fit.Shape && c.ece < chosen.ece) {
			chosen = c
		}
	}
	if chosen == nil { // every ECE is NaN
		return cands[0].fit
	}
	return chosen.fit
}

// bestScale returns the factor s from a log-spaced grid over [1/64, 64]
// with the lowest mean ECE of N(μ, (s·σ)²) over the tasks, and that ECE;
// get returns task i's mean, standard deviation and truth.
func bestScale(tasks []sims.Task, sys sims.System, get func(int) (mu, sd, truth []float64)) (float64, float64) {
	scales, sums := scaleECESums(tasks, sys, get)
	bestS, bestE := 1.0, math.Inf(1)
	for k, e := range sums {
		if e < bestE {
			bestS, bestE = scales[k], e
		}
	}
	return bestS, bestE / float64(len(tasks))
}

// scaleECESums returns the log-spaced grid of factors s = 4^(k/20), k =
// −60 … 60, over [1/64, 64], and the sum over the tasks of the ECE of
// N(μ, (s·σ)²) at each (NaN where a task has no targets).
func scaleECESums(tasks []sims.Task, sys sims.System, get func(int) (mu, sd, truth []float64)) (scales, sums []float64) {
	// |y − μ| ≤ z_p·s·σ ⇔ |y − μ|/σ ≤ z_p·s: with each task's standardised
	// errors sorted once, a scale's coverage counts are binary searches.
	ratios := make([][]float64, len(tasks))
	sizes := make([]int, len(tasks))
	for i, task := range tasks {
		mu, sd, truth := get(i)
		idx := targetValues(sys, task.Targets)
		sizes[i] = len(idx)
		r := make([]float64, 0, len(idx))
		for _, j := range idx {
			// NaN (0/0) is never covered; +Inf sorts last and is never
			// covered either.
			if v := math.Abs(truth[j]-mu[j]) / sd[j]; !math.IsNaN(v) {
				r = append(r, v)
			}
		}
		slices.Sort(r)
		ratios[i] = r
	}
	counts := make([]int, len(eceLevels))
	for k := -60; k <= 60; k++ {
		s := math.Pow(4, float64(k)/20)
		e := 0.0
		for i, r := range ratios {
			if sizes[i] == 0 {
				e += math.NaN()
				continue
			}
			countAtMost(counts, r, eceZ, s)
			e += coverageGap(counts, sizes[i])
		}
		scales, sums = append(scales, s), append(sums, e)
	}
	return scales, sums
}

// zThetaPriors are the z_θ prior factors tuneZThetaPrior tries (0: z_θ
// is not refined).
var zThetaPriors = []float64{0, 1, 3, 10, 30}

// tuneZThetaPrior sets Infer.ZThetaPrior to the candidate whose refined
// point predictions have the lowest mean reconstruction plus discrepancy
// MAE on the validation realizations (refinedPointScore). A wider prior
// lets refinement fit the context more closely; with few observations it
// can also overfit, hence the choice on held-out realizations.
func (m *Model) tuneZThetaPrior(ctx context.Context, tasks []sims.Task, ctxs []sims.Context, sides, deltas [][]float64) error {
	best, bestScore := 0.0, math.Inf(1)
	for _, c := range zThetaPriors {
		m.Config.Infer.ZThetaPrior = c
		score, err := m.refinedPointScore(ctx, tasks, ctxs, sides, deltas)
		if err != nil {
			return fmt.Errorf("recalibrate: z_θ prior %g: %w", c, err)
		}
		if score < bestScore {
			best, bestScore = c, score
		}
	}
	m.Config.Infer.ZThetaPrior = best
	return nil
}

// thetaPriorGain is how much lower than the logit form's the θ form's
// validation score must be for recalibration to pick it: on lv the two
// score within a percent at the validation condition, and the θ form
// fits contexts of 2 to 10 points worse (by 9–17% in recon MAE on the
// shipped lnp), so a near tie keeps the form every file had.
const thetaPriorGain = 0.02

// tuneThetaPrior sets Infer.ThetaPrior to the θ form where its refined
// point predictions score lower than the logit form's by thetaPriorGain
// of it on the validation realizations (refinedPointScore), else to the
// logit form.
func (m *Model) tuneThetaPrior(ctx context.Context, tasks []sims.Task, ctxs []sims.Context, sides, deltas [][]float64) error {
	var scores [2]float64
	for i, form := range []string{ThetaPriorLogit, ThetaPriorTheta} {
		m.Config.Infer.ThetaPrior = form
		score, err := m.refinedPointScore(ctx, tasks, ctxs, sides, deltas)
		if err != nil {
			return fmt.Errorf("recalibrate: θ prior %s: %w", form, err)
		}
		scores[i] = score
	}
	m.Config.Infer.ThetaPrior = ThetaPriorLogit
	if scores[1] < (1-thetaPriorGain)*scores[0] {
		m.Config.Infer.ThetaPrior = ThetaPriorTheta
	}
	return nil
}

// refinedPointScore is the sum over the validation realizations of the
// refined point prediction's reconstruction plus discrepancy MAE, with
// m's current settings.
func (m *Model) refinedPointScore(ctx context.Context, tasks []sims.Task, ctxs []sims.Context, sides, deltas [][]float64) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	preds, err := m.predictWith(ctx, ctxs, sides, PredictOptions{Samples: 1, Seed: m.Config.Train.Seed, Refine: -1}, &SpreadFit{})
	if err != nil {
		return 0, err
	}
	score := 0.0
	for i, task := range tasks {
		idx := targetValues(m.Sys, task.Targets)
		score += MAE(preds[i].Mean, task.Real.True, idx) + MAE(preds[i].DeltaMean, deltas[i], idx)
	}
	return score, nil
}

// likelihoodScale returns the factor s that maximises the mean Gaussian
// log-likelihood of N(μ, (s·σ)²) over the tasks' targets, each task
// weighted equally as the reported mean LL weights them:
//
//	s² = (1/T) Σ_t (1/|I_t|) Σ_{j∈I_t} ((y_j − μ_j)/σ_j)²,
//
// the root-mean-square standardised error. Unlike the ECE's scale, it is
// pulled up by the few errors far outside the band, which is what keeps
// the LL of a sparse context finite: wide, not wrong. 1 without finite
// errors.
func likelihoodScale(tasks []sims.Task, sys sims.System, get func(int) (mu, sd, truth []float64)) float64 {
	sum, used := 0.0, 0
	for i, task := range tasks {
		mu, sd, truth := get(i)
		s, n := 0.0, 0
		for _, j := range targetValues(sys, task.Targets) {
			if r := (truth[j] - mu[j]) / sd[j]; !math.IsNaN(r) && !math.IsInf(r, 0) {
				s += r * r
				n++
			}
		}
		if n > 0 {
			sum += s / float64(n)
			used++
		}
	}
	if used == 0 || sum == 0 {
		return 1
	}
	return math.Sqrt(sum / float64(used))
}
