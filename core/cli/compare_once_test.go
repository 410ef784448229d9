package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		args := []string{"compare", "--system", "spring", "--methods", "apic", "--tasks", "1"}
		for _, f := range tc.files {
			args = append(args, "--checkpoint", f)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.files, code, stderr, tc.want)
		}
	}
}
