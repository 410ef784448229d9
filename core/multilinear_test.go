package core

import (
	"math"
	"testing"

	"apic/sims"
)

// TestMultilinearPeriodic: on advdiff's periodic x axis (points i/64) a
// state past the last point interpolates towards x = 0, one period on,
// and x = 1 is x = 0; the t axis, not periodic, holds its end value.
func TestMultilinearPeriodic(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	axes, ps := productAxes(g, 1), periods(g)
	nx := len(axes[1])
	weightAt := func(st []float64) map[int]float64 {
		idx, ws, err := multilinear(axes, ps, st)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]float64{}
		for i, p := range idx {
			out[p] += ws[i]
		}
		return out
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// t = 0 (row 0): x = 1 − 1/128 lies halfway between x = 63/64 and x = 0.
	w := weightAt([]float64{0, 1 - 0.5/float64(nx)})
	if !near(w[nx-1], 0.5) || !near(w[0], 0.5) {
		t.Errorf("x halfway past the last point: weights %v, want 0.5 on %d and 0", w, nx-1)
	}
	w = weightAt([]float64{0, 1})
	if !near(w[0], 1) || !near(w[nx-1], 0) {
		t.Errorf("x = 1: weights %v, want all on x = 0", w)
	}
	// t beyond the last time is held at the last row.
	last := (len(axes[0]) - 1) * nx
	w = weightAt([]float64{1.5, 0})
	if !near(w[last], 1) {
		t.Errorf("t past the end: weights %v, want all on %d", w, last)
	}
}
