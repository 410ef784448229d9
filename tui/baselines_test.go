package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"apic/core"
	"apic/core/cpinn"
	"apic/sims"
)

// pressNoRun applies a key press and returns its command unrun: the
// baselines' commands run real fits, which tests leave alone.
func pressNoRun(t *testing.T, m Model, k string) (Model, bool) {
	t.Helper()
	nm, cmd := m.Update(keyMsg(k))
	return nm.(Model), cmd != nil
}

// c returns at once with the fits left to its command: no result yet,
// every baseline running, and the status line says so.
func TestBaselinesRunOffTheUIGoroutine(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, hasCmd := pressNoRun(t, m, "c")
	defer m.base.cancel()
	if !m.base.active || !hasCmd {
		t.Fatalf("after c: active %v, command %v; want active and a command", m.base.active, hasCmd)
	}
	if len(m.base.runs) != 3 {
		t.Fatalf("%d baselines, want 3", len(m.base.runs))
	}
	for _, r := range m.base.runs {
		if r.done || r.pred != nil {
			t.Errorf("%s already has a result before its command ran", r.name)
		}
	}
	frame := m.render()
	// On the smallest terminal the status line drops its "baselines:"
	// and the words rather than cut the last fit's state or the note on
	// what c does next; the sidebar's rows say "running…".
	for _, want := range []string{"◐ koh-gp …, bcpi …, cpinn …  │  " + baseAgainNote, "koh-gp running…", "cpinn  running…", baseBudgetTitle} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
}

// fakeBaseline is a baseline result made from the APIC prediction on
// screen, shifted so its curves differ from it.
func fakeBaseline(m Model, gen, idx int, scale float64) baseMsg {
	p := m.res.pred
	q := core.Prediction{Mean: slices.Clone(p.Mean), DeltaMean: slices.Clone(p.DeltaMean), Theta: slices.Clone(p.Theta)}
	for i := range q.Mean {
		q.Mean[i] *= scale
		q.DeltaMean[i] = (scale - 1) * p.Mean[i]
	}
	for i := range q.Theta {
		q.Theta[i] = m.real.Theta[i] * scale
	}
	return baseMsg{gen: gen, idx: idx, pred: q, elapsed: 120 * time.Millisecond}
}

// A new realization, another system and c again each cancel the running
// fits; a result that arrives afterwards is dropped.
func TestBaselinesStaleResultsDropped(t *testing.T) {
	for _, k := range []string{"r", "tab", "c"} {
		t.Run(k, func(t *testing.T) {
			m := newTest(t, "spring", 80, 24)
			m, _ = pressNoRun(t, m, "c")
			ctx, gen := m.base.ctx, m.base.gen
			late := fakeBaseline(m, gen, 0, 1.1)
			if k == "tab" {
				// Another system asks first while fits run
				// (TestSwitchAsksWhileBusy).
				m, _ = pressNoRun(t, m, k)
			}
			m, _ = pressNoRun(t, m, k)
			if ctx.Err() == nil {
				t.Errorf("%s did not cancel the running fits", k)
			}
			if m.base.active {
				t.Errorf("baselines still shown after %s", k)
			}
			m = send(t, m, late)
			if m.base.active || len(m.base.runs) != 0 {
				t.Fatalf("a stale baseline was recorded after %s: %+v", k, m.base.runs)
			}
			if strings.Contains(m.render(), "koh ") {
				t.Errorf("the frame shows a stale baseline after %s", k)
			}
		})
	}
	// A result of the current request is kept; moving θ by hand does not
	// change the realization and keeps it.
	m := newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	if r := m.base.runs[0]; !r.done || r.pred == nil {
		t.Fatalf("the current result was not recorded: %+v", r)
	}
	m = focusOn(t, m, ctlTheta)
	m, _ = pressNoRun(t, m, "right")
	if !m.base.active || m.base.runs[0].pred == nil {
		t.Error("moving θ by hand dropped the baselines")
	}
}

