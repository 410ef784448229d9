package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"apic/core"
	"apic/nets"
)

// TestTermDuringSaveFinishesIt: a SIGTERM (or a closed SSH session's
// SIGHUP) that comes while s writes the file ends the explorer only once
// the file is written, and says where it is: the session used to end at
// once, with the file half written (its temporary file left behind when
// apic exited), and, the save's answer never taken, saved the same
// weights a second time to a new file as unsaved.
func TestTermDuringSaveFinishesIt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	started, finished := make(chan struct{}), make(chan struct{})
	saveCheckpointFile = func(path string, m *core.Model, info core.Info, dtype nets.DType) error {
		defer close(finished)
		close(started)
		<-ctx.Done() // the signal comes while the file is written
		return core.SaveNewCheckpoint(path, m, info, dtype)
	}
	t.Cleanup(func() { saveCheckpointFile = core.SaveNewCheckpoint })
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: dir, RefineDelay: -1, Atlas: noAtlas, Averages: -1, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	putTrainedWeights(m)
	in, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- runProgram(m, in, io.Discard, tea.WithWindowSize(80, 24)) }()
	chosen := filepath.Join(dir, "mine.safetensors")
	go func() { _, _ = io.WriteString(inW, "s"+chosen+"\r") }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("s and enter did not start a save")
	}
	cancel()
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the explorer did not end on the signal")
	}
	<-finished // where the session did not wait for it, before looking
	if want := "interrupted"; runErr == nil || !errors.Is(runErr, context.Canceled) {
		t.Fatalf("the signal returned %v, want it %s", runErr, want)
	}
	if !strings.Contains(runErr.Error(), "the save in progress wrote "+chosen) || strings.Contains(runErr.Error(), "not saved are in") {
		t.Errorf("the signal's message: %q; want it to name %s, and no second copy", runErr, chosen)
	}
	for _, d := range []string{dir, tmp} {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if filepath.Join(d, e.Name()) != chosen {
				t.Errorf("left in %s: %s", d, e.Name())
			}
		}
	}
	if _, info, err := core.LoadCheckpoint(chosen); err != nil || info.Steps1 != 3 || info.Steps2 != 4 {
		t.Errorf("the saved file: %v, steps %d+%d, want 3+4", err, info.Steps1, info.Steps2)
	}
}

// holdSaves makes the saves (s) wait, once begun, until release is
// closed; started is closed when one begins, finished when it ends.
func holdSaves(t *testing.T) (started, release, finished chan struct{}) {
	started, release, finished = make(chan struct{}), make(chan struct{}), make(chan struct{})
	saveCheckpointFile = func(path string, m *core.Model, info core.Info, dtype nets.DType) error {
		defer close(finished)
		close(started)
		<-release
		return core.SaveNewCheckpoint(path, m, info, dtype)
	}
	t.Cleanup(func() { saveCheckpointFile = core.SaveNewCheckpoint })
	return started, release, finished
}

// closedScreen is the program's output, which closes release when the
// program leaves the alternate screen, as it ends.
type closedScreen struct {
	mu      sync.Mutex
	out     bytes.Buffer
	release chan struct{}
}

func (c *closedScreen) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Write(p)
	if c.release != nil && bytes.Contains(c.out.Bytes(), []byte("\x1b[?1049l")) {
		close(c.release)
		c.release = nil
	}
	return len(p), nil
}

func (c *closedScreen) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// TestForcedQuitDuringSaveFinishesIt: q waits for a save still writing
// its file; q again closes the explorer at once, and apic still finishes
// the file before it exits and says where it is. The program used to
// end with the file half written, and said nothing of it.
func TestForcedQuitDuringSaveFinishesIt(t *testing.T) {
	dir := t.TempDir()
	started, release, finished := holdSaves(t)
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: dir, RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	out := &closedScreen{release: release}
	err = saveThenQuitTwice(t, m, out, started)
	<-finished
	path := filepath.Join(dir, "apic-spring-lnp-1.safetensors")
	if want := "apic explore: the save in progress wrote " + path + "\n"; err != nil || !strings.HasSuffix(out.String(), want) {
		t.Errorf("forced quit: %v, output ending %q; want it to end %q", err, out.String()[max(0, len(out.String())-200):], want)
	}
	if _, _, err := core.LoadCheckpoint(path); err != nil {
		t.Errorf("the saved file: %v", err)
	}
}

