//go:build unix

package tui

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A --checkpoint that blocks (a FIFO nobody writes) ends when the
// command's context is cancelled, instead of holding the explorer's
// start until a second Ctrl-C kills it.
func TestNewCheckpointFIFOHonoursContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "model.safetensors")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := New(Options{Checkpoint: fifo, Context: ctx})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("New = %v, want an interruption", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("New still blocks 5 s after the context was cancelled")
	}
}
