package core

import (
	"math"
	"slices"

	"apic/sims"
)

// fitThetaShapes fits the θ interval shapes (thetashape.go) of the
// table's cells to the validation realizations' errors as predictions
// report them: each reads its cells' prior weight and scale (data's
// reads, filled by fitThetaScalesAsRead) and is standardized by the 95%
// half-width it reports, t = |θ̂' − θ| / (z_0.95 σ'). Shapes are per
// parameter: lv's α and η have errors of different tails at one
// condition.
//
// A prediction reads its cells by its own σ̂, not by the noise level its
// data were drawn at, so a cell's shape is fitted on the realizations
// that read it, whatever cell drew them: first on average (weighted
// quantiles, fitGroupShape), then as they read it (refitShapeLevelAsRead).
// Fitted on the cell's own realizations instead, lv/anp's 50% intervals
// of η at noise 0 covered 0.65 of the test parameters: many of them read
// the σ = 0.01 cell, whose own realizations have lighter tails. (Fitting
// each cell as its own realizations read it, as θ's scales are, traded
// extremes between neighbouring cells: ratios of 0.02 beside 1 at lv's
// five points.) The cells of a noise group (noiseGroups) share one
// shape. Where a group is read by too few realizations
// (minShapeErrors), the table keeps no shapes.
func fitThetaShapes(cells []ConditionScale, data []cellSample, params []sims.Param) {
	t := shapeErrors(cells, data, params)
	for i := range cells {
		cells[i].ThetaShape = make([]ThetaShape, len(params))
	}
	groups := noiseGroups(cells)
	held := make([][][]bool, len(groups)) // per group, parameter and level
	for k, g := range groups {
		held[k] = make([][]bool, len(params))
		for q := range params {
			s, h := fitGroupShape(groupReads(cells, data, t, g, q))
			if s == nil {
				for i := range cells {
					cells[i].ThetaShape = nil
				}
				return
			}
			held[k][q] = h
			for _, i := range g {
				cells[i].ThetaShape[q] = slices.Clone(s)
			}
		}
	}
	for q := range params {
		for l, level := range ThetaShapeLevels {
			refitShapeLevelAsRead(cells, groups, held, data, t, q, l, level)
		}
	}
	for i := range cells {
		for _, s := range cells[i].ThetaShape {
			prev := 1e-6
			for l := range s {
				prev = math.Min(1, math.Max(prev, s[l]))
				s[l] = prev
			}
		}
	}
}

// refitShapeLevelAsRead refits, in sweeps (at most thetaScaleSweeps)
// until none moves, every group's ratio of parameter q at level index l
// as the realizations that read the group mostly (weight ≥ ½) read it:
// a realization is covered when t ≤ exp(Σ_k w_k log r_k), so, the other
// groups held, the smallest log r_G covering the share level of them is
// an order statistic of their thresholds (log t − Σ_{k∉G} w_k log r_k) /
// Σ_{k∈G} w_k, as in thetaScaleAsRead. The weighted quantiles of
// fitGroupShape start it: they fit each group to its readers on
// average, but a reader between two cells takes the geometric mean of
// their ratios (lv/anp's 50% intervals of γ at noise 0 still covered
// 0.68 of the test parameters). Readers of weight below ½ are left out,
// so that no threshold is amplified more than twice. Levels that
// fitGroupShape held at the Gaussian's stay there.
func refitShapeLevelAsRead(cells []ConditionScale, groups [][]int, held [][][]bool, data []cellSample, t [][][]float64, q, l int, level float64) {
	for range thetaScaleSweeps {
		moved := false
		for k, g := range groups {
			if held[k][q][l] {
				continue
			}
			r, ok := shapeRatioAsRead(cells, g, data, t, q, l, level)
			if !ok || r == cells[g[0]].ThetaShape[q][l] {
				continue
			}
			moved = true
			for _, i := range g {
				cells[i].ThetaShape[q][l] = r
			}
		}
		if !moved {
			return
		}
	}
}

// shapeRatioAsRead is one group's step of refitShapeLevelAsRead; ok is
// false when fewer than minShapeErrors realizations read it mostly.
func shapeRatioAsRead(cells []ConditionScale, g []int, data []cellSample, t [][][]float64, q, l int, level float64) (float64, bool) {
	var thresholds []float64
	for i := range data {
		for j, ws := range data[i].reads {
			e := t[i][q][j]
			rest, wg := 0.0, 0.0
			for _, w := range ws {
				if slices.Contains(g, w.cell) {
					wg += w.w
				} else {
					rest += w.w * math.Log(cells[w.cell].ThetaShape[q][l])
				}
			}
			if wg >= 0.5 && !math.IsNaN(e) {
				thresholds = append(thresholds, (math.Log(e)-rest)/wg)
			}
		}
	}
	if len(thresholds) < minShapeErrors {
		return 0, false
	}
	slices.Sort(thresholds)
	k := max(0, min(len(thresholds)-1, int(math.Ceil(level*float64(len(thresholds)+1)))-1))
	return math.Max(1e-6, math.Min(1, math.Exp(thresholds[k]+1e-9))), true
}

