package tui

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"apic/core"
)

// TestAblChartScale: means spanning more than logSpan are drawn on a log
// scale (one outlier would flatten the rest), others linearly; a value
// not computed yet leaves its column blank; the chart is exactly its
// size and labels the current value.
func TestAblChartScale(t *testing.T) {
	iv := func(m float64) core.Interval { return core.Interval{Mean: m, Lo: 0.9 * m, Hi: 1.1 * m, N: 32} }
	none := core.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	c := ablChart{title: "recon MAE", labels: []string{"l1", "l2", "orth", "grad"}, cur: 1, width: 40, height: 9,
		ivs: []core.Interval{iv(0.003), iv(0.0035), none, iv(0.13)}}.scaled()
	th := newTheme(colorprofile.ASCII)
	lines := c.render(th)
	frameOK(t, strings.Join(lines, "\n"), 40, 9)
	if !strings.Contains(lines[0], "· log") || !strings.Contains(lines[8], "l2") {
		t.Errorf("a 40-fold span:\n%s", strings.Join(lines, "\n"))
	}
	if got := strings.Count(strings.Join(lines[1:8], ""), "●") + strings.Count(strings.Join(lines[1:8], ""), "◆"); got != 3 {
		t.Errorf("%d means drawn, want 3 (one not computed)", got)
	}
	c.ivs[3] = iv(0.004)
	if lines = c.scaled().render(th); strings.Contains(lines[0], "log") {
		t.Errorf("a small span on a log scale:\n%s", strings.Join(lines, "\n"))
	}
}

// TestAblChartNonNegative: an error metric's axis starts at 0 even where
// an interval reaches below it, and the interval is clipped to the body
// (never drawn over the value labels).
func TestAblChartNonNegative(t *testing.T) {
	ivs := []core.Interval{{Mean: 0.005, Lo: -0.001, Hi: 0.011, N: 32}, {Mean: 0.02, Lo: 0.015, Hi: 0.025, N: 32}}
	c := ablChart{title: "θ MAE", labels: []string{"0", "1"}, cur: 0, width: 40, height: 9, ivs: ivs, metric: core.KeyThetaMAE}.scaled()
	th := newTheme(colorprofile.ASCII)
	lines := c.render(th)
	frameOK(t, strings.Join(lines, "\n"), 40, 9)
	if lo, _ := c.yRange(yAxis{}); lo != 0 {
		t.Errorf("axis starts at %v, want 0", lo)
	}
	if frame := strings.Join(lines, "\n"); strings.Contains(frame, "-") || !strings.Contains(lines[8], "0") {
		t.Errorf("a negative label, or the value labels overwritten:\n%s", frame)
	}
	c.metric = core.KeyReconLL // unbounded
	if lo, _ := c.yRange(yAxis{}); lo >= 0 {
		t.Errorf("a signed metric's axis starts at %v, want below 0", lo)
	}
}

// TestAblChartTitleFits: in a narrow chart (80 columns, half the panel)
// the title keeps the log mark and drops digits of the interval rather
// than being cut, leaving the last column blank (the right chart
// borders the sidebar).
func TestAblChartTitleFits(t *testing.T) {
	iv := func(m, half float64) core.Interval { return core.Interval{Mean: m, Lo: m - half, Hi: m + half, N: 32} }
	c := ablChart{title: "δ MAE", labels: []string{"1", "30", "100"}, cur: 1, width: 24, height: 9, metric: core.KeyDeltaMAE,
		ivs: []core.Interval{iv(0.2, 0.01), iv(0.00362, 0.0024), iv(0.0001, 0.00005)}}.scaled()
	lines := c.render(newTheme(colorprofile.ASCII))
	if title := lines[0]; !strings.Contains(title, "· log") || !strings.Contains(title, ".0036±") || strings.Contains(title, "…") || !strings.HasSuffix(title, " ") {
		t.Errorf("title %q: want the interval shortened, the log mark kept, the last column blank", title)
	}
	c.title = "recon MAE"
	if title := c.render(newTheme(colorprofile.ASCII))[0]; !strings.Contains(title, "recon MAE .0036") || !strings.Contains(title, "· log") || !strings.HasSuffix(title, " ") {
		t.Errorf("title %q: want the mean at least, and the log mark", title)
	}
}

