//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFirstSignalEndsBlockedInput: "apic calibrate --data -" with
// standard input a pipe that no one writes ends at the first SIGINT,
// SIGTERM (timeout(1) sends it) or SIGHUP, with "interrupted"; it used
// to wait forever. (A named pipe given by name is refused unopened.)
// Having said so, it ends by the signal, as a shell needs to stop a
// loop that runs apic; it used to exit 1, and the loop went on.
// The test runs the program's main as a child process and signals it.
func TestFirstSignalEndsBlockedInput(t *testing.T) {
	if args := os.Getenv("APIC_STDIN_CHILD"); args != "" {
		os.Args = append([]string{"apic"}, strings.Split(args, "\n")...)
		os.Stdout.WriteString("ready\n") // main's signal handling comes next
		main()
		return
	}
	for _, tc := range []struct {
		args []string
		sig  syscall.Signal
	}{
		{[]string{"calibrate", "--system", "spring", "--data", "-"}, syscall.SIGTERM},
		{[]string{"calibrate", "--system", "spring", "--data", "-"}, syscall.SIGINT},
		{[]string{"calibrate", "--system", "spring", "--data", "-"}, syscall.SIGHUP},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstSignalEndsBlockedInput$")
		cmd.Env = append(os.Environ(), "APIC_STDIN_CHILD="+strings.Join(tc.args, "\n"))
		silent, err := cmd.StdinPipe() // held open, never written
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A signal before main installs its handling would kill the
		// child outright: wait for it to be about to, then give it
		// time to block in the read.
		ready := make([]byte, len("ready\n"))
		if _, err := io.ReadFull(stdout, ready); err != nil {
			t.Fatalf("child: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		cmd.Process.Signal(tc.sig)
		select {
		case err := <-done:
			if !endedBy(err, tc.sig) || !strings.Contains(stderr.String(), "interrupted while") {
				t.Errorf("%v after %v: %v, stderr %q; want an interruption, then the process ended by the signal", tc.args, tc.sig, err, stderr.String())
			}
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%v still running 3 s after %v", tc.args, tc.sig)
		}
		silent.Close()
	}
}

// endedBy reports whether a child's err says it was killed by sig, or,
// where sig was ignored when it started and could not kill it, exited
// with the status a shell gives such a process, 128 + sig.
func endedBy(err error, sig syscall.Signal) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return ws.Signal() == sig
	}
	return exit.ExitCode() == 128+int(sig)
}
