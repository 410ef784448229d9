package core

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/sims"
)

// laplaceErrors draws n estimates with Laplace errors (heavier-tailed
// than the Gaussian) and reports for each a deviation sd whose Gaussian
// 95% interval is the Laplace's: b ln 20 = z_0.95 sd.
func laplaceErrors(seed uint64, n int) (truth, est, sd []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	for range n {
		b := 0.1 + rng.Float64()
		e := rng.ExpFloat64() * b
		if rng.IntN(2) == 0 {
			e = -e
		}
		truth, est, sd = append(truth, 0), append(est, e), append(sd, b*math.Log(20)/shapeUnit)
	}
	return truth, est, sd
}

// standardized is t = |θ̂ − θ| / (z_0.95 σ) of each triple, each of
// weight 1.
func standardized(truth, est, sd []float64) []weightedError {
	t := make([]weightedError, len(truth))
	for i := range t {
		t[i] = weightedError{math.Abs(est[i]-truth[i]) / (shapeUnit * sd[i]), 1}
	}
	return t
}

// unitWeights gives each error weight 1.
func unitWeights(t []float64) []weightedError {
	out := make([]weightedError, len(t))
	for i, e := range t {
		out[i] = weightedError{e, 1}
	}
	return out
}

// The Laplace's central L-interval is b ln(1/(1 − L)): fitted on 4000
// errors, the shape's ratios are those of the quantiles,
// ln(1/(1 − L)) / ln 20, within 0.03.
func TestFitThetaShapeLaplace(t *testing.T) {
	s := first(fitGroupShape(standardized(laplaceErrors(1, 4000))))
	if err := checkThetaShape(s); err != nil {
		t.Fatal(err)
	}
	for i, l := range ThetaShapeLevels {
		want := math.Log(1/(1-l)) / math.Log(20)
		if math.Abs(s[i]-want) > 0.03 {
			t.Errorf("level %.2f: ratio %.4f, want %.4f", l, s[i], want)
		}
	}
}

// With a shape fitted on one set of Laplace errors, the intervals of an
// independent set cover each level within 0.03 and its SBC histogram is
// flat; the Gaussian of the same 95% interval (a nil shape) covers the
// 50% level at about 1 − exp(−z_0.5 ln 20 / 1.96) ≈ 0.643 and its
// histogram is not flat.
func TestThetaShapeCalibratesHeavyTails(t *testing.T) {
	shape := first(fitGroupShape(standardized(laplaceErrors(1, 4000))))
	truth, est, sd := laplaceErrors(2, 4000)
	rng := rand.New(rand.NewPCG(3, sbcStream))
	shaped, gauss := NewCoverage(DiagnosticLevels), NewCoverage(DiagnosticLevels)
	var ranks, granks []int
	for i := range truth {
		shaped.AddLevel(shape.Level(sd[i], math.Abs(truth[i]-est[i])), true)
		gauss.Add(est[i], sd[i], truth[i])
		ranks = append(ranks, SBCRankCDF(rng, SBCDraws, shape.CDF(truth[i], est[i], sd[i]), true))
		granks = append(granks, SBCRank(rng, SBCDraws, truth[i], est[i], sd[i]))
	}
	for l, d := range shaped.Signed() {
		if math.Abs(d) > 0.03 {
			t.Errorf("shaped coverage at %.2f is off by %+.3f", DiagnosticLevels[l], d)
		}
	}
	if c := gauss.Empirical()[9]; math.Abs(c-0.643) > 0.03 {
		t.Errorf("the Gaussian's 50%% interval covers %.3f, want about 0.643", c)
	}
	if _, _, p := ChiSquareUniform(RankHistogram(ranks, SBCDraws, SBCBins(len(ranks)))); p < 0.001 {
		t.Errorf("shaped SBC histogram rejected as uniform: p = %.3g", p)
	}
	if _, _, p := ChiSquareUniform(RankHistogram(granks, SBCDraws, SBCBins(len(granks)))); p > 1e-6 {
		t.Errorf("the Gaussian's SBC histogram of Laplace errors passes as uniform: p = %.3g", p)
	}
}

