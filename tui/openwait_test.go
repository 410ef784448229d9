package tui

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysWaitForOpen: while an open still reads its file, t, s and u,
// which act on the weights the open is about to replace, do nothing but
// say so; t used to start a run that the open then stopped. Once the
// open ends they act again.
func TestKeysWaitForOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	m := newTest(t, "spring", 80, 24)
	start := m.entry()
	m, _ = pressNoRun(t, m, "o")
	m = typeText(t, m, path)
	m, _ = pressNoRun(t, m, "enter") // the open's command is left pending
	want := "still opening " + path + ": wait for it, or esc gives it up"
	for _, k := range []string{"t", "s", "u"} {
		var acted bool
		m, acted = pressNoRun(t, m, k)
		if acted || m.run != nil || len(m.runs) > 0 || m.prompt.active() || m.msg != want {
			t.Errorf("%s while opening: status %q (command %v, run %v, prompt %v), want %q", k, m.msg, acted, m.run != nil, m.prompt.active(), want)
		}
		m.prompt = prompt{}
	}
	m = send(t, m, openedMsg{path: path, gen: m.openGen, model: start.model, info: start.info})
	if m.opening != "" {
		t.Fatalf("the open did not end: status %q", m.msg)
	}
	m, _ = pressNoRun(t, m, "t")
	defer m.stopAll()
	if m.run == nil {
		t.Errorf("t once the open ended: no run, status %q", m.msg)
	}
}

// TestOpenedUnfinishedSaysSo: a file a stopped run wrote (apic train's
// partial file, or the explorer's save of a stopped run) has no spread
// fitted to its weights; the message that it opened says so, as eval
// and calibrate warn, and a finished file's does not.
func TestOpenedUnfinishedSaysSo(t *testing.T) {
	for _, unfinished := range []bool{false, true} {
		m := newTest(t, "spring", 80, 24)
		start := m.entry()
		info := start.info
		info.Unfinished = unfinished
		m = send(t, m, openedMsg{path: "run.partial.safetensors", gen: m.openGen, model: start.model, info: info})
		if got := strings.Contains(m.msg, "unfinished, bands not recalibrated"); got != unfinished {
			t.Errorf("unfinished %v: message %q", unfinished, m.msg)
		}
	}
}
