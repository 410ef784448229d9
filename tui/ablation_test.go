package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"apic/checkpoints"
	"apic/core"
	"apic/sims"
)

// ablMsgs runs cmd (a batch or one command) and returns the ablation
// points among its messages, without feeding anything back.
func ablMsgs(cmd tea.Cmd) []ablMsg {
	var out []ablMsg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case ablMsg:
			out = append(out, msg)
		}
	}
	return out
}

// A opens the view at once and leaves the points to commands: the key
// press computes nothing, the frame says it is computing, and each
// point's result starts the next until the curve is complete; the
// points are core.EvaluateIntervals of the model at each context size.
func TestAblationRunsOffTheUIGoroutine(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m = focusOn(t, m, ctlContext)
	nm, cmd := m.Update(keyMsg("A"))
	m = nm.(Model)
	n := len(m.ctxSteps["spring"].values)
	if !m.abl.open || m.abl.done != 0 || len(m.abl.points) != n || cmd == nil {
		t.Fatalf("after A: open %v, %d/%d done, command %v", m.abl.open, m.abl.done, len(m.abl.points), cmd != nil)
	}
	if frame := m.render(); !strings.Contains(frame, fmt.Sprintf("computing 0/%d", n)) {
		t.Errorf("the frame while computing does not say so:\n%s", frame)
	}
	start := time.Now()
	m, _ = run(t, m, cmd)
	t.Logf("%d points in %v", n, time.Since(start))
	if m.abl.done != n || m.abl.cancel != nil {
		t.Fatalf("%d/%d points computed", m.abl.done, n)
	}
	want, err := core.EvaluateIntervals(context.Background(), m.entry().model, m.evalOptions(avgTasks, 10, 0))
	if err != nil {
		t.Fatal(err)
	}
	p := m.abl.points[5] // context 10
	if p.context != 10 || p.res == nil || p.res.Metrics[core.KeyReconMAE] != want.Metrics[core.KeyReconMAE] {
		t.Errorf("point at context %d: %+v, want %+v", p.context, p.res, want.Metrics[core.KeyReconMAE])
	}
	if frame := m.render(); !strings.Contains(frame, "recon MAE") || strings.Contains(frame, "computing") {
		t.Errorf("the finished frame:\n%s", frame)
	}
}

// Moving a setting the curve depends on cancels the running point and
// starts anew; the old point's result is dropped. Moving the swept
// control itself only moves the mark; esc closes the view and cancels.
func TestAblationFollowsTheSettings(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m = focusOn(t, m, ctlContext)
	nm, first := m.Update(keyMsg("A"))
	m = nm.(Model)
	nm, second := m.Update(keyMsg("b")) // another backbone: another model
	m = nm.(Model)
	old := ablMsgs(first)
	if len(old) != 1 || !errors.Is(old[0].err, context.Canceled) {
		t.Fatalf("the first point was not cancelled: %+v", old)
	}
	if m = send(t, m, old[0]); m.abl.done != 0 || m.abl.points[0].err != nil {
		t.Fatal("a stale point was taken")
	}
	m, _ = run(t, m, second)
	if n := len(m.ctxSteps["spring"].values); m.abl.done != n || m.abl.key.backbone != m.backbone.value() {
		t.Fatalf("%d/%d points of %s", m.abl.done, n, m.abl.key.backbone)
	}
	gen := m.abl.gen
	nm, cmd := m.Update(keyMsg("right")) // the swept control: the mark moves
	if m = nm.(Model); m.abl.gen != gen || cmd != nil && len(ablMsgs(cmd)) > 0 {
		t.Errorf("moving the swept control recomputed the curve")
	}
	if m.ablCurrent() != m.ctxSteps["spring"].idx {
		t.Errorf("mark at %d, want %d", m.ablCurrent(), m.ctxSteps["spring"].idx)
	}
	m, _ = press(t, m, "esc")
	if m.abl.open {
		t.Error("esc did not close the view")
	}
}