// A change that drops the baselines says so in the status line, and
// what c does next: it no longer says "esc stops them", and c starts the
// fits again. A message the change set itself stays in front.
func TestBaselinesDroppedSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctl  control
		key  string
		want []string
	}{
		{"noise", ctlNoise, "right", []string{"baselines stopped: the noise changed · c runs them again"}},
		{"context", ctlContext, "right", []string{"baselines stopped: the context size changed · c runs them again"}},
		{"realization", -1, "r", []string{"new realization, seed 2 · ", "baselines stopped: another realization · c runs them again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTest(t, "spring", 140, 44)
			if tc.ctl >= 0 {
				m = focusOn(t, m, tc.ctl)
			}
			m, _ = pressNoRun(t, m, "c")
			if !strings.Contains(m.render(), baseAgainNote) {
				t.Fatalf("the frame does not say what c does while the fits run:\n%s", m.render())
			}
			ctx := m.base.ctx
			m, _ = pressNoRun(t, m, tc.key)
			if ctx.Err() == nil || m.base.active {
				t.Fatalf("%s did not stop the baselines", tc.key)
			}
			for _, want := range tc.want {
				if !strings.Contains(m.msg, want) {
					t.Errorf("status %q lacks %q", m.msg, want)
				}
			}
			if frame := m.render(); strings.Contains(frame, baseAgainNote) || !strings.Contains(frame, "c runs them again") {
				t.Errorf("the frame's status is not the dropped baselines':\n%s", frame)
			}
			m, hasCmd := pressNoRun(t, m, "c")
			defer m.base.cancel()
			if !m.base.active || !hasCmd {
				t.Errorf("c after the drop: active %v, command %v; want the fits started", m.base.active, hasCmd)
			}
		})
	}
	// Finished fits are cleared, not stopped.
	m := newTest(t, "spring", 140, 44)
	m = focusOn(t, m, ctlNoise)
	m, _ = pressNoRun(t, m, "c")
	for i := range m.base.runs {
		m = send(t, m, fakeBaseline(m, m.base.gen, i, 1.1))
	}
	m, _ = pressNoRun(t, m, "right")
	if want := "baselines cleared: the noise changed · c runs them again"; m.msg != want {
		t.Errorf("status %q, want %q", m.msg, want)
	}
}

