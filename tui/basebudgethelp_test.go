package tui

import (
	"fmt"
	"strings"
	"testing"
)

// TestHelpReadsBaselineBudget: the θ readout heads the baseline rows
// "baseline bcpi 3×500 cpinn 4×1k"; the ? help says what 3, 500, 4 and
// 1k count, on the slice and the heatmap views alike.
func TestHelpReadsBaselineBudget(t *testing.T) {
	for _, sys := range []string{"spring", "advdiff"} {
		m := newTest(t, sys, 120, 35)
		if sys == "advdiff" {
			m, _ = press(t, m, "v")
		}
		help := strings.Join(helpAt(m, 120), "\n")
		for _, want := range []string{
			fmt.Sprintf("bcpi %d starts × %d MCMC steps", baseBCPIStarts, baseBCPISteps),
			fmt.Sprintf("cpinn %d members ×", basePINNMembers),
			fmt.Sprintf("%d steps each", basePINNSteps),
		} {
			if !strings.Contains(help, want) {
				t.Errorf("%s: the help lacks %q", sys, want)
			}
		}
	}
}
