package core

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/sims"
)

// twoParamCell draws n realizations of two parameters whose sample
// deviation is 1 and whose errors are Gaussian with deviations sd[0]
// and sd[1]: each parameter's spread is off by its own factor.
func twoParamCell(rng *rand.Rand, n int, sd [2]float64) cellSample {
	var c cellSample
	for range n {
		e := []float64{sd[0] * rng.NormFloat64(), sd[1] * rng.NormFloat64()}
		c.tasks = append(c.tasks, sims.Task{Real: sims.Realization{Theta: []float64{0, 0}}})
		c.preds = append(c.preds, Prediction{Theta: e, ThetaStd: []float64{1, 1}})
	}
	return c
}

// The factors of a cell are the parameters' 95% error ratios over the
// shared one: with errors 4 and 0.5 times the sample spread, the shared
// 95th percentile of |e|/σ is parameter 0's 90th (parameter 1 adds
// almost nothing beyond 1), so r_0 = 1.96/1.645 and r_1 = 0.5 × that.
func TestCellThetaFactors(t *testing.T) {
	d := twoParamCell(rand.New(rand.NewPCG(1, 2)), 20000, [2]float64{4, 0.5})
	r := cellThetaFactors(d, 2)
	want0 := 1.96 / 1.645
	if math.Abs(r[0]-want0) > 0.03*want0 {
		t.Errorf("r_0 = %.4f, want %.4f within 3%%", r[0], want0)
	}
	if math.Abs(r[1]/r[0]-0.125) > 0.01 {
		t.Errorf("r_1/r_0 = %.4f, want 0.125 (the errors' ratio)", r[1]/r[0])
	}
	if cellThetaFactors(d, 1) != nil {
		t.Error("a single parameter got factors of its own")
	}
}

// Scaled by its factor and a shared scale fitted after them, each
// parameter's 95% interval covers 95% of an independent set; the shared
// scale alone covers 1.00 of parameter 1 and 0.90 of parameter 0.
func TestThetaFactorsCoverEachParameter(t *testing.T) {
	sd := [2]float64{4, 0.5}
	fit := twoParamCell(rand.New(rand.NewPCG(3, 4)), 20000, sd)
	test := twoParamCell(rand.New(rand.NewPCG(5, 6)), 20000, sd)
	cover := func(r []float64, s float64) [2]float64 {
		var c [2]float64
		for j, p := range test.preds {
			for q := range 2 {
				if math.Abs(p.Theta[q]-test.tasks[j].Real.Theta[q]) <= 1.96*s*r[q]*p.ThetaStd[q] {
					c[q]++
				}
			}
		}
		return [2]float64{c[0] / float64(len(test.preds)), c[1] / float64(len(test.preds))}
	}
	shared := thetaScaleAt(fit.tasks, fit.preds, 0.95)
	c := cover([]float64{1, 1}, shared)
	if c[1] < 0.999 || c[0] > 0.92 {
		t.Fatalf("the shared scale alone covers %.3f and %.3f; the test wants about 0.90 and 1", c[0], c[1])
	}
	r := cellThetaFactors(fit, 2)
	scaled := cellSample{tasks: fit.tasks}
	for _, p := range fit.preds {
		scaled.preds = append(scaled.preds, Prediction{Theta: p.Theta, ThetaStd: []float64{r[0] * p.ThetaStd[0], r[1] * p.ThetaStd[1]}})
	}
	s := thetaScaleAt(scaled.tasks, scaled.preds, 0.95)
	c = cover(r, s)
	for q := range 2 {
		if math.Abs(c[q]-0.95) > 0.01 {
			t.Errorf("parameter %d: scaled intervals cover %.3f, want 0.95 within 0.01", q, c[q])
		}
	}
}

// Without any sample spread (a cnp's single sample) the floors are the
// geometric mean over the cells of each cell's median |error|: cells
// with median errors 1 and 4 give 2.
func TestFitThetaFloor(t *testing.T) {
	params := []sims.Param{{Name: "a", Lo: 0, Hi: 100}}
	cell := func(errs ...float64) cellSample {
		var c cellSample
		for _, e := range errs {
			c.tasks = append(c.tasks, sims.Task{Real: sims.Realization{Theta: []float64{50}}})
			c.preds = append(c.preds, Prediction{Theta: []float64{50 + e}, ThetaStd: []float64{0}})
		}
		return c
	}
	data := []cellSample{cell(-0.5, 1, 3), cell(4, -8, 2)}
	floor := fitThetaFloor(data, params)
	if len(floor) != 1 || math.Abs(floor[0]-2) > 1e-12 {
		t.Errorf("floor %v, want [2]", floor)
	}
	data[0].preds[0].ThetaStd[0] = 0.1
	if f := fitThetaFloor(data, params); f != nil {
		t.Errorf("a model with sample spread got floors %v", f)
	}
	exact := []cellSample{cell(0, 0)}
	if f := fitThetaFloor(exact, params); !(f[0] > 0) {
		t.Errorf("parameters estimated exactly got floor %v, want a positive one", f)
	}
	std := []float64{0}
	SpreadFit{ThetaFloor: floor}.applyThetaFloor(std)
	if std[0] != 2 {
		t.Errorf("floored deviation %v, want 2", std[0])
	}
}

