package cli

import (
	"strings"
	"testing"
)

// TestSamplesHelpSaysACNPDrawsOne: every command with --samples says
// that a cnp checkpoint ignores it, which its output header otherwise
// reveals only as "1 sample".
func TestSamplesHelpSaysACNPDrawsOne(t *testing.T) {
	for _, command := range []string{"eval", "calibrate", "compare", "diagnose"} {
		code, stdout, _ := runCLI(t, "help", command)
		help := strings.Join(strings.Fields(stdout), " ")
		_, samples, found := strings.Cut(help, "--samples int ")
		if code != 0 || !found || !strings.Contains(samples, "a cnp checkpoint is deterministic and draws one") {
			t.Errorf("help %s: --samples does not say a cnp draws one sample (exit %d)", command, code)
		}
	}
}
