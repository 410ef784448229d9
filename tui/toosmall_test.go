package tui

import (
	"strings"
	"testing"
)

// TestTooSmallShowsTheQuitWarning: on the too-small screen, which has
// no status line, a q over unsaved weights says what it warns of and
// that q again quits; the first q seemed to do nothing there, and the
// second lost the weights unwarned.
func TestTooSmallShowsTheQuitWarning(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	old := m.entry()
	m.entries[m.key()] = &entry{model: old.model, src: srcTrained, prev: old}
	for _, sz := range [][2]int{{60, 20}, {30, 10}} {
		m = sized(t, m, sz[0], sz[1])
		next, quit := press(t, m, "q")
		frame := next.render()
		frameOK(t, frame, sz[0], sz[1])
		whole := strings.Join(strings.Fields(frame), " ")
		if quit || !strings.Contains(whole, "unsaved: spring/lnp") || !strings.Contains(whole, "q again to quit") {
			t.Errorf("%d×%d: q quit %v, or the warning does not show:\n%s", sz[0], sz[1], quit, frame)
		}
		if _, quit := press(t, next, "q"); !quit {
			t.Errorf("%d×%d: q again did not quit", sz[0], sz[1])
		}
	}
}
