package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// noEmbedded finds no shipped checkpoint, so tests run on the
// deterministic untrained weights whatever is embedded.
func noEmbedded(string, string) ([]byte, bool) { return nil, false }

// noAtlas is an empty ablation atlas: λθ, λδ and the regulariser only
// mark the model stale.
func noAtlas() []AtlasCell { return []AtlasCell{} }

// newTest builds the explorer on sys with untrained weights, no atlas,
// no averages, no colours, the given size, and its first inference
// applied.
func newTest(t testing.TB, sys string, w, h int) Model {
	t.Helper()
	m, err := New(Options{System: sys, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = run(t, m, m.Init())
	if m.res == nil {
		t.Fatalf("no inference result after Init (message %q)", m.msg)
	}
	return m
}

// send applies one message without running the commands it returns.
func send(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, _ := m.Update(msg)
	return nm.(Model)
}

// run executes cmd and everything it leads to synchronously, feeding
// each message back into the model, and reports whether it asked to
// quit. Only for commands that end on their own (inference, save, open,
// and a training run that was cancelled or finishes).
func run(t testing.TB, m Model, cmd tea.Cmd) (Model, bool) {
	t.Helper()
	quit := false
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			quit = true
		default:
			nm, next := m.Update(msg)
			m = nm.(Model)
			queue = append(queue, next)
		}
	}
	return m, quit
}

// keyMsg is the key press the terminal would send for a key name.
func keyMsg(name string) tea.KeyPressMsg {
	switch name {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(name)
	if len(r) != 1 {
		panic("keyMsg: unknown key " + name)
	}
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// press sends keys one by one, running the commands each returns.
func press(t testing.TB, m Model, keys ...string) (Model, bool) {
	t.Helper()
	quit := false
	for _, k := range keys {
		nm, cmd := m.Update(keyMsg(k))
		var q bool
		m, q = run(t, nm.(Model), cmd)
		quit = quit || q
	}
	return m, quit
}

// typeText types s into the model (the path prompt).
func typeText(t testing.TB, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m = send(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// focusOn moves the focus to control id.
func focusOn(t testing.TB, m Model, id control) Model {
	t.Helper()
	for i := 0; i < 64; i++ {
		if m.controls()[m.focus] == id {
			return m
		}
		m, _ = press(t, m, "down")
	}
	t.Fatalf("control %d not reachable", id)
	return m
}

// frameOK checks that a frame is exactly w × h cells.
func frameOK(t testing.TB, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Fatalf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := displayWidth(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, l)
		}
	}
}

// helpAt is the ? help at width w as the view shows it under m's status
// line: with the message in full where that line cuts it.
func helpAt(m Model, w int) []string {
	_, msgCut := m.headerCut()
	return m.helpLines(w, msgCut)
}

// header is headerCut's lines, for tests that read the header alone.
func (m Model) header() []string {
	lines, _ := m.headerCut()
	return lines
}
