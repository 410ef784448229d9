package core

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// bandRealizations draws n realizations of m targets each whose band
// deviation is 1 and whose errors share one Laplace-distributed offset
// per realization (the errors of one realization's targets move
// together) plus a little Gaussian noise per target: heavy-tailed
// pooled, as δ's at noise 0. It returns their standardized errors
// u = |e| / z_0.95 with unit weights per realization.
func bandRealizations(seed uint64, n, m int) ([]weightedError, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	var errs []weightedError
	var raw [][]float64
	for range n {
		off := rng.ExpFloat64() * 0.8
		if rng.IntN(2) == 0 {
			off = -off
		}
		var es []float64
		for range m {
			e := off + 0.1*rng.NormFloat64()
			es = append(es, e)
			errs = append(errs, weightedError{math.Abs(e) / shapeUnit, 1 / float64(m)})
		}
		raw = append(raw, es)
	}
	return errs, raw
}

// A band shape fitted on heavy-tailed errors covers every level of an
// independent set within 0.03, where the Gaussian band of the errors'
// deviation 1 misses by more than 0.05; its 95% factor widens the band.
func TestFitGroupBandHeavyTails(t *testing.T) {
	errs, _ := bandRealizations(1, 2000, 20)
	s, ok := fitGroupBand(errs, 2000)
	if !ok {
		t.Fatal("no shape from 2000 realizations")
	}
	if !(s.Wide > 1.1) {
		t.Errorf("95%% factor %v, want a widened band (> 1.1)", s.Wide)
	}
	_, test := bandRealizations(2, 2000, 20)
	worst := func(s *BandShape) float64 {
		w := 0.0
		for _, level := range DiagnosticLevels {
			in, n := 0, 0
			for _, es := range test {
				for _, e := range es {
					n++
					if math.Abs(e) <= s.HalfWidth(1, level) {
						in++
					}
				}
			}
			w = math.Max(w, math.Abs(float64(in)/float64(n)-level))
		}
		return w
	}
	if w := worst(s); w > 0.03 {
		t.Errorf("shaped band: largest |empirical − nominal| %.3f, want ≤ 0.03", w)
	}
	if w := worst(nil); w <= 0.05 {
		t.Errorf("Gaussian band: largest |empirical − nominal| %.3f; the test wants > 0.05", w)
	}
}

// Gaussian errors of the band's own deviation keep the Gaussian: a 95%
// factor of 1 and the Gaussian's ratios, so the half-widths are z σ.
func TestFitGroupBandGaussianStays(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var errs []weightedError
	for range 500 {
		for range 10 {
			errs = append(errs, weightedError{math.Abs(rng.NormFloat64()) / shapeUnit, 0.1})
		}
	}
	s, ok := fitGroupBand(errs, 500)
	if !ok || s.Wide != 1 {
		t.Fatalf("shape %+v, ok %v: want a 95%% factor of 1", s, ok)
	}
	for _, level := range []float64{0.1, 0.5, 0.9} {
		if h, z := s.HalfWidth(1, level), CentralZ(level); math.Abs(h-z) > 0.06*z {
			t.Errorf("half-width at %v: %.4f, want the Gaussian's %.4f within 6%%", level, h, z)
		}
	}
	if _, ok := fitGroupBand(errs[:300], 30); ok {
		t.Error("a shape from 30 realizations")
	}
}

// Level inverts HalfWidth; a nil shape is the Gaussian's; beyond 0.95 a
// shaped band is Gaussian of deviation Wide·σ; BandDeviations gives the
// plots' ±2σ at the shaped level.
func TestBandShapeHalfWidthLevel(t *testing.T) {
	errs, _ := bandRealizations(5, 1000, 10)
	s, _ := fitGroupBand(errs, 1000)
	for _, level := range []float64{0.05, 0.3, 0.5, 0.77, 0.9, 0.95, 0.99} {
		h := s.HalfWidth(0.2, level)
		if back := s.Level(0.2, h); math.Abs(back-level) > 1e-9 {
			t.Errorf("Level(HalfWidth(%v)) = %v", level, back)
		}
	}
	var nilShape *BandShape
	if h := nilShape.HalfWidth(2, 0.95); math.Abs(h-2*CentralZ(0.95)) > 1e-12 {
		t.Errorf("Gaussian half-width %v", h)
	}
	if h, want := s.HalfWidth(1, 0.99), CentralZ(0.99)*s.Wide; math.Abs(h-want) > 1e-12 {
		t.Errorf("half-width at 0.99: %v, want %v", h, want)
	}
	p := Prediction{Std: []float64{1, 2}, DeltaStd: []float64{3}, ReconShape: s}
	ry, rd := p.BandDeviations()
	if rd[0] != 3 {
		t.Errorf("an unshaped band's deviation changed: %v", rd[0])
	}
	if want := s.HalfWidth(2, twoSigmaLevel) / 2; math.Abs(ry[1]-want) > 1e-12 {
		t.Errorf("shaped deviation %v, want %v", ry[1], want)
	}
}

// A stored table with a malformed band shape is refused, naming the
// cell; one with shapes round-trips through JSON.
func TestCheckConditionsBandShapes(t *testing.T) {
	errs, _ := bandRealizations(7, 1000, 10)
	good, _ := fitGroupBand(errs, 1000)
	cell := func(s *BandShape) ConditionScale {
		return ConditionScale{Context: 30, Recon: 1, Delta: 1, Theta: 1, ReconShape: s, DeltaShape: s}
	}
	if err := checkConditions([]ConditionScale{cell(good), cell(good)}); err != nil {
		t.Fatal(err)
	}
	for name, cells := range map[string][]ConditionScale{
		"wide 0":      {cell(&BandShape{Wide: 0, Inner: good.Inner})},
		"wide huge":   {cell(&BandShape{Wide: 1e9, Inner: good.Inner})},
		"short inner": {cell(&BandShape{Wide: 1, Inner: good.Inner[:3]})},
		"mixed":       {cell(good), cell(nil)},
	} {
		if err := checkConditions(cells); err == nil || !strings.Contains(err.Error(), "condition scale") {
			t.Errorf("%s: %v", name, err)
		}
	}
	back := jsonRoundTrip(t, []ConditionScale{cell(good)})
	if back[0].DeltaShape.Wide != good.Wide || back[0].DeltaShape.Inner[9] != good.Inner[9] {
		t.Errorf("band shape %+v after JSON, want %+v", back[0].DeltaShape, good)
	}
}
