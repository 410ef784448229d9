//go:build unix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputsRefuseSpecialFiles: train --out, calibrate --png and
// simulate --csv refuse a named pipe, a character device, a directory
// and a link to one before any work, leaving them as they were (issue
// 19: train --out on a copy of /dev/null exited 0 and left a regular
// file), in the words of a checkpoint's save (core.CheckSaveTarget):
// the outputs once said "f links to p, which is …: refusing to replace
// it" where train said "f is a link to p, which is …".
func TestOutputsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{
		fifo: fifo + " is a named pipe (FIFO), not a regular file",
		link: link + " is a link to " + fifo + ", which is a named pipe (FIFO), not a regular file",
		sub:  sub + " is a directory, not a regular file",
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		targets[null] = null + " is a character device, not a regular file"
	} else {
		t.Logf("no character device test: mknod: %v", err)
	}
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	obs := goodObservations(t, dir)["spring"]
	for path, want := range targets {
		before, _ := os.Lstat(path)
		for _, tc := range []struct {
			args []string
			what string
		}{
			{[]string{"train", "--system", "spring", "--steps1", "0", "--steps2", "1", "--recalibrate", "0", "--out", path}, "--out: %s: refusing to save a checkpoint over it"},
			{append([]string{"calibrate", "--checkpoint", ckpt, "--png", path}, obs...), "--png: %s: refusing to save a figure over it"},
			{[]string{"simulate", "--system", "spring", "--csv", path}, "--csv: %s: refusing to save a CSV file over it"},
		} {
			args := tc.args
			code, _, stderr := runCLI(t, args...)
			if want := fmt.Sprintf(tc.what, want); code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s to %s: exit %d, stderr %q, want exit 2 and %q", args[0], path, code, stderr, want)
			}
			if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
				t.Errorf("%s to %s: was %v, now %v (%v)", args[0], path, before.Mode(), after, err)
			}
		}
	}
}

// TestTrainOutFollowsSymlink: --out naming a link to a checkpoint writes
// the file the link names and keeps the link.
func TestTrainOutFollowsSymlink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := tinyCheckpoint(t, other, "spring", 0, 0) // a dangling link is refused
	link := filepath.Join(dir, "link.safetensors")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--force", "--out", link)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("--out link is no longer a link: %v, %v", st, err)
	}
	if code, _, stderr := runCLI(t, "inspect", target); code != 0 {
		t.Errorf("the link's target is not a checkpoint: %s", stderr)
	}
	if after, _ := os.ReadFile(target); string(after) == string(before) {
		t.Error("the link's target was not replaced")
	}
}

// TestOutputsRefuseDanglingLinks: train --out, calibrate --png and
// simulate --csv naming a link to nothing refuse it before any work,
// naming the link, and create nothing where it points (they used to
// create the link's target).
func TestOutputsRefuseDanglingLinks(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	obs := goodObservations(t, dir)["spring"]
	for name, args := range map[string][]string{
		"out.safetensors": {"train", "--system", "spring", "--steps1", "0", "--steps2", "1", "--recalibrate", "0", "--out"},
		"out.png":         append([]string{"calibrate", "--checkpoint", ckpt}, append(obs, "--png")...),
		"out.csv":         {"simulate", "--system", "spring", "--csv"},
	} {
		target := filepath.Join(other, name)
		link := filepath.Join(dir, "link-"+name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, append(args, link)...)
		want := link + " is a symbolic link to " + target + ", which does not exist"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s to %s: exit %d, stderr %q, want exit 2 and %q", args[0], link, code, stderr, want)
		}
		if _, err := os.Lstat(target); err == nil {
			t.Errorf("%s created %s through the link", args[0], target)
		}
	}
}
