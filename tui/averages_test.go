package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"apic/core"
)

// newAvgTest is newTest with the sidebar's averages, computed.
func newAvgTest(t testing.TB, sys string, w, h int) Model {
	t.Helper()
	return newAvgTestOf(t, avgTasks, sys, w, h)
}

// newAvgTestOf is newAvgTest with the averages over n realizations.
func newAvgTestOf(t testing.TB, n int, sys string, w, h int) Model {
	t.Helper()
	m, err := New(Options{System: sys, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: n})
	if err != nil {
		t.Fatal(err)
	}
	// The first update starts the averages: run, not send, runs them.
	m, _ = run(t, m, func() tea.Msg { return tea.ColorProfileMsg{Profile: colorprofile.ASCII} })
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = run(t, m, m.Init())
	return m
}

// TestAveragesFollowTheSettings: the sidebar's averages are
// core.EvaluateIntervals of the model at the current context and noise
// over avgTasks seeded realizations; moving the context cancels the
// running evaluation, shows "…" meanwhile, and computes anew.
func TestAveragesFollowTheSettings(t *testing.T) {
	m := newAvgTest(t, "spring", 80, 24)
	want, err := core.EvaluateIntervals(context.Background(), m.entry().model, m.evalOptions(avgTasks, 30, 0))
	if err != nil {
		t.Fatal(err)
	}
	if m.avg.res == nil || m.avg.res.Metrics[core.KeyReconMAE] != want.Metrics[core.KeyReconMAE] {
		t.Fatalf("averages %+v, want %+v", m.avg.res, want.Metrics[core.KeyReconMAE])
	}
	if frame := m.render(); !strings.Contains(frame, plainTheme.intervalText(core.KeyReconMAE, want.Metrics[core.KeyReconMAE], 11, false)) {
		t.Errorf("the sidebar lacks recon MAE %s:\n%s", plainTheme.intervalText(core.KeyReconMAE, want.Metrics[core.KeyReconMAE], 11, false), frame)
	}
	m = focusOn(t, m, ctlContext)
	nm, cmd := m.Update(keyMsg("left"))
	m = nm.(Model)
	if m.avg.res != nil || m.avg.key.context != 25 || !strings.Contains(m.render(), "…") {
		t.Fatalf("while computing: result %v at context %d", m.avg.res != nil, m.avg.key.context)
	}
	m, _ = run(t, m, cmd)
	if m.avg.res == nil || m.avg.res.Context != 25 {
		t.Fatalf("after context 25: %+v", m.avg.res)
	}
}

// TestGoldenAverages: the sidebar with the averages beside the
// realization's metrics, at the smallest size (where the heading and LL
// make room) and a large one.
func TestGoldenAverages(t *testing.T) {
	for _, sys := range []string{"spring", "lv"} {
		for _, sz := range [][2]int{{80, 24}, {80, 23}, {80, minHeight}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sys, sz[0], sz[1]), func(t *testing.T) {
				m := newAvgTest(t, sys, sz[0], sz[1])
				frame := m.render()
				frameOK(t, frame, sz[0], sz[1])
				golden.RequireEqual(t, []byte(frame))
			})
		}
	}
	// Over few realizations at 80 columns the heading has the least
	// room for what it says: it must still say "mean".
	t.Run("spring_80x24_few", func(t *testing.T) {
		m := newAvgTestOf(t, 5, "spring", 80, 24)
		frame := m.render()
		frameOK(t, frame, 80, 24)
		if !strings.Contains(frame, "mean/5 (few)") {
			t.Errorf("the averages' heading lost \"mean\" or \"(few)\":\n%s", frame)
		}
		golden.RequireEqual(t, []byte(frame))
	})
}

// TestAveragesFromTheAblationView: with the λθ curve computed, moving
// λθ onto another atlas cell shows that cell's averages at once, from
// the curve's point, without evaluating again.
func TestAveragesFromTheAblationView(t *testing.T) {
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: fakeAtlas(t, map[string]int{})})
	if err != nil {
		t.Fatal(err)
	}
	m = sized(t, m, 80, 24)
	m, _ = run(t, m, m.Init())
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "A")
	nm, _ := m.Update(keyMsg("left")) // λθ 0.5
	m = nm.(Model)
	if m.entry().cell.Value != "0.5" || m.avg.res == nil || m.avg.cancel != nil {
		t.Fatalf("cell %v, averages %v, running %v: want λθ 0.5's averages at once", m.entry().cell, m.avg.res != nil, m.avg.cancel != nil)
	}
	if p := m.abl.points[3]; p.label != ".5" || m.avg.res != p.res {
		t.Errorf("averages %+v, want the curve's point %s %+v", m.avg.res, p.label, p.res)
	}
}

