package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// takes no new file: the system's cause, without the probe's name, and
// the directory without a trailing separator. A directory without write
// permission refuses every user but root, for whom the test is skipped
// (files on /proc, which refuse root too, have their own message:
// TestOutputsOnProcSayWhy).
func TestOutputProbeMessage(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	path := filepath.Join(dir, "model.safetensors")
	err := checkOutputPath("out", path+"", "a checkpoint")
	want := "--out " + path + ": cannot create a file in " + dir + ": permission denied"
	if err == nil || err.Error() != want || !IsUsageError(err) {
		t.Fatalf("got %v, want usage error %q", err, want)
	}
	if strings.Contains(err.Error(), "probe") {
		t.Errorf("%q names the probe", err)
	}
}

// TestOutputProbeLongName: a file name within the file system's limit
// of 255 bytes passes the output check, whose probe file's name, and
// then the save's temporary file's, repeat it with more around it
// ("cannot create a file in DIR: file name too long" before).
func TestOutputProbeLongName(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("f", 246)+".png") // 250 bytes
	if err := checkOutputPath("png", path, "a figure"); err != nil {
		t.Errorf("a 250-byte name: %v", err)
	}
}
