package core

import (
	"context"
	"fmt"
	"math"
	"slices"

	"apic/sims"
)

// The disagreement term of a refined band. Refinement's Laplace band
// measures how well the fit is pinned down by the context's residuals.
// From a few clean points the fit can match them all almost exactly
// while it is wrong between them (spring at five points: the wrong
// frequency, or the right one with the wrong discrepancy), and then the
// residuals, the noise estimate and the band all collapse: without the
// term spring/cnp's mean refined recon LL at five clean points is −34
// over 100 realizations, from a few whose bands are far narrower than
// their errors (`go test ./core -run TestDisagreementRaisesSparseLL -v`
// prints it with and without). Where the fit moved far from where the
// network's one pass put it, it may have moved to the wrong answer, so
// the band widens with the move:
//
//	σ'² = σ² + κ (μ − μ₀)²,
//
// μ the refined prediction (or δ), μ₀ the decode at the encoders' mean
// latent where the fit started, σ the band the table's scales set and κ
// the cell's weight (ConditionScale.Disagree), fitted per condition on
// validation realizations (RecalibrateDisagreement). Where the fit is
// well determined the move is mostly the one pass's own error, and the
// ECE tolerances keep κ small.

// disagreeWeights are the weights κ a fit tries per cell: none, and
// steps of about ×3 up to 1, a move counted in full.
var disagreeWeights = []float64{0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1}

// maxDisagree bounds a stored weight: a fit tries at most 1.
const maxDisagree = 100

// Tolerances of the fit: a weight may raise a cell's mean
// per-realization ECE (reconstruction or δ) by at most disagreeECETol,
// and its pooled ECE by at most disagreePooledTol, over the cell's ECE
// without the term. The pooled tolerance is the looser: widening the
// realizations whose fit moved makes the pooled curve over-cover on
// behalf of those that did not, and at 0.02 it kept the term out of
// spring/cnp's clean five-point cell, where the collapse was.
const (
	disagreeECETol    = 0.01
	disagreePooledTol = 0.1
)

// disagrees reports whether a prediction under s needs where its fit
// started: whether any cell of its table has a disagreement weight.
func (s *SpreadFit) disagrees() bool {
	return s != nil && slices.ContainsFunc(s.Conditions, func(c ConditionScale) bool { return c.Disagree > 0 })
}

// checkNoDisagreement refuses a disagreement weight in a one-pass
// table: a one-pass prediction has no fit that moved, so a weight there
// would be read by nothing, and a hand-edited one would seem to widen
// bands it leaves as they are.
func (s *SpreadFit) checkNoDisagreement() error {
	for i, c := range s.Conditions {
		if c.Disagree != 0 {
			return fmt.Errorf("one-pass condition scale %d (context %d, noise %g): disagreement weight %g; only refined predictions read one (infer.conditions), so the one-pass table must hold 0", i, c.Context, c.Noise, c.Disagree)
		}
	}
	return nil
}

// disagreeAt is the weight κ a condition reads, interpolated linearly
// between the cells ws (a weight may be 0).
func disagreeAt(cells []ConditionScale, ws []cellWeight) float64 {
	return readLinear(cells, ws, func(c *ConditionScale) float64 { return c.Disagree })
}

// widenByMove adds κ (μ − μ₀)² to each variance of the band std around
// mean, where the fit started at start, and returns the largest ratio of
// a widened deviation to its own (1 where none widened). A value whose
// start is not finite (a one pass that diverged where refinement
// recovered, as lv's can at two context points) has no move to measure
// and keeps its band.
func widenByMove(std, mean, start []float64, kappa float64) float64 {
	most := 1.0
	for g, s := range std {
		std[g] = movedStd(s, mean[g]-start[g], kappa)
		if s > 0 {
			most = max(most, std[g]/s)
		}
	}
	return most
}

// movedStd is the deviation s widened by the fit's move d,
// √(s² + κ d²), or s where the move is not finite.
func movedStd(s, d, kappa float64) float64 {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return s
	}
	return math.Sqrt(s*s + kappa*d*d)
}

// moveWideningWarned is the widening of a refined band by the fit's move
// (Prediction.moveWidening) from which calibrate says so: below it the
// move only rounds the band out.
const moveWideningWarned = 2