// On an atlas axis the view evaluates each atlas model of the axis at
// the current context and noise; without an atlas it says why.
func TestAblationAtlasAxis(t *testing.T) {
	loads := map[string]int{}
	m := newAtlasTest(t, 80, 24, loads)
	m, labels := ablateOn(t, m, ctlLamDelta)
	if got := strings.Join(labels, " "); got != "0 .1 .2 .5 1 2 5" || m.abl.done != 7 {
		t.Fatalf("λδ axis %q (%d done), want 0 .1 .2 .5 1 2 5 with 1 from the λθ axis", got, m.abl.done)
	}
	if m.ablCurrent() != 4 {
		t.Errorf("mark at %d, want λδ = 1 (4)", m.ablCurrent())
	}
	plain := newTest(t, "spring", 80, 24)
	plain = focusOn(t, plain, ctlLamTheta)
	plain, _ = press(t, plain, "A")
	if frame := plain.render(); !strings.Contains(frame, "the atlas has no λθ models of spring/lnp") {
		t.Errorf("no atlas:\n%s", frame)
	}
	// t trains one model, at the value shown, not one per value: the
	// note says so, and names the sweep that trains the curve.
	for _, want := range []string{"t trains one at the value set", "apic sweep --vary lambda-theta=… trains one per value"} {
		if !strings.Contains(plain.abl.why, want) {
			t.Errorf("the note %q lacks %q", plain.abl.why, want)
		}
	}
}

// TestGoldenAblation: the view on the context axis (the model on
// screen) and on the λθ axis (the fake atlas), at both sizes.
func TestGoldenAblation(t *testing.T) {
	for _, tc := range []struct {
		ctl  control
		name string
	}{{ctlContext, "context"}, {ctlLamTheta, "lambda-theta"}} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m := newAtlasTest(t, sz[0], sz[1], map[string]int{})
				m = focusOn(t, m, tc.ctl)
				m, _ = press(t, m, "A")
				frame := m.render()
				frameOK(t, frame, sz[0], sz[1])
				golden.RequireEqual(t, []byte(frame))
			})
		}
	}
}

// TestAblationKeyInHelp: the ? help lists A with the other views' keys.
func TestAblationKeyInHelp(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "?")
	if frame := m.render(); !strings.Contains(frame, "A ablation curves (A/esc closes)") {
		t.Errorf("the full help lacks A:\n%s", frame)
	}
}

