package tui

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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
// significant digits is shown at one, never cut mid-exponent, and the
// estimate reaches its place; short of room for its decimals, σ goes in
// parentheses, in the estimate's notation.
func TestThetaRowKeepsSmallSigmaWhole(t *testing.T) {
	c := thetaControl{name: "kappa", sym: "κ", lo: 0.002, hi: 0.08}
	row := c.view(40, false, plainTheme, 0.0312, 1.5e-6, 0.0312)
	if !strings.Contains(row, ".031200(2) ") {
		t.Errorf("row %q: want .031200(2)", row)
	}
	if row = c.view(40, false, plainTheme, 0.0312, 0, 0.0312); !strings.Contains(row, ".0312±– ") {
		t.Errorf("row %q: want .0312±– (no spread, not ±0)", row)
	}
	row = c.view(40, false, plainTheme, 1.14, 2.0e-5, 1.14)
	if !strings.Contains(row, "1.14000(2)") {
		t.Errorf("row %q: want 1.14000(2)", row)
	}
}

// TestThetaRowKeepsTheTruthBesideASetValue: a value set by hand of five
// characters (".0566" on advdiff's κ ladder) cut the truth beside it to
// ".05…" in the small sidebar. It takes two digits there instead, and
// its three where they fit.
func TestThetaRowKeepsTheTruthBesideASetValue(t *testing.T) {
	c := thetaControl{name: "kappa", sym: "κ", lo: 0.002, hi: 0.08, set: true, value: 0.0566}
	for _, focused := range []bool{false, true} {
		row := c.view(smallSideW, focused, plainTheme, 0.0510, 6e-5, 0.0510)
		if !strings.Contains(row, " .05100 ") || !strings.Contains(row, " .057 ") || strings.Contains(row, "…") {
			t.Errorf("focused %v, %d cells: row %q; want the truth .05100 whole and the value .057", focused, smallSideW, row)
		}
	}
	if row := c.view(bigSideW, true, plainTheme, 0.0510, 6e-5, 0.0510); !strings.Contains(row, " .0566 ") {
		t.Errorf("%d cells: row %q; want the value's three digits", bigSideW, row)
	}
	c.value = 1.125
	if row := c.view(smallSideW, true, plainTheme, 1.13993, 0.00041, 1.14012); !strings.Contains(row, " 1.12 ") {
		t.Errorf("%d cells: row %q; want the value's three digits, which fit", smallSideW, row)
	}
}

// TestMetricsFitTheSidebar: the metrics take one count of significant
// digits for the whole table, trailing zeros kept: three where every
// value fits, else two. Each value chose its own before: ".001" (one
// digit, %g's zeros dropped) above ".00089" and ".0123". A value that
// fits at neither (a failed fit's LL) takes fewer alone, so no value
// is ever cut.
func TestMetricsFitTheSidebar(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	vals := m.res.metrics.Values
	vals[core.KeyReconMAE], vals[core.KeyDeltaMAE], vals[core.KeyThetaMAE] = 0.000999, 0.000888, 0.000777
	vals[core.KeyReconLL], vals[core.KeyReconECE] = -1.5e30, 0.0123
	lines := m.metricsLines(30)
	// A row takes one notation: θ MAE an exponent beside the LL's.
	for _, want := range []string{"recon MAE .0010 ", "δ MAE .00089", "θ MAE 7.8e-4", "recon LL  -1e30", "recon ECE .012"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("30 cells: %q missing from\n%s", want, strings.Join(lines, "\n"))
		}
	}
	wide := strings.Join(m.metricsLines(40), "\n")
	for _, want := range []string{"recon MAE .000999", "recon LL  -1.5e30", "θ MAE 7.8e-4", "recon ECE .0123"} {
		if !strings.Contains(wide, want) {
			t.Errorf("40 cells: three digits lost, %q missing from\n%s", want, wide)
		}
	}
	// Tiny values: a negative LL and a two-digit exponent.
	vals[core.KeyReconLL], vals[core.KeyReconMAE] = -4.04e-5, 1.23e-10
	joined := strings.Join(m.metricsLines(30), "\n")
	for _, want := range []string{"recon LL  -4e-5", "recon MAE 1e-10"} {
		if !strings.Contains(joined, want) {
			t.Errorf("30 cells: %q missing from\n%s", want, joined)
		}
	}
}

// TestMetricsMisfitHoldsTheTableAtTwo pins the sidebar's rule for a
// value that fits at neither three digits nor two (a tiny negative LL
// in 6 cells): it takes fewer alone, and the table takes two digits,
// not three ("three where every value fits"), in the metrics box and
// in the table beside the averages alike.
func TestMetricsMisfitHoldsTheTableAtTwo(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	vals := m.res.metrics.Values
	vals[core.KeyReconMAE], vals[core.KeyDeltaMAE], vals[core.KeyThetaMAE] = 0.0123, 0.0234, 0.0344
	vals[core.KeyReconLL], vals[core.KeyReconECE] = -4.04e-5, 0.0456
	joined := strings.Join(m.metricsLines(30), "\n")
	for _, want := range []string{"recon MAE .012 ", "δ MAE .023", "θ MAE 3.4e-2", "recon LL  -4e-5", "recon ECE .046"} {
		if !strings.Contains(joined, want) {
			t.Errorf("metrics box: %q missing from\n%s", want, joined)
		}
	}
	ones, _ := m.avgCells(5, 11) // "-4.0e-5" fits 5 cells at neither
	if want := []string{".012", ".023", ".034", ".046", "-4e-5"}; !slices.Equal(ones, want) {
		t.Errorf("table beside the averages: %q, want %q", ones, want)
	}
}