// moveWarnings says when a refined prediction's band was widened by the
// fit's move (disagree.go) to at least moveWideningWarned times its own
// somewhere: the band is wide because the fit and the network's one pass
// disagree, which the plot alone does not tell.
func moveWarnings(p Prediction) []string {
	if !(p.moveWidening >= moveWideningWarned) {
		return nil
	}
	return []string{fmt.Sprintf("the refined fit moved far from where the network's one pass put it: the band is widened by the move, up to %.3g times the fit's own, as the context may not pin the answer down (docs/uncertainty.md, \"A refined fit that moved far\")", p.moveWidening)}
}

// RecalibrateDisagreement fits only the disagreement weight κ of each
// cell of the model's table on the n validation realizations per
// condition that RecalibrateConditions draws, keeping every scale and
// shape: per cell the κ of disagreeWeights with the highest mean recon
// LL + δ LL over the cell's realizations whose ECEs stay within the
// tolerances above. A model that does not refine by default has no
// refined fit to move, and is refused.
func (m *Model) RecalibrateDisagreement(ctx context.Context, n int) error {
	in := &m.Config.Infer
	if in.Refine <= 0 {
		return fmt.Errorf("recalibrate: the model predicts in one pass by default (refine %d), so its bands have no refined fit to widen; set --refine first", in.Refine)
	}
	cells := slices.Clone(in.Conditions)
	for i := range cells {
		cells[i].Disagree = 0
	}
	base := in.SpreadFit
	base.Conditions = cells
	data, err := m.tableSamples(ctx, n, cells, base, -1)
	if err != nil {
		return err
	}
	for i, d := range data {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := m.fitDisagree(cells, d)
		if err != nil {
			return fmt.Errorf("recalibrate: condition %d: %w", i, err)
		}
		cells[i].Disagree = k
	}
	in.Conditions = cells
	return nil
}

// fitDisagree returns the weight of disagreeWeights that a cell's
// sample d scores best with (pickDisagree), every cell of cells set to
// it while it is scored, so that each realization reads it wherever it
// falls between cells.
func (m *Model) fitDisagree(cells []ConditionScale, d cellSample) (float64, error) {
	ctxs := make([]sims.Context, len(d.tasks))
	for j, t := range d.tasks {
		ctxs[j] = t.Context
	}
	fit := m.Config.Infer.SpreadFit
	fit.Conditions = slices.Clone(cells)
	reps := make([]Report, len(disagreeWeights))
	per := make([]TaskMetrics, len(d.preds))
	for i, k := range disagreeWeights {
		for c := range fit.Conditions {
			fit.Conditions[c].Disagree = k
		}
		if err := m.applySpread(d.preds, ctxs, fit, 0); err != nil {
			return 0, err
		}
		for j, p := range d.preds {
			per[j] = Score(m.Sys, d.tasks[j], p)
		}
		reps[i] = Summarise(m.Sys, per)
	}
	return disagreeWeights[pickDisagree(reps)], nil
}

// pickDisagree returns the index of the report, one per weight of
// disagreeWeights (the first without the term), with the highest mean
// recon LL + δ LL among those whose ECEs stay within the tolerances of
// the first's: the mean per-realization ECE of the reconstruction and
// of δ may rise by disagreeECETol, their pooled ECE by
// disagreePooledTol. The first always qualifies.
func pickDisagree(reps []Report) int {
	best, bestLL := 0, math.Inf(-1)
	for i, rep := range reps {
		ll := rep.Metrics[KeyReconLL].Mean + rep.Metrics[KeyDeltaLL].Mean
		if (i == 0 || withinDisagreeTolerance(reps[0], rep)) && ll > bestLL {
			best, bestLL = i, ll
		}
	}
	return best
}

// withinDisagreeTolerance reports whether rep's ECEs are within the fit's
// tolerances of base's.
func withinDisagreeTolerance(base, rep Report) bool {
	for _, key := range []string{KeyReconECE, KeyDeltaECE} {
		if rep.Metrics[key].Mean > base.Metrics[key].Mean+disagreeECETol {
			return false
		}
	}
	return rep.Pooled.Recon <= base.Pooled.Recon+disagreePooledTol && rep.Pooled.Delta <= base.Pooled.Delta+disagreePooledTol
}
