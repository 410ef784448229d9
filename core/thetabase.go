package core

import (
	"fmt"
	"math"
	"slices"

	"apic/sims"
)

// θ's deviation per parameter. A one-pass prediction's σ_θ is the
// spread of θ over its latent samples, which knows nothing of the
// model's own error, and a table's scale (condscale.go) corrects it
// with one factor per condition for all parameters together. Two things
// one factor cannot fix:
//
//   - The parameters' spreads can be off by different factors, and by
//     different factors at different conditions. On lv the θ hints make
//     η and γ far more precise than their sample spread says, while α
//     and β set the shared factor: their 50 % one-pass intervals held
//     every parameter (`apic diagnose --system lv --backbone lnp
//     --refine 0`).
//   - A cnp draws one sample, so its spread is 0 but for the hinted
//     parameters' (hintThetaStd): the others' intervals had no width at
//     all.
//
// So before the table's scale each parameter's deviation becomes
//
//	σ_q' = r_q √(σ_q² + b_q²),
//
// with a floor b_q per parameter without a spread (SpreadFit.ThetaFloor,
// fitThetaFloor) and a factor r_q per parameter at the condition
// (ConditionScale.ThetaParam, cellThetaFactors, read as the table's
// other scales are). One-pass tables have both; the default tables of
// refinement, whose parameters need no factors of their own, neither.

// maxThetaBase bounds the parameters of a stored floor or factor list
// (the systems have at most four).
const maxThetaBase = 64

// thetaFactorBound bounds a fitted factor r_q to [1/b, b].
const thetaFactorBound = 64

// checkThetaBase reports stored factors or floors beyond maxThetaBase
// parameters, or not finite (factors > 0, floors ≥ 0).
func checkThetaBase(factors, floor []float64) error {
	if len(factors) > maxThetaBase || len(floor) > maxThetaBase {
		return fmt.Errorf("θ deviation factors or floors for %d parameters: at most %d", max(len(factors), len(floor)), maxThetaBase)
	}
	for _, f := range factors {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("θ deviation factor %v: must be finite and > 0", f)
		}
	}
	for _, b := range floor {
		if !(b >= 0) || math.IsInf(b, 0) {
			return fmt.Errorf("θ deviation floor %v: must be finite and ≥ 0", b)
		}
	}
	return nil
}

// applyThetaFloor sets std to √(σ_q² + b_q²) (an unset floor is 0).
func (s SpreadFit) applyThetaFloor(std []float64) {
	for q := range min(len(std), len(s.ThetaFloor)) {
		std[q] = math.Hypot(std[q], s.ThetaFloor[q])
	}
}

// fitThetaFloor fits θ's floors on a table's raw validation predictions
// (one sample per cell): per parameter without a spread in any
// prediction (a cnp's, where no hint gives one), the geometric mean over
// the cells of the cell's median |θ̂_q − θ_q|, at least a millionth of
// the prior's deviation (a parameter estimated exactly everywhere keeps
// a finite width); 0 for a parameter with a spread. The table's scale of
// each cell then sets the width. nil where every parameter has a spread.
func fitThetaFloor(data []cellSample, params []sims.Param) []float64 {
	spread := thetaSpread(data, len(params))
	if !slices.Contains(spread, false) {
		return nil
	}
	floor := make([]float64, len(params))
	for q := range floor {
		if !spread[q] {
			floor[q] = medianErrorFloor(data, q, 1e-6*priorStd(params[q]))
		}
	}
	return floor
}

// medianErrorFloor is the geometric mean over the cells of the cell's
// median |θ̂_q − θ_q|, each at least tiny (tiny without data).
func medianErrorFloor(data []cellSample, q int, tiny float64) float64 {
	sum, n := 0.0, 0
	for _, d := range data {
		var errs []float64
		for j, p := range d.preds {
			if e := math.Abs(p.Theta[q] - d.tasks[j].Real.Theta[q]); !math.IsNaN(e) {
				errs = append(errs, e)
			}
		}
		if len(errs) > 0 {
			sum += math.Log(max(median(errs), tiny))
			n++
		}
	}
	if n == 0 {
		return tiny
	}
	return math.Exp(sum / float64(n))
}

// cellThetaFactors fits one cell's factors on its validation sample,
//
//	r_q = s_q / s,
//
// where s_q is the 95th percentile of |θ̂_q − θ_q| / σ_q over the cell's
// realizations and s the same over all its parameters: how much wider
// than the shared scale parameter q needs its intervals. Factors lie in
// [1/64, 64]; a parameter without data keeps 1. It is nil for a single
// parameter, which the shared scale fits alone.
func cellThetaFactors(d cellSample, P int) []float64 {
	if P < 2 {
		return nil
	}
	shared := thetaRatioQuantile(d, -1)
	out := make([]float64, P)
	for q := range out {
		out[q] = 1
		if one := thetaRatioQuantile(d, q); shared > 0 && one > 0 {
			out[q] = min(thetaFactorBound, max(1.0/thetaFactorBound, one/shared))
		}
	}
	return out
}

// factorsAt interpolates the cells' factors geometrically with the
// weights ws, as cellRead does the scales; nil where a cell read has no
// factors for P parameters.
func factorsAt(cells []ConditionScale, ws []cellWeight, P int) []float64 {
	if len(ws) == 0 {
		return nil
	}
	for _, w := range ws {
		if len(cells[w.cell].ThetaParam) != P {
			return nil
		}
	}
	out := make([]float64, P)
	for q := range out {
		out[q] = readGeo(cells, ws, func(c *ConditionScale) float64 { return c.ThetaParam[q] })
	}
	return out
}

// thetaSpread reports, per parameter of P, whether some prediction has
// a nonzero θ deviation for it.
func thetaSpread(data []cellSample, P int) []bool {
	out := make([]bool, P)
	for _, d := range data {
		for _, p := range d.preds {
			for q, s := range p.ThetaStd[:min(P, len(p.ThetaStd))] {
				out[q] = out[q] || s > 0
			}
		}
	}
	return out
}

// thetaRatioQuantile is the 95th percentile of |θ̂_q − θ_q| / σ_q over
// one cell's realizations, for parameter q or, with q < 0, all
// parameters together; 0 without a usable pair.
func thetaRatioQuantile(d cellSample, q int) float64 {
	var r []float64
	for j, p := range d.preds {
		for k, th := range d.tasks[j].Real.Theta {
			if q >= 0 && k != q {
				continue
			}
			if sd := p.ThetaStd[k]; sd > 0 && !math.IsNaN(p.Theta[k]) {
				r = append(r, math.Abs(p.Theta[k]-th)/sd)
			}
		}
	}
	if len(r) == 0 {
		return 0
	}
	return orderQuantile(r, 0.95)
}