// TestGoldenBaselines is the overlay with injected results: KOH-GP done,
// BCPI failed, Correction-PINN still running, without the sidebar's
// averages and with them (as the explorer starts). Before any run the
// training box's hint keeps its row: at 80×24 with the averages it
// was cut on every system, lv's the whole metrics table as well.
// Regenerate with: go test ./tui -run TestGoldenBaselines -update
func TestGoldenBaselines(t *testing.T) {
	for _, tc := range []struct {
		sys      string
		w, h     int
		averages bool
	}{{"spring", 80, 24, false}, {"spring", 160, 48, false}, {"lv", 160, 48, false},
		{"spring", 80, 24, true}, {"lv", 80, 24, true}, {"lv", 80, 24, false}} {
		name := fmt.Sprintf("%s_%dx%d", tc.sys, tc.w, tc.h)
		if tc.averages {
			name += "_averages"
		}
		t.Run(name, func(t *testing.T) {
			m := newTest(t, tc.sys, tc.w, tc.h)
			if tc.averages {
				m = newAvgTest(t, tc.sys, tc.w, tc.h)
			}
			m, _ = pressNoRun(t, m, "c")
			defer m.base.cancel()
			m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
			m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("bcpi: no positive-definite covariance")})
			frame := m.render()
			frameOK(t, frame, tc.w, tc.h)
			wants := []string{"k koh-gp", "koh-gp ✓ 0.12 s, bcpi ✗, cpinn running…", "cpinn  running…", "bcpi   ✗ no positive"}
			if tc.w >= bigWidth {
				wants[1] = "koh-gp done 0.12 s, bcpi failed, cpinn running…"
				// The message's start, what c does next, stays whole;
				// the budgets are in the sidebar's title.
				wants = append(wants, "cpinn running…", baseAgainNote, baseBudgetTitle)
			}
			// The training box's hint, or where the metrics need its
			// row, the footer's t.
			if !strings.Contains(frame, trainHint) && !strings.Contains(frame, "esc stops · s saves · o opens") && !strings.Contains(m.footer(), "t train") {
				t.Errorf("neither the sidebar nor the footer offers t: %q", m.footer())
			}
			for _, want := range wants {
				if !strings.Contains(frame, want) {
					t.Errorf("the frame lacks %q", want)
				}
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// The full help lists c.
func TestBaselinesInHelp(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	found := false
	for _, col := range m.keys.FullHelp() {
		for _, b := range col {
			found = found || b.Help().Key == "c"
		}
	}
	if !found {
		t.Error("the full help does not list c")
	}
}

// fakeMethod is a baseline that answers at once: the APIC-sized
// prediction it was given, or err.
type fakeMethod struct {
	name string
	pred core.Prediction
	err  error
}

func (f fakeMethod) Name() string { return f.name }

func (f fakeMethod) Calibrate(ctx context.Context, _ sims.Context, _ []float64) (core.Prediction, error) {
	if err := ctx.Err(); err != nil {
		return core.Prediction{}, err
	}
	return f.pred, f.err
}

// The commands c returns deliver each baseline's result; a method that
// refuses the system or fails shows a short message, not a crash.
func TestBaselinesCommandsDeliver(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	good := fakeBaseline(m, 0, 0, 1.2).pred
	saved := newBaselines
	t.Cleanup(func() { newBaselines = saved })
	newBaselines = func(sims.System) ([]core.Method, []error) {
		return []core.Method{fakeMethod{name: "koh-gp", pred: good}, nil, fakeMethod{name: "correction-pinn", err: errors.New("diverged")}},
			[]error{nil, errors.New("bcpi: system spring refused"), nil}
	}
	nm, cmd := m.Update(keyMsg("c"))
	m, _ = run(t, nm.(Model), cmd)
	runs := m.base.runs
	if !runs[0].done || runs[0].pred == nil || runs[0].pred.Theta[0] != good.Theta[0] {
		t.Errorf("koh-gp: %+v, want its prediction", runs[0])
	}
	if !runs[1].done || runs[1].err == nil || !runs[2].done || runs[2].err == nil {
		t.Errorf("bcpi %+v, cpinn %+v: want both failed", runs[1], runs[2])
	}
	if m.base.ctx.Err() == nil {
		t.Error("the fits' context is still live after all ended")
	}
	// The status line has every reason whole.
	if want := "bcpi: system spring refused; cpinn: diverged"; m.msg != want || m.msgKind != msgErr {
		t.Errorf("status %q (kind %v), want the error %q", m.msg, m.msgKind, want)
	}
	frame := m.render()
	for _, want := range []string{"bcpi   ✗ system spring", "cpinn  ✗ diverged", "koh-gp ✓ ", "koh-gp ω " + shortNumber(good.Theta[0], 3)} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
}

// When no baseline can start, the status line says why at once.
func TestBaselinesNoneStart(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	saved := newBaselines
	t.Cleanup(func() { newBaselines = saved })
	newBaselines = func(sims.System) ([]core.Method, []error) {
		// Correction-PINN's errors start with its own name: the explorer
		// calls it cpinn, as the command line does.
		return []core.Method{nil, nil, nil}, []error{errors.New("a"), errors.New("b"), errors.New(cpinn.Name + ": c")}
	}
	nm, cmd := m.Update(keyMsg("c"))
	m, _ = run(t, nm.(Model), cmd)
	if want := "koh-gp: a; bcpi: b; cpinn: c"; m.msg != want {
		t.Errorf("status %q, want %q", m.msg, want)
	}
	if m.base.ctx.Err() == nil {
		t.Error("the fits' context is still live")
	}
}

// Several long baseline failures go on onto the line below the status
// line: the first method's reason whole from its start, a mark for the
// others, and the ? help with every one whole.
func TestBaselineFailuresWrap(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	errs := []string{
		"koh-gp: every one of the 8 L-BFGS starts failed: the covariance is not positive definite",
		"bcpi: no positive-definite covariance after 3 starts of 500 MCMC steps",
		"correction-pinn: the loss diverged at step 120 (NaN)",
	}
	for i, e := range errs {
		m = send(t, m, baseMsg{gen: m.base.gen, idx: i, err: errors.New(e)})
	}
	frame := m.render()
	frameOK(t, frame, 100, 30)
	if !strings.Contains(frame, errs[0]+"; …") {
		t.Errorf("the frame lacks %q and the mark of more:\n%s", errs[0], frame)
	}
	m, _ = press(t, m, "?")
	noSpace := strings.NewReplacer(" ", "", "\n", "")
	help := noSpace.Replace(m.render())
	for _, want := range []string{errs[0], errs[1], "the loss diverged at step 120 (NaN)"} {
		if !strings.Contains(help, noSpace.Replace(want)) {
			t.Errorf("the help lacks %q:\n%s", want, m.render())
		}
	}
}

// On the smallest terminal a message of several baseline failures has
// one line below the status line: it keeps the first failure whole and
// the start and end of the next, from its method's name, and the
// sidebar's rows give their reasons without repeating what the row
// and the status line say.
func TestBaselineFailuresOnSmallTerminal(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m = send(t, m, baseMsg{gen: m.base.gen, idx: 0, err: errors.New("koh-gp: need at least 2 context observations, got 1")})
	m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("channel y has 1 context observations, need at least 2")})
	m = send(t, m, fakeBaseline(m, m.base.gen, 2, 1.1))
	frame := m.render()
	frameOK(t, frame, 80, 24)
	lines := strings.Split(frame, "\n")
	if got, want := strings.TrimRight(lines[2], " "), "  koh-gp: need at least 2 context observations, got 1; bcpi: channel… at least 2"; got != want {
		t.Errorf("the message's line is %q, want %q", got, want)
	}
	if !strings.Contains(frame, "koh-gp ✗ need at least 2") {
		t.Errorf("the sidebar's koh row does not start with the reason:\n%s", frame)
	}
}

// TestBaselineRowsNotCut: on the smallest terminal a baseline's θ̂ row
// keeps every parameter, with fewer digits (or without its wall time,
// which the status line has) rather than cut, and a failure's reason
// wraps onto the next line rather than ending mid-word.
func TestBaselineRowsNotCut(t *testing.T) {
	m := newTest(t, "lv", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("bcpi: no positive-definite covariance")})
	frame := m.render()
	frameOK(t, frame, 80, 24)
	side := sidebarLines(frame, smallSideW)
	koh := -1
	for i, l := range side {
		if strings.HasPrefix(l, "koh-gp ") {
			koh = i
		}
	}
	if koh < 0 {
		t.Fatalf("no koh row:\n%s", frame)
	}
	row := side[koh]
	for _, p := range m.theta {
		if !strings.Contains(row, p.symbol()) {
			t.Errorf("the koh row lacks %s: %q", p.symbol(), row)
		}
	}
	if strings.Contains(row, "…") {
		t.Errorf("the koh row is cut: %q", row)
	}
	reason := strings.Join(side[koh+1:koh+3], " ")
	if !strings.Contains(reason, "✗ no positive-definite") || !strings.Contains(reason, " covariance ") || strings.Contains(reason, "…") {
		t.Errorf("bcpi's reason is cut:\n%s", frame)
	}

	for _, tc := range []struct {
		w    int
		want []string
	}{
		{40, []string{"α .896 β 1.23 η .847 γ .901 12 s"}},
		{27, []string{"α .896 β 1.23 η .847 γ .901"}},
		{23, []string{"α.896 β1.23 η.847 γ.901"}},
		{22, []string{"α.90 β1.2 η.85 γ.90"}}, // "α.9 β1.2 η.85 γ.9" before: %g dropped the zeros
		{12, []string{"α .896", "β 1.23", "η .847", "γ .901 12 s"}},
	} {
		syms, th := []string{"α", "β", "η", "γ"}, []float64{0.8961, 1.2302, 0.8471, 0.9012}
		got := thetaRows(syms, th, nil, "12 s", tc.w, thetaDigits(syms, th, nil, tc.w))
		if !slices.Equal(got, tc.want) {
			t.Errorf("θ̂ in %d cells: %q, want %q", tc.w, got, tc.want)
		}
	}
	long := "✗ observation 3 is not on the grid (grid index 17); BCPI's prior mean is known on the grid only"
	got := plainTheme.wrapReason(long, 25, 3)
	if len(got) != 3 || !strings.HasSuffix(got[2], "…") || strings.HasPrefix(got[1], " ") {
		t.Errorf("a long reason in 3 lines: %q", got)
	}
	for i, l := range got {
		if w := 25 - 2*min(i, 1); ansi.StringWidth(l) > w {
			t.Errorf("line %d %q is wider than %d", i, l, w)
		}
	}
}