// HalfWidth and Level are inverse to each other, both are the
// Gaussian's for a nil shape and beyond 0.95, and HalfWidth is
// continuous at the levels and at 0.95.
func TestThetaShapeHalfWidthLevel(t *testing.T) {
	shape := first(fitGroupShape(standardized(laplaceErrors(1, 500))))
	const sd = 0.7
	for _, l := range []float64{0.001, 0.03, 0.05, 0.31, 0.5, 0.9, 0.93, 0.95, 0.97, 0.999} {
		for _, s := range []ThetaShape{nil, shape} {
			h := s.HalfWidth(sd, l)
			if back := s.Level(sd, h); math.Abs(back-l) > 1e-9 {
				t.Errorf("shape %v level %g: half-width %g reads back as %g", s != nil, l, h, back)
			}
		}
		if g := ThetaShape(nil).HalfWidth(sd, l); math.Abs(g-CentralZ(l)*sd) > 1e-12 {
			t.Errorf("nil shape at %g: %g, want the Gaussian's %g", l, g, CentralZ(l)*sd)
		}
		if l >= 0.95 && shape.HalfWidth(sd, l) != CentralZ(l)*sd {
			t.Errorf("shape at %g: %g, want the Gaussian's %g", l, shape.HalfWidth(sd, l), CentralZ(l)*sd)
		}
	}
	if a, b := shape.HalfWidth(sd, 0.95-1e-12), shape.HalfWidth(sd, 0.95); math.Abs(a-b) > 1e-9 {
		t.Errorf("half-width jumps at 0.95: %g, %g", a, b)
	}
	if got := shape.HalfWidth(sd, ThetaShapeLevels[3]); math.Abs(got-shapeUnit*sd*shape[3]) > 1e-12 {
		t.Errorf("half-width at a stored level: %g, want %g", got, shapeUnit*sd*shape[3])
	}
	if got := shape.CDF(1, 1, sd); got != 0.5 {
		t.Errorf("CDF at the estimate: %g, want 0.5", got)
	}
}

// fitGroupShape keeps its ratios nondecreasing and at most 1, and fits
// nothing to too few errors.
func TestFitThetaShapeBounds(t *testing.T) {
	big := make([]float64, 100)
	for i := range big {
		big[i] = 5 + float64(i) // every error beyond the 95% half-width
	}
	s := first(fitGroupShape(unitWeights(big)))
	for i, r := range s {
		if r != 1 {
			t.Errorf("ratio %d = %g, want 1 (capped)", i, r)
		}
	}
	zeros := make([]float64, 100)
	if s := first(fitGroupShape(unitWeights(zeros))); s[0] != 1e-6 || checkThetaShape(s) != nil {
		t.Errorf("exact estimates: %v", s)
	}
	if s := first(fitGroupShape(unitWeights(make([]float64, minShapeErrors-1)))); s != nil {
		t.Errorf("%d errors gave a shape", minShapeErrors-1)
	}
}

// A stored table with a malformed shape is refused with a message that
// names the cell and the parameter; one with shapes round-trips through
// JSON unchanged.
func TestCheckConditionsShapes(t *testing.T) {
	good := first(fitGroupShape(standardized(laplaceErrors(1, 200))))
	cell := func(shapes ...ThetaShape) ConditionScale {
		return ConditionScale{Context: 30, Recon: 1, Delta: 1, Theta: 1, ThetaShape: shapes}
	}
	if err := checkConditions([]ConditionScale{cell(good), cell(good)}); err != nil {
		t.Fatal(err)
	}
	dec := append(ThetaShape(nil), good...)
	dec[4] = dec[3] / 2
	for name, cells := range map[string][]ConditionScale{
		"short":      {cell(good[:3])},
		"decreasing": {cell(good), cell(dec)},
		"above 1":    {cell(append(append(ThetaShape(nil), good[:17]...), 1.5))},
		"mixed":      {cell(good), cell()},
	} {
		err := checkConditions(cells)
		if err == nil || !strings.Contains(err.Error(), "condition scale") {
			t.Errorf("%s: %v", name, err)
		}
	}
	back := jsonRoundTrip(t, []ConditionScale{cell(good)})
	for i := range good {
		if back[0].ThetaShape[0][i] != good[i] {
			t.Fatalf("ratio %d: %g after JSON, want %g", i, back[0].ThetaShape[0][i], good[i])
		}
	}
}

