package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestSavePromptSuggestionIsReplaced: the save prompt offers a free
// file name in place of its value, which enter takes untouched and a
// typed or pasted name replaces; it was the prompt's value, and a name
// typed after s was appended to it. Tab or → takes the suggestion to
// edit. The open prompt's example is replaced alike.
func TestSavePromptSuggestionIsReplaced(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := m.opts.SaveDir
	suggested := filepath.Join(dir, "apic-spring-lnp-1.safetensors")
	m, _ = press(t, m, "s")
	if footer := m.footer(); !strings.Contains(footer, "save as: █"+filepath.Base(suggested)) && !strings.Contains(footer, "save as: █…") {
		t.Errorf("the suggestion does not show after the cursor: %q", footer)
	}
	mine := filepath.Join(dir, "mine.safetensors")
	m = typeText(t, m, mine)
	if got := m.prompt.path(); got != mine {
		t.Fatalf("typed %q, the prompt holds %q", mine, got)
	}
	m, _ = press(t, m, "enter")
	if _, err := os.Stat(mine); err != nil || !strings.Contains(m.msg, "saved") {
		t.Fatalf("saving to the typed name: %q, %v", m.msg, err)
	}
	if _, err := os.Stat(suggested); err == nil {
		t.Error("the save also wrote the suggested name")
	}

	// Saved already: s warns, s again opens the prompt.
	m, _ = press(t, m, "s", "s")
	m = send(t, m, tea.PasteMsg{Content: mine + "\n"})
	if got := m.prompt.path(); got != mine {
		t.Errorf("pasted %q, the prompt holds %q", mine, got)
	}
	for _, key := range []string{"tab", "right"} {
		m, _ = press(t, m, "esc", "s", "s", key)
		m = typeText(t, m, "x")
		if got := m.prompt.path(); got != suggested+"x" {
			t.Errorf("%s then x: %q, want the suggestion edited", key, got)
		}
	}
	// Untouched, or cleared back to the suggestion, enter takes it.
	m, _ = press(t, m, "esc", "s", "s", "backspace", "enter")
	if _, err := os.Stat(suggested); err != nil || !strings.Contains(m.msg, "saved") {
		t.Fatalf("enter on the untouched prompt: %q, %v", m.msg, err)
	}

	m, _ = press(t, m, "o")
	m = typeText(t, m, "abc")
	if got, footer := m.prompt.path(), m.footer(); got != "abc" || !strings.Contains(footer, "open checkpoint: abc█") {
		t.Errorf("typed abc in the open prompt: %q, %q", got, footer)
	}
}