// TestSaveJobsFinish: finish hands over the answers the model did not
// take, marking the weights of a file written as saved; a save whose
// command had not begun when the program ended writes nothing then,
// and its answer says so (its weights stay unsaved, for keepUnsaved).
func TestSaveJobsFinish(t *testing.T) {
	j := newSaveJobs()
	e := &entry{src: srcTrained}
	wrote := j.track("/runs/a.safetensors", e, func() tea.Msg { return savedMsg{path: "/runs/a.safetensors", entry: e} })
	if msg := wrote().(savedMsg); msg.job == 0 {
		t.Fatal("the answer carries no job number")
	}
	other := &entry{}
	taken := j.track("/runs/b.safetensors", other, func() tea.Msg { return savedMsg{path: "/runs/b.safetensors", entry: other} })
	if !j.writing(other) {
		t.Error("a save asked for is not writing its weights")
	}
	j.taken(taken().(savedMsg).job)
	if j.writing(other) {
		t.Error("a save whose answer was taken is still writing")
	}
	began := false
	late := j.track("/runs/c.safetensors", &entry{}, func() tea.Msg { began = true; return savedMsg{} })
	got := j.finish()
	if len(got) != 2 || got[0].path != "/runs/a.safetensors" || got[0].err != nil || !errors.Is(got[1].err, errSaveNotBegun) {
		t.Fatalf("finish: %+v", got)
	}
	if e.saved != "/runs/a.safetensors" {
		t.Errorf("the weights written are marked saved as %q", e.saved)
	}
	if msg := late(); msg != nil || began {
		t.Errorf("a save begun after finish ran (%v) and answered %v", began, msg)
	}
	want := "the save in progress wrote /runs/a.safetensors; the save to /runs/c.safetensors failed: the explorer ended before the file was begun"
	if s := unseenSavesText(got); s != want {
		t.Errorf("unseenSavesText: %q, want %q", s, want)
	}
}

// TestSaveSaysItIsWriting: from enter until the file is written, the
// status line says a save is under way, where it said nothing until
// the save had ended (seconds on a slow disk), then how it ended.
func TestSaveSaysItIsWriting(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "s")
	nm, cmd := m.Update(keyMsg("enter"))
	m = nm.(Model)
	if want := "saving apic-spring-lnp-1.safetensors…"; m.msg != want || !strings.Contains(m.render(), want) {
		t.Errorf("while the save writes: status %q, want %q", m.msg, want)
	}
	m, _ = run(t, m, cmd)
	if !strings.HasPrefix(m.msg, "saved apic-spring-lnp-1.safetensors in ") {
		t.Errorf("after the save: %q", m.msg)
	}
}

// TestQuitDuringSaveOfTrainedWeights: q while s writes the weights
// trained here waits for the file, and quits once it is written: it
// warned "unsaved: … s saves · q again quits" of the very weights being
// saved.
func TestQuitDuringSaveOfTrainedWeights(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	putTrainedWeights(m)
	m, _ = press(t, m, "s")
	nm, save := m.Update(keyMsg("enter"))
	m = nm.(Model)
	m = send(t, m, keyMsg("q"))
	if !m.quitting || strings.Contains(m.msg, "unsaved") {
		t.Fatalf("q during the save: quitting %v, status %q; want it to wait for the file", m.quitting, m.msg)
	}
	if _, quit := run(t, m, save); !quit {
		t.Error("the save ended and the explorer did not quit")
	}
}

