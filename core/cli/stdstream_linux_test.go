//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIntoStandardStreamPipe: --png, --csv or --out naming standard
// output that is a pipe (here /dev/fd/N of the pipe os.Stdout is made,
// as "5>&1 | cmd" gives) is refused in those words, not as a named
// pipe, and points to the printed output.
func TestOutputIntoStandardStreamPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()
	path := fmt.Sprintf("/dev/fd/%d", w.Fd())
	data := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(data, []byte("t,y\n1,0.5\n2,0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"calibrate", "--system", "spring", "--data", data, "--png", path},
		{"simulate", "--system", "spring", "--csv", path},
		{"train", "--system", "spring", "--out", path},
	} {
		code, _, stderr := runCLI(t, args...)
		flag := args[len(args)-2]
		want := flag + " " + path + " is standard output, which is a pipe here"
		if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "pipe the command's printed output") || strings.Contains(stderr, "named pipe") {
			t.Errorf("%s: exit %d, stderr %q; want a usage error containing %q", args[0], code, stderr, want)
		}
	}
}

// TestNamedStdStream: the standard stream a path names, itself or
// through links, whatever spelling; another descriptor names none.
func TestNamedStdStream(t *testing.T) {
	link := filepath.Join(t.TempDir(), "err.png")
	if err := os.Symlink("/dev/stderr", link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"/dev/stdout": 1, "/dev/stdin": 0, "/dev/fd/2": 2, "/proc/self/fd/1": 1,
		fmt.Sprintf("/proc/%d/fd/1", os.Getpid()): 1, link: 2, "/dev/fd/5": -1, "/dev/null": -1,
	} {
		if got := namedStdStream(path); got != want {
			t.Errorf("namedStdStream(%s) = %d, want %d", path, got, want)
		}
	}
}

// TestUnnamedPipeIsNoNamedPipe: an unnamed pipe given by path is
// refused as an output in its own words, not as a FIFO.
func TestUnnamedPipeIsNoNamedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	path := fmt.Sprintf("/dev/fd/%d", w.Fd())
	err = checkOutputPath("png", path, "a figure")
	if want := path + " is an unnamed pipe, not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("checkOutputPath(%s): %v, want %q", path, err, want)
	}
}
