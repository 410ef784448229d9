package cli

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
)

// failingWriter accepts limit bytes, then fails every write with err.
type failingWriter struct {
	limit int
	err   error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= f.limit {
		f.limit -= len(p)
		return len(p), nil
	}
	n := f.limit
	f.limit = 0
	return n, f.err
}

// TestOutputWriteErrors: output that cannot be written fails the
// command (exit 1) with a message naming the error, even where the
// command ignores what its prints return (eval's text, the help); a
// closed pipe fails it silently.
func TestOutputWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"eval", "--system", "spring", "--backbone", "cnp", "--tasks", "2"},
		{"help"},
		{"version"},
		{"simulate", "--help"},
	} {
		for _, c := range []struct {
			err  error
			want string
		}{
			{syscall.ENOSPC, "no space left on device"},
			{syscall.EPIPE, ""},
		} {
			var errOut bytes.Buffer
			code := Run(context.Background(), args, &failingWriter{limit: 20, err: c.err}, &errOut)
			if code != 1 {
				t.Errorf("%v with %v: exit %d, want 1", args, c.err, code)
			}
			if got := errOut.String(); c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Errorf("%v with %v: stderr %q, want %q", args, c.err, got, c.want)
			}
		}
	}
}
