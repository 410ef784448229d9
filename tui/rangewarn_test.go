package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// TestRangeWarningOnSliders: moving the context slider below what the
// shipped spring model was trained on puts core's warning on the
// header's message line; moving back takes it off; noise beyond the
// training noise (the slider's largest, 0.5) warns the same way.
func TestRangeWarningOnSliders(t *testing.T) {
	m, err := New(Options{System: "spring", SaveDir: t.TempDir(), RefineDelay: -1, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m, _ = run(t, m, m.Init())
	header := func() string { return strings.Join(m.header(), "\n") }
	if strings.Contains(header(), "trained on") {
		t.Fatalf("the test context warns already:\n%s", header())
	}
	r := m.entry().model.TrainingRange()
	context := func() int { return int(m.ctxSteps["spring"].value()) }
	m = focusOn(t, m, ctlContext)
	for context() > r.ContextLo {
		m, _ = press(t, m, "left")
	}
	if context() != r.ContextLo {
		t.Skipf("the context ladder has no rung at the training minimum %d", r.ContextLo)
	}
	if h := header(); strings.Contains(h, "trained on") {
		t.Errorf("context %d is inside the training range, yet:\n%s", context(), h)
	}
	m, _ = press(t, m, "left")
	frame := m.render()
	frameOK(t, frame, 100, 30)
	want := fmt.Sprintf("only %d context points; the model was trained on %d to %d", context(), r.ContextLo, r.ContextHi)
	if !strings.Contains(frame, want) || m.msgKind != msgWarn {
		t.Errorf("context %d: the header lacks %q:\n%s", context(), want, header())
	}
	m, _ = press(t, m, "right")
	if h := header(); strings.Contains(h, "context points") || !strings.Contains(h, "spring/lnp") {
		t.Errorf("back inside the range, the warning stays (or the model's description is not back):\n%s", h)
	}
	m = focusOn(t, m, ctlNoise)
	for range 10 {
		m, _ = press(t, m, "right")
	}
	if h := header(); !strings.Contains(h, "noise σ = 0.5 is more than the model was trained on") {
		t.Errorf("noise 0.5: no warning in the header:\n%s", h)
	}
}