// TestUndoDuringSaveOfTrainedWeights: u while s writes the weights
// trained here warned that they were "saved in no file", and offered s,
// of the very weights being saved. It says the save is under way and
// the file they go into; u again drops them, and the save still writes
// them there.
func TestUndoDuringSaveOfTrainedWeights(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	trained := putTrainedWeights(m)
	m, _ = press(t, m, "s", "ctrl+u")
	m = typeText(t, m, filepath.Join(m.opts.SaveDir, "run1"))
	nm, save := m.Update(keyMsg("enter"))
	m = nm.(Model)
	m = send(t, m, keyMsg("u"))
	file := filepath.Join(m.opts.SaveDir, "run1.safetensors")
	if m.entry() != trained || m.msgKind != msgWarn || strings.Contains(m.msg, "saved in no file") || strings.Contains(m.msg, "s saves") ||
		!strings.Contains(m.msg, "save in progress") || !strings.HasSuffix(m.msg, " "+file) {
		t.Fatalf("u during the save: weights dropped %v, status %q; want a warning naming the save in progress and %s", m.entry() != trained, m.msg, file)
	}
	m = send(t, m, keyMsg("u"))
	if m.entry() != trained.prev {
		t.Fatal("u again did not drop the weights")
	}
	m, _ = run(t, m, save)
	if trained.saved != file {
		t.Errorf("after u the save wrote %q, want %s", trained.saved, file)
	}
	// Without a save under way, the warning is the old one.
	m.entries[m.key()] = &entry{model: trained.model, src: srcTrained, prev: trained.prev}
	if m = send(t, m, keyMsg("u")); !strings.Contains(m.msg, "saved in no file") {
		t.Errorf("u over unsaved weights: %q", m.msg)
	}
}

// TestHeaderWhileSavingTrainedWeights: while s writes the weights
// trained here, the header said "trained here (unsaved)", as if no file
// would hold them; it names the file being written, and "saved" once
// the file is there.
func TestHeaderWhileSavingTrainedWeights(t *testing.T) {
	m := newTest(t, "spring", 120, 30)
	putTrainedWeights(m)
	m, _ = press(t, m, "s")
	nm, save := m.Update(keyMsg("enter"))
	m = nm.(Model)
	header := strings.SplitN(m.render(), "\n", 2)[0]
	if !strings.Contains(header, "trained here, saving ") || !strings.Contains(header, "apic-spring-lnp-1.safetensors…") || strings.Contains(header, "unsaved") {
		t.Errorf("header while the save writes: %q", header)
	}
	m, _ = run(t, m, save)
	header = strings.SplitN(m.render(), "\n", 2)[0]
	if !strings.Contains(header, "trained here, saved ") || strings.Contains(header, "saving") {
		t.Errorf("header after the save: %q", header)
	}
}

// TestForcedQuitKeepsWeightsAFailedSaveLost: q, q while s writes the
// weights trained here closes the explorer before the save ends; a save
// that then failed was reported and the weights were lost, though a
// signal keeps them. They are kept as a signal keeps them, and the
// error says where.
func TestForcedQuitKeepsWeightsAFailedSaveLost(t *testing.T) {
	dir := t.TempDir()
	started, release := make(chan struct{}), make(chan struct{})
	saveCheckpointFile = func(path string, m *core.Model, info core.Info, dtype nets.DType) error {
		close(started)
		<-release
		return errors.New("disk full")
	}
	t.Cleanup(func() { saveCheckpointFile = core.SaveNewCheckpoint })
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: dir, RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	putTrainedWeights(m)
	err = saveThenQuitTwice(t, m, &closedScreen{release: release}, started)
	kept := filepath.Join(dir, "apic-spring-lnp-1.safetensors")
	if err == nil || !strings.Contains(err.Error(), "failed: ") || !strings.Contains(err.Error(), "not saved are in "+kept) {
		t.Errorf("forced quit over a failed save: %v; want the failure and the kept file %s", err, kept)
	}
	if _, _, err := core.LoadCheckpoint(kept); err != nil {
		t.Errorf("the kept weights: %v", err)
	}
}

// saveThenQuitTwice runs m on the terminal out, presses s and enter,
// waits for the save to start (started closes), presses q twice and
// returns what runProgram returned.
func saveThenQuitTwice(t *testing.T, m Model, out io.Writer, started <-chan struct{}) error {
	t.Helper()
	in, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- runProgram(m, in, out, tea.WithWindowSize(80, 24)) }()
	go func() { _, _ = io.WriteString(inW, "s\r") }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("s and enter did not start a save")
	}
	go func() { _, _ = io.WriteString(inW, "qq") }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("q, q did not end the explorer")
	}
	return nil
}

// putTrainedWeights puts in m's current system and backbone weights as
// if trained in the session and not saved (the shown model's, 3+4
// steps) and returns their entry.
func putTrainedWeights(m Model) *entry {
	base := m.entry()
	trained := &entry{model: base.model, src: srcTrained, info: core.Info{Steps1: 3, Steps2: 4}, prev: base}
	m.entries[m.key()] = trained
	return trained
}
