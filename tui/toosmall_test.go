package tui

import (
	"strings"
	"testing"

	"apic/core"
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

// TestTooSmallSaysWhatStillRuns: shrunk below the minimum during a
// training run (or a diagnosis, an ablation, the baselines' fits), the
// screen said only "enlarge it, or q to quit", as if the shrink had
// stopped the work; it names what goes on in the background.
func TestTooSmallSaysWhatStillRuns(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m = sized(t, m, 50, 12)
	if frame := m.render(); strings.Contains(frame, "still running") {
		t.Errorf("with nothing running, the screen says something runs:\n%s", frame)
	}
	r := &trainRun{mode: modeFineTune}
	m.runs, m.run = []*trainRun{r}, r
	m.prog = &core.Progress{Stage: 1, Step: 120, Steps: 1000}
	m.diag.open, m.diag.cancel = true, func() {}
	frame := m.render()
	frameOK(t, frame, 50, 12)
	whole := strings.Join(strings.Fields(frame), " ")
	if want := "still running: training step 120/1000 (stage 1/2), diagnostics"; !strings.Contains(whole, want) {
		t.Errorf("the screen does not say %q:\n%s", want, frame)
	}
	if !strings.Contains(whole, "enlarge it, or q to quit") {
		t.Errorf("the screen lost what q does:\n%s", frame)
	}
	// Where both do not fit, what q does stays.
	m = sized(t, m, 30, 5)
	frame = m.render()
	frameOK(t, frame, 30, 5)
	if whole := strings.Join(strings.Fields(frame), " "); !strings.Contains(whole, "enlarge it, or q to quit") {
		t.Errorf("30×5: the running work pushed out what q does:\n%s", frame)
	}
}
