package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// number matches a number as the sidebar writes it: ".000121", "6.8e-5".
var number = regexp.MustCompile(`-?\d*\.?\d+(e-?\d+)?`)

// oneNotation reports whether the numbers of row take exponents all of
// them or none.
func oneNotation(row string) bool {
	nums := number.FindAllString(ansi.Strip(row), -1)
	exp := 0
	for _, n := range nums {
		if strings.Contains(n, "e") {
			exp++
		}
	}
	return exp == 0 || exp == len(nums)
}

// rowOf is the line of lines that holds label.
func rowOf(t *testing.T, lines []string, label string) string {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, label) {
			return l
		}
	}
	t.Fatalf("no row %q in\n%s", label, strings.Join(lines, "\n"))
	return ""
}

// TestRowsTakeOneNotation: a row of the sidebar writes its numbers in
// one notation. The averages' row read "recon MAE 5.0e-5
// .000121±6.8e-5", an exponent below 1e-4 for one number and not for
// the other; the metrics beside each other, and a θ row's estimate
// beside its σ (".01227±4e-5"), mixed them too. In decimals where they
// fit so, else all with exponents.
func TestRowsTakeOneNotation(t *testing.T) {
	m := newAvgTest(t, "spring", 80, 24)
	vals := m.res.metrics.Values
	vals[core.KeyReconMAE], vals[core.KeyDeltaMAE], vals[core.KeyThetaMAE] = 5.0e-5, 1.21e-4, 1.9e-5
	avg := *m.avg.res
	avg.Metrics = map[string]core.Interval{}
	for k, iv := range m.avg.res.Metrics {
		avg.Metrics[k] = iv
	}
	avg.Metrics[core.KeyReconMAE] = core.Interval{Mean: 1.21e-4, Lo: 1.21e-4 - 6.8e-5, Hi: 1.21e-4 + 6.8e-5, N: 32}
	avg.Metrics[core.KeyDeltaMAE] = core.Interval{Mean: 0.0123, Lo: 0.0123 - 0.002, Hi: 0.0123 + 0.002, N: 32}
	m.avg.res = &avg
	table := m.averagedLines(smallSideW, len(avgRows)+1, "")
	for _, want := range []string{"recon MAE 5.0e-5  1.2e-4±7e-5", "δ MAE     .00012  .012±.002", "θ MAE     .000019"} {
		if row := rowOf(t, table, strings.Fields(want)[0]+" "+strings.Fields(want)[1]); !strings.Contains(row, want) || !oneNotation(row) {
			t.Errorf("averages: row %q, want %q", row, want)
		}
	}
	m.opts.Averages = -1
	box := m.metricsLines(30)
	for _, label := range []string{"recon MAE", "recon LL"} {
		if row := rowOf(t, box, label); !oneNotation(row) {
			t.Errorf("metrics: row %q mixes notations", row)
		}
	}
	if row := rowOf(t, box, "recon MAE"); !strings.Contains(row, "5.0e-5") || !strings.Contains(row, "1.2e-4") {
		t.Errorf("metrics: row %q, want 5.0e-5 and 1.2e-4", row)
	}
	c := thetaControl{name: "kappa", sym: "κ", lo: 0.002, hi: 0.08}
	for _, w := range []int{smallSideW, bigSideW} {
		if row := c.view(w, false, plainTheme, 0.01227, 4e-5, 0.05095); !oneNotation(row) || !strings.Contains(row, ".01227") {
			t.Errorf("%d cells: θ row %q", w, row)
		}
	}
}
