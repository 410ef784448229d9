package tui

import (
	"strings"
	"testing"
)

// TestOpenPromptCompletesEmbeddedNames: tab in the open prompt completes
// a shipped checkpoint's name after embedded:, the form the prompt's
// own hint offers, and an atlas file's in embedded:atlas/; it looked
// for files in a folder named "embedded:" and left the name as typed.
func TestOpenPromptCompletesEmbeddedNames(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = typeText(t, m, "embedded:lv-c")
	if m, _ = press(t, m, "tab"); m.prompt.path() != "embedded:lv-cnp.safetensors" {
		t.Errorf("embedded:lv-c then tab: %q", m.prompt.path())
	}
	m, _ = press(t, m, "ctrl+u")
	m = typeText(t, m, "embedded:")
	if m, _ = press(t, m, "tab"); !strings.Contains(m.footer(), "matches: ") || m.prompt.path() != "embedded:" {
		t.Errorf("embedded: then tab: %q, footer %q; want the names offered", m.prompt.path(), m.footer())
	}
	m = typeText(t, m, "at")
	if m, _ = press(t, m, "tab"); m.prompt.path() != "embedded:atlas/" {
		t.Errorf("embedded:at then tab: %q", m.prompt.path())
	}
	m = typeText(t, m, "spring-reg-ort")
	m, _ = press(t, m, "tab")
	if got := m.prompt.path(); got != "embedded:atlas/spring-reg-orthogonal.safetensors" {
		t.Errorf("embedded:atlas/spring-reg-ort then tab: %q", got)
	}

	// The save prompt writes files only: embedded: is no folder of names.
	m, _ = press(t, m, "esc", "s", "ctrl+u")
	m = typeText(t, m, "embedded:lv-c")
	if m, _ = press(t, m, "tab"); m.prompt.path() != "embedded:lv-c" {
		t.Errorf("the save prompt completed %q", m.prompt.path())
	}
}
