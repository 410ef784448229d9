package cli

import (
	"encoding/json"
	"os"
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

// TestInspectDevZero: an endless non-checkpoint (/dev/zero) is refused on
// its header length, as a usage error, instead of being read up to the
// 1 GiB file limit first.
func TestInspectDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, args := range [][]string{{"inspect", "/dev/zero"}, {"eval", "--checkpoint", "/dev/zero"}} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "header length of 0") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
