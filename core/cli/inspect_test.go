package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInspectEmbedded: inspect reads the checkpoints embedded in the
// program by the name the other commands print for them, and lists them
// for a name that is not one.
func TestInspectEmbedded(t *testing.T) {
	code, out, errOut := runCLI(t, "inspect", "--json", "embedded:spring-lnp.safetensors")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		File, System, Backbone string
		Parameters             int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if got.File != "embedded:spring-lnp.safetensors" || got.System != "spring" || got.Backbone != "lnp" || got.Parameters == 0 {
		t.Errorf("inspect says %+v", got)
	}
	code, _, errOut = runCLI(t, "inspect", "embedded:nope.safetensors")
	if code != 2 || !strings.Contains(errOut, `no embedded checkpoint "nope.safetensors"`) || !strings.Contains(errOut, "lv-anp.safetensors") {
		t.Errorf("unknown embedded name: exit %d, %q", code, errOut)
	}
}
