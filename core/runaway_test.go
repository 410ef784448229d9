package core

import (
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// A prediction a million times beyond its data (context values, side
// information, or 1) has run away; eval and diagnose count it failed
// instead of averaging its finite, meaningless numbers.
func TestRunaway(t *testing.T) {
	ctx := sims.Context{Values: [][]float64{{0.5, 3}, {-2, 1}}}
	for _, c := range []struct {
		p    Prediction
		side []float64
		want string
	}{
		{Prediction{Mean: []float64{1, -2.9e6}}, nil, ""},
		{Prediction{Mean: []float64{1, -3.1e6}}, nil, "its prediction reaches -3.1e+06"},
		{Prediction{Mean: []float64{1, -3.1e6}}, []float64{5}, ""},
		{Prediction{NoiseStd: []float64{1e7}}, nil, "its noise σ̂ reaches 1e+07"},
		{Prediction{Nominal: []float64{2e6}}, nil, ""},
	} {
		got := c.p.Runaway(ctx, c.side)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v, side %v: %q, want %q", c.p, c.side, got, c.want)
		}
	}
	task := sims.Task{Context: ctx}
	if tm := scoreOrFail(nil, task, Prediction{Mean: []float64{4e6}}); !strings.Contains(tm.Failed, "diverged") {
		t.Errorf("scoreOrFail of a runaway prediction: %+v", tm)
	}
}

// Problem names what is not finite as calibrate's table and Runaway do:
// "std", not "standard deviation" in one place and "deviation" in
// another.
func TestProblemNamesAsCalibrate(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		p    Prediction
		want string
	}{
		{Prediction{Mean: []float64{math.NaN()}}, "the prediction is not finite"},
		{Prediction{Std: []float64{inf}}, "the prediction std is not finite"},
		{Prediction{DeltaMean: []float64{inf}}, "the discrepancy is not finite"},
		{Prediction{DeltaStd: []float64{inf}}, "the discrepancy std is not finite"},
		{Prediction{Theta: []float64{math.NaN()}}, "θ̂ is not finite"},
		{Prediction{Mean: []float64{1}, Std: []float64{0.1}}, ""},
	} {
		if got := c.p.Problem(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
