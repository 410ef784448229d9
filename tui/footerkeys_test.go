package tui

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFooterOffersTheViews: the footer never offered d, c or A, which
// nothing else on screen names, and at 80 columns (inside tmux, too)
// it showed ? q p ↑↓ ←→ t and left d, c, A and r to the ? help. At 80
// columns it offers them in a word a key; where every key fits, in its
// words; in either, saying what each does now.
func TestFooterOffersTheViews(t *testing.T) {
	for _, h := range []int{24, 23} {
		small := newTest(t, "spring", 80, h)
		frameOK(t, small.render(), 80, h)
		f := small.footer()
		if !strings.HasPrefix(f, "? help  q quit  p page  ↑↓←→ set  t train") {
			t.Errorf("at 80×%d the footer lost its first keys: %q", h, f)
		}
		for _, want := range []string{"d diag", "c base", "A ablate", "r reseed"} {
			if !strings.Contains(f, want) {
				t.Errorf("at 80×%d the footer lacks %q: %q", h, want, f)
			}
		}
	}
	wide := newTest(t, "spring", 250, 40)
	for _, want := range []string{"? help • q quit • ↑↓ select • ←→ change • t train", "d diagnostics", "c baselines", "A ablation", "r new realization", "tab next system", "b next backbone"} {
		if !strings.Contains(wide.footer(), want) {
			t.Errorf("at 250 columns the footer lacks %q: %q", want, wide.footer())
		}
	}
	m := newTest(t, "spring", 120, 40)
	m, _ = pressNoRun(t, m, "c")
	if f := m.footer(); !strings.Contains(f, "esc stop") || !strings.Contains(f, "c clear") {
		t.Errorf("while the baselines fit the footer reads %q; want esc offered as stopping them, c as clearing them", f)
	}
	m, _ = pressNoRun(t, m, "d")
	if f := m.footer(); !strings.Contains(f, "d close") {
		t.Errorf("under d the footer reads %q; want d offered as closing it", f)
	}
	// A key with no room left, nor for the " …", was added and cut
	// ("r new realization •").
	if f := m.footer(); !footerWhole(f) {
		t.Errorf("under d the footer ends in a cut key: %q", f)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		u := newTest(t, "spring", size[0], size[1])
		u, _ = pressNoRun(t, u, "A")
		if f := u.footer(); !footerWhole(f) || !strings.Contains(f, "A close") {
			t.Errorf("under A at %d columns the footer ends in a cut key, or offers no A to close it: %q", size[0], f)
		}
		u.stopAll()
	}
	m.stopAll()
}

// footerWhole reports whether footer f ends in a whole key: its last
// (w), or " …" after a key.
func footerWhole(f string) bool {
	f = strings.TrimRight(f, " ")
	return strings.HasSuffix(f, "w csv") || strings.HasSuffix(f, "w write the context as CSV") ||
		strings.HasSuffix(f, " …") && !strings.HasSuffix(f, "• …") && !strings.HasSuffix(f, "  …")
}

// TestSaveAndUndoWaitForTheRun: s and u only refuse while a run trains
// ("training is running"), and the footer offered s all the same; it
// offers them once the run has ended, and the help says why they wait.
// o stays: it asks first, then opens and stops the run.
func TestSaveAndUndoWaitForTheRun(t *testing.T) {
	m := newTest(t, "spring", 200, 48)
	if f := m.footer(); !strings.Contains(f, "s save checkpoint") || !strings.Contains(f, "o open checkpoint") {
		t.Fatalf("idle, the footer does not offer s and o: %q", f)
	}
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	if f := m.footer(); strings.Contains(f, "s save") || !strings.Contains(f, "o open checkpoint") {
		t.Errorf("during a run the footer reads %q; want o offered, s not", f)
	}
	if m.keysNow().Undo.Enabled() || m.keysNow().Save.Enabled() {
		t.Error("during a run s or u is enabled")
	}
	help := strings.Join(m.helpLines(80, false), "\n")
	if !regexp.MustCompile(`s +save checkpoint`).MatchString(help) || !strings.Contains(help, "s and u wait for this run to end (esc stops it)") {
		t.Errorf("during a run the help does not say s and u wait for it:\n%s", help)
	}
	if m, _ = press(t, m, "s"); m.msgKind != msgWarn || !strings.Contains(m.msg, "esc") || m.prompt.active() {
		t.Errorf("s during a run: message %q, prompt %v; want a warning naming esc", m.msg, m.prompt.active())
	}
	m, _ = press(t, m, "esc")
	m, _ = run(t, m, tea.Batch(cmds...))
	if f := m.footer(); !strings.Contains(f, "s save checkpoint") {
		t.Errorf("after the run the footer does not offer s: %q", f)
	}
	settle(t, base)
}
