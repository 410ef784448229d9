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

// TestSweepRefusesAFinishedCellMissingAFile: a finished cell (eval.json)
// without its cmd.txt, whose settings cannot then be checked, or its
// cell.json, which names its values, is refused before any cell runs,
// whether it is one of this sweep's cells or not, naming the cell and
// what to do; --collect says what to do too.
func TestSweepRefusesAFinishedCellMissingAFile(t *testing.T) {
	id := "context=10_noise=0.05_seed=1"
	for _, missing := range []string{"cmd.txt", "cell.json"} {
		out := t.TempDir()
		runSweepOK(t, tinySweepArgs(out)...)
		cell := filepath.Join(out, "cells", id)
		if err := os.Remove(filepath.Join(cell, missing)); err != nil {
			t.Fatal(err)
		}
		before := folderFiles(t, out)
		other := []string{"sweep", "--system", "spring", "--vary", "context=20", "--vary", "noise=0.1", "--tasks", "2", "--fix", "samples=2", "--out", out}
		for _, args := range [][]string{tinySweepArgs(out), append(tinySweepArgs(out), "--only", id), other} {
			checkRefused(t, args, "--out "+out+": the cell "+id+" is finished (eval.json) but has no "+missing,
				"remove that cell's folder ("+cell+") to run it again")
		}
		checkUnchanged(t, out, before)
		if missing == "cell.json" {
			code, _, stderr := runCLI(t, "sweep", "--collect", out)
			if code == 0 || !strings.Contains(stderr, "has no cell.json") || !strings.Contains(stderr, "remove that cell's folder ("+cell+")") {
				t.Errorf("--collect without %s: exit %d, stderr %q", missing, code, stderr)
			}
		}
	}
}

// TestSweepRefusesACellJSONOfNoCell: a cell.json that is JSON but no
// cell's description (null, {}, an axis without a name) is refused as
// such, naming it, by a sweep and by --collect.
func TestSweepRefusesACellJSONOfNoCell(t *testing.T) {
	id := "context=10_noise=0.05_seed=1"
	for _, text := range []string{"null", "{}", `{"id":"x","axes":[{"name":"","value":"1"}],"seed":1}`} {
		out := t.TempDir()
		runSweepOK(t, tinySweepArgs(out)...)
		path := filepath.Join(out, "cells", id, "cell.json")
		writeFile(t, filepath.Dir(path), "cell.json", text)
		checkRefused(t, tinySweepArgs(out), path+": ", "not the description of a sweep's cell", "remove that cell's folder")
		code, _, stderr := runCLI(t, "sweep", "--collect", out)
		if code == 0 || !strings.Contains(stderr, path+": ") || !strings.Contains(stderr, "not the description of a sweep's cell") {
			t.Errorf("--collect with cell.json %s: exit %d, stderr %q", text, code, stderr)
		}
	}
}
