package tui

import (
	"strings"
	"testing"
	"time"
)

// TestStatusSaysWhatComputes: the status line said "● idle" while the
// baselines, a diagnosis or the ablation points computed (bcpi on
// advdiff for a minute); it names the work.
func TestStatusSaysWhatComputes(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	idle, _ := m.status()

	d, _ := pressNoRun(t, m, "d")
	if st, _ := d.status(); !strings.HasPrefix(st, "◐ computing diagnostics…") {
		t.Errorf("while d computes the status is %q", st)
	}
	d.stopAll()

	a, _ := pressNoRun(t, m, "A")
	n := len(a.abl.points)
	if st, _ := a.status(); !strings.HasPrefix(st, "◐ computing ablation 0/") || n == 0 {
		t.Errorf("while A computes its %d points the status is %q", n, st)
	}
	a.stopAll()

	c, _ := pressNoRun(t, m, "c")
	if line := c.header()[1]; !strings.HasPrefix(line, "◐ baselines: koh-gp running…") {
		t.Errorf("while the baselines fit the status line is %q", line)
	}
	c.stopAll()

	both, _ := pressNoRun(t, m, "c")
	both, _ = pressNoRun(t, both, "d")
	if line := both.header()[1]; !strings.HasPrefix(line, "◐ computing diagnostics… · baselines: koh-gp") {
		t.Errorf("while the baselines fit under d the status line is %q", line)
	}
	both.stopAll()

	// Done, it is the weights' state again.
	c = send(t, c, fakeBaseline(c, c.base.gen, 0, 1.1))
	c = send(t, c, fakeBaseline(c, c.base.gen, 1, 1.2))
	c = send(t, c, fakeBaseline(c, c.base.gen, 2, 1.3))
	if st, _ := c.status(); st != idle {
		t.Errorf("the fits done, the status is %q, want %q", st, idle)
	}
}

// TestElapsedTimeOfWorkInProgress: nothing reports how far a baseline
// fit or a diagnosis is, and bcpi on advdiff said "running…" for a
// minute: each says the time it has taken, moved on by a tick that
// runs while the work does.
func TestElapsedTimeOfWorkInProgress(t *testing.T) {
	progressEvery = time.Millisecond
	defer func() { progressEvery = 0 }()
	m := newTest(t, "spring", 120, 40)
	m, _ = pressNoRun(t, m, "c")
	defer m.stopAll()
	if !m.ticking {
		t.Fatal("c started no progress tick")
	}
	tick := progressTickMsg{at: m.base.started.Add(12*time.Second + 300*time.Millisecond)}
	nm, next := m.Update(tick)
	m = nm.(Model)
	if !m.ticking || next == nil {
		t.Error("the fits still run, and no next tick is on its way")
	}
	if line := m.header()[1]; !strings.Contains(line, "bcpi running… 12 s") {
		t.Errorf("12 s in, the status line is %q", line)
	}
	if frame := m.render(); !strings.Contains(frame, "bcpi   running… 12 s") {
		t.Errorf("12 s in, the sidebar's row lacks the time:\n%s", frame)
	}

	m, _ = pressNoRun(t, m, "d")
	m = send(t, m, progressTickMsg{at: m.diag.started.Add(65 * time.Second)})
	if st, _ := m.status(); !strings.HasPrefix(st, "◐ computing diagnostics… 1:05") {
		t.Errorf("65 s into a diagnosis the status is %q", st)
	}
	if frame := m.render(); !strings.Contains(frame, "computing over 32 realizations… 1:05") {
		t.Errorf("65 s in, the diagnostics view lacks the time:\n%s", frame)
	}

	m.stopAll()
	m, _ = pressNoRun(t, m, "d") // closed
	m, _ = pressNoRun(t, m, "c") // cleared
	nm, next = m.Update(progressTickMsg{at: time.Now()})
	if m = nm.(Model); m.ticking || next != nil {
		t.Error("with nothing left to compute the tick goes on")
	}
}
