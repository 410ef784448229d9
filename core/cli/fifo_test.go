//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO in a temporary directory. At cleanup it opens the
// FIFO for writing without blocking and closes it, which releases any
// open(2) for reading still blocked in an abandoned goroutine.
func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path
}

// runCancelled runs the command line, cancels its context after a
// moment and returns its exit status, stderr and how long it ran on
// after the cancellation.
func runCancelled(args []string) (code int, stderr string, after time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(200*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() { done <- Run(ctx, args, &out, &errOut) }()
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		return -1, "still running 10 s after the cancellation", 10 * time.Second
	}
	return code, errOut.String(), time.Since(cancelled)
}

// TestInterruptWhileInputBlocks: a FIFO that no one writes blocks the
// open (no writer yet) or the reads (a writer that stays silent); every
// command that reads input ends within a second of the cancellation
// (Ctrl-C, SIGTERM), with exit 1 and a message saying what it waited
// for. It used to wait forever, through the first Ctrl-C.
func TestInterruptWhileInputBlocks(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,y\n1,0.5\n2,0.25\n")
	// calibrate reads --data before --u0-file: advdiff's must be valid.
	field := writeFile(t, dir, "field.csv", "t,x,u\n0.5,0.5,1\n")
	for _, tc := range []struct {
		name   string
		args   func(fifo string) []string
		silent bool // a writer opens the FIFO and writes nothing
		want   string
	}{
		{"inspect", func(f string) []string { return []string{"inspect", f} }, false, "interrupted while reading checkpoint"},
		{"eval checkpoint", func(f string) []string { return []string{"eval", "--checkpoint", f} }, false, "interrupted while reading checkpoint"},
		{"calibrate checkpoint", func(f string) []string { return []string{"calibrate", "--checkpoint", f, "--data", data} }, false, "interrupted while reading checkpoint"},
		{"calibrate data", func(f string) []string { return []string{"calibrate", "--system", "spring", "--data", f} }, false, "interrupted while opening --data"},
		{"calibrate data, silent writer", func(f string) []string { return []string{"calibrate", "--system", "spring", "--data", f} }, true, "interrupted while reading "},
		{"calibrate u0-file", func(f string) []string {
			return []string{"calibrate", "--system", "advdiff", "--u0-file", f, "--data", field}
		}, false, "interrupted while opening --u0-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := mkfifo(t)
			if tc.silent {
				opened := make(chan *os.File, 1)
				go func() {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the command opens it
					if err == nil {
						opened <- w
					}
					close(opened)
				}()
				t.Cleanup(func() {
					if w, ok := <-opened; ok {
						w.Close()
					}
				})
			}
			code, stderr, after := runCancelled(tc.args(fifo))
			if after > time.Second {
				t.Errorf("ran %v after the cancellation", after)
			}
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}