// In the advdiff heatmap view the baselines are compared along the ▸
// time slice: panel 4 becomes the slice's truth, prediction and
// baselines' curves while they are shown, follows [ ], and gives the
// |error| map back when c clears them.
func TestBaselinesInHeatmapView(t *testing.T) {
	m := newTest(t, "advdiff", 160, 48)
	m, _ = press(t, m, "v")
	if !strings.Contains(m.render(), "4 |truth − prediction|") {
		t.Fatal("no |error| map before the baselines")
	}
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	at := func(m Model) string {
		g := m.sys().Grid()
		return fmt.Sprintf("4 ▸ t=%.3g: truth, prediction and baselines", g.States[m.slice*g.Shape[1]][0])
	}
	frame := m.render()
	for _, want := range []string{at(m), "k koh", "1 truth G(t, x)", "3 learned discrepancy δ̂"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "|truth − prediction|") {
		t.Error("the |error| map is still shown beside the baselines")
	}
	before := at(m)
	m, _ = pressNoRun(t, m, "]")
	if at(m) == before || !strings.Contains(m.render(), at(m)) {
		t.Errorf("] did not move the baselines' slice: %q", at(m))
	}
	help := strings.Join(helpAt(m, 100), "\n")
	if !strings.Contains(help, "4 then shows the ▸ slice") {
		t.Errorf("the help does not say where the baselines are:\n%s", help)
	}
	m, _ = pressNoRun(t, m, "c")
	if !strings.Contains(m.render(), "4 |truth − prediction|") {
		t.Error("c did not give the |error| map back")
	}
}