// TestAblationInProgram runs the explorer as a program, its commands in
// goroutines: A on λθ opens the view while the inference and the
// sidebar's averages run beside its points (go test -race checks they
// share nothing unguarded), and quitting mid-way cancels what still runs.
func TestAblationInProgram(t *testing.T) {
	m, err := New(Options{System: "spring", Seed: 1, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: fakeAtlas(t, map[string]int{})})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	for _, k := range []string{"down", "down", "down", "down", "A"} {
		tm.Send(keyMsg(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("ablation: λθ")) && bytes.Contains(b, []byte("θ MAE"))
	}, teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(keyMsg("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if !final.abl.open || final.abl.key.ctl != ctlLamTheta {
		t.Errorf("the view is open %v on control %d", final.abl.open, final.abl.key.ctl)
	}
}

// panelArea is the frame's panel area left of the sidebar, as plain
// text, one string per line below the header.
func panelArea(m Model) []string {
	sideW := m.sideWidth()
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	var out []string
	for _, l := range lines[len(m.header()) : len(lines)-1] {
		out = append(out, ansi.Cut(l, 0, m.width-sideW-1))
	}
	return out
}

// TestAblationTextFits: on the smallest terminal the view's title and
// settings line take shorter wordings rather than being cut, and no
// chart writes into the panel's last column, beside the sidebar's
// border.
func TestAblationTextFits(t *testing.T) {
	for _, ctl := range ablControls {
		m := newAtlasTest(t, 80, 24, map[string]int{})
		m = focusOn(t, m, ctl)
		m, _ = press(t, m, "A")
		area := panelArea(m)
		for i, l := range area[:2] {
			if strings.Contains(l, "…") {
				t.Errorf("%s: line %d is cut: %q", m.ablLabel(), i, l)
			}
		}
		if !strings.Contains(area[0], "ablation: "+m.ablLabel()) || !strings.Contains(area[0], "32") || !strings.Contains(area[1], "context 30, σ 0") {
			t.Errorf("%s: title %q, settings %q", m.ablLabel(), area[0], area[1])
		}
		for i, l := range area {
			plotW := m.width - m.sideWidth() - 1
			if last := ansi.Cut(l, plotW-1, plotW); ansi.StringWidth(l) != plotW || last != " " {
				t.Errorf("%s: line %d reaches the sidebar: %q", m.ablLabel(), i, l)
			}
		}
	}
}

// TestAblationChartsShareTicks: the four charts share the x axis (the
// control's values), so they label the same values at the same
// columns, whatever the width of each one's y labels.
func TestAblationChartsShareTicks(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := newAtlasTest(t, sz[0], sz[1], map[string]int{})
		m = focusOn(t, m, ctlContext)
		m, _ = press(t, m, "A")
		area := panelArea(m)
		w := ansi.StringWidth(area[0])
		w1, h1 := (w-1)/2, (len(area)-3)/2
		var ticks []string
		for _, row := range []string{area[3+h1-1], area[3+2*h1-1]} {
			ticks = append(ticks, ansi.Cut(row, 0, w1), ansi.Cut(row, w1+1, 2*w1+1))
		}
		if !strings.Contains(ticks[0], "30") {
			t.Fatalf("%dx%d: no value labels found: %q", sz[0], sz[1], ticks)
		}
		for i, tk := range ticks[1:] {
			if tk != ticks[0] {
				t.Errorf("%dx%d: chart %d labels the values %q, chart 0 %q", sz[0], sz[1], i+1, tk, ticks[0])
			}
		}
	}
}

// On an atlas axis the current value's point is the atlas model at that
// value. Where another model is on screen (here the untrained weights,
// in use the embedded checkpoint, which is not the atlas's cell at its
// λθ), the point is marked ◇ and its interval stays out of the titles,
// where it would read as the sidebar's mean for the model on screen;
// once that atlas model is on screen it is ◆ with its interval.
func TestAblationCurrentIsTheModelOnScreen(t *testing.T) {
	m := newAtlasTest(t, 160, 48, map[string]int{})
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "A")
	if !m.ablCurrentOther() {
		t.Fatal("the untrained model on screen is taken for the atlas's λθ = 1 model")
	}
	frame := m.render()
	if !strings.Contains(frame, "◇ the atlas model at the current value, not the one on screen") || strings.Contains(frame, "◆") {
		t.Errorf("the point of another model is not marked ◇:\n%s", frame)
	}
	titled := func(frame string) bool { // a chart title with an interval
		return strings.Contains(frame, "\nrecon MAE .")
	}
	if titled(frame) {
		t.Errorf("a title shows another model's interval as the current one's:\n%s", frame)
	}
	m, _ = press(t, m, "left") // λθ 1 → 0.5: the atlas model, now on screen
	if m.entry().src != srcAtlas || m.ablCurrentOther() {
		t.Fatalf("after loading the atlas cell: source %v, other %v", m.entry().src, m.ablCurrentOther())
	}
	frame = m.render()
	if !strings.Contains(frame, "◆ current") || strings.Contains(frame, "◇") || !titled(frame) {
		t.Errorf("the model on screen's point is not ◆ with its interval:\n%s", frame)
	}
}

// TestAblationOnControlWithoutCurve: A on a control the view cannot
// sweep (train mode, the system, θ) opens the context curve, as before,
// and a note on the status line says which controls it sweeps, so the
// key does not seem to have ignored the selection; the note stays while
// the curve computes and goes with it. On a control with a curve there
// is no note.
func TestAblationOnControlWithoutCurve(t *testing.T) {
	for _, tc := range []struct {
		id   control
		note string
	}{
		{ctlMode, "A shows context: train mode cannot be swept"},
		{ctlSystem, "A shows context: the system cannot be swept"},
		{ctlTheta, "A shows context: θ cannot be swept"},
		{ctlNoise, ""},
	} {
		// 100 columns: the untrained weights' status leaves the note
		// its 64 cells (at 80, 45, and the ? help has the rest).
		m := newTest(t, "spring", 100, 30)
		m = focusOn(t, m, tc.id)
		nm, cmd := m.Update(keyMsg("A"))
		m = nm.(Model)
		status := strings.Split(m.render(), "\n")[1]
		if tc.note == "" {
			if strings.Contains(m.msg, "no curve") {
				t.Errorf("A on noise σ noted %q", m.msg)
			}
			continue
		}
		if !m.abl.open || m.abl.key.ctl != ctlContext {
			t.Errorf("control %d: A left the view open %v on control %d, want the context curve", tc.id, m.abl.open, m.abl.key.ctl)
		}
		if !strings.Contains(status, tc.note) {
			t.Errorf("control %d: status line %q lacks %q", tc.id, status, tc.note)
		}
		if tc.id != ctlMode {
			continue
		}
		if m, _ = run(t, m, cmd); !strings.Contains(m.msg, tc.note) {
			t.Errorf("the note went while the curve computed: %q", m.msg)
		}
		// It goes with the curve it explains: when the view closes, or
		// follows the focus to another control.
		if closed, _ := press(t, m, "A"); closed.msg != "" {
			t.Errorf("the note outlived the view: %q", closed.msg)
		}
		if moved, _ := press(t, m, "up"); moved.abl.key.ctl != ctlReg || moved.msg != "" {
			t.Errorf("following the regulariser, the view kept the note %q", moved.msg)
		}
	}
}

