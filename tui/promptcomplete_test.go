package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// TestTabReadsTheFolderOffTheUIGoroutine: tab in the path prompt hands
// the directory read to a command, and Update returns at once with the
// value as typed (reading it there froze the explorer on a folder of
// many files or a slow disk); the command's answer completes the value.
// An answer that comes after the value was edited, or after the prompt
// was closed or opened anew, is dropped: it completed another value.
func TestTabReadsTheFolderOffTheUIGoroutine(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"apic-one.safetensors", "apic-two.safetensors"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	typed := filepath.Join(dir, "ap")
	open := func(t *testing.T) Model {
		m := newTest(t, "spring", 80, 24)
		m, _ = press(t, m, "o")
		return typeText(t, m, typed)
	}
	tab := func(t *testing.T, m Model) (Model, tea.Cmd) {
		t.Helper()
		nm, cmd := m.Update(keyMsg("tab"))
		m = nm.(Model)
		if got := m.prompt.path(); got != typed || cmd == nil {
			t.Fatalf("tab: value %q and a command %v; want %q unchanged until a command reads the folder", got, cmd != nil, typed)
		}
		if !strings.Contains(m.footer(), "reading the folder") {
			t.Errorf("prompt while the folder is read: %q", m.footer())
		}
		return m, cmd
	}

	m, cmd := tab(t, open(t))
	m, _ = run(t, m, cmd)
	if got := m.prompt.path(); got != filepath.Join(dir, "apic-") || !strings.Contains(m.footer(), "2 matches") {
		t.Errorf("after the read: %q, footer %q", got, m.footer())
	}

	m, cmd = tab(t, open(t))
	m = typeText(t, m, "x")
	m, _ = run(t, m, cmd)
	if got := m.prompt.path(); got != typed+"x" || strings.Contains(m.footer(), "matches") {
		t.Errorf("typed on while the folder was read: %q, footer %q; want the answer dropped", got, m.footer())
	}

	m, cmd = tab(t, open(t))
	m, _ = press(t, m, "esc", "o")
	m = typeText(t, m, typed)
	m, _ = run(t, m, cmd)
	if got := m.prompt.path(); got != typed {
		t.Errorf("an answer to a closed prompt completed the one opened since: %q", got)
	}

	// A folder of many matches: the prompt keeps a few to show, and
	// says how many there are.
	many := t.TempDir()
	for i := range maxShownMatches + 6 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("run%03d.safetensors", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	typed = filepath.Join(many, "r")
	m, cmd = tab(t, open(t))
	m, _ = run(t, m, cmd)
	if len(m.prompt.matches) != maxShownMatches || !strings.Contains(m.footer(), fmt.Sprintf("%d matches: ", maxShownMatches+6)) {
		t.Errorf("%d matches kept, footer %q", len(m.prompt.matches), m.footer())
	}
}

// TestTabOffersNoNamesWithControlCharacters: tab passes over a file
// whose name holds a line break or an escape sequence: listed among the
// matches, its line break split the prompt's line, and the frame grew
// a line; completed into the value, its escape sequence restyled the
// terminal. The paste drops such characters for the same reason.
func TestTabOffersNoNamesWithControlCharacters(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"ab\nnext.safetensors", "ab\x1b[7mINV.safetensors", "abc.safetensors"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Skipf("no such file name here: %v", err)
		}
	}
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = typeText(t, m, filepath.Join(dir, "a"))
	m, _ = press(t, m, "tab")
	if got := m.prompt.path(); got != filepath.Join(dir, "abc.safetensors") {
		t.Errorf("tab: %q, want the one name without control characters", got)
	}
	frameOK(t, m.render(), 80, 24)
}
