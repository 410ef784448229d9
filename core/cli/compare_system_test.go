package cli

import (
	"encoding/json"
	"testing"
)

// TestCompareTakesTheCheckpointsSystem: without --system, compare runs
// on the system of its first --checkpoint file, as eval, diagnose and
// calibrate take a file's own; that file is compared beside the shipped
// models of its system.
func TestCompareTakesTheCheckpointsSystem(t *testing.T) {
	lv := compareCheckpoint(t, "lv", "mine", 0)
	code, out, errOut := runCLI(t, "compare", "--checkpoint", lv, "--methods", "apic", "--tasks", "1", "--samples", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got compareJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Methods["apic-lnp:mine"]; got.System != "lv" || !ok {
		t.Errorf("system %q, methods %v; want lv with apic-lnp:mine", got.System, sortedKeys(got.Methods))
	}
}
