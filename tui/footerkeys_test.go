package tui

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFooterOffersTheViews: the footer never offered d, c or A, which
// nothing else on screen names; at 120 columns it does, saying what
// each does now, and at 80 it still fits its line.
func TestFooterOffersTheViews(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	for _, want := range []string{"d diagnostics", "c baselines", "A ablation", "? help", "q quit", "t train"} {
		if !strings.Contains(m.footer(), want) {
			t.Errorf("at 120 columns the footer lacks %q: %q", want, m.footer())
		}
	}
	m, _ = pressNoRun(t, m, "c")
	if f := m.footer(); !strings.Contains(f, "c stop baselines") {
		t.Errorf("while the baselines fit the footer reads %q; want c offered as stopping them", f)
	}
	m, _ = pressNoRun(t, m, "d")
	if f := m.footer(); !strings.Contains(f, "d close diagnostics") {
		t.Errorf("under d the footer reads %q; want d offered as closing it", f)
	}
	// A key with no room left, nor for the " …", was added and cut
	// ("r new realization •").
	if f := strings.TrimRight(m.footer(), " "); !strings.HasSuffix(f, " …") || strings.HasSuffix(f, "• …") {
		t.Errorf("under d the footer ends in a cut key: %q", f)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		u := newTest(t, "spring", size[0], size[1])
		u, _ = pressNoRun(t, u, "A")
		if f := strings.TrimRight(u.footer(), " "); !strings.HasSuffix(f, " …") || strings.HasSuffix(f, "• …") {
			t.Errorf("under A at %d columns the footer ends in a cut key: %q", size[0], f)
		}
		u.stopAll()
	}
	m.stopAll()

	small := newTest(t, "spring", 80, 24)
	frameOK(t, small.render(), 80, 24)
	if f := small.footer(); !strings.HasPrefix(f, "? help • q quit • p other panels") {
		t.Errorf("at 80 columns the footer lost its first keys: %q", f)
	}
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