// regAtlas is fakeAtlas with orthogonal and spectral added, so that the
// regulariser axis has five values, as the shipped atlas for spring.
func regAtlas(t testing.TB) func() []AtlasCell {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	cells := fakeAtlas(t, map[string]int{})()
	for _, reg := range []core.Regularizer{core.RegOrthogonal, core.RegSpectral} {
		cfg := core.DefaultConfig(sys, core.LNP)
		cfg.Train.Reg = reg
		cfg.Train.Seed = uint64(len(cells) + 1)
		c := AtlasCell{Cell: checkpoints.Cell{System: "spring", Axis: checkpoints.AxisReg, Value: string(reg)}, Backbone: "lnp", Train: cfg.Train}
		c.Load = func() (*core.Model, core.Info, error) {
			m, err := core.NewModel(cfg)
			return m, core.Info{Steps1: 1, Steps2: 2}, err
		}
		cells = append(cells, c)
	}
	return func() []AtlasCell { return cells }
}

// TestAblationLabelsEveryRegulariser: on the regulariser axis every
// point can be told apart. The labels were dropped where they did not
// fit, and the last, pushed in from the right edge, sat under the 4th
// point: "l1 l2 grad" for five values. Each label now lies under its
// own point, and where some are cut or left out a legend names the
// values in order, by the names apic train --reg takes: it said "orth
// spec grad", which --reg refuses.
func TestAblationLabelsEveryRegulariser(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: regAtlas(t), Averages: -1})
		if err != nil {
			t.Fatal(err)
		}
		m = sized(t, m, sz[0], sz[1])
		m, _ = run(t, m, m.Init())
		m, labels := ablateOn(t, m, ctlReg)
		if got := strings.Join(labels, " "); got != "l1 l2 orthogonal spectral gradpen" || m.abl.done != 5 {
			t.Fatalf("%v: regulariser axis %q (%d done)", sz, got, m.abl.done)
		}
		for _, l := range labels {
			if _, err := core.ParseRegularizer(l); err != nil {
				t.Errorf("%v: the view names a regulariser %q: %v", sz, l, err)
			}
		}
		checkAblLabels(t, fmt.Sprint(sz), panelArea(m), labels)
	}
}

// TestAblationLabelsEveryNumber: on a number axis every point can be
// told apart too. At 80 columns the λ axes read "0 .1   .5 1 2 5": the
// ".2" was left out for want of a space beside ".1", and the columns
// are evenly spaced while the values are not, so nothing said what the
// point between .1 and .5 was. A label now shifts along its point to
// fit, and where some still do not (the noise axis's eight values) a
// legend names the values in order.
func TestAblationLabelsEveryNumber(t *testing.T) {
	for _, tc := range []struct {
		ctl  control
		want string
	}{{ctlLamTheta, "0 .1 .2 .5 1 2 5"}, {ctlNoise, "0 .005 .01 .02 .05 .1 .2 .5"}} {
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
			m := newAtlasTest(t, sz[0], sz[1], map[string]int{})
			m, labels := ablateOn(t, m, tc.ctl)
			if got := strings.Join(labels, " "); got != tc.want || m.abl.done != len(labels) {
				t.Fatalf("%v: axis %q (%d done), want %q", sz, got, m.abl.done, tc.want)
			}
			checkAblLabels(t, fmt.Sprint(tc.want, sz), panelArea(m), labels)
		}
	}
}

