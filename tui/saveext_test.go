package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

// TestSaveRefusesOtherExtensions: s writes a safetensors checkpoint,
// as the prompt's suggestion says; fig.png was written as one, no
// image. A name with another extension is now refused, in train
// --out's words, naming the name to use, and nothing is written;
// .safetensors in any case and a name without an extension (which gets
// it) are saved.
func TestSaveRefusesOtherExtensions(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := m.opts.SaveDir
	for _, name := range []string{"fig.png", "model.ckpt"} {
		m, _ = press(t, m, "s")
		m = typeText(t, m, filepath.Join(dir, name))
		m, _ = press(t, m, "enter")
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s: written", name)
		}
		try := strings.TrimSuffix(name, filepath.Ext(name)) + ".safetensors"
		if want := name + ": a checkpoint's name ends in .safetensors (try " + try + ")"; m.msgKind != msgErr || !strings.HasSuffix(m.msg, want) {
			t.Errorf("%s: message %q, want it to end in %q", name, m.msg, want)
		}
		if _, cut := m.headerCut(); cut {
			t.Errorf("%s: the message is cut at 80×24: %q", name, m.msg)
		}
		if figure := strings.Contains(m.msg, "s saves the model, no figure"); figure != (name == "fig.png") {
			t.Errorf("%s: says the explorer saves no figures %v", name, figure)
		}
	}
	for _, tc := range []struct{ typed, written string }{{"a.SafeTensors", "a.SafeTensors"}, {"b", "b.safetensors"}} {
		if m, _ = press(t, m, "s"); !m.prompt.active() {
			m, _ = press(t, m, "s") // saved already (TestSaveAgainAsks)
		}
		m = typeText(t, m, filepath.Join(dir, tc.typed))
		m, _ = press(t, m, "enter")
		if _, err := os.Stat(filepath.Join(dir, tc.written)); err != nil || m.msgKind != msgInfo {
			t.Errorf("%s: %v, message %q", tc.typed, err, m.msg)
		}
	}
}

// TestSaveAgainAsks: s on weights saved already used to write another
// copy under the next free name without a word. It now says where they
// are saved and opens no prompt; s again, as the very next key, saves
// the copy, and any other key in between disarms it.
func TestSaveAgainAsks(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	first := filepath.Join(m.opts.SaveDir, "apic-spring-lnp-1.safetensors")
	m, _ = press(t, m, "s", "enter")
	if _, err := os.Stat(first); err != nil {
		t.Fatal(err)
	}
	m, _ = press(t, m, "s")
	if m.prompt.active() || m.msgKind != msgWarn || m.msg != "saved already (s again saves a copy) as "+first {
		t.Fatalf("s after a save: prompt %v, message %q", m.prompt.active(), m.msg)
	}
	if lines := m.header(); !strings.Contains(strings.Join(lines, ""), "saved already (s again saves a copy)") {
		t.Errorf("the header at 80×24 lacks the warning:\n%s", strings.Join(lines, "\n"))
	}
	m, _ = press(t, m, "r", "s")
	if m.prompt.active() {
		t.Fatal("r between the two s: the second opened the prompt")
	}
	m, _ = press(t, m, "s", "enter")
	if _, err := os.Stat(filepath.Join(m.opts.SaveDir, "apic-spring-lnp-2.safetensors")); err != nil || m.msgKind != msgInfo {
		t.Errorf("s again: %v, message %q", err, m.msg)
	}
}

// TestSaveOpenedFileAsks: s on weights opened from a file (o), which
// are in that file already, used to open the save prompt without a
// word. It now says so, as for weights saved here, at 80 columns in
// full; s again saves the copy. A shipped checkpoint opened as
// embedded:NAME is in no file: s saves it at once.
func TestSaveOpenedFileAsks(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	opened := filepath.Join(t.TempDir(), "x.safetensors")
	if err := core.SaveCheckpoint(opened, m.entry().model, m.entry().info, nets.F64); err != nil {
		t.Fatal(err)
	}
	m, _ = press(t, m, "o")
	m = typeText(t, m, opened)
	m, _ = press(t, m, "enter", "s")
	want := "weights already in a file (s again saves a copy): " + opened
	if m.prompt.active() || m.msgKind != msgWarn || m.msg != want {
		t.Fatalf("s after opening %s: prompt %v, message %q, want %q", opened, m.prompt.active(), m.msg, want)
	}
	if _, cut := m.headerCut(); cut {
		t.Errorf("the warning is cut at 80×24:\n%s", strings.Join(m.header(), "\n"))
	}
	m, _ = press(t, m, "s", "enter")
	if _, err := os.Stat(filepath.Join(m.opts.SaveDir, "apic-spring-lnp-1.safetensors")); err != nil || m.msgKind != msgInfo {
		t.Errorf("s again: %v, message %q", err, m.msg)
	}

	m, _ = press(t, m, "o")
	m = typeText(t, m, "embedded:spring-cnp.safetensors")
	m, _ = press(t, m, "enter")
	if m.entry().src != srcFile {
		t.Fatalf("opening a shipped checkpoint: %q", m.msg)
	}
	m, _ = press(t, m, "s")
	if !m.prompt.active() {
		t.Errorf("s after opening a shipped checkpoint: no prompt, message %q", m.msg)
	}
}

// TestQuitWaitsForTheSave: q pressed while a save writes its file (s,
// enter, q at once) waits for the file, then quits; it ended the
// program with the file half written, no checkpoint and a temporary
// file left behind. q again quits at once.
func TestQuitWaitsForTheSave(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	path := filepath.Join(t.TempDir(), "kept.safetensors")
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, path)
	nm, saving := m.Update(keyMsg("enter")) // the save, not run yet
	m = nm.(Model)
	m, quit := press(t, m, "q")
	if quit || !strings.Contains(m.msg, "writing the checkpoint before quitting") {
		t.Fatalf("q during the save: quit %v, message %q", quit, m.msg)
	}
	if _, quit := press(t, m, "q"); !quit {
		t.Error("q again did not force the quit")
	}
	if m, quit = run(t, m, saving); !quit {
		t.Fatalf("the save ended without the quit it waited for: %q", m.msg)
	}
	if _, _, err := core.LoadCheckpoint(path); err != nil {
		t.Errorf("the file the quit waited for: %v", err)
	}
}

// A save that fails while a quit waits for it calls the quit off: the
// program would end with the error unread and the file not written.
func TestQuitWaitingForAFailedSaveIsCalledOff(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	path := filepath.Join(t.TempDir(), "missing", "kept.safetensors")
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, path)
	nm, saving := m.Update(keyMsg("enter"))
	m = nm.(Model)
	m, quit := press(t, m, "q")
	if quit || !strings.Contains(m.msg, "writing the checkpoint before quitting") {
		t.Fatalf("q during the save: quit %v, message %q", quit, m.msg)
	}
	m, quit = run(t, m, saving)
	if quit || !strings.Contains(m.msg, "quit called off") || !strings.Contains(m.msg, "save failed") {
		t.Fatalf("the failed save: quit %v, message %q; want the quit called off and the error", quit, m.msg)
	}
	if _, quit = press(t, m, "q"); !quit {
		t.Error("q after the quit was called off did not quit")
	}
}
