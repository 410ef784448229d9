package cli

import (
	"strings"
	"testing"
)

// TestTrainContextRangeBeyondGrid: a --context-range past the grid is
// refused naming the flag, its value and the grid's bound.
func TestTrainContextRangeBeyondGrid(t *testing.T) {
	code, _, stderr := runCLI(t, "train", "--system", "spring", "--context-range", "50:200", "--out", t.TempDir()+"/m.safetensors")
	if code != 2 || !strings.Contains(stderr, "--context-range 50:200 must satisfy 1 ≤ min ≤ max ≤ 100 (the grid's states)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
