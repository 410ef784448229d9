//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveRefusesNonRegularFile: a save to a name that a named pipe (or
// a link to one) holds is refused, naming it and what it is; the
// explorer used to give an extension-less name .safetensors and save
// beside it (as root, /dev/full.safetensors), or, given the extension,
// said only that the name existed. Nothing is written.
func TestSaveRefusesNonRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	named := filepath.Join(dir, "named.safetensors")
	if err := syscall.Mkfifo(named, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string]string{
		fifo:  fifo + " is a named pipe (FIFO), not a regular file",
		named: named + " is a named pipe (FIFO), not a regular file",
		link:  link + " is a link to " + fifo + ", which is a named pipe (FIFO), not a regular file",
	} {
		m := newTest(t, "spring", 80, 24)
		m, _ = press(t, m, "s", "ctrl+u")
		m = typeText(t, m, typed)
		m, _ = press(t, m, "enter")
		if want := "save failed: " + want + "; give a file name"; m.msgKind != msgErr || m.msg != want {
			t.Errorf("saving to %s: %q, want %q", typed, m.msg, want)
		}
	}
	if names := dirNamesOf(t, dir); len(names) != 3 {
		t.Errorf("the directory holds %v, want only the two pipes and the link", names)
	}
}
