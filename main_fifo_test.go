//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFirstSignalEndsBlockedInput: "apic inspect FIFO" and "apic
// calibrate --data FIFO" with no one writing the FIFO end at the first
// SIGINT or SIGTERM (timeout(1) sends SIGTERM), with "interrupted"; they
// used to wait forever. The test runs the program's main as a child
// process and signals it.
func TestFirstSignalEndsBlockedInput(t *testing.T) {
	if args := os.Getenv("APIC_FIFO_CHILD"); args != "" {
		os.Args = append([]string{"apic"}, strings.Split(args, "\n")...)
		main()
		return
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tc := range []struct {
		args []string
		sig  syscall.Signal
	}{
		{[]string{"inspect", fifo}, syscall.SIGTERM},
		{[]string{"inspect", fifo}, syscall.SIGINT},
		{[]string{"calibrate", "--system", "spring", "--data", fifo}, syscall.SIGINT},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstSignalEndsBlockedInput$")
		cmd.Env = append(os.Environ(), "APIC_FIFO_CHILD="+strings.Join(tc.args, "\n"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		time.Sleep(500 * time.Millisecond) // let it block in the open
		cmd.Process.Signal(tc.sig)
		select {
		case err := <-done:
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted while") {
				t.Errorf("%v after %v: %v, stderr %q; want exit 1 and an interruption", tc.args, tc.sig, err, stderr.String())
			}
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%v still running 3 s after %v", tc.args, tc.sig)
		}
	}
}
