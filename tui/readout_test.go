package tui

import (
	"math"
	"strings"
	"testing"
)

func TestMetricNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.0123, ".0123"}, {0.00753, ".00753"}, {3.26, "3.26"}, {-0.5, "-.5"}, {0, "0"},
		{3.51e-05, "3.5e-5"}, {-2.04e-7, "-2.0e-7"}, {0.000999, ".000999"}, {9.6e-5, "9.6e-5"}, {8.68, "8.68"},
		{-37200, "-3.7e4"}, {999, "999"}, {1234.5, "1.2e3"}, {-1.5e30, "-1.5e30"}, {math.Inf(-1), "-Inf"},
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

// TestThetaRowKeepsSmallSigmaWhole: a σ that would not fit at two
// significant digits is shown at one, never cut mid-exponent.
func TestThetaRowKeepsSmallSigmaWhole(t *testing.T) {
	c := thetaControl{name: "kappa", sym: "κ", lo: 0.002, hi: 0.08}
	row := c.view(40, false, plainTheme, 0.0312, 1.5e-6, 0.0312)
	if !strings.Contains(row, ".0312±2e-6 ") {
		t.Errorf("row %q: want .0312±2e-6", row)
	}
	if row = c.view(40, false, plainTheme, 0.0312, 0, 0.0312); !strings.Contains(row, ".0312±– ") {
		t.Errorf("row %q: want .0312±– (no spread, not ±0)", row)
	}
	row = c.view(40, false, plainTheme, 1.14, 2.0e-5, 1.14)
	if !strings.Contains(row, "1.14±2.0e-5") {
		t.Errorf("row %q: want 1.14±2.0e-5 (two digits fit)", row)
	}
}