// TestGoldenHeatmapBaselines is the heatmap view with injected
// baselines (KOH-GP done, BCPI failed, Correction-PINN running); at
// 80×24 the second page, where panel 4 is.
// Regenerate with: go test ./tui -run TestGoldenHeatmapBaselines -update
func TestGoldenHeatmapBaselines(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newTest(t, "advdiff", sz[0], sz[1])
			m, _ = press(t, m, "v")
			if sz[0] < bigWidth {
				m, _ = press(t, m, "p")
			}
			m, _ = pressNoRun(t, m, "c")
			defer m.base.cancel()
			m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
			m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("bcpi: no positive-definite covariance")})
			frame := m.render()
			frameOK(t, frame, sz[0], sz[1])
			if !strings.Contains(frame, "k koh") {
				t.Error("the frame lacks the baseline's legend")
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// plotMarks counts r in a rendered plot's body: the lines between its
// title and its x axis, past the y labels.
func plotMarks(p linePlot, t theme, r rune) int {
	lines := p.render(t)
	n := 0
	for _, l := range lines[1 : len(lines)-3] {
		_, body, _ := strings.Cut(ansi.Strip(l), "┤")
		n += strings.Count(body, string(r))
	}
	return n
}

// A baseline that agrees with APIC goes under it: the prediction (and δ̂)
// and the truth are drawn over the baselines, in panels 2 and 3 of the
// line view and the heatmap view's slice panel, so that a
// Correction-PINN as good as APIC does not hide APIC's curve.
func TestBaselinesDrawnUnderThePrediction(t *testing.T) {
	for _, sys := range []string{"advdiff", "lv"} {
		t.Run(sys, func(t *testing.T) {
			m := newTest(t, sys, 100, 30)
			m, _ = pressNoRun(t, m, "c")
			defer m.base.cancel()
			p := m.res.pred
			same := core.Prediction{Mean: slices.Clone(p.Mean), DeltaMean: slices.Clone(p.DeltaMean), Theta: slices.Clone(p.Theta)}
			m = send(t, m, baseMsg{gen: m.base.gen, idx: 2, pred: same, elapsed: time.Second})
			sized := func(p linePlot) linePlot { p.width, p.height = 70, 16; return p }
			panels := m.linePanels()
			for name, pl := range map[string]linePlot{"2": panels[1], "3": panels[2]} {
				if n := plotMarks(sized(pl), m.theme, 'p'); n > 0 {
					t.Errorf("panel %s: %d cells of the baseline that equals APIC's curve show over it:\n%s",
						name, n, strings.Join(sized(pl).render(m.theme), "\n"))
				}
			}
			if !m.is2D() {
				return
			}
			if n := plotMarks(sized(m.baseSlicePanel()), m.theme, 'p'); n > 0 {
				t.Errorf("slice panel: %d cells of the baseline that equals the prediction show over it", n)
			}
			// A baseline equal to the truth leaves every truth mark in sight.
			m.base.runs[2].pred.Mean = slices.Clone(m.res.task.Real.True)
			with := plotMarks(sized(m.baseSlicePanel()), m.theme, '•')
			m.base.runs[2].pred = nil
			without := plotMarks(sized(m.baseSlicePanel()), m.theme, '•')
			if with != without || without == 0 {
				t.Errorf("slice panel: %d truth marks with a baseline on the truth, %d without", with, without)
			}
		})
	}
}

// At 80 and 100 columns the note that c started the baselines keeps
// what c does next whole (baseAgainNote), while the
// fits run and as they end: the status line's account of them takes a
// shorter form (down to "koh-gp ✓, bcpi ✗, cpinn …") to leave it room,
// and still gives every fit's state; the rest of the note goes whole
// parts at a time.
func TestBaselinesNoteFits(t *testing.T) {
	for _, tc := range []struct {
		name     string
		embedded bool
		w, h     int
	}{
		{"idle", true, 80, 24},
		{"idle", true, 100, 30},
		{"untrained", false, 100, 30},
		{"idle", true, 160, 48},
	} {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.name, tc.w, tc.h), func(t *testing.T) {
			var m Model
			if tc.embedded {
				var err error
				m, err = New(Options{System: "advdiff", SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
				if err != nil {
					t.Fatal(err)
				}
				m = sized(t, m, tc.w, tc.h)
				m, _ = run(t, m, m.Init())
			} else {
				m = newTest(t, "advdiff", tc.w, tc.h)
			}
			m, _ = pressNoRun(t, m, "c")
			defer m.base.cancel()
			check := func(when string, states ...[]string) {
				t.Helper()
				line := ansi.Strip(strings.Split(m.render(), "\n")[1])
				_, note, _ := strings.Cut(line, "│  ")
				if !strings.HasPrefix(note, baseAgainNote) || strings.Contains(note, "· …") || regexp.MustCompile(`\pL…`).MatchString(note) {
					t.Errorf("%s: the note is cut within a part:\n%s", when, line)
				}
				for _, alts := range states {
					if !slices.ContainsFunc(alts, func(s string) bool { return strings.Contains(line, s) }) {
						t.Errorf("%s: the status line has none of %q:\n%s", when, alts, line)
					}
				}
			}
			running := func(name string) []string { return []string{name + " running…", name + " …"} }
			check("running", running("koh-gp"), running("bcpi"), running("cpinn"))
			m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
			m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("bcpi: no positive-definite covariance")})
			check("two ended", []string{"koh-gp done 0.12 s", "koh-gp ✓"}, []string{"bcpi failed", "bcpi ✗"}, running("cpinn"))
		})
	}
}