// cellErrors draws n realizations of one cell at estimated noise σ̂
// from draw(), reading two cells at σ̂ = 0 and 1 linearly. Their error
// is Laplace (heavy-tailed) where heavy, else Gaussian, both with the
// 95% half-width z_0.95: the tails belong to the condition the data
// were drawn at, not to the σ̂ a prediction reads by.
func cellErrors(rng *rand.Rand, n int, heavy bool, draw func() float64) cellSample {
	var c cellSample
	for range n {
		s := draw()
		e := rng.NormFloat64()
		if heavy {
			e = rng.ExpFloat64() * shapeUnit / math.Log(20)
		}
		c.tasks = append(c.tasks, sims.Task{Real: sims.Realization{Theta: []float64{0}}})
		c.preds = append(c.preds, Prediction{Theta: []float64{e}, ThetaStd: []float64{1}})
		c.reads = append(c.reads, []cellWeight{{0, 1 - s}, {1, s}})
	}
	return c
}

// Each cell's shape is fitted on the realizations that read it, wherever
// they were drawn: here cell 0's realizations have heavy-tailed errors
// and σ̂ spread over [0, 1] with density 2σ̂ (at noise 0 σ̂ is the
// misfit, spread over decades), cell 1's Gaussian errors and σ̂ in
// [0.9, 1]. On an
// independent set drawn the same way, the intervals read at each
// realization's σ̂ cover every level within 0.03; cells fitted on their
// own realizations miss by more than 0.04 (0.050).
func TestFitThetaShapesAsRead(t *testing.T) {
	params := []sims.Param{{Name: "a", Lo: -100, Hi: 100}}
	newCells := func() []ConditionScale {
		return []ConditionScale{{Context: 30, Recon: 1, Delta: 1, Theta: 1}, {Context: 30, NoiseStd: 1, Recon: 1, Delta: 1, Theta: 1}}
	}
	draw := func(seed uint64) []cellSample {
		rng := rand.New(rand.NewPCG(seed, 5))
		return []cellSample{
			cellErrors(rng, 4000, true, func() float64 { return math.Sqrt(rng.Float64()) }),
			cellErrors(rng, 4000, false, func() float64 { return 0.9 + 0.1*rng.Float64() }),
		}
	}
	worst := func(cells []ConditionScale, data []cellSample) float64 {
		miss := 0.0
		for l, level := range ThetaShapeLevels {
			covered, n := 0, 0
			for _, c := range data {
				for j, p := range c.preds {
					r := 0.0
					for _, w := range c.reads[j] {
						r += w.w * math.Log(cells[w.cell].ThetaShape[0][l])
					}
					n++
					if math.Abs(p.Theta[0])/shapeUnit <= math.Exp(r) {
						covered++
					}
				}
			}
			miss = math.Max(miss, math.Abs(float64(covered)/float64(n)-level))
		}
		return miss
	}
	fit, test := draw(1), draw(2)
	cells := newCells()
	fitThetaShapes(cells, fit, params)
	if m := worst(cells, test); m > 0.03 {
		t.Errorf("fitted on their readers: largest miss %.3f, want ≤ 0.03", m)
	}
	own := newCells()
	for i := range own {
		t1 := shapeErrors(own, fit, params)[i][0]
		own[i].ThetaShape = []ThetaShape{first(fitGroupShape(unitWeights(t1)))}
	}
	if m := worst(own, test); m <= 0.04 {
		t.Errorf("fitted on their own realizations: largest miss %.3f; the test wants > 0.04", m)
	}
}

// first is a shape without its held levels.
func first(s ThetaShape, _ []bool) ThetaShape { return s }
