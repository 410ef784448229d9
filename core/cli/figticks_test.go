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
		{0.5, 1.5, "[0.5 1.0 1.5]"},
		{0.6, 1.5, "[0.6 0.8 1.0 1.2 1.4]"},
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

// TestTickLabelsDiffer: neighbouring labels never read the same, however
// narrow the range (a sweep's metric from 0.02747 to 0.02763 once had
// two ticks labelled 0.0276), nor however far from zero.
func TestTickLabelsDiffer(t *testing.T) {
	for _, c := range [][2]float64{{0.02747, 0.02763}, {0.0274, 0.0277}, {1.00001, 1.00002}, {1234567, 1234568},
		{-3e-7, 2e-7}, {0.9999, 1.0001}, {123.4561, 123.4563}, {5e9, 5.0000001e9}} {
		ax := plot.Axis{Min: c[0], Max: c[1]}
		roundRange(&ax)
		for _, r := range []plot.Axis{{Min: c[0], Max: c[1]}, ax} {
			var labels []string
			for _, tk := range (niceTicks{}).Ticks(r.Min, r.Max) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if len(labels) < 2 {
				t.Errorf("[%g, %g]: labels %v, want at least two", r.Min, r.Max, labels)
			}
			for i := 1; i < len(labels); i++ {
				if labels[i] == labels[i-1] {
					t.Errorf("[%g, %g]: labels %v repeat %s", r.Min, r.Max, labels, labels[i])
				}
			}
		}
	}
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0.02747, 0.02763) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got, want := fmt.Sprint(labels), "[0.0275 0.02755 0.0276]"; got != want {
		t.Errorf("[0.02747, 0.02763]: labels %s, want %s", got, want)
	}
}

// roundRange widens an axis to labelled round ticks at both ends, even
// where widening coarsens the step, and where the end is a multiple of
// the step only up to rounding: [0.62, 1.62] rounds to [3 × 0.2, 1.8],
// 3 × 0.2 being 0.6000000000000001, whose label 0.6 was left out.
func TestRoundRangeEndsOnLabels(t *testing.T) {
	for _, c := range [][2]float64{{-1.33, 1.61}, {-0.98, 1.7}, {0.31, 0.42}, {-3e-5, 2e-5}, {0, 4}, {0.62, 1.62}} {
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
