package tui

import (
	"math"
	"strings"
	"testing"

	"apic/core"
)

func TestShortNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.0123, ".0123"}, {0.00753, ".00753"}, {3.26, "3.26"}, {-0.5, "-.5"}, {0, "0"},
		{3.51e-05, "3.5e-5"}, {-2.04e-7, "-2.0e-7"}, {0.000999, ".000999"}, {9.6e-5, "9.6e-5"}, {8.68, "8.68"},
		{-37200, "-3.7e4"}, {999, "999"}, {1234.5, "1.2e3"}, {999.7, "1.0e3"}, {-1.5e30, "-1.5e30"}, {math.Inf(-1), "-Inf"},
	} {
		if got := shortNumber(tc.v, 3); got != tc.want {
			t.Errorf("shortNumber(%v, 3) = %q, want %q", tc.v, got, tc.want)
		}
		if n := len([]rune(shortNumber(tc.v, 3))); n > 7 {
			t.Errorf("shortNumber(%v, 3) has %d characters", tc.v, n)
		}
	}
	if shortNumber(math.NaN(), 3) != "–" {
		t.Errorf("NaN: %q", shortNumber(math.NaN(), 3))
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

// TestMetricsFitTheSidebar: seven-character values that would be cut in
// a 30-cell sidebar (the 100×30 layout) drop to fewer digits instead, so
// every value shows whole; where they fit, three digits stay.
func TestMetricsFitTheSidebar(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	vals := m.res.metrics.Values
	vals[core.KeyReconMAE], vals[core.KeyDeltaMAE], vals[core.KeyThetaMAE] = 0.000999, 0.000888, 0.000777
	vals[core.KeyReconLL], vals[core.KeyReconECE] = -1.5e30, 0.0123
	lines := m.metricsLines(30)
	for _, want := range []string{"recon MAE .001 ", "δ MAE .00089", "θ MAE     .00078", "LL    -1e30", "recon ECE .0123"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("30 cells: %q missing from\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if wide := strings.Join(m.metricsLines(40), "\n"); !strings.Contains(wide, "recon MAE .000999") {
		t.Errorf("40 cells: three digits lost:\n%s", wide)
	}
	// Tiny values: a negative LL and a two-digit exponent.
	vals[core.KeyReconLL], vals[core.KeyReconMAE] = -4.04e-5, 1.23e-10
	joined := strings.Join(m.metricsLines(30), "\n")
	for _, want := range []string{"LL    -4e-5", "recon MAE 1e-10"} {
		if !strings.Contains(joined, want) {
			t.Errorf("30 cells: %q missing from\n%s", want, joined)
		}
	}
}
