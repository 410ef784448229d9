//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRefusesNamedPipe: opening a named pipe, or a link to one, is
// refused at once, naming it and what it is, and no open starts (it
// used to wait in the background for a writer, while t trained the
// weights the open would then replace). A regular file's open says it
// has begun.
func TestOpenRefusesNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "pipe"), filepath.Join(dir, "link")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "cannot open " + fifo + ": a named pipe (FIFO), not a regular file",
		link: "cannot open " + link + ": a link to " + fifo + ", which is a named pipe (FIFO), not a regular file",
	} {
		m := newTest(t, "spring", 80, 24)
		m, _ = pressNoRun(t, m, "o")
		m = typeText(t, m, path)
		m, started := pressNoRun(t, m, "enter")
		if started || m.opening != "" || m.msgKind != msgErr || m.msg != want {
			t.Errorf("%s: status %q (open started %v, opening %q), want %q", path, m.msg, started, m.opening, want)
		}
	}
	file := filepath.Join(dir, "m.safetensors")
	m := newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "o")
	m = typeText(t, m, file)
	m, started := pressNoRun(t, m, "enter")
	if want := "opening " + file + "…"; !started || m.opening != file || m.msg != want {
		t.Errorf("%s: status %q (open started %v), want %q", file, m.msg, started, want)
	}
}

// An open still reading is dropped when a newer open supersedes it or
// esc gives it up: what it reads later changes nothing.
func TestStaleOpenDropped(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	for _, then := range []string{"newer open", "esc"} {
		m := newTest(t, "spring", 80, 24)
		start := m.entry()
		m, _ = pressNoRun(t, m, "o")
		m = typeText(t, m, first)
		m, _ = pressNoRun(t, m, "enter")
		stale := m.openGen
		if then == "esc" {
			m, _ = pressNoRun(t, m, "esc")
			if m.opening != "" || !strings.Contains(m.msg, "stopped waiting for "+first) {
				t.Errorf("esc: opening %q, status %q", m.opening, m.msg)
			}
		} else {
			m, _ = pressNoRun(t, m, "o")
			m = typeText(t, m, filepath.Join(dir, "other.safetensors"))
			m, _ = pressNoRun(t, m, "enter")
		}
		msg := m.msg
		m = send(t, m, openedMsg{path: first, gen: stale, model: start.model, info: start.info})
		if m.msg != msg || m.entry() != start {
			t.Errorf("%s: the stale open was applied (status %q)", then, m.msg)
		}
	}
}

// Saving where the directory exists but takes no files (/proc) says
// so, not that the directory does not exist.
func TestSaveWhereNoFileCanBeMade(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc here")
	}
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, "/proc/apic.safetensors")
	m, _ = press(t, m, "enter")
	if want := "save failed: /proc takes no new files; choose another directory"; m.msg != want {
		t.Errorf("saving into /proc: %q, want %q", m.msg, want)
	}
}

// TestSaveKeepsADanglingLink: a save to a name a symbolic link holds,
// even one pointing nowhere, is refused as existing: the explorer never
// writes through a link nor replaces it. The refusal, and an open's,
// say that it is a link and where to.
func TestSaveKeepsADanglingLink(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := t.TempDir()
	link, target := filepath.Join(dir, "link.safetensors"), filepath.Join(dir, "target.safetensors")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, link)
	m, _ = press(t, m, "enter")
	if want := "exists, and the explorer never overwrites: " + link + " (a link to " + target + ", which does not exist)"; m.msgKind != msgErr || !strings.Contains(m.msg, want) {
		t.Errorf("saving over a dangling link: %q, want it to say %q", m.msg, want)
	}
	// The open names the link too, where "no such file" alone denied
	// the file ls lists.
	m, _ = press(t, m, "o")
	m = typeText(t, m, link)
	m, _ = press(t, m, "enter")
	if want := "cannot open " + link + ": no such file or directory (a link to " + target + ", which does not exist)"; m.msg != want {
		t.Errorf("opening a dangling link: %q, want %q", m.msg, want)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced or removed: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the save created the link's target")
	}
}

// TestSaveInARemovedDirectory: a save by a relative name after the
// directory the explorer runs in was removed says so; "." opens still,
// and the save said that ". takes no new files".
func TestSaveInARemovedDirectory(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, "kept.safetensors")
	m, _ = press(t, m, "enter")
	if want := "save failed: the current directory was removed since the explorer started; give a path elsewhere"; m.msg != want {
		t.Errorf("saving in a removed directory: %q, want %q", m.msg, want)
	}
}
