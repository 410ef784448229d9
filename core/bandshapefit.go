package core

import (
	"math"
	"slices"
)

// fitBandShapes fits the shapes of the reconstruction's and δ's bands
// (BandShape) of the table's cells to the validation realizations'
// errors as predictions report their bands: each reads its cells' scale
// (data's reads) and is standardized by the 95% half-width it reports,
// u = |μ − y| / (z_0.95 s σ), at each of its targets. As θ's shapes
// (fitThetaShapes), a noise group's shape is fitted on the realizations
// that read the group, weighted by their share in it:
//
//   - the 95% factor Wide is the weighted 95% quantile of u, or 1 where
//     the share of u ≤ 1 is within two binomial deviations of 0.95;
//   - the inner ratios are fitGroupShape's on u / Wide.
//
// A realization's targets share its weight, and the binomial deviations
// count realizations, not targets: the errors of one realization's
// targets move together. Where fewer than minShapeErrors realizations
// (their effective count) read a group, the table keeps no band shapes.
func (m *Model) fitBandShapes(cells []ConditionScale, data []cellSample) {
	recon, delta := m.bandErrors(cells, data)
	groups := noiseGroups(cells)
	for i := range cells {
		cells[i].ReconShape, cells[i].DeltaShape = nil, nil
	}
	for _, g := range groups {
		rs, ok := fitGroupBand(groupBandReads(cells, data, recon, g))
		ds, ok2 := fitGroupBand(groupBandReads(cells, data, delta, g))
		if !ok || !ok2 {
			for i := range cells {
				cells[i].ReconShape, cells[i].DeltaShape = nil, nil
			}
			return
		}
		for _, i := range g {
			cells[i].ReconShape, cells[i].DeltaShape = rs.clone(), ds.clone()
		}
	}
}

// reportedStd is shapeUnit times the deviation a prediction reports at
// value k, from its unscaled deviation std there and scale, the cell's
// scale times shapeUnit: scale·std, widened by the move from start as
// predictions widen it (movedStd; start nil or kappa 0: not widened).
func reportedStd(scale, std, mean float64, start []float64, k int, kappa float64) float64 {
	s := scale * std
	if kappa > 0 && start != nil {
		s = movedStd(s, shapeUnit*(mean-start[k]), kappa)
	}
	return s
}

func (s *BandShape) clone() *BandShape {
	return &BandShape{Wide: s.Wide, Inner: slices.Clone(s.Inner)}
}

// bandErrors returns, per cell and realization, the standardized errors
// u = |μ − y| / (z_0.95 s σ) of the reconstruction and of δ at the
// realization's targets, s the scale the realization reads.
func (m *Model) bandErrors(cells []ConditionScale, data []cellSample) (recon, delta [][][]float64) {
	recon, delta = make([][][]float64, len(cells)), make([][][]float64, len(cells))
	for i := range cells {
		for j, task := range data[i].tasks {
			p := data[i].preds[j]
			sy, sd, _, _, _ := cellRead(cells, data[i].reads[j])
			sy, sd = sy*shapeUnit, sd*shapeUnit
			kappa := 0.0
			if p.startMean != nil {
				kappa = disagreeAt(cells, data[i].reads[j])
			}
			truth, dtrue := task.Real.True, task.Real.Discrepancy()
			var us, ds []float64
			for _, k := range targetValues(m.Sys, task.Targets) {
				if s := reportedStd(sy, p.Std[k], p.Mean[k], p.startMean, k, kappa); s > 0 && !math.IsInf(s, 0) && !math.IsNaN(p.Mean[k]) {
					us = append(us, math.Abs(p.Mean[k]-truth[k])/s)
				}
				if s := reportedStd(sd, p.DeltaStd[k], p.DeltaMean[k], p.startDelta, k, kappa); s > 0 && !math.IsInf(s, 0) && !math.IsNaN(p.DeltaMean[k]) {
					ds = append(ds, math.Abs(p.DeltaMean[k]-dtrue[k])/s)
				}
			}
			recon[i], delta[i] = append(recon[i], us), append(delta[i], ds)
		}
	}
	return recon, delta
}

// groupBandReads returns the target errors of every realization that
// reads group g, each weighted by the realization's share in g over its
// target count, and the effective count of those realizations,
// (Σ w)² / Σ w².
func groupBandReads(cells []ConditionScale, data []cellSample, u [][][]float64, g []int) ([]weightedError, float64) {
	var out []weightedError
	sum, sq := 0.0, 0.0
	for i := range data {
		for j, ws := range data[i].reads {
			w := groupShare(ws, g)
			if w <= 1e-9 || len(u[i][j]) == 0 {
				continue
			}
			sum, sq = sum+w, sq+w*w
			for _, e := range u[i][j] {
				out = append(out, weightedError{e, w / float64(len(u[i][j]))})
			}
		}
	}
	if sq == 0 {
		return nil, 0
	}
	return out, sum * sum / sq
}

// fitGroupBand fits one band shape to weighted errors u read by nEff
// realizations; ok is false for fewer than minShapeErrors.
func fitGroupBand(errs []weightedError, nEff float64) (*BandShape, bool) {
	if nEff < minShapeErrors {
		return nil, false
	}
	total := 0.0
	for _, e := range errs {
		total += e.w
	}
	sortErrors(errs)
	wide := 1.0
	if math.Abs(weightedShare(errs, total, 1)-0.95) > 2*math.Sqrt(0.95*0.05/nEff) {
		wide = math.Min(maxBandWide, math.Max(1.0/maxBandWide, weightedQuantile(errs, total, 0.95)))
	}
	scaled := make([]weightedError, len(errs))
	for k, e := range errs {
		scaled[k] = weightedError{e.t / wide, e.w}
	}
	inner, _ := fitGroupShapeN(scaled, nEff)
	if inner == nil {
		return nil, false
	}
	return &BandShape{Wide: wide, Inner: inner}, true
}