// ablateOn opens the ablation view on control id and gives its points'
// labels, in order.
func ablateOn(t *testing.T, m Model, id control) (Model, []string) {
	t.Helper()
	m = focusOn(t, m, id)
	m, _ = press(t, m, "A")
	var labels []string
	for _, p := range m.abl.points {
		labels = append(labels, p.label)
	}
	return m, labels
}

// checkAblLabels checks the first chart's value labels in the view's
// panel area: each under its own point, and a legend of every value
// where not all are written out in full.
func checkAblLabels(t *testing.T, name string, area, labels []string) {
	t.Helper()
	w1 := (ansi.StringWidth(area[0]) - 1) / 2
	// The legend may wrap: its lines joined read the values in order.
	head := make([]string, 6)
	for i := range head {
		head[i] = strings.TrimSpace(area[i])
	}
	text := strings.Join(head, " ")
	_, vals, legend := strings.Cut(text, "values")
	legend = legend && strings.Contains(vals, " "+strings.Join(labels, " ")+" ")
	var marks []int // the points' columns, left to right
	row := -1
	for i, l := range area {
		if strings.Contains(l, "recon MAE") {
			row = i
		}
		if row < 0 || i == row {
			continue
		}
		cells := []rune(ansi.Strip(ansi.Cut(l, 0, w1)))
		for x, r := range cells {
			if strings.ContainsRune("●◆◇", r) && !slices.Contains(marks, x) {
				marks = append(marks, x)
			}
		}
		if strings.Contains(ansi.Cut(l, 0, w1), labels[0]) {
			row = i // the label line ends the chart
			break
		}
	}
	slices.Sort(marks)
	if len(marks) != len(labels) {
		t.Fatalf("%s: %d points found, want %d:\n%s", name, len(marks), len(labels), strings.Join(area, "\n"))
	}
	line := []rune(ansi.Strip(ansi.Cut(area[row], 0, w1)))
	full := 0
	for x := 0; x < len(line); x++ {
		if line[x] == ' ' {
			continue
		}
		end := x
		for end < len(line) && line[end] != ' ' {
			end++
		}
		word := string(line[x:end])
		i := slices.IndexFunc(marks, func(c int) bool { return c >= x && c < end })
		if i < 0 || !strings.HasPrefix(labels[i], word) {
			t.Errorf("%s: label %q at %d–%d is not under its point (points at %v):\n%s", name, word, x, end, marks, string(line))
		} else if word == labels[i] {
			full++
		}
		x = end
	}
	if full < len(labels) && !legend {
		t.Errorf("%s: %d of %d values labelled in full, and no legend:\n%s", name, full, len(labels), strings.Join(area, "\n"))
	}
}

// TestAblationNoteFollowsTheSelection: A's note names the control
// selected while the view is open. After A on the system, ↓ to the
// backbone kept "not the system", and ↓ to the context (a curve) kept
// it beside the context's chart; moving onto train mode gave no note.
func TestAblationNoteFollowsTheSelection(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m = focusOn(t, m, ctlSystem)
	m, _ = press(t, m, "A")
	for _, step := range []struct {
		key, want string
	}{
		{"down", "the backbone cannot be swept"},
		{"down", ""}, // context
		{"up", "the backbone cannot be swept"},
	} {
		m, _ = press(t, m, step.key)
		if step.want == "" && strings.Contains(m.msg, "no curve") || !strings.Contains(m.msg, step.want) {
			t.Errorf("after %s on %v: message %q, want %q", step.key, m.controls()[m.focus], m.msg, step.want)
		}
	}
	m = focusOn(t, m, ctlMode)
	if m, _ = press(t, m, "up", "down"); !strings.Contains(m.msg, "train mode cannot be swept") {
		t.Errorf("on train mode with the view open: message %q", m.msg)
	}
	if m, _ = press(t, m, "A"); m.msg != "" {
		t.Errorf("the note outlived the view: %q", m.msg)
	}
	// An error on the line is not replaced by the note.
	m, _ = press(t, m, "A")
	m.setMsg(msgErr, "boom")
	if m, _ = press(t, m, "down"); m.msg != "boom" { // onto θ
		t.Errorf("the note replaced an error: %q", m.msg)
	}
}

