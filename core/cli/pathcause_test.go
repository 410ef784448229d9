package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestPathCause: the cause of a path error, wrapped or not, is the
// system's words alone; any other error is its own cause.
func TestPathCause(t *testing.T) {
	pe := &fs.PathError{Op: "open", Path: "/tmp/.m.safetensors.probe-1", Err: syscall.ENOENT}
	other := errors.New("disk on fire")
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"path error", pe, syscall.ENOENT},
		{"wrapped path error", fmt.Errorf("load: %w", pe), syscall.ENOENT},
		{"other error", other, other},
	}
	for _, tc := range cases {
		if got := pathCause(tc.err); got != tc.want {
			t.Errorf("%s: pathCause(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestOutputProbeMessage pins the message of an output directory that
// takes no new file: the system's cause, without the probe's name.
func TestOutputProbeMessage(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc here")
	}
	err := checkOutputPath("out", "/proc/model.safetensors")
	want := "--out /proc/model.safetensors: cannot create a file in /proc/: no such file or directory"
	if err == nil || err.Error() != want || !IsUsageError(err) {
		t.Fatalf("got %v, want usage error %q", err, want)
	}
	if strings.Contains(err.Error(), "probe") {
		t.Errorf("%q names the probe", err)
	}
}
