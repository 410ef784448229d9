package sims

import (
	"math"
	"testing"
)

func TestKnotInterpolation(t *testing.T) {
	knots := []float64{0, 0.5, 2, 3}
	times := []float64{-1, 0, 0.25, 0.5, 1.25, 2.9, 3, 4}
	a := knotInterpolation(knots, times)
	// A linear function is reproduced exactly inside the knots; outside,
	// the nearest knot's value is held.
	line := func(x float64) float64 { return 2 - 3*x }
	for m, tau := range times {
		var got, colSum float64
		for k, tk := range knots {
			got += line(tk) * a.At(k, m)
			colSum += a.At(k, m)
		}
		want := line(math.Min(math.Max(tau, knots[0]), knots[len(knots)-1]))
		if math.Abs(got-want) > 1e-14 || math.Abs(colSum-1) > 1e-14 {
			t.Errorf("τ = %v: interpolated %v (weights sum %v), want %v", tau, got, colSum, want)
		}
	}
	// A knot time takes exactly that knot's value.
	if a.At(1, 3) != 1 || a.At(0, 3) != 0 || a.At(2, 3) != 0 {
		t.Errorf("knot 0.5 weights %v", []float64{a.At(0, 3), a.At(1, 3), a.At(2, 3)})
	}
	defer func() {
		if recover() == nil {
			t.Error("descending knots did not panic")
		}
	}()
	knotInterpolation([]float64{1, 0}, times)
}
