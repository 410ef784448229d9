package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"apic/core"
	"apic/core/cli"
)

// diagMsgs runs cmd (a batch or one command) and returns the diagnoses
// among its messages, without feeding anything back.
func diagMsgs(cmd tea.Cmd) []diagMsg {
	var out []diagMsg
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
		case diagMsg:
			out = append(out, msg)
		}
	}
	return out
}

// d opens the view at once and leaves the computation to the command it
// returns: the key press never waits for the 32 predictions, and the
// result comes back as a message.
func TestDiagnosticsRunOffTheUIGoroutine(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	nm, cmd := m.Update(keyMsg("d"))
	m = nm.(Model)
	if !m.diag.open || m.diag.res != nil || cmd == nil {
		t.Fatalf("after d: open %v, result %v, command %v; want open, no result yet, a command", m.diag.open, m.diag.res != nil, cmd != nil)
	}
	if frame := m.render(); !strings.Contains(frame, "computing 0/32 realizations…") {
		t.Errorf("the frame while computing does not say so:\n%s", frame)
	}
	msgs := diagMsgs(cmd)
	if len(msgs) != 1 || msgs[0].err != nil {
		t.Fatalf("command gave %+v, want one diagnosis", msgs)
	}
	m = send(t, m, msgs[0])
	if m.diag.res == nil || m.diag.res.Tasks != avgTasks || m.diag.res.Context != 30 {
		t.Fatalf("result %+v, want %d realizations at context 30", m.diag.res, avgTasks)
	}
	if frame := m.render(); !strings.Contains(frame, "θ ω: cover95") {
		t.Errorf("the frame lacks the result:\n%s", frame)
	}
}

// Moving a slider while the view is open cancels the running diagnosis
// and starts one for the new settings; the old result, when it comes,
// is dropped. Moving θ by hand changes nothing the diagnosis depends on.
func TestDiagnosticsFollowTheSliders(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	nm, first := m.Update(keyMsg("d"))
	m = nm.(Model)
	m = focusOn(t, m, ctlContext)
	nm, second := m.Update(keyMsg("right"))
	m = nm.(Model)
	old := diagMsgs(first)
	if len(old) != 1 || !errors.Is(old[0].err, context.Canceled) {
		t.Errorf("the first diagnosis was not cancelled: %+v", old)
	}
	m = send(t, m, old[0])
	if m.diag.res != nil || m.diag.err != nil {
		t.Fatal("a stale diagnosis was shown")
	}
	fresh := diagMsgs(second)
	if len(fresh) != 1 {
		t.Fatalf("moving the context started %d diagnoses, want 1", len(fresh))
	}
	m = send(t, m, fresh[0])
	want := int(m.ctxSteps["spring"].value())
	if m.diag.res == nil || m.diag.res.Context != want || want == 30 {
		t.Fatalf("diagnosis at context %v, want the new context %d", m.diag.res, want)
	}
	// A key that changes nothing the diagnosis depends on starts none.
	_, cmd := m.Update(keyMsg("r"))
	if got := diagMsgs(cmd); len(got) != 0 {
		t.Errorf("a new realization restarted the diagnosis (%d)", len(got))
	}
}

// d and esc close the view; esc then goes back to its other uses.
func TestDiagnosticsClose(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	for _, closer := range []string{"d", "esc"} {
		m = send(t, m, keyMsg("d"))
		if !m.diag.open {
			t.Fatal("d did not open the view")
		}
		cancel := m.diag.cancel
		m = send(t, m, keyMsg(closer))
		if m.diag.open {
			t.Errorf("%s did not close the view", closer)
		}
		if cancel == nil {
			t.Fatal("no cancel for the running diagnosis")
		}
		if frame := m.render(); strings.Contains(frame, "diagnostics ·") || !strings.Contains(frame, "simulator F(x; θ̂)") {
			t.Errorf("after %s the panels are not back:\n%s", closer, frame)
		}
	}
	found := false
	for _, col := range m.keys.FullHelp() {
		for _, b := range col {
			found = found || b.Help().Key == "d"
		}
	}
	if !found {
		t.Error("the full help does not list d")
	}
}

