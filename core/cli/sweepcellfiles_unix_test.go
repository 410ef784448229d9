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

// TestSweepRefusesLinksInFinishedCells: in a finished cell, a symbolic
// link in place of eval.json, eval-onepass.json or cell.json (here to a
// copy of the cell's own file, which would otherwise pass for its
// result), or in place of the cell's folder, is refused by a rerun and
// by --only, naming the link, not read as finished; so is one in a
// cell of the folder that this sweep does not run but would summarise.
// The file the link leads to is left as it was.
func TestSweepRefusesLinksInFinishedCells(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw"}
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10,12", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	cell := filepath.Join("sw", "cells", "context=10_seed=1")
	other := filepath.Join("sw", "cells", "context=12_seed=1") // not this sweep's cell
	only := append(args[:len(args):len(args)], "--only", "context=10_seed=1")
	refused := func(what, want string) {
		t.Helper()
		for _, run := range [][]string{args, only} {
			code, _, stderr := runCLI(t, run...)
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s a link: exit %d, stderr %q; want exit 2 and %q", what, code, stderr, want)
			}
		}
	}
	for _, c := range []string{cell, other} {
		for _, name := range []string{"eval.json", onePassFile, "cell.json"} {
			link := filepath.Join(c, name)
			copied := filepath.Join(dir, name)
			data, err := os.ReadFile(filepath.Join(cell, "eval.json"))
			if err == nil && name == "cell.json" {
				data, err = os.ReadFile(link)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(copied, data, 0o644); err != nil {
				t.Fatal(err)
			}
			saved, _ := os.ReadFile(link)
			os.Remove(link)
			if err := os.Symlink(copied, link); err != nil {
				t.Fatal(err)
			}
			refused(link, link+" is a symbolic link to "+copied+", not a regular file")
			if b, err := os.ReadFile(copied); err != nil || string(b) != string(data) {
				t.Errorf("%s: the link's target holds %q (%v), want it untouched", link, b, err)
			}
			if done, err := cellDone("sw", sweepCell{ID: filepath.Base(c)}); done || err == nil || !strings.Contains(err.Error(), link) {
				t.Errorf("cellDone with %s a link: %v, %v; want an error naming it", link, done, err)
			}
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if saved != nil {
				if err := os.WriteFile(link, saved, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(cell, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, cell); err != nil {
		t.Fatal(err)
	}
	refused(cell, cell+" is a symbolic link to "+moved+", not a directory")
	if done, err := cellDone("sw", sweepCell{ID: filepath.Base(cell)}); done || err == nil || !strings.Contains(err.Error(), cell) {
		t.Errorf("cellDone with %s a link: %v, %v; want an error naming it", cell, done, err)
	}
	if err := os.Remove(cell); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, cell); err != nil {
		t.Fatal(err)
	}
	runSweepOK(t, args...)
}