// TestAveragesHeadingSaysWhatTheyAre: with θ set by hand the averages'
// heading says they are at θ̂; while training, that they wait for the
// run's end, with no stale values beside the live weights.
func TestAveragesHeadingSaysWhatTheyAre(t *testing.T) {
	m := newAvgTest(t, "spring", 160, 48)
	if frame := m.render(); !strings.Contains(frame, "mean±95% CI/32") || strings.Contains(frame, "θ̂ mean") {
		t.Fatalf("the averages' heading before any change:\n%s", frame)
	}
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right", "right")
	if frame := m.render(); !strings.Contains(frame, "θ̂ mean±95%/32") {
		t.Errorf("θ set by hand: the heading does not say the averages are at θ̂:\n%s", frame)
	}
	m, _ = press(t, m, "a")
	m, _ = startRun(t, m)
	lines := m.averagedLines(38, 6, "")
	if !strings.Contains(lines[0], "mean: after run") {
		t.Errorf("training: heading %q", lines[0])
	}
	// The sidebar's column at 80 columns, 12 cells, held "after run"
	// alone: not what the column will show.
	if got := m.avgHeading(12); got != "mean: at end" {
		t.Errorf("training, 12 cells: heading %q", got)
	}
	for _, l := range lines[1:] {
		if strings.Contains(l, "±") {
			t.Errorf("training: an average beside the live weights: %q", l)
		}
	}
}

// sidebarLines are the frame's sidebar columns (the last w cells of
// each line).
func sidebarLines(frame string, w int) []string {
	var out []string
	for _, l := range strings.Split(frame, "\n") {
		r := []rune(l)
		out = append(out, string(r[max(0, len(r)-w):]))
	}
	return out
}

// TestAveragesHeadingSaysFew: over fewer than avgFew realizations the
// averages' heading marks the interval rough with "(few)", on the
// smallest terminal too, and the help says what the mark means; from
// avgFew on, neither does. With θ set by hand, "θ̂" keeps its place.
func TestAveragesHeadingSaysFew(t *testing.T) {
	for _, tc := range []struct {
		n, w, h, sideW int
		want           string // the heading's averages column; "" for no mark
	}{{5, 80, 24, smallSideW, "mean/5 (few)"}, {5, 160, 48, bigSideW, "mean±95%/5 (few)"}, {9, 80, 24, smallSideW, "mean/9 (few)"}, {avgFew, 80, 24, smallSideW, ""}} {
		t.Run(fmt.Sprintf("%d_%dx%d", tc.n, tc.w, tc.h), func(t *testing.T) {
			m := newAvgTestOf(t, tc.n, "spring", tc.w, tc.h)
			frame := m.render()
			frameOK(t, frame, tc.w, tc.h)
			head := ""
			for _, l := range sidebarLines(frame, tc.sideW) {
				if strings.Contains(l, "this") {
					head = l
				}
			}
			help := strings.Join(helpAt(m, tc.w), "\n")
			if tc.want == "" {
				if strings.Contains(head, "few") || strings.Contains(help, "(few)") {
					t.Errorf("%d realizations marked few: heading %q", tc.n, head)
				}
				return
			}
			if !strings.HasSuffix(strings.TrimRight(head, " "), " "+tc.want) {
				t.Errorf("heading %q, want it to end in %q", head, tc.want)
			}
			if !strings.Contains(help, "(few): under 10 realizations the interval is rough") {
				t.Errorf("the help does not say what (few) means:\n%s", help)
			}
		})
	}
	m := newAvgTestOf(t, 5, "spring", 160, 48)
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right")
	if got := m.avgHeading(17); got != "θ̂ mean/5 (few)" {
		t.Errorf("θ set by hand: heading %q", got)
	}
	if got := m.avgHeading(11); got != "θ̂ mean±95%" {
		t.Errorf("θ set by hand, 11 cells: heading %q", got)
	}
}

