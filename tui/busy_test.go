package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"apic/core"
)

// TestStatusSaysWhatComputes: the status line said "● idle" while the
// baselines, a diagnosis or the ablation points computed (bcpi on
// advdiff for a minute); it names the work.
func TestStatusSaysWhatComputes(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	idle, _ := m.status()

	d, _ := pressNoRun(t, m, "d")
	if st, _ := d.status(); !strings.HasPrefix(st, "◐ computing diagnostics 0/32 realizations…") {
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
	if line := both.header()[1]; !strings.HasPrefix(line, "◐ computing diagnostics 0/32… · baselines: koh-gp …") {
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
	if st, _ := m.status(); !strings.HasPrefix(st, "◐ computing diagnostics 0/32… 1:05") {
		t.Errorf("65 s into a diagnosis the status is %q", st)
	}
	if frame := m.render(); !strings.Contains(frame, "computing 0/32 realizations… 1:05") {
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

// TestDiagnosisSaysHowFar: the status line said only the time a
// diagnosis had taken; core reports the realizations done, and the
// status line and the view say how many. A count of a diagnosis the
// settings superseded, or of one whose result has come, is dropped,
// and nothing waits for its next.
func TestDiagnosisSaysHowFar(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	m, _ = pressNoRun(t, m, "d")
	defer func() { m.stopAll() }()
	if st, _ := m.status(); st != "◐ computing diagnostics 0/32 realizations…" {
		t.Errorf("as d starts the status is %q", st)
	}
	first := m.diag.work
	nm, next := m.Update(workProgressMsg{work: first, count: realizationCount{done: 25, total: 32}})
	m = nm.(Model)
	if st, _ := m.status(); st != "◐ computing diagnostics 25/32 realizations…" || next == nil {
		t.Errorf("at 25 realizations the status is %q, next wait %v", st, next != nil)
	}
	if frame := m.render(); !strings.Contains(frame, "computing 25/32 realizations…") {
		t.Errorf("the view lacks the count:\n%s", frame)
	}

	// The settings move: a new diagnosis starts, the old one's counts
	// are dropped.
	m = focusOn(t, m, ctlContext)
	m, _ = pressNoRun(t, m, "right")
	if m.diag.work == first {
		t.Fatal("moving the context started no new diagnosis")
	}
	nm, next = m.Update(workProgressMsg{work: first, count: realizationCount{done: 32, total: 32}})
	m = nm.(Model)
	if st, _ := m.status(); st != "◐ computing diagnostics 0/32 realizations…" || next != nil {
		t.Errorf("a superseded diagnosis's count made the status %q, next wait %v", st, next != nil)
	}

	// Its result come, a late count of the diagnosis is dropped.
	current := m.diag.work
	m = send(t, m, diagMsg{gen: m.diag.gen, err: context.Canceled})
	nm, next = m.Update(workProgressMsg{work: current, count: realizationCount{done: 25, total: 32}})
	if m = nm.(Model); next != nil || m.diag.progress.done == 25 {
		t.Errorf("a count after the result was taken: %+v, next wait %v", m.diag.progress, next != nil)
	}
}

// TestAveragesSayHowFar: with explore --tasks 2000 the sidebar's
// averages took half a minute of "…" cells under "● idle". Once they
// have taken a second the status line counts their realizations; before
// that it leaves them out, so that each step of a slider does not flash
// a status for a fraction of a second; their result ends it.
func TestAveragesSayHowFar(t *testing.T) {
	m := newAvgTest(t, "spring", 120, 40)
	m = focusOn(t, m, ctlContext)
	nm, cmd := m.Update(keyMsg("left"))
	m = nm.(Model)
	work := m.avg.work
	if work == nil || m.avg.res != nil {
		t.Fatalf("moving the context started no evaluation: work %v, result %v", work != nil, m.avg.res != nil)
	}
	if !m.busy() {
		t.Error("busy() is false while the averages compute: no tick would move their time on")
	}
	m.now = m.avg.started.Add(500 * time.Millisecond)
	if st, _ := m.status(); strings.Contains(st, "averages") {
		t.Errorf("half a second in the status is %q", st)
	}
	m.now = m.avg.started.Add(3 * time.Second)
	nm, next := m.Update(workProgressMsg{work: work, count: realizationCount{done: 12, total: avgTasks}})
	m = nm.(Model)
	if st, _ := m.status(); st != "◐ computing averages 12/32 realizations… 3 s" || next == nil {
		t.Errorf("3 s in, at 12 realizations, the status is %q, next wait %v", st, next != nil)
	}
	m, _ = run(t, m, cmd)
	if m.avg.res == nil || m.avg.work != nil {
		t.Fatalf("the evaluation did not end: result %v, work %v", m.avg.res != nil, m.avg.work != nil)
	}
	if st, _ := m.status(); strings.Contains(st, "averages") {
		t.Errorf("with the averages shown the status is %q", st)
	}
}

// TestAblationSaysHowFar: the ablation's status counts the points
// done and the realizations of the whole curve, the point computing
// included; each point's counts are its own, dropped once it is done.
// Beside a note it counts without the words, which the note needs.
func TestAblationSaysHowFar(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	m = focusOn(t, m, ctlContext)
	m, _ = pressNoRun(t, m, "A")
	defer func() { m.stopAll() }()
	n := len(m.abl.points)
	want := func(done, real int) string {
		return fmt.Sprintf("◐ computing ablation %d/%d points, %d/%d realizations…", done, n, real, 32*n)
	}
	if st, _ := m.status(); st != want(0, 0) {
		t.Errorf("as A starts the status is %q, want %q", st, want(0, 0))
	}
	first := m.abl.work
	m = send(t, m, workProgressMsg{work: first, count: realizationCount{done: 25, total: 32}})
	if st, _ := m.status(); st != want(0, 25) {
		t.Errorf("25 realizations into the first point the status is %q, want %q", st, want(0, 25))
	}
	m = send(t, m, ablMsg{gen: m.abl.gen, i: 0, res: core.Intervals{}})
	if m.abl.work == first {
		t.Fatal("the next point reports through the first's")
	}
	m = send(t, m, workProgressMsg{work: first, count: realizationCount{done: 32, total: 32}})
	if st, _ := m.status(); st != want(1, 32) {
		t.Errorf("a done point's late count made the status %q, want %q", st, want(1, 32))
	}
	m = send(t, m, workProgressMsg{work: m.abl.work, count: realizationCount{done: 25, total: 32}})
	if st, _ := m.status(); st != want(1, 57) {
		t.Errorf("25 realizations into the second point the status is %q, want %q", st, want(1, 57))
	}

	m.setMsg(msgInfo, "%s", strings.Repeat("a note ", 10))
	if st, _ := m.status(); st != fmt.Sprintf("◐ computing ablation 1/%d, 57/%d…", n, 32*n) {
		t.Errorf("beside a note the status is %q", st)
	}

	// At 80 columns A's note on a control it cannot sweep keeps its
	// words: the status gives up the realizations.
	s := newTest(t, "spring", 80, 24)
	s = focusOn(t, s, ctlMode)
	s, _ = pressNoRun(t, s, "A")
	defer func() { s.stopAll() }()
	const note = "A shows context: train mode cannot be swept"
	if line := s.header()[1]; !strings.HasPrefix(line, fmt.Sprintf("◐ computing ablation 0/%d…", n)) || !strings.Contains(line, note) {
		t.Errorf("at 80 columns the status line is %q, want the points and %q", line, note)
	}
}

// TestProgressReachesTheUI: the diagnosis and an ablation point report
// through core's callbacks (the count stored is the last batch's, all
// of the realizations), and the wait for a count returns nothing once
// the computation has returned: its result says the rest.
func TestProgressReachesTheUI(t *testing.T) {
	m := newTest(t, "spring", 120, 40)
	d, cmd := m.Update(keyMsg("d"))
	work := d.(Model).diag.work
	if msgs := diagMsgs(cmd); len(msgs) != 1 || msgs[0].err != nil {
		t.Fatalf("the diagnosis gave %+v", msgs)
	}
	if v := work.latest.Load(); v != 32<<32|32 {
		t.Errorf("the diagnosis reported %d/%d, want 32/32", v>>32, uint32(v))
	}
	if msg := work.next()(); msg != nil {
		t.Errorf("after the diagnosis returned the wait gave %#v", msg)
	}

	m = focusOn(t, m, ctlContext)
	a, cmd := m.Update(keyMsg("A"))
	work = a.(Model).abl.work
	if msgs := ablMsgs(cmd); len(msgs) != 1 || msgs[0].err != nil {
		t.Fatalf("the first point gave %+v", msgs)
	}
	if v := work.latest.Load(); v != 32<<32|32 {
		t.Errorf("the first point reported %d/%d, want 32/32", v>>32, uint32(v))
	}

	// A count not yet taken gives way to the newer one.
	w := newWorkProgress()
	w.report(3, 32)
	w.report(5, 32)
	if msg, ok := w.next()().(workProgressMsg); !ok || msg.work != w || msg.count != (realizationCount{5, 32}) {
		t.Errorf("after 3/32 then 5/32 the wait gave %#v", msg)
	}
}