// sigDigits counts the significant digits a number is written with
// (".0010": 2, "4.20": 3, "-3.5e-5": 2).
func sigDigits(s string) int {
	s, _, _ = strings.Cut(strings.TrimLeft(s, "-"), "e")
	s = strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0")
	return len(s)
}

// TestSigFixed: the significant digits asked for, trailing zeros kept.
func TestSigFixed(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		digits int
		want   string
	}{
		{0.22, 3, ".220"}, {4.2, 3, "4.20"}, {4.2, 2, "4.2"}, {0.000999, 2, ".0010"}, {-0.92, 3, "-.920"},
		{0.9996, 3, "1.00"}, {123, 3, "123"}, {1234.5, 3, "1.2e3"}, {3.5e-5, 3, "3.5e-5"}, {0, 3, "0"},
	} {
		if got := sigFixed(tc.v, tc.digits); got != tc.want {
			t.Errorf("sigFixed(%v, %d) = %q, want %q", tc.v, tc.digits, got, tc.want)
		}
	}
	if sigDigits(".0010") != 2 || sigDigits("4.20") != 3 || sigDigits("-3.5e-5") != 2 {
		t.Error("sigDigits miscounts")
	}
}

// TestSidebarLLIsTheReconstructions: the log-likelihood the sidebar
// shows is the reconstruction's (core.KeyReconLL), and both metric
// tables and the ? help call it "recon LL", as eval does: a bare "LL"
// read as the model's, or δ's.
func TestSidebarLLIsTheReconstructions(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.res.metrics.Values[core.KeyReconLL] = 4.25
	avg := newAvgTest(t, "spring", 80, 24)
	avg.res.metrics.Values[core.KeyReconLL] = 4.25
	for name, lines := range map[string][]string{
		"metrics box":         m.metricsLines(30),
		"beside the averages": avg.averagedLines(30, 10, ""),
	} {
		side := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.Contains(side, "recon LL") || !strings.Contains(side, "4.25") {
			t.Errorf("%s: no \"recon LL\" beside 4.25:\n%s", name, side)
		}
		if n, labelled := strings.Count(side, "LL"), strings.Count(side, "recon LL"); n != labelled {
			t.Errorf("%s: %d LL, %d of them labelled recon LL:\n%s", name, n, labelled, side)
		}
	}
	help := strings.Join(helpAt(m, 80), "\n")
	if !strings.Contains(help, "  recon LL: mean log-density of G") {
		t.Errorf("the help defines no recon LL:\n%s", help)
	}
}

// TestThetaRowMarksAPriorWideSigma: a σ nearly the prior's own
// (core.NearPrior, the rule of diagnose's warning) is marked on the row,
// so "5.94±1.44" beside a truth of 5.47 does not read as a fit; a
// narrower σ is not, and the mark never cuts the truth. The help says
// what the mark means.
func TestThetaRowMarksAPriorWideSigma(t *testing.T) {
	omega := thetaControl{name: "omega", sym: "ω", lo: 3, hi: 8}
	capSD := (omega.hi - omega.lo) / math.Sqrt(12)
	for _, tc := range []struct {
		sd   float64
		mark bool
	}{{capSD, true}, {0.9 * capSD, true}, {0.85 * capSD, false}, {0.2, false}} {
		for _, w := range []int{smallSideW, bigSideW} {
			row := omega.view(w, false, plainTheme, 5.94, tc.sd, 5.47)
			if strings.Contains(row, nearPriorMark) != tc.mark || !strings.Contains(row, " 5.47 ") {
				t.Errorf("σ %.3g, %d cells: row %q; want the mark %v and the truth 5.47 whole", tc.sd, w, row, tc.mark)
			}
		}
	}
	// lv's α on a one-point context: the prior's σ at one decimal.
	alpha := thetaControl{name: "alpha", sym: "α", lo: 0.5, hi: 1.5}
	if row := alpha.view(smallSideW, true, plainTheme, 0.9716, 0.2887, 0.9931); !strings.Contains(row, nearPriorMark+" ") || strings.Contains(row, "…") {
		t.Errorf("row %q: want the mark and nothing cut", row)
	}
	m := newTest(t, "spring", 120, 40)
	if !slices.Contains(m.thetaRowsHelp(), nearPriorHelp) {
		t.Errorf("the θ rows' help %q does not explain %s", m.thetaRowsHelp(), nearPriorMark)
	}
}