// TestAblationTitlesShareDigits: the view's charts write their titles'
// intervals at one precision, the most that fits every title, where
// each alone took the most that fit it (".0018±.0003" beside
// ".00362±.0024").
func TestAblationTitlesShareDigits(t *testing.T) {
	mk := func(title, metric string, w int, iv core.Interval) ablChart {
		return ablChart{title: title, metric: metric, labels: []string{"1", "2"}, cur: 0, width: w, height: 9,
			ivs: []core.Interval{iv, iv}}.scaled()
	}
	charts := []ablChart{
		mk("recon MAE", core.KeyReconMAE, 22, core.Interval{Mean: 0.0018341, Lo: 0.0015271, Hi: 0.0021411, N: 32}),
		mk("δ MAE", core.KeyDeltaMAE, 40, core.Interval{Mean: 0.0036213, Lo: 0.0012202, Hi: 0.0060224, N: 32}),
	}
	th := newTheme(colorprofile.ASCII)
	alone := []string{charts[0].render(th)[0], charts[1].render(th)[0]}
	d := sharedDigits(charts)
	if d == ([2]int{}) {
		t.Fatal("no shared digits for two titles that fit")
	}
	for i := range charts {
		charts[i].digits = d
		room, _ := charts[i].titleRoom()
		want, _ := intervalAt(charts[i].metric, charts[i].ivs[0], room, d, false)
		if got := charts[i].render(th)[0]; !strings.Contains(got, want) {
			t.Errorf("chart %d title %q (alone %q), want the interval %q at digits %v", i, got, alone[i], want, d)
		}
	}
	if alone[1] == charts[1].render(th)[0] {
		t.Errorf("the wide chart's title kept its own digits: %q", alone[1])
	}
	// A title too narrow for any interval (its mean alone shows) does
	// not undo the sharing of the others.
	narrow := mk("recon MAE", core.KeyReconMAE, 18, core.Interval{Mean: 0.0018341, Lo: 0.0015271, Hi: 0.0021411, N: 32})
	if got := sharedDigits(append(charts, narrow)); got != d {
		t.Errorf("with a title that fits no interval: digits %v, want %v", got, d)
	}
}

// TestAblChartCurrentOverNeighbours: where values share a column (28
// context sizes in an 80-column view), the current value's ◆ is drawn
// over its neighbours' bars and means, at every width; drawn in order,
// the next value's bar covered it.
func TestAblChartCurrentOverNeighbours(t *testing.T) {
	ladder := contextLadder(4096)
	labels := make([]string, len(ladder))
	ivs := make([]core.Interval, len(ladder))
	for i, n := range ladder {
		labels[i] = formatLadder(n)
		m := 0.1 / math.Sqrt(n) // falling, on a log scale, the intervals overlapping
		ivs[i] = core.Interval{Mean: m, Lo: 0.1 * m, Hi: 10 * m, N: 32}
	}
	for _, cur := range []int{slices.Index(ladder, 256), slices.Index(ladder, 30)} {
		for w := 18; w <= 40; w++ {
			c := ablChart{title: "recon MAE", metric: core.KeyReconMAE, labels: labels, ivs: ivs, cur: cur, width: w, height: 10}.scaled()
			lines := c.render(newTheme(colorprofile.ASCII))
			frameOK(t, strings.Join(lines, "\n"), w, 10)
			if body := strings.Join(lines[1:9], "\n"); !strings.Contains(body, "◆") {
				t.Errorf("width %d: the current value's ◆ (%s) is hidden:\n%s", w, labels[cur], strings.Join(lines, "\n"))
			}
		}
	}
}