// TestHelpNamesBaselinesAsShown: the help names the baselines as the
// status line, sidebar and legends do (the CLI's names), in both the
// slice and the heatmap help, within 80 columns; one method under two
// names reads as two.
func TestHelpNamesBaselinesAsShown(t *testing.T) {
	slice := newTest(t, "spring", 80, 24)
	heat, _ := press(t, newTest(t, "advdiff", 80, 24), "v")
	for name, m := range map[string]Model{"slice": slice, "heatmap": heat} {
		lines := helpAt(m, 80)
		help := strings.Join(lines, "\n")
		for _, s := range baseStyles {
			if !strings.Contains(help, s.mark+" "+s.name) {
				t.Errorf("%s help lacks %q:\n%s", name, s.mark+" "+s.name, help)
			}
		}
		for _, old := range []string{"k KOH-GP", "b BCPI", "p Correction-PINN"} {
			if strings.Contains(help, old) {
				t.Errorf("%s help still names a baseline %q", name, old)
			}
		}
		for _, l := range lines {
			if w := displayWidth(l); w > 80 {
				t.Errorf("%s help line %d columns wide: %q", name, w, l)
			}
		}
	}
}

// A baseline's θ̂ on its prior's bound is where the fit stopped (koh-gp
// on spring in the paper): it is marked, and a note under the rows says
// what the mark means; one inside the prior is not.
func TestBaselineThetaAtPriorEdgeMarked(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	inside := fakeBaseline(m, m.base.gen, 1, 1.01)
	m = send(t, m, inside)
	if frame := m.render(); strings.Contains(frame, "prior's bound") {
		t.Fatalf("an estimate inside the prior is marked:\n%s", frame)
	}
	edge := fakeBaseline(m, m.base.gen, 0, 1)
	edge.pred.Theta[0] = m.theta[0].lo
	m = send(t, m, edge)
	frame := m.render()
	want := "ω " + sigFixed(m.theta[0].lo, 3) + edgeMark
	for _, s := range []string{want, edgeMark + " on its prior's bound"} {
		if !strings.Contains(frame, s) {
			t.Errorf("the frame lacks %q:\n%s", s, frame)
		}
	}
	if strings.Contains(frame, sigFixed(inside.pred.Theta[0], 3)+edgeMark) {
		t.Errorf("the inside estimate is marked too:\n%s", frame)
	}
	if help := strings.Join(helpAt(m, 100), "\n"); !strings.Contains(help, baseEdgeHelp) {
		t.Errorf("the help does not say what %s means:\n%s", edgeMark, help)
	}
}

