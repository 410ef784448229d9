package cli

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestIsTerminalRefusesNonTerminals: /dev/null is a character device but
// not a terminal; files, pipes and buffers are not terminals either, so
// progress sent there is printed as plain lines.
func TestIsTerminalRefusesNonTerminals(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]io.Writer{"/dev/null": devNull, "file": file, "pipe": w, "buffer": &bytes.Buffer{}} {
		if isTerminal(out) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
}
