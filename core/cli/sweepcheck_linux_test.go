//go:build linux

package cli

import (
	"bytes"
	"encoding/binary"
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
