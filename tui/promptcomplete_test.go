package tui

import (
	"os"
	"path/filepath"
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

// TestPromptCompletesUnicodeHomeAndLinks: tab completes names that
// part inside a character (é, è) to their shared whole characters, not
// to half a character the prompt then read as U+FFFD; a leading ~/ in
// the home directory, where enter looks; and into a linked folder.
func TestPromptCompletesUnicodeHomeAndLinks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	runs := filepath.Join(home, "runs")
	for _, name := range []string{"café.safetensors", "cafè.safetensors", "spring.safetensors"} {
		if err := os.MkdirAll(runs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(runs, filepath.Join(home, "linked")); err != nil {
		t.Fatal(err)
	}
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = typeText(t, m, filepath.Join(runs, "ca"))
	if m, _ = press(t, m, "tab"); m.prompt.path() != filepath.Join(runs, "caf") {
		t.Errorf("tab over café and cafè: %q, want %q", m.prompt.path(), filepath.Join(runs, "caf"))
	}
	m = typeText(t, m, "é")
	if m, _ = press(t, m, "tab"); m.prompt.path() != filepath.Join(runs, "café.safetensors") {
		t.Errorf("tab after caf + é: %q", m.prompt.path())
	}
	m, _ = press(t, m, "ctrl+u")
	m = typeText(t, m, "~/ru")
	if m, _ = press(t, m, "tab"); string(m.prompt.value) != "~/runs/" {
		t.Errorf("~/ru then tab: %q, want ~/runs/", string(m.prompt.value))
	}
	m = typeText(t, m, "sp")
	if m, _ = press(t, m, "tab"); m.prompt.path() != filepath.Join(runs, "spring.safetensors") {
		t.Errorf("~/runs/sp then tab: %q", m.prompt.path())
	}
	m, _ = press(t, m, "ctrl+u")
	m = typeText(t, m, filepath.Join(home, "lin"))
	if m, _ = press(t, m, "tab"); m.prompt.path() != filepath.Join(home, "linked")+"/" {
		t.Errorf("tab on a link to a folder: %q, want it with a /", m.prompt.path())
	}
}
