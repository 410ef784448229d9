package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
)

// TestCheckpointFlagsTakeEmbeddedNames: the name eval and calibrate
// print as their "checkpoint" (embedded:NAME) is accepted back by every
// flag that reads a checkpoint, as inspect accepts it.
func TestCheckpointFlagsTakeEmbeddedNames(t *testing.T) {
	const name = "embedded:spring-cnp.safetensors"
	dir := t.TempDir()

	code, out, errOut := runCLI(t, "eval", "--checkpoint", name, "--tasks", "2", "--samples", "2", "--refine", "0", "--json")
	var rep struct{ Checkpoint, Backbone string }
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Checkpoint != name || rep.Backbone != "cnp" {
		t.Errorf("eval --checkpoint %s: exit %d, checkpoint %q, backbone %q, stderr %q", name, code, rep.Checkpoint, rep.Backbone, errOut)
	}

	good := goodObservations(t, dir)
	res, _ := calibrateJSON(t, append([]string{"--checkpoint", name}, good["spring"]...)...)
	if res.Checkpoint != name || res.Backbone != "cnp" {
		t.Errorf("calibrate --checkpoint %s: checkpoint %q, backbone %q", name, res.Checkpoint, res.Backbone)
	}

	out2 := filepath.Join(dir, "tuned.safetensors")
	code, _, errOut = runCLI(t, "train", "--init", name, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", out2)
	if code != 0 {
		t.Fatalf("train --init %s: exit %d, stderr %q", name, code, errOut)
	}
	if m, _, err := core.LoadCheckpoint(out2); err != nil || m.Config.Arch.System != "spring" || m.Config.Arch.Backbone != core.CNP {
		t.Errorf("train --init %s wrote %v", name, err)
	}

	for _, args := range [][]string{
		{"eval", "--checkpoint", "embedded:nope.safetensors"},
		{"train", "--init", "embedded:nope.safetensors", "--out", filepath.Join(dir, "x.safetensors")},
		{"compare", "--system", "spring", "--checkpoint", "embedded:nope.safetensors"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, `no embedded checkpoint "nope.safetensors"`) || !strings.Contains(errOut, "spring-lnp.safetensors") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the embedded names", args, code, errOut)
		}
	}
}

// TestCompareModelsEmbeddedName: compare takes embedded:NAME too; one of
// the system's own embedded checkpoints, which compare always includes,
// is not compared twice, and another system's is refused.
func TestCompareModelsEmbeddedName(t *testing.T) {
	all, err := compareModels(context.Background(), t.Logf, "spring", nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := compareModels(context.Background(), t.Logf, "spring", []string{"embedded:spring-cnp.safetensors"})
	if err != nil || len(again) != len(all) {
		t.Errorf("with the embedded cnp given again: %d models (%v), want the %d embedded ones once", len(again), err, len(all))
	}
	if _, err := compareModels(context.Background(), t.Logf, "spring", []string{"embedded:lv-cnp.safetensors"}); err == nil || !strings.Contains(err.Error(), "is for system lv") {
		t.Errorf("another system's embedded checkpoint: %v", err)
	}
	orig := lookupEmbedded
	defer func() { lookupEmbedded = orig }()
	lookupEmbedded = func(string, string) ([]byte, bool) { return nil, false }
	only, err := compareModels(context.Background(), t.Logf, "spring", []string{"embedded:spring-cnp.safetensors"})
	if err != nil || len(only) != 1 || only[0].name != "apic-cnp" || only[0].source != "embedded:spring-cnp.safetensors" {
		t.Errorf("embedded name alone: %+v, %v", only, err)
	}
}
