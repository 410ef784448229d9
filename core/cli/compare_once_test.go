package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/checkpoints"
)

// TestCompareCheckpointGivenTwice: compare --checkpoint A --checkpoint A
// compared A once and said nothing, so a second name meant for another
// file passed unseen. A checkpoint given twice, by one name or a file by
// two (./A, a link), is now refused before any work, naming both.
func TestCompareCheckpointGivenTwice(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("m.safetensors", []byte("not read: refused before"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.safetensors")
	if err := os.Symlink("m.safetensors", link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{"m.safetensors", "m.safetensors"}, "--checkpoint m.safetensors is given twice: give each checkpoint once"},
		{[]string{"m.safetensors", "./m.safetensors"}, "--checkpoint ./m.safetensors is the file given before as --checkpoint m.safetensors: give each checkpoint once"},
		{[]string{"m.safetensors", link}, "--checkpoint " + link + " is the file given before as --checkpoint m.safetensors"},
		{[]string{"embedded:spring-cnp.safetensors", "embedded:Spring-CNP.safetensors"}, "--checkpoint embedded:spring-cnp.safetensors is given twice"},
	} {
		wantCompareRefused(t, tc.files, tc.want)
	}
}

// TestCompareCheckpointSameBytes: a --checkpoint whose bytes are those
// of a file given before is refused naming both, where compare showed two
// rows of one model; one with the bytes of a shipped checkpoint
// (checkpoints/spring-cnp.safetensors of a clone) is that checkpoint,
// compared once, and a note says so.
func TestCompareCheckpointSameBytes(t *testing.T) {
	t.Chdir(t.TempDir())
	shipped, ok := checkpoints.Lookup("spring", "cnp")
	if !ok {
		t.Fatal("no embedded spring cnp")
	}
	if err := os.WriteFile("copy.safetensors", shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "train", "--system", "spring", "--backbone", "lnp", "--steps1", "1", "--steps2", "1", "--recalibrate", "0", "--out", "a.safetensors"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile("a.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("b.safetensors", data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	wantCompareRefused(t, []string{"a.safetensors", "b.safetensors"},
		"--checkpoint b.safetensors has the same bytes as a.safetensors (sha256 "+hex.EncodeToString(sum[:])+")")

	code, stdout, stderr := runCLI(t, "compare", "--system", "spring", "--methods", "apic", "--tasks", "1", "--json", "--checkpoint", "copy.safetensors")
	if code != 0 || !strings.Contains(stderr, "--checkpoint copy.safetensors has the bytes of embedded:spring-cnp.safetensors, compared once as that") {
		t.Fatalf("a copy of the shipped file: exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(stdout, `"source_sha256"`); n != 3 {
		t.Errorf("a copy of the shipped file: %d models compared, want the 3 embedded ones", n)
	}
}

// wantCompareRefused runs compare on spring's APIC models with each of
// files as a --checkpoint and wants it refused (exit 2) with want.
func wantCompareRefused(t *testing.T, files []string, want string) {
	t.Helper()
	args := []string{"compare", "--system", "spring", "--methods", "apic", "--tasks", "1"}
	for _, f := range files {
		args = append(args, "--checkpoint", f)
	}
	code, _, stderr := runCLI(t, args...)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("%v: exit %d, stderr %q; want 2 and %q", files, code, stderr, want)
	}
}
