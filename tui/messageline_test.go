package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestPanelsKeepTheirPlace: at 80×24 a range warning beside the note
// of an atlas model wraps onto the line below the status line; the
// panels and the sidebar stay where they were, as the header keeps
// that line, blank, while no message needs it. They moved down a row,
// and the sidebar lost its last, mid-session.
func TestPanelsKeepTheirPlace(t *testing.T) {
	m := newShippedTest(t, 80, 24)
	before := strings.Split(ansi.Strip(m.render()), "\n")
	m = topNoise(t, m)
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "left")
	if m.entry().src != srcAtlas {
		t.Fatalf("λθ %v shows %s, want an atlas model", m.lamTheta.value(), m.entry().sourceText())
	}
	frame := m.render()
	frameOK(t, frame, 80, 24)
	after := strings.Split(ansi.Strip(frame), "\n")
	if strings.TrimSpace(before[2]) != "" || !strings.Contains(after[2], "intervals miss the extra noise") {
		t.Errorf("the line below the status line: %q before, %q with the wrapped warning", before[2], after[2])
	}
	for _, row := range []string{"1 simulator", "│controls", "│metrics", "2 discrepancy"} {
		at := func(lines []string) int {
			return slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, row) })
		}
		if a, b := at(before), at(after); a < 0 || a != b {
			t.Errorf("%q on row %d, on row %d with the wrapped warning:\n%s", row, a, b, frame)
		}
	}
}

// TestErrorBesideRangeWarningKeepsItsStart: at 80×24 an error too long
// for the line below the range warning keeps its start, which names
// what failed, and its cause; it kept only its end ("…no such file or
// directory").
func TestErrorBesideRangeWarningKeepsItsStart(t *testing.T) {
	m := newShippedTest(t, 80, 24)
	m = topNoise(t, m)
	m.setMsg(msgErr, "cannot open /home/someone/experiments/2026/spring/model-trained-yesterday.safetensors: no such file or directory")
	lines, cut := m.headerCut()
	frameOK(t, strings.Join(lines, "\n"), 80, headerLines)
	status, below := ansi.Strip(lines[1]), strings.TrimSpace(ansi.Strip(lines[2]))
	if !strings.Contains(status, "σ 0.5, over the 0.1 trained on: intervals miss the extra noise") {
		t.Errorf("the status line lost the warning: %q", status)
	}
	if !strings.HasPrefix(below, "cannot open /home/someone/") || !strings.HasSuffix(below, "… no such file or directory") || !cut {
		t.Errorf("the line below: %q (cut %v), want the error's start, its cause and the cut marked", below, cut)
	}
	golden.RequireEqual(t, []byte(strings.Join(lines, "\n")))
}

// TestNoteBelowALongStatusKeepsItsWords: beside the stale status an
// 80-column line left a one-part note 28 cells, and "lv/lnp: the
// shipped checkpoint" read "lv/lnp: the shipped checkpo…". A note cut
// inside its text goes on the line below, whole, where it fits there.
func TestNoteBelowALongStatusKeepsItsWords(t *testing.T) {
	m := newTest(t, "lv", 80, 24)
	m.entry().src = srcTrained // weights to be stale: not untrained
	m = focusOn(t, m, ctlLamDelta)
	m, _ = press(t, m, "right")
	if !m.stale() {
		t.Fatal("λδ moved without an atlas: want the stale status")
	}
	const note = "lv/lnp: the shipped checkpoint"
	m.setMsg(msgInfo, note)
	lines, cut := m.headerCut()
	status, below := ansi.Strip(lines[1]), strings.TrimSpace(ansi.Strip(lines[2]))
	if below != note || cut || strings.Contains(status, "…") {
		t.Errorf("note cut (%v):\n%s\n%s", cut, status, ansi.Strip(lines[2]))
	}
}

// TestHugePastedPathKeepsTheHelpQuick: a clipboard of a megabyte pasted
// into the open prompt by mistake is refused with a message that keeps
// the path's start and the cause, bounded in length: named whole, it
// made each frame of the ? help take minutes, and the explorer froze.
func TestHugePastedPathKeepsTheHelpQuick(t *testing.T) {
	t.Chdir(t.TempDir())
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = send(t, m, tea.PasteMsg{Content: "/tmp/" + strings.Repeat("abc dé/漢", 120_000)})
	m, _ = press(t, m, "enter")
	if n := len([]rune(m.msg)); n > 10_000 || !strings.HasPrefix(m.msg, "cannot open /tmp/abc dé/漢") || !strings.HasSuffix(m.msg, "file name too long") || !strings.Contains(m.msg, "characters left out") {
		t.Fatalf("message of %d characters: %.80q … %q", n, m.msg, m.msg[max(0, len(m.msg)-80):])
	}
	start := time.Now()
	m, _ = press(t, m, "?", "down")
	frameOK(t, m.render(), 80, 24)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the help took %v to draw", took)
	}
}