// TestEscAfterAFailedFitSaysWhy: esc over fits of which one has failed
// stops the others and keeps the failure on screen with its reason,
// which the status line gives once every fit has ended, as it does when
// they end by themselves. The stop cleared the baselines where no fit
// had a result, the failure with them: its reason was never told, and
// the note named only the fits stopped, as if that one had been too.
func TestEscAfterAFailedFitSaysWhy(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "c")
	m = send(t, m, baseMsg{gen: m.base.gen, idx: 0, err: errors.New("every L-BFGS start failed")})
	m, _ = pressNoRun(t, m, "esc")
	if !m.base.active || m.base.running() || len(m.base.runs) != 3 || m.base.runs[0].err == nil || errors.Is(m.base.runs[0].err, context.Canceled) {
		t.Fatalf("after esc: active %v, running %v, runs %+v; want koh-gp's failure kept", m.base.active, m.base.running(), m.base.runs)
	}
	want := "baselines stopped: bcpi, cpinn · koh-gp: every L-BFGS start failed · " + baseDoneNote
	if m.msg != want || m.msgKind != msgErr {
		t.Errorf("status %q (kind %v), want the error %q", m.msg, m.msgKind, want)
	}
	m, _ = press(t, m, "down")
	if frame := m.render(); m.msg != want || !strings.Contains(frame, "koh-gp ✗ every L-BFGS") || !strings.Contains(frame, "koh-gp failed, bcpi stopped, cpinn stopped") {
		t.Errorf("a key after: status %q, frame\n%s", m.msg, frame)
	}

	// Beside a fit that ended with a result, the same.
	m = newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "c")
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	m = send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("no positive-definite covariance")})
	m, _ = pressNoRun(t, m, "esc")
	if want := "baselines stopped: cpinn · koh-gp kept · bcpi: no positive-definite covariance · " + baseDoneNote; m.msg != want || m.msgKind != msgErr {
		t.Errorf("status %q (kind %v), want the error %q", m.msg, m.msgKind, want)
	}
}

// TestEscWhileARunStops: while a training run stops (esc pressed once),
// esc stops the baseline fits, and the footer and c's note say so; they
// said "esc stop training" and "c again stops and clears them", and with
// no fits the footer offered an esc that did nothing.
func TestEscWhileARunStops(t *testing.T) {
	m := newTest(t, "spring", 120, 30)
	defer func() { m.stopAll() }()
	m, _ = pressNoRun(t, m, "t")
	m, _ = pressNoRun(t, m, "esc")
	if !m.run.stopping || strings.Contains(m.footer(), "esc stop") {
		t.Errorf("a run stopping: stopping %v, footer %q; want no esc offered", m.run.stopping, m.footer())
	}
	m, _ = pressNoRun(t, m, "c")
	if !strings.HasPrefix(m.msg, baseAgainNote) || !strings.Contains(m.footer(), "esc stop") || m.keysNow().Cancel.Help().Desc != "stop baselines" {
		t.Errorf("c while a run stops: status %q, footer %q; want esc to stop the fits", m.msg, m.footer())
	}
	m, _ = pressNoRun(t, m, "esc")
	if m.base.active || !strings.HasPrefix(m.msg, "baselines stopped: ") {
		t.Errorf("esc: baselines active %v, status %q", m.base.active, m.msg)
	}
}
