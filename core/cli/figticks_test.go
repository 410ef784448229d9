package cli

import (
	"fmt"
	"testing"
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
