package cli

import (
	"strings"
	"testing"
)

// TestCheckpointAsCommand: a checkpoint given where the command goes is
// answered with the commands that open and describe it.
func TestCheckpointAsCommand(t *testing.T) {
	for _, name := range []string{"model.safetensors", "embedded:lv-cnp.safetensors"} {
		code, _, stderr := runCLI(t, name)
		if code != 2 || !strings.Contains(stderr, "apic --checkpoint "+name) || !strings.Contains(stderr, "apic inspect "+name) {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "evl"); code != 2 || !strings.Contains(stderr, "did you mean eval?") {
		t.Errorf("evl: exit %d, stderr %q", code, stderr)
	}
}
