package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// sendKey applies one key press and runs what it leads to.
func sendKey(t *testing.T, m Model, k tea.KeyPressMsg) Model {
	t.Helper()
	nm, cmd := m.Update(k)
	m, _ = run(t, nm.(Model), cmd)
	return m
}

// TestEscThenKeyOnASlowLink: esc then a key in one read of a slow link
// arrives as alt+key (ESC d is alt+d). Where esc closes what is on
// screen, the explorer reads it as the two keys: the help closes and d
// opens the diagnostics; d's view closes and A opens the ablation view.
// Elsewhere an alt+key does nothing, as before: esc would stop a run.
func TestEscThenKeyOnASlowLink(t *testing.T) {
	altD := tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt}
	altA := tea.KeyPressMsg{Code: 'a', ShiftedCode: 'A', Mod: tea.ModAlt | tea.ModShift}

	m := newTest(t, "spring", 80, 24)
	if m = sendKey(t, m, altD); m.diag.open || m.help.ShowAll {
		t.Fatal("alt+d with nothing for esc to close acted")
	}
	m, _ = press(t, m, "?")
	if m = sendKey(t, m, altD); m.help.ShowAll || !m.diag.open {
		t.Fatalf("help open, esc d as alt+d: help %v, diagnostics %v; want the help closed and d's view open", m.help.ShowAll, m.diag.open)
	}
	m = focusOn(t, m, ctlContext)
	if m = sendKey(t, m, altA); m.diag.open || !m.abl.open {
		t.Fatalf("d's view open, esc A as alt+A: diagnostics %v, ablation %v; want d closed and A open", m.diag.open, m.abl.open)
	}
	if m = sendKey(t, m, tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt}); m.abl.open || m.run != nil {
		t.Fatalf("esc esc as alt+esc: ablation %v; want it closed and nothing else", m.abl.open)
	}
}

// TestEscThenKeyClosesThePrompt: esc then q at the path prompt, one
// read on a slow link (tmux send-keys Escape q), arrived as alt+q and
// left the prompt open with its text; the prompt binds no alt key for
// word editing, so it reads the two keys: esc cancels, the key then acts
// on the explorer.
func TestEscThenKeyClosesThePrompt(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = typeText(t, m, "x")
	m = sendKey(t, m, tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt})
	if m.prompt.active() || !m.diag.open {
		t.Fatalf("open prompt, esc d as alt+d: prompt open %v (value %q), diagnostics %v; want the prompt cancelled and d's view open",
			m.prompt.active(), string(m.prompt.value), m.diag.open)
	}
	m, _ = press(t, m, "esc", "o")
	nm, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Mod: tea.ModAlt})
	if m, quit := run(t, nm.(Model), cmd); m.prompt.active() || !quit {
		t.Errorf("open prompt, esc q as alt+q: prompt open %v (value %q), quit %v; want it cancelled and q to quit",
			m.prompt.active(), string(m.prompt.value), quit)
	}
}

// TestPromptDeletesPathElements checks that alt+backspace, which a
// terminal sends as esc then backspace, deletes the prompt's last path
// element rather than cancelling the prompt and losing the path, and
// that ctrl+w does the same.
func TestPromptDeletesPathElements(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o", "ctrl+u")
	m = typeText(t, m, "runs/lv/a.safetensors")
	for _, want := range []string{"runs/lv/", "runs/", ""} {
		m = sendKey(t, m, tea.KeyPressMsg{Code: tea.KeyBackspace, Mod: tea.ModAlt})
		if !m.prompt.active() || string(m.prompt.value) != want {
			t.Fatalf("alt+backspace: prompt open %v, value %q; want open with %q", m.prompt.active(), string(m.prompt.value), want)
		}
	}
	m = typeText(t, m, "a b/c")
	m = sendKey(t, m, tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	if got := string(m.prompt.value); got != "a b/" {
		t.Errorf("ctrl+w: value %q, want %q", got, "a b/")
	}
}
