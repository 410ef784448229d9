//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Opening a file says so at once, and a named pipe that it waits for a
// writer, while the open runs in the background.
func TestOpenSaysItIsWaiting(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "m.safetensors"): "opening " + filepath.Join(dir, "m.safetensors") + "…",
		fifo:                                "a named pipe, waiting for its writer",
	} {
		m := newTest(t, "spring", 80, 24)
		m, _ = pressNoRun(t, m, "o")
		m = typeText(t, m, path)
		m, started := pressNoRun(t, m, "enter")
		if !started || !strings.Contains(m.msg, want) {
			t.Errorf("%s: status %q (open started %v), want %q", path, m.msg, started, want)
		}
	}
}

// An open still waiting on a named pipe is dropped when a newer open
// supersedes it or esc gives it up: what it reads later changes nothing.
func TestStaleOpenDropped(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, then := range []string{"newer open", "esc"} {
		m := newTest(t, "spring", 80, 24)
		start := m.entry()
		m, _ = pressNoRun(t, m, "o")
		m = typeText(t, m, fifo)
		m, _ = pressNoRun(t, m, "enter")
		stale := m.openGen
		if then == "esc" {
			m, _ = pressNoRun(t, m, "esc")
			if m.opening != "" || !strings.Contains(m.msg, "stopped waiting for "+fifo) {
				t.Errorf("esc: opening %q, status %q", m.opening, m.msg)
			}
		} else {
			m, _ = pressNoRun(t, m, "o")
			m = typeText(t, m, filepath.Join(dir, "other.safetensors"))
			m, _ = pressNoRun(t, m, "enter")
		}
		msg := m.msg
		m = send(t, m, openedMsg{path: fifo, gen: stale, model: start.model, info: start.info})
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
// writes through a link nor replaces it.
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
	if m.msgKind != msgErr || !strings.Contains(m.msg, "already exists") {
		t.Errorf("saving over a dangling link: %q", m.msg)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced or removed: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the save created the link's target")
	}
}
