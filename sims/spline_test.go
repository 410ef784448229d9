package sims

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestNaturalSplineIntegrals(t *testing.T) {
	// Linear data integrate exactly, on any spacing.
	rng := rand.New(rand.NewPCG(40, 41))
	ts := []float64{0}
	for range 30 {
		ts = append(ts, 10*rng.Float64())
	}
	sort.Float64s(ts)
	xs := make([]float64, len(ts))
	for i, v := range ts {
		xs[i] = 2 - 0.3*v
	}
	got := make([]float64, len(ts))
	naturalSplineIntegrals(got, ts, xs)
	for i, v := range ts {
		if want := 2*v - 0.15*v*v; math.Abs(got[i]-want) > 1e-12 {
			t.Fatalf("linear: ∫ to %v = %v, want %v", v, got[i], want)
		}
	}
	// A smooth function on a fine uniform grid: O(h⁴) inside, and the
	// natural end conditions cost little for a function with small
	// curvature at the ends.
	const n = 201
	ts, xs = make([]float64, n), make([]float64, n)
	for i := range ts {
		ts[i] = 10 * float64(i) / (n - 1)
		xs[i] = 1 + 0.5*math.Sin(ts[i])
	}
	got = make([]float64, n)
	naturalSplineIntegrals(got, ts, xs)
	for i, v := range ts {
		if want := v + 0.5*(1-math.Cos(v)); math.Abs(got[i]-want) > 1e-4 {
			t.Fatalf("sin: ∫ to %v = %v, want %v", v, got[i], want)
		}
	}
	// Two points: the trapezoid; one point: zero.
	two := make([]float64, 2)
	naturalSplineIntegrals(two, []float64{1, 3}, []float64{2, 4})
	if two[0] != 0 || two[1] != 6 {
		t.Errorf("two points: %v, want [0 6]", two)
	}
	one := []float64{7}
	naturalSplineIntegrals(one, []float64{1}, []float64{2})
	if one[0] != 0 {
		t.Errorf("one point: %v", one)
	}
}