// TestAblationLegendNeverCuts: the legend of the regulariser axis names
// every value whole, wrapping where the panel is too narrow for one
// line, rather than cutting the last name to "spectral…".
func TestAblationLegendNeverCuts(t *testing.T) {
	var regs []string
	for _, r := range core.Regularizers {
		regs = append(regs, string(r))
	}
	for _, w := range []int{48, 60, 120} {
		lines := ablLegend(regs, w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w || strings.Contains(l, "…") {
				t.Errorf("width %d: legend line %q", w, l)
			}
		}
		if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); !strings.HasSuffix(got, ": "+strings.Join(regs, " ")) {
			t.Errorf("width %d: legend %q does not name %v in order", w, got, regs)
		}
	}
}

// TestAblationViewPicksLogScale: the view's chart of means spanning
// more than logSpan is drawn on a log scale, title and y labels alike
// (ablCharts picks each chart's scale, once a frame, for all to read).
func TestAblationViewPicksLogScale(t *testing.T) {
	m := newAtlasTest(t, 160, 48, map[string]int{})
	m = focusOn(t, m, ctlContext)
	m, _ = press(t, m, "A")
	for i := range m.abl.points {
		mean := 0.001 * math.Pow(10, float64(i%3)) // .001 to .1: a hundredfold span
		res := core.Intervals{Metrics: map[string]core.Interval{}}
		for _, mt := range ablMetrics {
			res.Metrics[mt[1]] = core.Interval{Mean: mean, Lo: 0.9 * mean, Hi: 1.1 * mean, N: 32}
		}
		m.abl.points[i].res = &res
	}
	frame := ansi.Strip(m.render())
	if strings.Count(frame, "· log") != len(ablMetrics) {
		t.Errorf("%d charts on a log scale, want %d:\n%s", strings.Count(frame, "· log"), len(ablMetrics), frame)
	}
	// The bottom label is the bottom of the log range (below .0009),
	// not of a linear one, which starts at 0, and the labels' room
	// (yLabelWidth) is that of the log labels.
	if strings.Count(frame, ".00071│") != len(ablMetrics) {
		t.Errorf("not every chart labels its log range's bottom:\n%s", frame)
	}
}

// TestAblationDuringRunNamesItsWeights: while a run trains, a context
// curve is of the weights the run started from (the panels follow the
// run's), and the view says so, as the diagnostics do; it called them
// "the model on screen".
func TestAblationDuringRunNamesItsWeights(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := newTest(t, "spring", w, 40)
		base := runtime.NumGoroutine()
		m, cmds := startRun(t, m)
		m, _ = press(t, m, "A")
		frame := m.render()
		if !strings.Contains(frame, "weights before this run") || !strings.Contains(frame, ", context 30") || strings.Contains(frame, "model on screen") {
			t.Errorf("at %d columns during a run:\n%s", w, frame)
		}
		m, _ = press(t, m, "esc", "esc")
		run(t, m, tea.Batch(cmds...))
		settle(t, base)
	}
}

// TestAblationProgressKeepsTheMarkLegend: while the points compute, the
// status line puts the progress first and still ends on a whole wording
// of what the current value's mark means, at 120 and at 80 columns.
// Cut after the progress, the ◇ line read "…, not the…" and lost that
// the point is not the model on screen.
func TestAblationProgressKeepsTheMarkLegend(t *testing.T) {
	for _, size := range [][2]int{{120, 36}, {80, 24}} {
		m := newAtlasTest(t, size[0], size[1], map[string]int{})
		m = focusOn(t, m, ctlLamTheta)
		nm, _ := m.Update(keyMsg("A")) // the points are not run: computing
		m = nm.(Model)
		if !m.ablCurrentOther() || m.abl.done == len(m.abl.points) {
			t.Fatalf("%v: other %v, %d/%d done", size, m.ablCurrentOther(), m.abl.done, len(m.abl.points))
		}
		frame := m.render()
		var status string
		for _, l := range strings.Split(frame, "\n") {
			if strings.Contains(l, "computing") {
				status = l
			}
		}
		if status == "" || strings.Contains(status, "…│") || strings.Contains(status, "… │") {
			t.Errorf("%v: the status line is cut or missing: %q\n%s", size, status, frame)
		}
		if !strings.Contains(status, "◇ atlas model") && !strings.Contains(status, "not the one on screen") {
			t.Errorf("%v: the status line does not say what ◇ marks: %q", size, status)
		}
	}
}
