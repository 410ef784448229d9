//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepRefusesLinksAmongCellFiles: a symbolic link planted among a
// cell's files, here to a file of the user's, is refused before the
// cell runs, by a run and by --only, and the file it leads to is left
// as it was; so is one the writes themselves meet (writeCellFile).
func TestSweepRefusesLinksAmongCellFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw"}
	cell := filepath.Join("sw", "cells", "context=10_seed=1")
	if err := os.MkdirAll(cell, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "notes.txt")
	for _, name := range []string{"cmd.txt", "cell.json", "eval.json"} {
		if err := os.WriteFile(victim, nil, 0o644); err != nil { // empty: eval.json would not mark the cell finished
			t.Fatal(err)
		}
		link := filepath.Join(cell, name)
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
		for _, run := range [][]string{args, append(args[:len(args):len(args)], "--only", "context=10_seed=1")} {
			code, _, stderr := runCLI(t, run...)
			want := link + " is a symbolic link to " + victim + ", not a regular file"
			if code == 0 || !strings.Contains(stderr, want) {
				t.Errorf("%s a link: exit %d, stderr %q; want it refused (%q)", name, code, stderr, want)
			}
		}
		if b, err := os.ReadFile(victim); err != nil || len(b) != 0 {
			t.Errorf("%s: the link's target holds %q (%v), want it untouched", name, b, err)
		}
		if err := writeCellFile(link, []byte("{}\n")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("writeCellFile through the %s link: error %v, want a refusal", name, err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
	}
	runSweepOK(t, args...)
}

// TestSweepRefusesLinkedCellFolder: a symbolic link planted in place
// of a cell's folder, or of the cells folder, to a folder of the
// user's is refused, naming the link, by a run and by --only, and the
// file of the same name there (cell.json) is left as it was.
func TestSweepRefusesLinkedCellFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw"}
	users := filepath.Join(dir, "users")
	if err := os.Mkdir(users, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(users, "cell.json")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := filepath.Join("sw", "cells")
	cell := filepath.Join(cells, "context=10_seed=1")
	for _, link := range []string{cells, cell} {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(users, link); err != nil {
			t.Fatal(err)
		}
		for _, run := range [][]string{args, append(args[:len(args):len(args)], "--only", "context=10_seed=1")} {
			code, _, stderr := runCLI(t, run...)
			want := link + " is a symbolic link to " + users + ", not a directory"
			if code == 0 || !strings.Contains(stderr, want) {
				t.Errorf("%s a link: exit %d, stderr %q; want it refused (%q)", link, code, stderr, want)
			}
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "mine\n" {
			t.Errorf("%s a link: the user's cell.json holds %q (%v), want it untouched", link, b, err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
	}
	runSweepOK(t, args...)
}
