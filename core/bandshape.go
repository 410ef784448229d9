package core

import (
	"fmt"
	"math"
)

// BandShape is the calibrated shape of a function band (the
// reconstruction's or δ's) at one condition. The band's scale per
// condition minimizes its mean ECE over levels, which a Gaussian of one
// width cannot meet at every level: pooled over realizations, δ's
// errors at noise 0 are heavy-tailed, so that lv/cnp's 95% δ band held
// 0.75 of the truths while its 50% band held 0.50 (`apic diagnose
// --system lv --backbone cnp --gaussian-bands`). A shape widens the
// deviation σ of the band's 95% interval by Wide and shapes the inner
// intervals as a θ interval shape does:
//
//	h(L) = Inner.HalfWidth(Wide · σ, L),
//
// so the 95% half-width is z_0.95 · Wide · σ, the inner half-widths
// are Inner's ratios of it, and beyond 0.95 the band is Gaussian of
// deviation Wide · σ. The metrics of BENCHMARKS.md (LL, ECE) score the
// Gaussian N(μ, σ²) as written; diagnose's reliability curves, the
// explorer's bands and calibrate's band limits use the shape.
type BandShape struct {
	Wide  float64    `json:"wide"`
	Inner ThetaShape `json:"inner"`
}

// HalfWidth is the half-width of the central interval at level of a
// band value with deviation sd; a nil shape is the Gaussian's.
func (s *BandShape) HalfWidth(sd, level float64) float64 {
	if s == nil {
		return CentralZ(level) * sd
	}
	return s.Inner.HalfWidth(s.Wide*sd, level)
}

// Level is the smallest central level whose interval reaches the
// deviation dev ≥ 0 from the mean.
func (s *BandShape) Level(sd, dev float64) float64 {
	if s == nil {
		return math.Erf(dev / (sd * math.Sqrt2))
	}
	return s.Inner.Level(s.Wide*sd, dev)
}

// maxBandWide bounds a stored 95% factor.
const maxBandWide = 64

// checkBandShape reports a stored shape that fitBandShapes cannot
// give: a 95% factor outside (1/64, 64], or a malformed inner shape.
func checkBandShape(s *BandShape) error {
	if s == nil {
		return nil
	}
	if !(s.Wide >= 1.0/maxBandWide && s.Wide <= maxBandWide) {
		return fmt.Errorf("band shape's 95%% factor %v: want one in [1/%d, %d]", s.Wide, maxBandWide, maxBandWide)
	}
	return checkThetaShape(s.Inner)
}

// bandShapeAt interpolates the cells' shapes of one band (pick selects
// it) geometrically with the weights ws; nil where a cell read has
// none.
func bandShapeAt(cells []ConditionScale, ws []cellWeight, pick func(*ConditionScale) *BandShape) *BandShape {
	if len(ws) == 0 {
		return nil
	}
	for _, w := range ws {
		if pick(&cells[w.cell]) == nil {
			return nil
		}
	}
	out := &BandShape{Inner: make(ThetaShape, len(ThetaShapeLevels))}
	out.Wide = readGeo(cells, ws, func(c *ConditionScale) float64 { return pick(c).Wide })
	for i := range out.Inner {
		out.Inner[i] = math.Min(1, readGeo(cells, ws, func(c *ConditionScale) float64 { return pick(c).Inner[i] }))
	}
	return out
}

func reconShape(c *ConditionScale) *BandShape { return c.ReconShape }
func deltaShape(c *ConditionScale) *BandShape { return c.DeltaShape }

// twoSigmaLevel is the central level of a Gaussian's ±2σ, erf(√2).
var twoSigmaLevel = math.Erf(math.Sqrt2)

// BandDeviations returns deviations σ' of the reconstruction and of δ
// whose μ ± 2σ' is the central interval of ±2σ's level (95.4%) under
// the bands' shapes: the plots' "± 2σ" band. Where a band has no shape
// σ' is its σ.
func (p Prediction) BandDeviations() (recon, delta []float64) {
	return shapedDeviations(p.Std, p.ReconShape), shapedDeviations(p.DeltaStd, p.DeltaShape)
}

func shapedDeviations(std []float64, shape *BandShape) []float64 {
	if shape == nil {
		return std
	}
	// The half-width is linear in σ: one factor serves every value.
	f := shape.HalfWidth(1, twoSigmaLevel) / 2
	out := make([]float64, len(std))
	for i, s := range std {
		out[i] = f * s
	}
	return out
}
