package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// TestNominalDimmedOnlyInColour: panel 4 and the help say the nominal
// is dimmed only where the theme draws colour. Under NO_COLOR or
// --ascii nothing is faint, and the nominal is told apart by its mark.
func TestNominalDimmedOnlyInColour(t *testing.T) {
	m := newTest(t, "spring", 120, 40) // plain theme, as NO_COLOR gives
	frame := m.View().Content
	if strings.Contains(frame, "dimmed") {
		t.Errorf("plain frame says the nominal is dimmed:\n%s", frame)
	}
	if !strings.Contains(frame, "4 truth vs prediction and nominal") {
		t.Errorf("plain frame lacks panel 4's title:\n%s", frame)
	}
	if help := strings.Join(helpAt(m, 120), "\n"); strings.Contains(help, "dimmed") {
		t.Errorf("plain help says the nominal is dimmed:\n%s", help)
	}

	m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	if frame := ansi.Strip(m.View().Content); !strings.Contains(frame, "4 truth vs prediction (nominal dimmed)") {
		t.Errorf("colour frame lacks \"(nominal dimmed)\":\n%s", frame)
	}
	if help := ansi.Strip(strings.Join(helpAt(m, 120), "\n")); !strings.Contains(help, "nominal F(x; θ), dimmed") {
		t.Errorf("colour help lacks the dimmed nominal:\n%s", help)
	}
}
