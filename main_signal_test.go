//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSecondSignalKills: the first Ctrl-C cancels the context and the
// second ends the process by the signal, as it would without apic's
// handling (it used to be caught, and ignored, until the command
// returned). The test runs itself as a child process, which signals
// itself.
func TestSecondSignalKills(t *testing.T) {
	if os.Getenv("APIC_SIGNAL_CHILD") != "1" && signal.Ignored(os.Interrupt) {
		// A child started with SIGINT ignored (a background job of a
		// non-interactive shell, nohup) inherits it, and the second
		// Ctrl-C could not end it by design: nothing to test.
		t.Skip("SIGINT is ignored in this process")
	}
	if os.Getenv("APIC_SIGNAL_CHILD") == "1" {
		ctx, release := interruptible()
		defer release()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		fmt.Println("cancelled")
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		// Only reached when the second signal was caught: a killed
		// process never wakes from this.
		time.Sleep(10 * time.Second)
		fmt.Println("survived the second signal")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondSignalKills$")
	cmd.Env = append(os.Environ(), "APIC_SIGNAL_CHILD=1")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child: %v, output %q; want it killed by SIGINT", err, out)
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT || !strings.Contains(string(out), "cancelled") {
		t.Errorf("child ended with %v, output %q; want it cancelled by the first SIGINT and killed by the second", exit, out)
	}
}

// TestHangupCancels: SIGHUP (a closed terminal or SSH session) cancels
// the context as Ctrl-C does, so that training keeps its work; the child
// exits 0 once it sees the cancellation, where SIGHUP's default would
// kill it.
func TestHangupCancels(t *testing.T) {
	if os.Getenv("APIC_SIGNAL_CHILD") == "hup" {
		ctx, release := interruptible()
		defer release()
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
		select {
		case <-ctx.Done():
			fmt.Println("cancelled")
		case <-time.After(10 * time.Second):
			fmt.Println("not cancelled")
		}
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangupCancels$")
	cmd.Env = append(os.Environ(), "APIC_SIGNAL_CHILD=hup")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "cancelled") || strings.Contains(string(out), "not cancelled") {
		t.Errorf("child: %v, output %q; want it cancelled by SIGHUP and alive", err, out)
	}
}

// TestBrokenPipeCancels: a write to a pipe nobody reads cancels the
// context instead of killing the process by SIGPIPE, and later writes
// fail with an error. The child's stdout is a pipe whose read end is
// closed; it reports on stderr.
func TestBrokenPipeCancels(t *testing.T) {
	if os.Getenv("APIC_SIGNAL_CHILD") == "pipe" {
		ctx, release := interruptible()
		defer release()
		var werr error
		for i := 0; i < 1000 && ctx.Err() == nil; i++ {
			_, werr = fmt.Println("progress")
			time.Sleep(time.Millisecond)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		_, again := fmt.Println("after the cancellation")
		fmt.Fprintf(os.Stderr, "cancelled=%v write error=%v second write error=%v\n", ctx.Err() != nil, werr != nil, again != nil)
		os.Exit(0)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr strings.Builder
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenPipeCancels$")
	cmd.Env = append(os.Environ(), "APIC_SIGNAL_CHILD=pipe")
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	if want := "cancelled=true write error=true second write error=true"; err != nil || !strings.Contains(stderr.String(), want) {
		t.Errorf("child: %v, stderr %q; want exit 0 and %q", err, stderr.String(), want)
	}
}
