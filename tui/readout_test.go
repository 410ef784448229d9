package tui

import (
	"math"
	"testing"
)

func TestMetricNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.0123, ".0123"}, {0.00753, ".00753"}, {3.26, "3.26"}, {-0.5, "-.5"}, {0, "0"},
		{3.51e-05, "3.5e-5"}, {-2.04e-7, "-2.0e-7"}, {0.000999, ".000999"}, {9.6e-5, "9.6e-5"}, {8.68, "8.68"},
	} {
		if got := metricNumber(tc.v); got != tc.want {
			t.Errorf("metricNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
		if n := len([]rune(metricNumber(tc.v))); n > 7 {
			t.Errorf("metricNumber(%v) has %d characters", tc.v, n)
		}
	}
	if metricNumber(math.NaN()) != "–" {
		t.Errorf("NaN: %q", metricNumber(math.NaN()))
	}
}