// The header gives the latent samples per realization the diagnosis
// used (the system's interactive count), with the realizations: the
// numbers are those of apic diagnose with these flags.
func TestDiagnosticsHeaderSaysTheSamples(t *testing.T) {
	for _, tc := range []struct {
		sys     string
		w, h    int
		samples int
	}{{"spring", 80, 24, 16}, {"spring", 160, 48, 16}, {"lv", 80, 24, 8}} {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.sys, tc.w, tc.h), func(t *testing.T) {
			m := newTest(t, tc.sys, tc.w, tc.h)
			m = openDiagnosis(t, m)
			if got := m.diag.res.Samples; got != tc.samples {
				t.Fatalf("diagnosed with %d samples, want %d", got, tc.samples)
			}
			frame := m.render()
			for _, want := range []string{
				fmt.Sprintf("diagnostics: %d realizations, %d samples each", m.diag.res.Tasks, m.diag.res.Samples),
				fmt.Sprintf("context %d, σ %g", m.diag.res.Context, m.diag.res.Noise), "d/esc closes",
			} {
				if !strings.Contains(frame, want) {
					t.Errorf("the frame lacks %q:\n%s", want, frame)
				}
			}
			// The full help gives the command line of the same numbers.
			help := strings.Join(helpAt(m, tc.w), "\n")
			if want := fmt.Sprintf("apic diagnose --tasks %d --seed %d --samples %d", avgTasks, diagSeed, tc.samples); !strings.Contains(help, want) {
				t.Errorf("the help lacks %q:\n%s", want, help)
			}
		})
	}
}

// Opened while training, the view says that it diagnoses the weights
// the run started from, which the panels no longer show; when the run
// ends its weights are diagnosed and the note goes.
func TestDiagnosticsWhileTrainingSayWhichWeights(t *testing.T) {
	const note = "diagnosing the weights before this run; recomputed when it ends"
	m := newTest(t, "spring", 140, 44)
	m, cmds := startRun(t, m)
	before := m.run.base.model
	nm, cmd := m.Update(keyMsg("d"))
	m = nm.(Model)
	if m.diag.key.model != before {
		t.Fatal("the view does not diagnose the weights the run started from")
	}
	if frame := m.render(); !strings.Contains(frame, note) {
		t.Errorf("computing while training, the frame lacks %q:\n%s", note, frame)
	}
	msgs := diagMsgs(cmd)
	if len(msgs) != 1 || msgs[0].err != nil {
		t.Fatalf("command gave %+v, want one diagnosis", msgs)
	}
	m = send(t, m, msgs[0])
	if frame := m.render(); m.diag.res == nil || !strings.Contains(frame, note) {
		t.Errorf("with the result while training, the frame lacks %q:\n%s", note, frame)
	}
	m, _ = pump(t, m, cmds, func(m Model) bool { return m.run == nil })
	if m.run != nil || m.entry().model == before {
		t.Fatal("the run did not end with weights of its own")
	}
	if m.diag.key.model != m.entry().model || m.diag.res != nil {
		t.Error("the run's weights are not being diagnosed after it ended")
	}
	if frame := m.render(); strings.Contains(frame, "before this run") {
		t.Errorf("after the run the frame still has the note:\n%s", frame)
	}
	// The 47 columns the view has at 80 (the panel area's 48 less
	// the gap beside the sidebar) get the note's short form, whole.
	m = newTest(t, "spring", 80, 24)
	m, cmds = startRun(t, m)
	m = send(t, m, keyMsg("d"))
	if frame := m.render(); !strings.Contains(frame, "weights before this run; recomputed at its end") {
		t.Errorf("at 80 columns the frame lacks the note:\n%s", frame)
	}
	m = send(t, m, keyMsg("d"))
	m, _ = press(t, m, "esc")
	_, _ = pump(t, m, cmds, func(m Model) bool { return m.run == nil })
}

// TestGoldenDiagnostics is the diagnostics view on untrained weights at
// the smallest and a large terminal, and advdiff at 140×44, where the
// bands' reliability plot fits but not θ's with it.
// Regenerate with: go test ./tui -run TestGoldenDiagnostics -update
func TestGoldenDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		sys  string
		w, h int
	}{{"spring", 80, 24}, {"spring", 160, 48}, {"lv", 80, 24}, {"lv", 80, minHeight}, {"advdiff", 140, 44}} {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.sys, tc.w, tc.h), func(t *testing.T) {
			m := newTest(t, tc.sys, tc.w, tc.h)
			m = openDiagnosis(t, m)
			frame := m.render()
			frameOK(t, frame, tc.w, tc.h)
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// The notes on a checkpoint's calibrated shapes are wider than the
// panel beside the sidebar: they wrap onto the next line instead of
// being cut, and the choice of how much detail fits counts the wrapped
// lines, so the θ summary at the bottom is never pushed off the panel.
func TestDiagnosticsWrapLongLines(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	m = openDiagnosis(t, m)
	d := *m.diag.res
	d.ThetaShaped, d.BandsShaped = true, true
	m.diag.res = &d
	frame := m.render()
	for _, want := range []string{"--gaussian-theta", "scores θ̂ ± z σ_θ)", "--gaussian-bands scores μ ±", " z σ)"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
	for h := 24; h <= 70; h++ {
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: h})
		frame := m.render()
		frameOK(t, frame, 120, h)
		if !strings.Contains(frame, "SBC ranks") {
			t.Fatalf("at 120×%d the θ summary's last line is off the panel:\n%s", h, frame)
		}
	}
}

