package tui

import (
	"strings"
	"testing"
)

// TestSwitchKeepsThePanelsUntilTheInference: tab, b and an opened
// file blanked the panels to a lone "inferring…" until the new model's
// inference came, a frame at least. The panels stay, dimmed, their
// first line saying what is being inferred and what they show; the new
// inference replaces them.
func TestSwitchKeepsThePanelsUntilTheInference(t *testing.T) {
	for _, tc := range []struct {
		key, head string
	}{
		{"tab", "inferring lv/lnp… · below: spring/lnp"},
		{"b", "inferring spring/anp… · below: spring/lnp"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			m := newTest(t, "spring", 80, 23)
			before := m.render()
			legend := "── F(x; θ̂)  ● context" // panel 1's
			if !strings.Contains(before, legend) {
				t.Fatalf("no legend %q before the switch:\n%s", legend, before)
			}
			nm, cmd := m.Update(keyMsg(tc.key))
			m = nm.(Model)
			if m.res != nil {
				t.Fatal("the old inference is still the result")
			}
			frame := m.render()
			frameOK(t, frame, 80, 23)
			if !strings.Contains(frame, tc.head) || !strings.Contains(frame, legend) || strings.Contains(frame, "1 simulator") {
				t.Errorf("after %s, before the inference: want %q over the old panels:\n%s", tc.key, tc.head, frame)
			}
			m, _ = run(t, m, cmd)
			if frame := m.render(); m.kept != nil || strings.Contains(frame, "inferring") || !strings.Contains(frame, "1 simulator") {
				t.Errorf("after the inference the kept panels stay:\n%s", frame)
			}
		})
	}
	// A second switch before the inference keeps the first's panels;
	// a resize drops them for the blank panel area.
	m := newTest(t, "spring", 80, 24)
	m = send(t, m, keyMsg("tab"))
	m = send(t, m, keyMsg("tab"))
	if frame := m.render(); !strings.Contains(frame, "inferring advdiff/lnp… · below: spring/lnp") {
		t.Errorf("two switches: %s", frame)
	}
	m = sized(t, m, 90, 30)
	if frame := m.render(); strings.Contains(frame, "below:") || !strings.Contains(frame, "inferring…") {
		t.Errorf("resized: %s", frame)
	}
}
