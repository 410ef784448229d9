package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fileSHA256 is the hex SHA-256 of the file at path, as sha256sum gives it.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// jsonField runs a command and returns field key of its --json object.
func jsonField(t *testing.T, key string, args ...string) any {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%v: not JSON: %v", args, err)
	}
	return obj[key]
}

// TestJSONNamesTheCheckpointsBytes: every command that reports on a
// checkpoint gives the SHA-256 of its bytes, so that a result names
// which file exactly it came from (a path alone does not: a retrained
// or recalibrated file keeps it). A file's is sha256sum's; an
// embedded one's is that of the file in checkpoints/ it was built from.
func TestJSONNamesTheCheckpointsBytes(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	want := fileSHA256(t, ckpt)
	data := filepath.Join(dir, "obs.csv")
	if code, _, errOut := runCLI(t, "simulate", "--system", "spring", "--context", "10", "--csv", data); code != 0 {
		t.Fatalf("simulate --csv: %s", errOut)
	}
	for _, args := range [][]string{
		{"inspect", ckpt, "--json"},
		{"eval", "--checkpoint", ckpt, "--tasks", "2", "--json"},
		{"eval", "--checkpoint", ckpt, "--tasks", "2", "--grid", "--grid-contexts", "5", "--grid-noises", "0", "--json"},
		{"diagnose", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--json"},
		{"calibrate", "--checkpoint", ckpt, "--data", data, "--json"},
	} {
		if got := jsonField(t, "checkpoint_sha256", args...); got != want {
			t.Errorf("%v: checkpoint_sha256 %v, want %s", args[0], got, want)
		}
	}
	embedded := fileSHA256(t, filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	methods, _ := jsonField(t, "methods", "compare", "--system", "spring", "--tasks", "2", "--checkpoint", ckpt, "--json").(map[string]any)
	for name, want := range map[string]string{"apic-lnp:spring": want, "apic-cnp": embedded} {
		m, _ := methods[name].(map[string]any)
		if got := m["source_sha256"]; got != want {
			t.Errorf("compare's %s: source_sha256 %v, want %s", name, got, want)
		}
	}
	if got := jsonField(t, "checkpoint_sha256", "eval", "--system", "spring", "--backbone", "cnp", "--tasks", "2", "--json"); got != embedded {
		t.Errorf("eval of the embedded spring-cnp: %v, want %s", got, embedded)
	}
}