// Where the curves form does not fit but the bands' plot does (advdiff
// at 140×44), the view shows the compact form with that plot where the
// curves form has it: the curves form less θ's plot, every parameter's
// summary kept. At every height the view shows the most that fits.
func TestDiagnosticsBandsPlotWhenTheCurvesDoNotFit(t *testing.T) {
	m := newTest(t, "advdiff", 140, 44)
	m = openDiagnosis(t, m)
	d := *m.diag.res
	const bandsTitle, thetaTitle = "signed reliability of the bands", "signed reliability of θ's intervals"
	frame := m.render()
	if !strings.Contains(frame, bandsTitle) || strings.Contains(frame, thetaTitle) || strings.Count(frame, "SBC ranks") != len(d.Theta) {
		t.Errorf("at 140×44 want the bands' plot, not θ's, and %d summaries:\n%s", len(d.Theta), frame)
	}
	// The composed text is the curves form less θ's plot, line for line.
	w := 140 - bigSideW - 1
	text := cli.DiagnosticsText(d, w, cli.DiagnosticsBands, false)
	if !strings.Contains(text, bandsTitle) {
		t.Fatal("no bands' plot for a diagnosis with band curves")
	}
	curves := cli.DiagnosticsText(d, w, cli.DiagnosticsCurves, false)
	i := strings.Index(curves, thetaTitle)
	if i < 0 {
		t.Fatalf("the curves form has no θ plot:\n%s", curves)
	}
	j := strings.Index(curves, "\nθ ") // the first parameter's summary
	if want := curves[:strings.LastIndex(curves[:i], "\n\n")+1] + curves[j:]; text != want {
		t.Errorf("compact form with the bands' plot:\n%s\nwant:\n%s", text, want)
	}
	sizes := map[string]int{}
	for _, detail := range []cli.DiagnosticsDetail{cli.DiagnosticsCompact, cli.DiagnosticsCurves, cli.DiagnosticsFull} {
		sizes[fmt.Sprint(detail)] = len(wrapLines(cli.DiagnosticsText(d, w, detail, false), w))
	}
	bands := len(wrapLines(text, w))
	for h := 24; h <= 120; h++ {
		m = send(t, m, tea.WindowSizeMsg{Width: 140, Height: h})
		frame := m.render()
		frameOK(t, frame, 140, h)
		room := h - headerLines - 1 - 2 // header, help line, the view's header
		full, both := sizes[fmt.Sprint(cli.DiagnosticsFull)] <= room, sizes[fmt.Sprint(cli.DiagnosticsCurves)] <= room
		wantBands, wantTheta, wantScatter := both || bands <= room, both, full
		if strings.Contains(frame, bandsTitle) != wantBands || strings.Contains(frame, thetaTitle) != wantTheta ||
			strings.Contains(frame, "estimate against truth") != wantScatter {
			t.Fatalf("at 140×%d (room %d; compact %v, bands %d, curves %v, full %v) the frame has the wrong detail:\n%s",
				h, room, sizes[fmt.Sprint(cli.DiagnosticsCompact)], bands, sizes[fmt.Sprint(cli.DiagnosticsCurves)], sizes[fmt.Sprint(cli.DiagnosticsFull)], frame)
		}
	}
	// Without band curves there is no such plot to add.
	d.Reliability = slices.DeleteFunc(slices.Clone(d.Reliability), func(c core.ReliabilityCurve) bool { return !strings.HasPrefix(c.Name, "theta:") })
	if text := cli.DiagnosticsText(d, w, cli.DiagnosticsBands, false); strings.Contains(text, bandsTitle) || text != cli.DiagnosticsText(d, w, cli.DiagnosticsCompact, false) {
		t.Error("a bands' plot without band curves")
	}
}

