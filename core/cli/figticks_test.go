package cli

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot"
)

// The labels are round multiples of one step, zero among them whenever
// the range spans it, at most seven of them.
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{-1.1, 1.9, "[-1.0 -0.5 0.0 0.5 1.0 1.5]"},
		{0, 4, "[0 1 2 3 4]"},
		{-0.82, 1.67, "[-0.5 0.0 0.5 1.0 1.5]"},
		{0.2, 1, "[0.2 0.4 0.6 0.8 1.0]"},
		{-0.003, 0.0021, "[-0.003 -0.002 -0.001 0.000 0.001 0.002]"},
		{-3e7, 2e7, "[-3e+07 -2e+07 -1e+07 0 1e+07 2e+07]"},
	} {
		var labels []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := fmt.Sprint(labels); got != c.want {
			t.Errorf("[%g, %g]: labels %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// roundRange widens an axis to labelled round ticks at both ends, even
// where widening coarsens the step.
func TestRoundRangeEndsOnLabels(t *testing.T) {
	for _, c := range [][2]float64{{-1.33, 1.61}, {-0.98, 1.7}, {0.31, 0.42}, {-3e-5, 2e-5}, {0, 4}} {
		ax := plot.Axis{Min: c[0], Max: c[1]}
		roundRange(&ax)
		tol := 1e-9 * (c[1] - c[0]) // the ends are multiples of the step as floats make them
		if ax.Min > c[0]+tol || ax.Max < c[1]-tol {
			t.Errorf("%v: rounded to [%g, %g], which does not hold it", c, ax.Min, ax.Max)
		}
		var first, last plot.Tick
		for _, tk := range (niceTicks{}).Ticks(ax.Min, ax.Max) {
			if tk.Label != "" {
				if first.Label == "" {
					first = tk
				}
				last = tk
			}
		}
		if math.Abs(first.Value-ax.Min) > tol || math.Abs(last.Value-ax.Max) > tol {
			t.Errorf("%v: axis [%g, %g], labels from %g to %g", c, ax.Min, ax.Max, first.Value, last.Value)
		}
	}
}
