package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFile copies the file from to the new file to, making its folder.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkRefused runs apic with args and wants exit 2, nothing on stdout
// and each of want on stderr.
func checkRefused(t *testing.T, args []string, want ...string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	ok := code == 2 && stdout == ""
	for _, w := range want {
		ok = ok && strings.Contains(stderr, w)
	}
	if !ok {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, stdout, stderr, want)
	}
}

// checkUnchanged fails where dir's files are not before's.
func checkUnchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := folderFiles(t, dir)
	if len(after) != len(before) {
		t.Errorf("the refused sweeps left %d files in %s, not %d", len(after), dir, len(before))
	}
	for path, text := range before {
		if after[path] != text {
			t.Errorf("the refused sweeps changed %s", path)
		}
	}
}

// TestSweepRefusesAValueOfAnotherCellsFolder: a value whose cell folder
// name is that of an existing cell of another value (the two differ
// only in characters a folder name does not keep) is refused before any
// cell runs, by a run, --plan and --only, naming both values and the
// folder: the sweep would otherwise skip it as finished and show the
// other value's results.
func TestSweepRefusesAValueOfAnotherCellsFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	for i, c := range []struct{ first, second, id string }{
		{"m 1.safetensors", "m_1.safetensors", "checkpoint=m_1.safetensors_seed=1"},
		{filepath.Join("runs", "a.safetensors"), "runs_a.safetensors", "checkpoint=runs_a.safetensors_seed=1"},
	} {
		copyFile(t, ckpt, c.first)
		copyFile(t, ckpt, c.second)
		out := filepath.Join(dir, "coll"+string(rune('0'+i)))
		sweep := func(value string, mode ...string) []string {
			return append([]string{"sweep", "--vary", "checkpoint=" + value, "--fix", "samples=2", "--tasks", "2", "--out", out}, mode...)
		}
		runSweepOK(t, sweep(c.first)...)
		before := folderFiles(t, out)
		for _, mode := range [][]string{nil, {"--plan"}, {"--only", c.id}} {
			checkRefused(t, sweep(c.second, mode...),
				`holds the cell `+c.id+` of checkpoint="`+c.first+`", seed 1 (`+filepath.Join(out, "cells", c.id, "cell.json")+`)`,
				`for checkpoint="`+c.second+`", seed 1`, "Give this sweep's value another name")
		}
		checkUnchanged(t, out, before)
		runSweepOK(t, sweep(c.first)...)
	}
}
