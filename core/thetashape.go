package core

import (
	"fmt"
	"math"
)

// shapeUnit is z_0.95 = Φ⁻¹(0.975) ≈ 1.96, the 95% half-width in
// deviations: a shape's ratios are in units of z_0.95 σ_θ, so that its
// half-widths join the Gaussian's at 0.95.
var shapeUnit = CentralZ(0.95)

// ThetaShapeLevels are the central levels at which a θ interval shape
// stores its half-widths: 0.05, 0.10, …, 0.90. The 95% interval is the
// scale's (θ̂ ± 1.96 σ_θ), so it is not stored.
var ThetaShapeLevels = []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9}

// ThetaShape is the calibrated shape of one parameter's posterior
// intervals. The scale of a condition (ConditionScale.Theta) fits θ's
// 95% intervals only, and θ's errors are not Gaussian at that scale: at
// noise 0 a Gaussian 50% interval covered 0.91 of lv/anp's η and 0.16
// of advdiff/cnp's κ (`apic diagnose --system S --backbone B
// --gaussian-theta`). A shape stores, at each level L of
// ThetaShapeLevels, the half-width of the central L-interval in units
// of the 95% one,
//
//	h(L) = z_0.95 σ_θ · r_L,   0 < r_L ≤ r_L' ≤ 1 for L < L',
//
// r_L an L-quantile of the validation errors |θ̂ − θ| / (z_0.95 σ_θ)
// (thetashapefit.go; z_0.95 ≈ 1.96). Between the levels h is linear in
// L, from h(0) = 0 to h(0.95) = z_0.95 σ_θ; beyond 0.95 it is the
// Gaussian's, z_L σ_θ. A nil shape is the Gaussian's at every level.
type ThetaShape []float64

// HalfWidth is the half-width of the central interval at level (in
// [0, 1)) of a parameter with deviation sd.
func (s ThetaShape) HalfWidth(sd, level float64) float64 {
	if s == nil || level >= 0.95 {
		return CentralZ(level) * sd
	}
	lo, rlo := 0.0, 0.0
	for i, l := range ThetaShapeLevels {
		if level <= l {
			return shapeUnit * sd * (rlo + (s[i]-rlo)*(level-lo)/(l-lo))
		}
		lo, rlo = l, s[i]
	}
	return shapeUnit * sd * (rlo + (1-rlo)*(level-lo)/(0.95-lo))
}

// Level is the inverse of HalfWidth: the smallest central level whose
// interval reaches the deviation dev ≥ 0 from θ̂ (1 for an infinite dev).
func (s ThetaShape) Level(sd, dev float64) float64 {
	h := dev / (shapeUnit * sd)
	if s == nil || h >= 1 {
		return math.Erf(dev / (sd * math.Sqrt2))
	}
	lo, rlo := 0.0, 0.0
	for i, l := range ThetaShapeLevels {
		if h <= s[i] {
			if s[i] == rlo {
				return lo
			}
			return lo + (l-lo)*(h-rlo)/(s[i]-rlo)
		}
		lo, rlo = l, s[i]
	}
	return lo + (0.95-lo)*(h-rlo)/(1-rlo)
}

// CDF is the posterior's distribution function at theta for the
// estimate est and deviation sd: the shape is symmetric about est.
func (s ThetaShape) CDF(theta, est, sd float64) float64 {
	l := s.Level(sd, math.Abs(theta-est))
	if theta < est {
		return (1 - l) / 2
	}
	return (1 + l) / 2
}

// minShapeErrors is the fewest validation errors (their effective
// count) fitGroupShape fits a shape to: with fewer, its 5% quantile is
// not an order statistic.
const minShapeErrors = 40

// checkThetaShape reports a stored shape that is not one of
// fitGroupShape's: one value per level, each in (0, 1], nondecreasing.
func checkThetaShape(s ThetaShape) error {
	if len(s) != len(ThetaShapeLevels) {
		return fmt.Errorf("θ interval shape has %d values, want %d (one per level of ThetaShapeLevels)", len(s), len(ThetaShapeLevels))
	}
	prev := 0.0
	for i, r := range s {
		if !(r > 0 && r <= 1) || r < prev {
			return fmt.Errorf("θ interval shape value %d is %g: want values in (0, 1], nondecreasing", i, r)
		}
		prev = r
	}
	return nil
}

// shapeAt interpolates the table's θ shapes for P parameters at the
// cells ws read: per level, the weighted geometric mean of the cells'
// ratios (which keeps each nondecreasing and in (0, 1]). It is nil where
// a cell read has no shapes (a table fitted before them).
func shapeAt(cells []ConditionScale, ws []cellWeight, P int) []ThetaShape {
	if len(ws) == 0 {
		return nil
	}
	for _, w := range ws {
		if len(cells[w.cell].ThetaShape) != P {
			return nil
		}
	}
	out := make([]ThetaShape, P)
	for q := range out {
		out[q] = make(ThetaShape, len(ThetaShapeLevels))
		for i := range out[q] {
			out[q][i] = math.Min(1, readGeo(cells, ws, func(c *ConditionScale) float64 { return c.ThetaShape[q][i] }))
		}
	}
	return out
}

// ThetaHalfWidth is the half-width of parameter q's central interval at
// level: θ̂_q ± ThetaHalfWidth(q, level). It is 0 where q has no
// deviation.
func (p Prediction) ThetaHalfWidth(q int, level float64) float64 {
	if q >= len(p.ThetaStd) || !(p.ThetaStd[q] > 0) {
		return 0
	}
	var s ThetaShape
	if q < len(p.ThetaShape) {
		s = p.ThetaShape[q]
	}
	return s.HalfWidth(p.ThetaStd[q], level)
}
