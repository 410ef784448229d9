package tui

import (
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPageKeyWhereNothingFlips: p with all four panels on screen, or
// under the diagnostics or the ablation view, says why it flips
// nothing and leaves the pair shown: it flipped it out of sight, and
// the terminal made smaller (or the view closed) then came back on
// panels 3 and 4 unasked.
func TestPageKeyWhereNothingFlips(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	m, _ = press(t, m, "p")
	if m.page != 0 || !strings.Contains(m.msg, "all four panels are on screen") {
		t.Errorf("p at 120×40: page %d, message %q", m.page, m.msg)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if frame := m.render(); !strings.Contains(frame, "1 simulator") {
		t.Errorf("made smaller after p, the frame does not show panel 1:\n%s", frame)
	}
	for _, view := range []string{"d", "A"} {
		m, _ = press(t, m, view, "p")
		if m.page != 0 || !strings.Contains(m.msg, "shows them, then p flips them") {
			t.Errorf("p under %s: page %d, message %q", view, m.page, m.msg)
		}
		m, _ = press(t, m, view)
	}
	if m, _ = press(t, m, "p"); m.page != 1 {
		t.Error("p on the panels at 80×24 did not flip them")
	}
}

// TestFooterOffersPageOnlyWherePFlips: the footer and the ? help offer
// "p other panels" only where p flips them: under d or A it only said
// that the view covers the panels, while the footer still offered it.
func TestFooterOffersPageOnlyWherePFlips(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	if !strings.Contains(m.footer(), "p page") {
		t.Fatalf("the footer at 80×24 does not offer p: %q", m.footer())
	}
	for _, view := range []string{"d", "A"} {
		m, _ = press(t, m, view)
		if f := m.footer(); strings.Contains(f, "p page") || strings.Contains(f, "p other panels") {
			t.Errorf("under %s the footer offers p, which flips nothing there: %q", view, f)
		}
		h, _ := press(t, m, "?")
		if strings.Contains(strings.Join(h.helpLines(80, false), "\n"), "other panels") {
			t.Errorf("the help over %s offers p, which flips nothing there", view)
		}
		m, _ = press(t, m, view)
		if f := m.footer(); !strings.Contains(f, "p page") {
			t.Errorf("%s closed, the footer no longer offers p: %q", view, f)
		}
	}
}

// TestHeatKeyUnderAView: v under d or A says why it switches nothing,
// and leaves the panels in the form they had: it switched them out of
// sight, and closing the view showed the slice where the heatmaps had
// been, unasked. The footer and help do not offer v there.
func TestHeatKeyUnderAView(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	m, _ = press(t, m, "v")
	if !m.heat {
		t.Fatal("v did not show the heatmaps")
	}
	for _, view := range []string{"d", "A"} {
		m, _ = press(t, m, view)
		h, _ := press(t, m, "?")
		if strings.Contains(strings.Join(h.helpLines(80, false), "\n"), "heatmaps / slice") {
			t.Errorf("the help over %s offers v, which switches nothing there", view)
		}
		m, _ = press(t, m, "v")
		if !m.heat || !strings.Contains(m.msg, "shows them, then v switches them") {
			t.Errorf("v under %s: heatmaps %v, message %q", view, m.heat, m.msg)
		}
		m, _ = press(t, m, view)
	}
	if m, _ = press(t, m, "v"); m.heat {
		t.Error("v on the panels did not switch back to the slice")
	}
}

// TestFooterDropsTrainWhileARunTrains: t while a run trains only says
// "already training"; the footer offered "t train" all the same and, at
// 80 columns, cut esc, the key that stops the run, for it. The help
// still lists t.
func TestFooterDropsTrainWhileARunTrains(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	if !strings.Contains(m.footer(), "t train") {
		t.Fatalf("idle, the footer does not offer t: %q", m.footer())
	}
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	if f := m.footer(); strings.Contains(f, "t train") || !strings.Contains(f, "esc stop") || m.keysNow().Cancel.Help().Desc != "stop training" {
		t.Errorf("during a run the footer reads %q; want esc offered, t not", f)
	}
	if !strings.Contains(strings.Join(m.helpLines(80, false), "\n"), "t   train") {
		t.Error("during a run the help no longer lists t")
	}
	m, _ = press(t, m, "esc")
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}
