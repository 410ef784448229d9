package tui

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// The ? help defines each metric the sidebar shows and which way it is
// better, what each ± means, and the band; every line fits 80 columns.
func TestHelpDefinesMetricsAndPlusMinus(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	lines := helpAt(m, 80)
	whole := strings.Join(lines, "\n")
	for _, want := range []string{
		"recon MAE: mean |G − prediction|", "δ MAE", "θ MAE", "lower is better",
		"recon LL: mean log-density", "higher is better", "recon ECE: calibration error", "0 is perfect",
		"refined (N LM steps)", "θ̂±1σ", "1.13990(9) ±.00009", "95% confidence interval", "eval's ± is their sd",
		"95% band: the calibrated band's 95.4% interval", "verdict",
	} {
		if !strings.Contains(whole, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("help line %d wide: %q", w, l)
		}
	}
}

// TestHelpIndentsWhatGoesOn: a help entry that goes on past its first
// line indents the lines after it, as a parenthesis does up to its
// closing ")": the panels' note on fixed ranges went on at the margin,
// reading as an entry of its own ("beyond sit on the edge …").
func TestHelpIndentsWhatGoesOn(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m := newTest(t, sys, 80, 24)
		open := false
		for _, l := range helpAt(m, 80) {
			l = ansi.Strip(l)
			if open && !strings.HasPrefix(l, "  ") {
				t.Errorf("%s: a line inside a parenthesis at the margin: %q", sys, l)
			}
			if strings.HasPrefix(l, "(") {
				open = true
			}
			if strings.HasSuffix(strings.TrimSpace(l), ")") {
				open = false
			}
		}
	}
}

// TestHelpUndoNamesAtlasModels: the help's u says what it takes back,
// an atlas model loaded by λθ, λδ or the regulariser included (the
// status line says "u goes back" for one), where it named training
// and open only; and its column still fits 80.
func TestHelpUndoNamesAtlasModels(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	lines := helpAt(m, 80)
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "undo last training, open or atlas model") })
	if i < 0 {
		t.Fatalf("the help's u does not name atlas models:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[i], "quit (also ctrl+c)") {
		t.Errorf("the column beside u's is gone: %q", lines[i])
	}
}

// TestEscClosesHelpOverARun: the help says esc closes it, and so it
// does while a run trains; esc stopped the run and left the help open.
func TestEscClosesHelpOverARun(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	run0 := m.run
	m, _ = press(t, m, "?", "esc")
	if m.help.ShowAll || run0.stopping {
		t.Errorf("? esc during a run: help open %v, run stopping %v; want the help closed, the run going on", m.help.ShowAll, run0.stopping)
	}
	if m, _ = press(t, m, "esc"); !run0.stopping {
		t.Error("esc after the help closed did not stop the run")
	}
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}

// TestKeyBehindHelpClosesIt: a key that changes the panels, pressed
// with the help open, closes the help and acts, so its effect is seen;
// the help's own keys keep it open.
func TestKeyBehindHelpClosesIt(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "?", "down")
	if !m.help.ShowAll {
		t.Fatal("↓ in the help closed it; want it scrolled")
	}
	seed := m.seed
	m, _ = press(t, m, "r")
	if m.help.ShowAll || m.seed == seed {
		t.Errorf("r over the help: help open %v, seed %d (was %d); want the help closed and a new realization", m.help.ShowAll, m.seed, seed)
	}
}

// The help says where a θ row's σ stops, the prior's own deviation, and
// gives it for the system on screen: spring at 5 points read
// "ω 5.48±1.44" beside a truth of 5.47 with nothing to say that 1.44 is
// the cap, the σ of knowing only the prior box.
func TestHelpSaysThetaSigmaStopsAtThePriors(t *testing.T) {
	for _, tc := range []struct{ sys, want string }{
		{"spring", "ω 1.44:"}, {"lv", "α β η γ .289:"}, {"advdiff", "v .491, κ .0225:"},
	} {
		m := newTest(t, tc.sys, 80, 24)
		lines := helpAt(m, 80)
		whole := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.Contains(whole, "σ ≤ its prior's, (hi − lo)/√12, "+tc.want) {
			t.Errorf("%s: the help lacks the prior's σ %q", tc.sys, tc.want)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("%s: help line %d wide: %q", tc.sys, w, l)
			}
		}
	}
}

