package tui

import (
	"strings"
	"testing"
)

// TestHelpNamesTheTerms: the panels' titles say F, G, δ, θ̂ and
// context; the ? help's panels section says what each is, on the slice
// and heatmap views alike, in lines that fit 80 columns.
func TestHelpNamesTheTerms(t *testing.T) {
	for _, heat := range []bool{false, true} {
		m := newTest(t, "advdiff", 120, 35)
		if heat {
			m, _ = press(t, m, "v")
		}
		lines := helpAt(m, 120)
		help := strings.Join(lines, "\n")
		_, panels, _ := strings.Cut(help, "\npanels")
		for _, want := range []string{"F: the simulator", "G: the process that made the data", "δ = G − F", "θ̂ their estimate", "context: the observed points of G"} {
			if !strings.Contains(panels, want) {
				t.Errorf("heatmaps %v: the help's panels section lacks %q", heat, want)
			}
		}
		for _, l := range termsHelp {
			if displayWidth(l) > 80 {
				t.Errorf("terms line %d cells wide: %q", displayWidth(l), l)
			}
		}
	}
}
