package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/nets"
)

// TestCheckpointContextRangeSaysTheBound: a checkpoint whose config
// holds a context range outside the system's grid is refused naming the
// file, the value and the bound, in the words --context-range uses.
func TestCheckpointContextRangeSaysTheBound(t *testing.T) {
	dir := t.TempDir()
	f, err := nets.ReadSafetensorsFile(tinyCheckpoint(t, dir, "spring", 0, 0), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Metadata["config"]
	if !strings.Contains(cfg, `"val_tasks"`) || strings.Contains(cfg, "context_min") {
		t.Fatalf("config metadata %q: the edit below needs val_tasks and no context range", cfg)
	}
	f.Metadata["config"] = strings.Replace(cfg, `"val_tasks"`, `"context_min":0,"context_max":500,"val_tasks"`, 1)
	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, f.Tensors, f.Shapes, f.Metadata, nets.F32); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.safetensors")
	if err := os.WriteFile(bad, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rule := "must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--checkpoint", bad}, "--checkpoint " + bad + ": config metadata: training context range 0:500 (train.context_min:context_max) " + rule},
		{[]string{"train", "--init", bad, "--out", filepath.Join(dir, "out.safetensors")}, "--init " + bad + ": config metadata: training context range 0:500 (train.context_min:context_max) " + rule},
		{[]string{"inspect", bad}, bad + ": config metadata: training context range 0:500 (train.context_min:context_max) " + rule},
		{[]string{"train", "--system", "spring", "--context-range", "0:500", "--out", filepath.Join(dir, "out.safetensors")}, `--context-range "0:500": ` + rule},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