// A parameter with a spread (a cnp's hinted one) gets floor 0, the
// others their median errors.
func TestFitThetaFloorPerParameter(t *testing.T) {
	params := []sims.Param{{Name: "a", Lo: 0, Hi: 100}, {Name: "b", Lo: 0, Hi: 100}}
	var c cellSample
	for _, e := range []float64{-1, 3, 2} {
		c.tasks = append(c.tasks, sims.Task{Real: sims.Realization{Theta: []float64{50, 50}}})
		c.preds = append(c.preds, Prediction{Theta: []float64{50 + e, 50 + e}, ThetaStd: []float64{0, 0.2}})
	}
	floor := fitThetaFloor([]cellSample{c}, params)
	if len(floor) != 2 || floor[0] != 2 || floor[1] != 0 {
		t.Errorf("floors %v, want [2 0]", floor)
	}
	std := []float64{0, 0.2}
	SpreadFit{ThetaFloor: floor}.applyThetaFloor(std)
	if std[0] != 2 || std[1] != 0.2 {
		t.Errorf("floored deviations %v, want [2 0.2]", std)
	}
}

// The factors interpolate geometrically as the table's scales do.
func TestFactorsAt(t *testing.T) {
	cells := []ConditionScale{{ThetaParam: []float64{1, 4}}, {ThetaParam: []float64{4, 1}}}
	r := factorsAt(cells, []cellWeight{{0, 0.5}, {1, 0.5}}, 2)
	if math.Abs(r[0]-2) > 1e-12 || math.Abs(r[1]-2) > 1e-12 {
		t.Errorf("halfway factors %v, want [2 2]", r)
	}
	if factorsAt(cells, []cellWeight{{0, 1}}, 3) != nil {
		t.Error("factors for 2 parameters read for 3")
	}
}

// Malformed factors or floors are refused, naming what is wrong; a
// table with factors round-trips through JSON.
func TestCheckThetaBase(t *testing.T) {
	cell := func(r ...float64) ConditionScale {
		return ConditionScale{Context: 30, Recon: 1, Delta: 1, Theta: 1, ThetaParam: r}
	}
	for name, cells := range map[string][]ConditionScale{
		"zero factor": {cell(1, 0)},
		"NaN factor":  {cell(math.NaN(), 1)},
		"mixed":       {cell(1, 2), cell(1)},
	} {
		if err := checkConditions(cells); err == nil || !strings.Contains(err.Error(), "condition scale") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, s := range map[string]SpreadFit{
		"negative floor": {ThetaFloor: []float64{-1}},
		"infinite floor": {ThetaFloor: []float64{math.Inf(1)}},
		"too many":       {ThetaFloor: make([]float64, maxThetaBase+1)},
	} {
		if err := s.check(); err == nil || !strings.Contains(err.Error(), "θ deviation") {
			t.Errorf("%s: %v", name, err)
		}
	}
	back := jsonRoundTrip(t, []ConditionScale{cell(0.5, 2)})
	if back[0].ThetaParam[0] != 0.5 || back[0].ThetaParam[1] != 2 {
		t.Errorf("factors %v after JSON, want [0.5 2]", back[0].ThetaParam)
	}
}

// One-pass predictions take the floors and the factors of the condition
// they read; θ set by hand stays exact (deviation 0). Without hints, so
// that no parameter has a spread of its own.
func TestOnePassThetaFloorAndFactors(t *testing.T) {
	m := tinyModel(t, "lv", CNP, func(c *Config) { c.Infer.Refine, c.Arch.ThetaHint = 1, false })
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 2, 0, 1))
	floor := []float64{0.01, 0.02, 0.03, 0.04}
	cell := ConditionScale{Context: 30, Recon: 1, Delta: 1, Theta: 2, ThetaParam: []float64{1, 2, 3, 4}}
	m.Config.Infer.OnePass = &SpreadFit{ThetaFloor: floor, Conditions: []ConditionScale{cell}}
	preds, err := m.PredictContext(context.Background(), ctxs, sides, PredictOptions{Samples: 1, Refine: 0})
	if err != nil {
		t.Fatal(err)
	}
	for q, sd := range preds[0].ThetaStd {
		want := min(2*cell.ThetaParam[q]*floor[q], priorStd(m.Sys.Params()[q]))
		if math.Abs(sd-want) > 1e-12*want {
			t.Errorf("parameter %d: deviation %g, want %g (a cnp's floor × factor × scale)", q, sd, want)
		}
	}
	set := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}
	preds, err = m.PredictContext(context.Background(), ctxs, sides, PredictOptions{Samples: 1, Refine: 0, Theta: set})
	if err != nil {
		t.Fatal(err)
	}
	for q, sd := range preds[0].ThetaStd {
		if sd != 0 {
			t.Errorf("θ set by hand: parameter %d has deviation %g", q, sd)
		}
	}
}