// TestFooterOverHelpSaysArrowsScroll: over the ? help ↑ and ↓ scroll
// it, and the footer says so; it offered "↑↓ select" (at 80 columns
// "↑↓←→ set"), which they do not do there.
func TestFooterOverHelpSaysArrowsScroll(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	if f := m.footer(); !strings.Contains(f, "↑↓←→ set") {
		t.Fatalf("footer %q", f)
	}
	focus := m.focus
	m, _ = press(t, m, "?", "down")
	if f := m.footer(); m.focus != focus || m.helpTop != 1 || !strings.Contains(f, "↑↓ scroll") || strings.Contains(f, "select") || strings.Contains(f, "↑↓←→") {
		t.Errorf("over the help: ↓ moved focus %d → %d, help top %d; footer %q", focus, m.focus, m.helpTop, f)
	}
}

// TestHelpNamesTheDiagnosticsFigures: every figure d shows without a
// word of its own (max|·|, cover95, contraction, z̃, |z|>2, the SBC
// histogram) is said in the help, in a line that fits 80 columns.
func TestHelpNamesTheDiagnosticsFigures(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	help := helpAt(m, 80)
	for _, want := range []string{"max|·|: a reliability row's largest gap", "cover95, the share of true θ", "contraction,", "z̃ its median", "|z|>2 the share", "SBC ranks, a"} {
		found := false
		for _, l := range help {
			if strings.Contains(l, want) {
				found = true
				if w := displayWidth(l); w > 80 {
					t.Errorf("help line %q is %d cells wide", l, w)
				}
			}
		}
		if !found {
			t.Errorf("the help does not say %q", want)
		}
	}
}

// TestHelpNamesTheTrainingBox: the training box's "s2 300/300 loss
// -1.02" and its sparkline, left in the sidebar after a run when the
// status line no longer spells them out, are said in the help.
func TestHelpNamesTheTrainingBox(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	help := strings.Join(helpAt(m, 80), "\n")
	for _, want := range []string{"s1/s2 the stage", "step/steps, loss and the stage's ETA", "the loss over the run"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help does not say %q", want)
		}
	}
	for _, l := range helpAt(m, 80) {
		if w := displayWidth(l); w > 80 {
			t.Errorf("help line %q is %d cells wide", l, w)
		}
	}
}

// TestGoldenHelpWhileSaving is the ? help while a save (s) writes its
// file: the help says what q does then (it waits for the file; q again
// closes at once and the file is still finished), and the footer's q
// says it quits once saved, then, pressed once, that q again quits at
// once. The help said nothing of the wait.
func TestGoldenHelpWhileSaving(t *testing.T) {
	m := newTest(t, "spring", 160, 48)
	m, _ = press(t, m, "s")
	m = send(t, m, keyMsg("enter")) // its command, the save, is not run
	if m.saves.pending() != 1 {
		t.Fatalf("s, enter: %d saves writing, want 1", m.saves.pending())
	}
	m, _ = press(t, m, "?")
	frame := m.render()
	frameOK(t, frame, 160, 48)
	for _, want := range []string{"q quit once saved", "q waits for a save still writing its file, then quits", "q again closes at once"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the help while a save writes lacks %q", want)
		}
	}
	golden.RequireEqual(t, []byte(frame))
	m, _ = press(t, m, "q")
	if !m.quitting || !strings.Contains(m.footer(), "q quit at once") {
		t.Errorf("q while the save writes: quitting %v, footer %q", m.quitting, m.footer())
	}
}