// shapeErrors returns, per cell and parameter, the standardized errors
// t = |θ̂' − θ| / (z_0.95 σ') of the cell's realizations as predictions
// report θ (applyThetaTable at the cells they read); NaN where a
// parameter has no deviation.
func shapeErrors(cells []ConditionScale, data []cellSample, params []sims.Param) [][][]float64 {
	t := make([][][]float64, len(cells))
	for i := range cells {
		t[i] = make([][]float64, len(params))
		for j, task := range data[i].tasks {
			p := data[i].thetaAsRead(cells, j, params)
			for q, th := range task.Real.Theta {
				e := math.NaN()
				if q < len(p.ThetaStd) && p.ThetaStd[q] > 0 && !math.IsNaN(p.Theta[q]) {
					e = math.Abs(p.Theta[q]-th) / (shapeUnit * p.ThetaStd[q])
				}
				t[i][q] = append(t[i][q], e)
			}
		}
	}
	return t
}

// weightedError is one realization's standardized error and its share
// in a group of cells.
type weightedError struct{ t, w float64 }

// groupReads returns the errors of parameter q of every realization
// that reads the cells of group g, with the weight it gives them.
func groupReads(cells []ConditionScale, data []cellSample, t [][][]float64, g []int, q int) []weightedError {
	var out []weightedError
	for i := range data {
		for j, ws := range data[i].reads {
			if w, e := groupShare(ws, g), t[i][q][j]; w > 1e-9 && !math.IsNaN(e) {
				out = append(out, weightedError{e, w})
			}
		}
	}
	return out
}

// groupShare is the weight a realization reading the cells ws gives
// the cells of group g.
func groupShare(ws []cellWeight, g []int) float64 {
	w := 0.0
	for _, cw := range ws {
		if slices.Contains(g, cw.cell) {
			w += cw.w
		}
	}
	return w
}

// fitGroupShape fits one shape to weighted errors: at each level L its
// ratio is their weighted L-quantile, except where the errors do not
// tell the shape from the Gaussian's there (the weighted share within
// the Gaussian's ratio z_L / z_0.95 is within two binomial deviations
// 2 √(L (1 − L) / n_eff) of L, n_eff = (Σw)² / Σw²): there it is the
// Gaussian's. Fitted everywhere, the shapes of advdiff's noisy cells
// (192 realizations) followed their validation sets' quantiles, and
// their 50% intervals covered 0.42 of the test parameters where the
// Gaussian's covered 0.49 (`apic diagnose --system advdiff --noise
// 0.05`). Ratios are held nondecreasing, above 1e-6 and at most 1.
// held reports the levels left at the Gaussian's. It is nil for an
// effective count below minShapeErrors.
func fitGroupShape(errs []weightedError) (ThetaShape, []bool) {
	total, sq := 0.0, 0.0
	for _, e := range errs {
		total, sq = total+e.w, sq+e.w*e.w
	}
	if total == 0 {
		return nil, nil
	}
	return fitGroupShapeN(errs, total*total/sq)
}

// sortErrors sorts errs by t.
func sortErrors(errs []weightedError) {
	slices.SortFunc(errs, func(a, b weightedError) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
}

// fitGroupShapeN is fitGroupShape with the errors' effective count
// nEff given: a band's errors at one realization's targets move
// together, so they count as one (fitGroupBand).
func fitGroupShapeN(errs []weightedError, nEff float64) (ThetaShape, []bool) {
	sortErrors(errs)
	total := 0.0
	for _, e := range errs {
		total += e.w
	}
	if total == 0 || nEff < minShapeErrors {
		return nil, nil
	}
	s := make(ThetaShape, len(ThetaShapeLevels))
	held := make([]bool, len(s))
	prev := 1e-6
	for i, level := range ThetaShapeLevels {
		gauss := CentralZ(level) / shapeUnit
		r := weightedQuantile(errs, total, level)
		if math.Abs(weightedShare(errs, total, gauss)-level) <= 2*math.Sqrt(level*(1-level)/nEff) {
			r, held[i] = gauss, true
		}
		prev = math.Min(1, math.Max(prev, r))
		s[i] = prev
	}
	return s, held
}

// weightedQuantile is the smallest error of errs (sorted by t) whose
// cumulative weight reaches level·total.
func weightedQuantile(errs []weightedError, total, level float64) float64 {
	acc := 0.0
	for _, e := range errs {
		if acc += e.w; acc >= level*total {
			return e.t
		}
	}
	return errs[len(errs)-1].t
}

// weightedShare is the weighted share of errs at most r.
func weightedShare(errs []weightedError, total, r float64) float64 {
	in := 0.0
	for _, e := range errs {
		if e.t <= r {
			in += e.w
		}
	}
	return in / total
}