// TestAveragesOfOneRealization: one realization has no interval, so the
// averages show its value with no "±" (a "±0" would read as certainty),
// under a heading without "95%".
func TestAveragesOfOneRealization(t *testing.T) {
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, _ = run(t, m, func() tea.Msg { return tea.ColorProfileMsg{Profile: colorprofile.ASCII} })
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = run(t, m, m.Init())
	if m.avg.res == nil || m.avg.res.Metrics[core.KeyReconMAE].N != 1 {
		t.Fatalf("averages %+v, want one realization's", m.avg.res)
	}
	frame := m.render()
	side := strings.Join(sidebarLines(frame, smallSideW), "\n")
	_, side, _ = strings.Cut(side, "metrics")
	if strings.Contains(side, "±") || strings.Contains(side, "95%") {
		t.Errorf("an interval from one realization:\n%s", frame)
	}
	if !strings.Contains(side, "mean/1") || !strings.Contains(side, "n=1") {
		t.Errorf("the averages do not say they are of one realization:\n%s", frame)
	}
	for _, w := range []int{11, 6, 3} {
		s := plainTheme.intervalText(core.KeyReconMAE, core.Interval{Mean: 0.0123, Lo: 0.0123, Hi: 0.0123, N: 1}, w, false)
		if strings.Contains(s, "±") || ansi.StringWidth(s) > w || !strings.HasPrefix(s, ".01") {
			t.Errorf("one realization in %d cells: %q", w, s)
		}
	}
}

// TestIntervalsWithinMetricRange: a mean ± 95% interval that runs below
// 0 (an MAE) or past 1 (a coverage, an ECE) shows its ends cut to the
// metric's range (core.MetricRange), in the sidebar's averages and the
// ablation charts' titles.
func TestIntervalsWithinMetricRange(t *testing.T) {
	wide := core.Interval{Mean: 0.001, Lo: -0.002, Hi: 0.004, N: 32}
	ece := core.Interval{Mean: 0.98, Lo: 0.95, Hi: 1.01, N: 32}
	if iv := clampInterval(core.KeyReconMAE, wide); iv.Lo != 0 || iv.Hi != wide.Hi || iv.Mean != wide.Mean {
		t.Errorf("clamped MAE %+v", iv)
	}
	if iv := clampInterval(core.KeyThetaCover, ece); iv.Hi != 1 || iv.Lo != ece.Lo {
		t.Errorf("clamped coverage %+v", iv)
	}
	if iv := clampInterval(core.KeyReconLL, wide); iv != wide {
		t.Errorf("an unbounded metric's interval was cut: %+v", iv)
	}
	for _, w := range []int{17, 11} {
		if s := plainTheme.intervalText(core.KeyReconMAE, wide, w, false); strings.Contains(s, "-") || strings.Contains(s, "±") || !strings.Contains(s, "[0,") && !strings.Contains(s, " ≤.004") || ansi.StringWidth(s) > w {
			t.Errorf("MAE interval in %d cells: %q, want its lower end at 0", w, s)
		}
		if s := plainTheme.intervalText(core.KeyReconECE, ece, w, false); strings.Contains(s, "±") || !strings.HasSuffix(s, ",1]") || ansi.StringWidth(s) > w {
			t.Errorf("ECE interval in %d cells: %q, want its upper end at 1", w, s)
		}
	}

	m := newTest(t, "spring", 80, 24)
	m.opts.Averages = avgTasks
	m.avg.key = m.avgKeyNow()
	m.avg.res = &core.Intervals{Tasks: avgTasks, Metrics: map[string]core.Interval{
		core.KeyReconMAE: wide, core.KeyDeltaMAE: wide, core.KeyThetaMAE: wide, core.KeyReconECE: ece, core.KeyReconLL: wide,
	}}
	frame := m.render()
	side := sidebarLines(frame, smallSideW)
	for _, want := range []string{" recon MAE", " δ MAE", " θ MAE", " recon ECE"} {
		for _, l := range side {
			if !strings.HasPrefix(l, want) {
				continue
			}
			if strings.Contains(l, "±") || strings.Contains(l, "1.01") || strings.Contains(l, "-.002") {
				t.Errorf("%s: an interval past the metric's range: %q", want, l)
			}
		}
	}

	c := ablChart{title: "recon ECE", metric: core.KeyReconECE, labels: []string{"1", "2"}, cur: 0, width: 40, height: 9, ivs: []core.Interval{ece, ece}}.scaled()
	if lines := c.render(newTheme(colorprofile.ASCII)); strings.Contains(lines[0], "±") || !strings.Contains(lines[0], ",1]") {
		t.Errorf("ablation chart title %q, want the interval cut at 1", lines[0])
	}
}

