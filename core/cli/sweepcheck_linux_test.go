//go:build linux

package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSweepChecksReadEachCheckpointOnce: an evaluation sweep's up-front
// check of every cell's eval command reads each checkpoint once, not
// once per cell (inotify counts the opens of the file).
func TestSweepChecksReadEachCheckpointOnce(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	opens := watchOpens(t, ckpt)
	code, stdout, stderr := runCLI(t, "sweep", "--fix", "checkpoint="+ckpt, "--vary", "noise=0,0.1,0.2", "--vary", "samples=1,2",
		"--tasks", "2", "--out", filepath.Join(dir, "sw"), "--plan")
	if code != 0 || strings.Count(stdout, "--only") != 6 {
		t.Fatalf("sweep --plan: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if n := opens(); n != 1 {
		t.Errorf("the checks of 6 cells opened the checkpoint %d times, want once", n)
	}
}

// watchOpens starts counting the opens of path and returns a function
// that says how many there have been since.
func watchOpens(t *testing.T, path string) func() int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// Identical events in a row are coalesced into one: the closes
	// between the opens keep each open apart.
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN|syscall.IN_CLOSE); err != nil {
		t.Skipf("inotify watch: %v", err)
	}
	return func() int {
		n := 0
		buf := make([]byte, 64*syscall.SizeofInotifyEvent)
		for {
			k, err := syscall.Read(fd, buf)
			if k <= 0 || err != nil {
				return n
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= k; {
				var ev syscall.InotifyEvent
				if err := binary.Read(bytes.NewReader(buf[off:off+syscall.SizeofInotifyEvent]), binary.NativeEndian, &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Mask&syscall.IN_OPEN != 0 {
					n++
				}
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// TestSweepChecksFigureUpFront: --png's DIR/sweep.png is checked before
// the first cell runs, as every other output is: a named pipe or a
// directory there is refused with exit 2 and no cell is run, for a run,
// a --collect and a preset alike.
func TestSweepChecksFigureUpFront(t *testing.T) {
	dir := t.TempDir()
	fifoOut := filepath.Join(dir, "fifo")
	if err := os.Mkdir(fifoOut, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifoOut, "sweep.png"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dirOut := filepath.Join(dir, "dir")
	if err := os.MkdirAll(filepath.Join(dirOut, "sweep.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		fifoOut: "sweep.png is a named pipe (FIFO), not a regular file: refusing to save a figure over it",
		dirOut:  "sweep.png is a directory, not a regular file: refusing to save a figure over it",
	} {
		args := append(tinySweepArgs(out), "--png")
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("sweep --png into %s: exit %d, stderr %q; want exit 2 and %q", out, code, stderr, want)
		}
		if _, err := os.Stat(filepath.Join(out, "cells")); err == nil {
			t.Errorf("sweep --png into %s ran cells before refusing its figure", out)
		}
	}

	done := filepath.Join(dir, "done")
	runSweepOK(t, tinySweepArgs(done)...)
	if err := syscall.Mkfifo(filepath.Join(done, "sweep.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sweep", "--collect", done, "--png")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "named pipe") {
		t.Errorf("--collect --png onto a named pipe: exit %d, stderr %q, stdout %q; want exit 2 before the summary", code, stderr, stdout)
	}

	preset := filepath.Join(dir, "preset")
	if err := os.MkdirAll(filepath.Join(preset, "noise", "sweep.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "sweep", "--preset", "appendix-b", "--out", preset, "--png", "--seeds", "1", "--tasks", "2")
	if code != 2 || !strings.Contains(stderr, filepath.Join(preset, "noise", "sweep.png")+" is a directory") {
		t.Errorf("--preset --png onto a directory: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(preset, "context", "cells")); err == nil {
		t.Error("--preset --png ran the context study before refusing the noise study's figure")
	}
}
