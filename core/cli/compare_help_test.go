package cli

import (
	"strings"
	"testing"
)

// TestCompareHelpCreditsThePaperWithCPINNsTime: the 150 s per
// realization of Correction-PINN is the paper's figure, not a time
// measured here; the help says so and points at docs/baselines.md.
func TestCompareHelpCreditsThePaperWithCPINNsTime(t *testing.T) {
	code, stdout, _ := runCLI(t, "help", "compare")
	help := strings.Join(strings.Fields(stdout), " ")
	want := "the paper reports 150 s per realization for its 20 members, and docs/baselines.md times it here at cut budgets"
	if code != 0 || !strings.Contains(help, want) {
		t.Errorf("help compare lacks %q (exit %d)", want, code)
	}
}