func TestWrapLines(t *testing.T) {
	// No last word stands alone where the line above could break
	// earlier: "five)" and "gh" were each on a line of their own.
	got := wrapLines("short\n(one two three four five)\n  ab cd ef gh\n", 12)
	want := []string{"short", "(one two", " three", " four five)", "  ab cd", "   ef gh"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	// A flag's hyphens do not break it.
	got = wrapLines("(a --gaussian-theta b)", 18)
	want = []string{"(a", " --gaussian-theta", " b)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	// A relation keeps its sides: the SBC line of d at 80 columns ended
	// "… p" with "< 1e-6" alone on the next.
	got = wrapLines("  SBC |▅▇█| p < 1e-6", 16)
	want = []string{"  SBC |▅▇█|", "   p < 1e-6"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	got = wrapLines("xx yy p = 0.031", 10)
	want = []string{"xx yy", " p = 0.031"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	// A word left alone after a relation keeps it whole: "p = 0.031"
	// does not break for the word after it.
	got = wrapLines("xx p = 0.031 yy", 14)
	want = []string{"xx", " p = 0.031 yy"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
}

// TestVerdictWrapsAtItsClause: d's verdict in the 47 columns the panel
// has at 80 ended "β biased, θ̂ below" with " θ" alone on the next
// line; it breaks after the clause before, which keeps the parameter's
// verdict whole.
func TestVerdictWrapsAtItsClause(t *testing.T) {
	got := wrapLines("θ verdict: α η γ calibrated; β biased, θ̂ below θ", cli.DiagnosticsPanelWidth)
	want := []string{"θ verdict: α η γ calibrated;", " β biased, θ̂ below θ"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	// Without a clause in the line above's right half, the word before
	// the lone one goes down with it.
	got = wrapLines("θ verdict: α; β γ η biased, θ̂ below θ", 36)
	want = []string{"θ verdict: α; β γ η biased, θ̂", " below θ"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
}

// The title's sample count is the one drawn: a cnp is deterministic
// and draws one sample whatever was asked (16 for spring), and the
// title said 16. Until the result is in, it gives no count.
func TestDiagnosticsTitleCountsTheSamplesDrawn(t *testing.T) {
	for _, tc := range []struct {
		backbone, want string
	}{{"cnp", "32 realizations, 1 sample each"}, {"lnp", "32 realizations, 16 samples each"}} {
		t.Run(tc.backbone, func(t *testing.T) {
			m, err := New(Options{System: "spring", Backbone: tc.backbone, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
			if err != nil {
				t.Fatal(err)
			}
			m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
			m, _ = run(t, m, m.Init())
			m = send(t, m, keyMsg("d"))
			if title := m.diagHeader(80)[0]; strings.Contains(title, "sample") {
				t.Errorf("while computing the title gives a count: %q", title)
			}
			m = send(t, m, keyMsg("d"))
			m = openDiagnosis(t, m)
			if title := m.diagHeader(80)[0]; !strings.Contains(title, tc.want) {
				t.Errorf("title %q, want %q", title, tc.want)
			}
		})
	}
}

// openDiagnosis presses d and returns the model with its diagnosis
// computed (tests compute it in the foreground).
func openDiagnosis(t *testing.T, m Model) Model {
	t.Helper()
	m, _ = press(t, m, "d")
	if m.diag.res == nil {
		t.Fatalf("no diagnosis (error %v)", m.diag.err)
	}
	return m
}

// The diagnostics view names each parameter as the sidebar does, by its
// symbol ("θ ω", not "θ omega"), in the 80-column panel and in the
// command line's layout on a large terminal alike; a parameter without
// a symbol of its own (advdiff's v) keeps its name.
func TestDiagnosticsNameParametersAsTheSidebar(t *testing.T) {
	for _, tc := range []struct {
		sys       string
		w, h      int
		want, not []string
	}{
		{"spring", 80, 24, []string{"θ ω"}, []string{"omega"}},
		{"spring", 160, 48, []string{"θ ω"}, []string{"omega"}},
		{"lv", 80, 24, []string{"θ α", "θ γ"}, []string{"alpha", "gamma"}},
		{"advdiff", 140, 44, []string{"θ v", "θ κ"}, []string{"kappa"}},
	} {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.sys, tc.w, tc.h), func(t *testing.T) {
			m := openDiagnosis(t, newTest(t, tc.sys, tc.w, tc.h))
			frame := m.render()
			for _, w := range tc.want {
				if !strings.Contains(frame, w) {
					t.Errorf("the view lacks %q:\n%s", w, frame)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(frame, n) {
					t.Errorf("the view names a parameter %q:\n%s", n, frame)
				}
			}
		})
	}
}

// The help's θ rows say what the backbone on screen draws: a cnp draws
// one sample whatever is asked, and the help said "over 16 samples".
// The commands keep --samples 16, which is what they would be run with.
func TestHelpCountsTheSamplesDrawn(t *testing.T) {
	for _, tc := range []struct {
		backbone, want, not string
	}{{"cnp", "1 sample", "over 16 samples"}, {"lnp", "over 16 samples", "deterministic"}} {
		t.Run(tc.backbone, func(t *testing.T) {
			m, err := New(Options{System: "spring", Backbone: tc.backbone, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
			if err != nil {
				t.Fatal(err)
			}
			m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
			lines := helpAt(m, 80)
			help := strings.Join(lines, "\n")
			for _, want := range []string{tc.want, "diagnose --tasks 32 --seed", "--samples 16"} {
				if !strings.Contains(help, want) {
					t.Errorf("the help lacks %q:\n%s", want, help)
				}
			}
			if strings.Contains(help, tc.not) {
				t.Errorf("the help says %q:\n%s", tc.not, help)
			}
			for _, l := range lines {
				if w := displayWidth(l); w > 80 {
					t.Errorf("help line %d columns wide: %q", w, l)
				}
			}
		})
	}
}

// A diagnosis taller than the panel shows that it is cut: with 200
// realizations lv's SBC lines took one line more than 80×24 leaves,
// and the last (θ γ's p-value) was dropped without a word. Here the
// panel is made short instead. Short of room, the view first gives up
// its hint line ("context 30, σ 0 · d/esc closes"): lv's diagnosis
// then fits 80×22.
func TestDiagnosticsCutSaysSo(t *testing.T) {
	m := newTest(t, "lv", 80, 24)
	m = openDiagnosis(t, m)
	full := m.diagHeader(49)
	full = append(full, diagBody(*m.diag.res, 49, 1000)...)
	short := len(full) - 1 // without the hint line
	for _, h := range []int{8, 12, short - 1} {
		lines := m.diagView(49, h)
		last := ansi.Strip(lines[h-1])
		want := fmt.Sprintf("… %s", core.Count(short-(h-1), "more line"))
		if len(lines) != h || !strings.HasPrefix(last, want) {
			t.Errorf("h %d: last line %q, want it to start %q", h, last, want)
		}
	}
	for _, h := range []int{short, len(full)} {
		view := strings.Join(m.diagView(49, h), "\n")
		if strings.Contains(view, "more line") {
			t.Errorf("h %d: a diagnosis that fits is marked cut:\n%s", h, view)
		}
		if hint := strings.Contains(view, "d/esc closes"); hint != (h == len(full)) {
			t.Errorf("h %d: hint line shown %v, want it only where every line fits:\n%s", h, hint, view)
		}
	}
}

// Where a parameter's σ is nearly its prior's own, the view says in how
// many realizations, as apic diagnose warns: the verdict read
// "calibrated" over intervals as wide as the prior box (spring at
// context 8, σ 0.02: 16 of 32), which cover θ from almost any θ̂.
func TestDiagnosticsSayWhereSigmaIsThePriors(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := openDiagnosis(t, newTest(t, "spring", size[0], size[1]))
			if frame := m.render(); strings.Contains(frame, "prior's own") {
				t.Fatalf("the note shows with no σ at the prior's:\n%s", frame)
			}
			res := *m.diag.res
			res.Theta = slices.Clone(res.Theta)
			th := &res.Theta[0]
			th.Std = slices.Clone(th.Std)
			wide := (th.PriorHi - th.PriorLo) / math.Sqrt(12)
			for i := 0; i < 3; i++ {
				th.Std[i] = wide
			}
			m.diag.res = &res
			frame := m.render()
			want := fmt.Sprintf("ω 3/%d", len(th.Std))
			if !strings.Contains(frame, "σ ≈ the prior's own in "+want) {
				t.Errorf("the view lacks the prior-wide note %q:\n%s", want, frame)
			}
			for i, l := range strings.Split(frame, "\n") {
				if w := displayWidth(l); w > size[0] {
					t.Errorf("line %d is %d columns wide: %q", i, w, l)
				}
			}
		})
	}
}
