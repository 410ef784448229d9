package core

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestMeanInterval: a known sample, 1…5: mean 3, s = √2.5, and t at 4
// degrees of freedom 2.776445, so the half-width is 1.963243; NaNs are
// left out, one value has no spread, none is NaN.
func TestMeanInterval(t *testing.T) {
	got := MeanInterval([]float64{1, 2, math.NaN(), 3, 4, 5})
	half := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5)
	if got.N != 5 || got.Mean != 3 || math.Abs(got.Lo-(3-half)) > 1e-9 || math.Abs(got.Hi-(3+half)) > 1e-9 {
		t.Errorf("1…5: %+v, want mean 3 ± %.6f over 5", got, half)
	}
	if one := MeanInterval([]float64{7}); one != (Interval{Mean: 7, Lo: 7, Hi: 7, N: 1}) {
		t.Errorf("one value: %+v", one)
	}
	if none := MeanInterval([]float64{math.NaN()}); !math.IsNaN(none.Mean) || none.N != 0 {
		t.Errorf("no value: %+v", none)
	}
}

// TestEvaluateIntervals: over the realizations of Evaluate with the same
// options, the mean is the report's mean and the interval its deviation
// as t·s/√n (the report's is the population deviation); a cancelled
// context stops it.
func TestEvaluateIntervals(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	opt := EvalOptions{Tasks: 32, Seed: 3, Samples: 4, Refine: 0, Context: 10, Noise: 0.01}
	got, err := EvaluateIntervals(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := Evaluate(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tasks != 32 || got.Context != 10 || got.Noise != 0.01 || got.Failed != 0 {
		t.Errorf("intervals of %d tasks (%d failed) at context %d, σ %g", got.Tasks, got.Failed, got.Context, got.Noise)
	}
	const t31 = 2.0395134463964077 // Student's t, 0.975 quantile, 31 degrees of freedom
	for _, k := range []string{KeyReconMAE, KeyDeltaMAE, KeyThetaMAE, KeyReconECE} {
		iv, s := got.Metrics[k], rep.Metrics[k]
		half := t31 * s.Std * math.Sqrt(32.0/31) / math.Sqrt(32)
		if iv.N != 32 || math.Abs(iv.Mean-s.Mean) > 1e-12 || math.Abs((iv.Hi-iv.Mean)-half) > 1e-9*math.Max(1, half) || math.Abs((iv.Mean-iv.Lo)-(iv.Hi-iv.Mean)) > 1e-12 {
			t.Errorf("%s: %+v, want %.6g ± %.6g over 32", k, iv, s.Mean, half)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvaluateIntervals(ctx, m, opt); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