// Options.Averages (explore --realizations) sets the count everywhere
// the explorer averages: the sidebar's heading, the ablation and
// diagnostics views' evaluations and titles, and the help's commands.
func TestRealizationsCount(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.Averages = 5
	if got := m.avgHeading(20); got != "mean±95%/5 (few)" {
		t.Errorf("heading %q, want mean±95%%/5 (few)", got)
	}
	if got := m.evalOptions(m.realizations(), 30, 0).Tasks; got != 5 {
		t.Errorf("ablation evaluates %d realizations, want 5", got)
	}
	help := strings.Join(helpAt(m, 100), "\n")
	for _, want := range []string{"mean±95%/5: the same 5 realizations", "apic eval --tasks 5 ", "apic diagnose --tasks 5 "} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	nm, cmd := m.Update(keyMsg("d"))
	m, _ = run(t, nm.(Model), cmd)
	if m.diag.res == nil || m.diag.res.Tasks != 5 {
		t.Errorf("diagnostics of %+v, want 5 realizations", m.diag.res)
	}
	if got := strings.Join(m.diagHeader(70), "\n"); !strings.Contains(got, "diagnostics: 5 realizations") {
		t.Errorf("diagnostics header %q, want 5 realizations", got)
	}
	m, _ = pressNoRun(t, m, "A")
	defer m.closeAblation()
	if got := strings.Join(m.ablView(69, 20), "\n"); !strings.Contains(got, "/5") && !strings.Contains(got, "5 realizations") {
		t.Errorf("ablation view does not say 5 realizations:\n%s", got)
	}
}

// TestAvgHeadingKeepsCount: explore --realizations 2000 leaves the
// sidebar's column too narrow for "mean±95%/2000"; cut at the end it
// read "mean±95%/2…", a count of 2.
func TestAvgHeadingKeepsCount(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.Averages = 2000
	for w := 5; w <= 14; w++ {
		if got := m.avgHeading(w); !strings.HasSuffix(got, "/2000") || displayWidth(got) > w {
			t.Errorf("heading in %d cells %q, want one ending /2000", w, got)
		}
	}
	if got := m.avgHeading(13); got != "mean±95%/2000" {
		t.Errorf("heading in 13 cells %q, want it whole", got)
	}
	// 12 cells is the sidebar's column at 80 columns: "±95%/2000"
	// there did not say the numbers are means.
	if got := m.avgHeading(12); got != "mean/2000" {
		t.Errorf("heading in 12 cells %q, want mean/2000", got)
	}
}

// TestSidebarCutSaysSo: rows the sidebar has no room for are counted on
// its last line, never dropped unmarked. With the baselines on at 80×24
// lv's δ MAE, θ error, ECE and LL rows vanished, and with 200
// realizations the training box did.
func TestSidebarCutSaysSo(t *testing.T) {
	m := newAvgTest(t, "lv", 80, 24)
	check := func(name string, m Model) {
		t.Helper()
		for h := 14; h <= 40; h++ {
			side := ansi.Strip(strings.Join(m.sidebar(smallSideW, h), "\n"))
			if n := len(m.sidebar(smallSideW, h)); n > h {
				t.Errorf("%s h %d: %d sidebar lines", name, h, n)
			}
			// Before any run the sidebar is cut once, in the metrics
			// (above the training box's hint) or from the bottom: the
			// count is of the rows its layout has uncut, less those
			// shown. Cut in the averages, the metrics' title goes into
			// their heading (averagedBlock), and a row more shows.
			uncut := m.sidebarUncut(smallSideW, h, m.sideLayoutFor(smallSideW, h))
			n := len(uncut) - (h - 1)
			if strings.Contains(side, " "+padRight(m.metricsLabel(), 10)+"this") {
				n--
			}
			if n > 1 && strings.Contains(side, "more row") && !strings.Contains(side, core.Count(n, "more row")) {
				t.Errorf("%s h %d: the mark does not count %d rows:\n%s", name, h, n, side)
			}
			rows := []string{"recon MAE", "δ MAE", "θ MAE", "recon ECE", "recon LL"}
			if m.sideLayoutFor(smallSideW, h) < sideNoTrainHint {
				rows = append(rows, "t train") // tighter, the footer has it
			}
			for _, row := range rows {
				if !strings.Contains(side, row) && !strings.Contains(side, "more row") {
					t.Errorf("%s h %d: no %q, and no mark of rows left out:\n%s", name, h, row, side)
				}
			}
		}
	}
	check("plain", m)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	check("baselines", m)
}

