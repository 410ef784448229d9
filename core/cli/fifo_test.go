//go:build unix

package cli

import (
	"bytes"
	"context"
	"fmt"
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

// runWithin runs the command line and returns its exit status and
// stderr, or -1 when it still runs after limit (left running).
func runWithin(args []string, limit time.Duration) (code int, stderr string) {
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() { done <- Run(context.Background(), args, &out, &errOut) }()
	select {
	case code = <-done:
		return code, errOut.String()
	case <-time.After(limit):
		return -1, fmt.Sprintf("still running after %v", limit)
	}
}

// TestInputsRefuseNamedPipes: every command that reads a checkpoint
// or an input file refuses a named pipe, or a link to one, at once with
// exit 2, naming it and saying what it is. They used to open it and
// wait for a writer until Ctrl-C, and then exit 1 as if interrupted.
func TestInputsRefuseNamedPipes(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,y\n1,0.5\n2,0.25\n")
	// calibrate reads --data before --u0-file: advdiff's must be valid.
	field := writeFile(t, dir, "field.csv", "t,x,u\n0.5,0.5,1\n")
	for _, tc := range []struct {
		name string
		flag string // the checkpoint flag that gives the pipe, which the refusal names
		args func(fifo string) []string
	}{
		{"inspect", "", func(f string) []string { return []string{"inspect", f} }},
		{"eval checkpoint", "checkpoint", func(f string) []string { return []string{"eval", "--checkpoint", f} }},
		{"calibrate checkpoint", "checkpoint", func(f string) []string { return []string{"calibrate", "--checkpoint", f, "--data", data} }},
		{"calibrate data", "", func(f string) []string { return []string{"calibrate", "--system", "spring", "--data", f} }},
		{"calibrate u0-file", "", func(f string) []string {
			return []string{"calibrate", "--system", "advdiff", "--u0-file", f, "--data", field}
		}},
		{"simulate u0-file", "", func(f string) []string {
			return []string{"simulate", "--system", "advdiff", "--theta", "kappa=0.05,v=0.5", "--u0-file", f}
		}},
		{"train init", "init", func(f string) []string {
			return []string{"train", "--init", f, "--out", filepath.Join(dir, "out.safetensors")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := mkfifo(t)
			link := filepath.Join(filepath.Dir(fifo), "link")
			if err := os.Symlink(fifo, link); err != nil {
				t.Fatal(err)
			}
			for path, what := range map[string]string{
				fifo: "a named pipe (FIFO), not a regular file",
				link: "a link to " + fifo + ", which is a named pipe (FIFO), not a regular file",
			} {
				want := path + " is " + what
				if tc.flag != "" {
					want = "--" + tc.flag + " " + path + ": " + what
				}
				code, stderr := runWithin(tc.args(path), 10*time.Second)
				if code != 2 || !strings.Contains(stderr, want) {
					t.Errorf("%s: exit %d, stderr %q, want exit 2 and %q", path, code, stderr, want)
				}
			}
		})
	}
}

// TestSweepRefusesNamedPipesInCells: a named pipe in a cell folder, in
// place of a file the sweep reads there, is refused unopened by a
// rerun and by --collect, naming it; both used to open it and wait for a
// writer, past a first Ctrl-C.
func TestSweepRefusesNamedPipesInCells(t *testing.T) {
	for _, name := range []string{"eval.json", "cell.json", "cmd.txt"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sw")
			args := []string{"sweep", "--system", "spring", "--vary", "context=5", "--tasks", "1", "--fix", "samples=1", "--out", out}
			if code, stderr := runWithin(args, time.Minute); code != 0 {
				t.Fatalf("sweep: exit %d, stderr %q", code, stderr)
			}
			path := filepath.Join(out, "cells", "context=5_seed=1", name)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			t.Cleanup(func() { // releases an open(2) still blocked
				if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
			want := path + " is a named pipe (FIFO), not a regular file"
			runs := [][]string{{"sweep", "--collect", out}, args}
			if name == "cmd.txt" {
				runs = runs[1:] // --collect does not read it
			}
			for _, run := range runs {
				code, stderr := runWithin(run, 10*time.Second)
				if code <= 0 || !strings.Contains(stderr, want) {
					t.Errorf("%v: exit %d, stderr %q; want a failure naming %q", run[:2], code, stderr, want)
				}
			}
		})
	}
}

// TestInterruptWhileStdinBlocks: standard input (--data -, --u0-file
// -), the way to give a pipe, may block: a writer that stays silent, a
// terminal. The command ends within a second of the cancellation
// (Ctrl-C, SIGTERM), with exit 1 and a message saying what it waited
// for.
func TestInterruptWhileStdinBlocks(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,x,u\n0.5,0.5,1\n")
	for name, args := range map[string][]string{
		"calibrate data":    {"calibrate", "--system", "spring", "--data", "-"},
		"calibrate u0-file": {"calibrate", "--system", "advdiff", "--u0-file", "-", "--data", data},
	} {
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe() // w stays open and silent
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close(); r.Close() })
			old := stdin
			stdin = r
			t.Cleanup(func() { stdin = old })
			code, stderr, after := runCancelled(args)
			if after > time.Second {
				t.Errorf("ran %v after the cancellation", after)
			}
			if want := "interrupted while reading " + stdinName; code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
		})
	}
}

// TestUnnamedPipeIsRead: an unnamed pipe given by path (a shell's
// <(cmd) is /dev/fd/N) has a writer and is read, not refused as the
// named pipes above are.
func TestUnnamedPipeIsRead(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		fmt.Fprintln(w, "t,y")
		for i := range 20 {
			fmt.Fprintf(w, "%g,%g\n", 0.2*float64(i), 0.5)
		}
	}()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if err := notRegularInput("--data", path); err != nil {
		t.Fatalf("notRegularInput(%s) = %v, want nil for an unnamed pipe", path, err)
	}
	if err := CheckCheckpointFile(path); err != nil {
		t.Errorf("CheckCheckpointFile(%s) = %v, want nil for an unnamed pipe", path, err)
	}
	if err := notRegularInput("--data", mkfifo(t)); err == nil {
		t.Error("a named pipe was accepted")
	}
}
