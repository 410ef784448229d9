//go:build unix

package tui

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Opening a file says so at once, and a named pipe that it waits for a
// writer, while the open runs in the background.
func TestOpenSaysItIsWaiting(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "m.safetensors"): "opening " + filepath.Join(dir, "m.safetensors") + "…",
		fifo:                                "a named pipe, waiting for its writer",
	} {
		m := newTest(t, "spring", 80, 24)
		m, _ = pressNoRun(t, m, "o")
		m = typeText(t, m, path)
		m, started := pressNoRun(t, m, "enter")
		if !started || !strings.Contains(m.msg, want) {
			t.Errorf("%s: status %q (open started %v), want %q", path, m.msg, started, want)
		}
	}
}