// TestAveragesOneFormat: in the metrics table beside the averages every
// value, the realization's and the means, has the same significant
// digits, and every half-width one fewer. Each cell chose its own
// before: ".00234" beside ".0018±.0003", ".0833±.016" below
// ".00226±.002", "4.2" for 4.20.
func TestAveragesOneFormat(t *testing.T) {
	for _, tc := range []struct {
		w, h, sideW, digits int
	}{{80, 24, smallSideW, 2}, {160, 48, bigSideW, 3}} {
		m := newTest(t, "spring", tc.w, tc.h)
		m.opts.Averages = avgTasks
		vals := m.res.metrics.Values
		vals[core.KeyReconMAE], vals[core.KeyDeltaMAE], vals[core.KeyThetaMAE] = 0.00234, 0.00276, 0.000976
		vals[core.KeyReconECE], vals[core.KeyReconLL] = 0.0667, 4.2
		iv := func(mean, half float64) core.Interval {
			return core.Interval{Mean: mean, Lo: mean - half, Hi: mean + half, N: avgTasks}
		}
		m.avg.key = m.avgKeyNow()
		m.avg.res = &core.Intervals{Tasks: avgTasks, Metrics: map[string]core.Interval{
			core.KeyReconMAE: iv(0.00183, 0.00031), core.KeyDeltaMAE: iv(0.00362, 0.0024), core.KeyThetaMAE: iv(0.00226, 0.0020),
			core.KeyReconECE: iv(0.0833, 0.016), core.KeyReconLL: iv(4.7, 0.16),
		}}
		side := sidebarLines(m.render(), tc.sideW)
		rows := 0
		for _, r := range avgRows {
			for _, l := range side {
				rest, ok := strings.CutPrefix(l, " "+r[0]+" ")
				if !ok {
					continue
				}
				rows++
				f := strings.Fields(rest)
				if len(f) != 2 {
					t.Fatalf("%dx%d: row %q", tc.w, tc.h, l)
				}
				mean, half, _ := strings.Cut(f[1], "±")
				if sigDigits(f[0]) != tc.digits || sigDigits(mean) != tc.digits || sigDigits(half) != tc.digits-1 {
					t.Errorf("%dx%d: %s row %q: want %d significant digits, %d for the half-width", tc.w, tc.h, r[0], l, tc.digits, tc.digits-1)
				}
			}
		}
		if rows < 4 {
			t.Errorf("%dx%d: %d metric rows found:\n%s", tc.w, tc.h, rows, strings.Join(side, "\n"))
		}
	}
}

// TestMeanNotCoarserThanItsInterval: "mean±half" writes the mean to at
// least the half-width's last decimal place, so that the interval sits
// where it is (".038±.006", not ".04±.006").
func TestMeanNotCoarserThanItsInterval(t *testing.T) {
	for _, tc := range []struct {
		mean, half float64
		d          [2]int
		want       string
	}{
		{0.038, 0.006, [2]int{1, 1}, ".038±.006"},
		{4.76, 0.42, [2]int{1, 1}, "4.8±.4"},
		{12.34, 0.4, [2]int{2, 1}, "12.3±.4"},
		{0.0056, 0.0009, [2]int{2, 1}, ".0056±.0009"},
		{0.5, 0.2, [2]int{1, 1}, ".5±.2"},
		{0.97, 0.00003, [2]int{1, 1}, ".9700±.00003"}, // one notation
	} {
		iv := core.Interval{Mean: tc.mean, Lo: tc.mean - tc.half, Hi: tc.mean + tc.half, N: 32}
		if got := intervalForms("theta_mae", iv, tc.d, false)[0]; got != tc.want {
			t.Errorf("mean %g ± %g at %v: %q, want %q", tc.mean, tc.half, tc.d, got, tc.want)
		}
	}
}
