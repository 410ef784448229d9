package tui

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// settle waits until the number of goroutines is back at base (the
// runtime may take a moment to retire finished ones).
func settle(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines left, want at most %d:\n%s", n, base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nextEvent runs the run's reader command once: it blocks until the next
// progress report, snapshot or the end of the run.
func nextEvent(t *testing.T, m Model, cmd tea.Cmd) (Model, []tea.Cmd) {
	t.Helper()
	var pending []tea.Cmd
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			pending = append(pending, c)
		}
		return m, pending
	}
	nm, next := m.Update(msg)
	return nm.(Model), []tea.Cmd{next}
}

// startRun presses t and feeds events until the first progress report.
func startRun(t *testing.T, m Model) (Model, []tea.Cmd) {
	t.Helper()
	nm, cmd := m.Update(keyMsg("t"))
	m = nm.(Model)
	if m.run == nil {
		t.Fatalf("t did not start a run: %q", m.msg)
	}
	if st, _ := m.status(); !strings.Contains(st, "training") {
		t.Fatalf("status %q while training", st)
	}
	m, cmds := pump(t, m, []tea.Cmd{cmd}, func(m Model) bool { return m.prog != nil })
	if m.prog == nil {
		t.Fatal("run ended before reporting progress")
	}
	return m, cmds
}

// pump runs the queued commands one event at a time, with the commands
// each event returns, until done holds or nothing is left.
func pump(t *testing.T, m Model, cmds []tea.Cmd, done func(Model) bool) (Model, []tea.Cmd) {
	t.Helper()
	for !done(m) && len(cmds) > 0 {
		c := cmds[0]
		cmds = cmds[1:]
		if c == nil {
			continue
		}
		var more []tea.Cmd
		m, more = nextEvent(t, m, c)
		cmds = append(cmds, more...)
	}
	return m, cmds
}

func TestTrainCancelLeavesNoGoroutine(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	before := m.entry()

	m, cmds := startRun(t, m)
	if !strings.Contains(m.render(), "stage") {
		t.Error("the training status is not shown")
	}
	// Keys and redraws keep working while the run trains.
	m, _ = press(t, m, "down")
	_ = m.render()

	m, _ = press(t, m, "esc")
	if !m.run.stopping {
		t.Fatal("esc did not stop the run")
	}
	m, quit := run(t, m, tea.Batch(cmds...))
	if quit {
		t.Fatal("cancelling quit the program")
	}
	if m.run != nil || len(m.runs) != 0 {
		t.Fatal("the run is still listed after it ended")
	}
	if !strings.Contains(m.msg, "stopped") {
		t.Errorf("message after cancel: %q", m.msg)
	}
	// The partial weights are kept; u brings back the old ones.
	if m.entry() == before || m.entry().src != srcTrained || m.entry().prev != before {
		t.Fatalf("after cancel: entry %v (source %v)", m.entry() == before, m.entry().src)
	}
	if m.entry().model.Config.Train.LambdaDelta != m.lamDelta.value() {
		t.Error("the trained model does not record the run's λδ")
	}
	m, _ = press(t, m, "u", "u") // the first asks: the weights are in no file
	if m.entry() != before {
		t.Error("u did not undo the run")
	}
	if m.prog != nil || len(m.losses) != 0 || !strings.Contains(m.render(), "t train (") {
		t.Error("after u the training box still shows the undone run")
	}
	settle(t, base)
}

func TestQuitWhileTrainingWaitsForTheRun(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	// The first q warns that the run's weights would be lost.
	nm, cmd := m.Update(keyMsg("q"))
	m = nm.(Model)
	if cmd != nil || m.quitting || !strings.Contains(m.msg, "unsaved: spring/lnp") {
		t.Fatalf("first q: quitting %v, message %q; want a warning naming the run", m.quitting, m.msg)
	}
	nm, cmd = m.Update(keyMsg("q"))
	m = nm.(Model)
	if cmd != nil {
		t.Fatal("q quit before the run had stopped")
	}
	if !m.quitting || !m.run.stopping {
		t.Fatal("q did not stop the run")
	}
	// A second press would force it; here the reader delivers the end.
	_, quit := run(t, m, tea.Batch(cmds...))
	if !quit {
		t.Fatal("the program did not quit once the run ended")
	}
	settle(t, base)
}

// TestQuitWarnsOfUnsavedWeights: weights trained here and not saved make
// q warn first; a second q quits; any other key in between takes the
// warning back, off the status line too; saved weights quit at once.
func TestQuitWarnsOfUnsavedWeights(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	quits := func(m Model) (Model, bool) {
		nm, cmd := m.Update(keyMsg("q"))
		return nm.(Model), cmd != nil
	}
	m, cmds := startRun(t, m)
	m, quit := quits(m) // warns of the run
	if quit {
		t.Fatal("q during a run quit without a warning")
	}
	m, _ = run(t, m, tea.Batch(cmds...))
	if m.entry().src != srcTrained || m.entry().saved != "" {
		t.Fatal("the run left no unsaved trained weights")
	}
	// The run ended after the warning: what would be lost changed, so
	// the next q warns again.
	m, quit = quits(m)
	if quit || !strings.Contains(m.msg, "unsaved: spring/lnp") {
		t.Fatalf("first q: quit %v, message %q", quit, m.msg)
	}
	m, _ = press(t, m, "j")
	// The status line no longer offers what the next q no longer does.
	if frame := m.render(); strings.Contains(frame, "again quits") {
		t.Errorf("after another key the status line still says q quits:\n%s", frame)
	}
	if m, quit = quits(m); quit {
		t.Fatal("q after another key quit without the warning")
	}
	if _, quit = quits(m); !quit {
		t.Fatal("the second q in a row did not quit")
	}
	// Weights an opened file replaced still count.
	m, _ = press(t, m, "j")
	trained := m.entry()
	m.entries[m.key()] = &entry{model: trained.model, src: srcFile, path: "x.safetensors", prev: trained}
	if m, quit = quits(m); quit {
		t.Fatal("q quit without a warning with unsaved weights behind an opened file")
	}
	if want := "unsaved: spring/lnp under a file (u) · show it, then s saves · q again quits"; m.msg != want {
		t.Errorf("warning %q, want %q", m.msg, want)
	}
	// On another system s would save that system's model: the warning
	// says to show the unsaved one first.
	m.entries[m.key()] = trained
	m, _ = press(t, m, "j", "tab")
	if m, quit = quits(m); quit || !strings.Contains(m.msg, "unsaved: spring/lnp · show it, then s saves") {
		t.Errorf("on lv: quit %v, warning %q", quit, m.msg)
	}
	m, _ = press(t, m, "shift+tab")
	m, _ = press(t, m, "j")
	trained.saved = "somewhere.safetensors"
	if _, quit = quits(m); !quit {
		t.Fatal("q with every trained model saved did not quit at once")
	}
	settle(t, base)
}

func TestSwitchingSystemAbandonsRun(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	springLNP := m.entry()
	m, cmds := startRun(t, m)
	m, _ = press(t, m, "tab") // asks first (TestSwitchAsksWhileBusy)
	if m.run == nil || m.run.stopping || m.sys().Name() != "spring" {
		t.Fatal("the first tab during a run switched without asking")
	}
	m, _ = press(t, m, "tab")
	if m.run != nil || m.sys().Name() != "lv" {
		t.Fatal("switching system kept following the run")
	}
	if !strings.Contains(m.msg, "training of spring/lnp stopped") || m.msgKind != msgWarn {
		t.Errorf("the switch does not say that it stopped the run: %q", m.msg)
	}
	m, _ = run(t, m, tea.Batch(cmds...))
	if len(m.runs) != 0 {
		t.Fatal("abandoned run not reaped")
	}
	// Its weights went to its own entry, not to the one on screen.
	e := m.entries[entryKey{"spring", "lnp"}]
	if e == springLNP || e.src != srcTrained {
		t.Error("the abandoned run's weights were lost")
	}
	if m.entry().src != srcUntrained {
		t.Error("the abandoned run touched another system's model")
	}
	settle(t, base)
}

// TestSwitchAsksWhileBusy: a key that shows another system or backbone
// while a run trains stopped the run at once, where q asks before it
// stops one. Each such key (tab, shift+tab, b, ←/→ on the system and
// backbone rows) now warns first, naming what would stop, and goes ahead
// when pressed again; any other key takes the warning off, and the next
// switch asks again. Running baselines, which are of the system on
// screen, ask for another system, not for another backbone.
func TestSwitchAsksWhileBusy(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	run0 := m.run
	for _, tc := range []struct {
		keys []string // pressed after focusing row (-1: none)
		row  control
		want string
	}{
		{[]string{"tab"}, -1, "tab again stops training spring/lnp and shows lv/lnp"},
		{[]string{"shift+tab"}, -1, "shift+tab again stops training spring/lnp and shows advdiff/lnp"},
		{[]string{"b"}, -1, "b again stops training spring/lnp and shows spring/anp"},
		{[]string{"right"}, ctlSystem, "→ again stops training spring/lnp and shows lv/lnp"},
		{[]string{"left"}, ctlBackbone, "← again stops training spring/lnp and shows spring/cnp"},
		{[]string{"tab", "b"}, -1, "b again stops training spring/lnp and shows spring/anp"},
	} {
		if tc.row >= 0 {
			m = focusOn(t, m, tc.row)
		}
		m, _ = press(t, m, tc.keys...)
		if m.run != run0 || run0.stopping || m.key() != (entryKey{"spring", "lnp"}) {
			t.Fatalf("%v: switched to %v without asking (run stopping %v)", tc.keys, m.key(), run0.stopping)
		}
		if m.msg != tc.want || m.msgKind != msgWarn {
			t.Errorf("%v: message %q, want the warning %q", tc.keys, m.msg, tc.want)
		}
		if !strings.Contains(m.render(), tc.want) {
			t.Errorf("%v: the frame does not show the warning:\n%s", tc.keys, m.render())
		}
		m, _ = press(t, m, "up")
		if m.msg != "" {
			t.Errorf("%v: another key left the warning %q", tc.keys, m.msg)
		}
	}
	// Pressed again, the key goes ahead and stops the run.
	m, _ = press(t, m, "b", "b")
	if m.key() != (entryKey{"spring", "anp"}) || m.run != nil || !run0.stopping {
		t.Fatalf("b b: showing %v, run stopping %v", m.key(), run0.stopping)
	}
	m, _ = run(t, m, tea.Batch(cmds...))
	// Nothing running: no question.
	if m, _ = press(t, m, "b"); m.key() != (entryKey{"spring", "cnp"}) {
		t.Errorf("b with nothing running: showing %v", m.key())
	}
	settle(t, base)

	// Baselines fitting: another system asks, another backbone not.
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	if m, _ = pressNoRun(t, m, "b"); m.key() != (entryKey{"spring", "lnp"}) || !m.base.active {
		t.Errorf("b with baselines fitting: showing %v, baselines active %v", m.key(), m.base.active)
	}
	m, _ = pressNoRun(t, m, "tab")
	if want := "tab again stops the baselines and shows lv/lnp"; m.sys().Name() != "spring" || m.msg != want || m.base.ctx.Err() != nil {
		t.Errorf("tab with baselines fitting: on %s, message %q (want %q)", m.sys().Name(), m.msg, want)
	}
	if m, _ = pressNoRun(t, m, "tab"); m.sys().Name() != "lv" || m.base.active {
		t.Errorf("tab tab with baselines fitting: on %s, baselines active %v", m.sys().Name(), m.base.active)
	}
}

// TestOpenAsksWhileBaselinesFit: o with the baselines fitting asks
// first (a file of another system stops them), and goes on the second
// time; the warning goes when the last fit ends.
func TestOpenAsksWhileBaselinesFit(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	shown := m
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	m, _ = pressNoRun(t, m, "o")
	if want := "o again opens a checkpoint, which stops the baselines if it is another system's"; m.prompt.active() || m.msg != want {
		t.Fatalf("o with baselines fitting: prompt %v, message %q; want no prompt and %q", m.prompt.active(), m.msg, want)
	}
	for i := range m.base.runs {
		m = send(t, m, fakeBaseline(shown, m.base.gen, i, 1.1))
	}
	if m.msg != "" {
		t.Errorf("every fit done: the warning %q stays", m.msg)
	}
	if m, _ = pressNoRun(t, m, "o"); !m.prompt.active() {
		t.Error("o with nothing to stop did not open the prompt")
	}
}

// TestSwitchWarningFollowsTheWork: the baselines' last fit ending under
// a switch's warning takes the warning off (nothing is left to stop),
// and while a run still trains the warning names only the run.
func TestSwitchWarningFollowsTheWork(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	shown := m // a prediction to make the fits' results of
	finish := func(m Model) Model {
		t.Helper()
		for i := range m.base.runs {
			m = send(t, m, fakeBaseline(shown, m.base.gen, i, 1.1))
		}
		return m
	}
	m, _ = pressNoRun(t, m, "c")
	m, _ = pressNoRun(t, m, "tab")
	if want := "tab again stops the baselines and shows lv/lnp"; m.msg != want {
		t.Fatalf("tab with baselines fitting: message %q, want %q", m.msg, want)
	}
	m = finish(m)
	if m.msg != "" || strings.Contains(m.render(), "again stops") {
		t.Errorf("every fit done: the warning %q stays", m.msg)
	}
	if m, _ = pressNoRun(t, m, "tab"); m.sys().Name() != "lv" {
		t.Errorf("tab with nothing to stop: on %s", m.sys().Name())
	}

	m, _ = press(t, m, "shift+tab")
	m, _ = pressNoRun(t, m, "c")
	m, cmds := startRun(t, m)
	m, _ = pressNoRun(t, m, "tab")
	if want := "tab again stops training spring/lnp and the baselines and shows lv/lnp"; m.msg != want {
		t.Fatalf("tab with a run and the baselines: message %q, want %q", m.msg, want)
	}
	m = finish(m)
	if want := "tab again stops training spring/lnp and shows lv/lnp"; m.msg != want || m.msgKind != msgWarn {
		t.Errorf("fits done, run going on: message %q, want %q", m.msg, want)
	}
	m, _ = pressNoRun(t, m, "tab")
	if m.sys().Name() != "lv" || m.run != nil {
		t.Errorf("tab again: on %s, run %v", m.sys().Name(), m.run)
	}
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}

// TestSwitchWarningGoesAsAKeyNote: a switch's warning is its key's note
// and the arm goes with it. The help (?), which leaves a note, leaves
// the warning armed, so the key then goes ahead as the line still says;
// a message from elsewhere that replaces the warning disarms it, so the
// key asks again rather than stop work with no warning shown.
func TestSwitchWarningGoesAsAKeyNote(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	run0 := m.run
	const want = "tab again stops training spring/lnp and shows lv/lnp"
	m, _ = pressNoRun(t, m, "tab")
	m, _ = pressNoRun(t, m, "?")
	if m.msg != want || !m.keyNote {
		t.Fatalf("? took the warning off: %q", m.msg)
	}
	m, _ = pressNoRun(t, m, "?")
	m = send(t, m, inferMsg{gen: m.gen, err: errors.New("no result")})
	if m, _ = pressNoRun(t, m, "tab"); m.sys().Name() != "spring" || m.msg != want {
		t.Fatalf("tab after the warning was replaced: on %s, message %q; want the warning again", m.sys().Name(), m.msg)
	}
	m, _ = pressNoRun(t, m, "?")
	if m, _ = pressNoRun(t, m, "tab"); m.sys().Name() != "lv" || !run0.stopping {
		t.Errorf("tab, ?, tab: on %s, run stopping %v; want lv and the run stopped", m.sys().Name(), run0.stopping)
	}
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}

func TestStopAllWaits(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, _ = startRun(t, m)
	// The program ends without delivering the run's end (as after a
	// kill); Run's clean-up must still stop it.
	m.stopAll()
	select {
	case <-m.runs[0].done:
	default:
		t.Fatal("stopAll returned before the goroutine ended")
	}
	// The reader goroutines of Bubble Tea are not running here; only the
	// training goroutine had to end.
	settle(t, base)
}

func TestTrainConfig(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	sys := m.sys()
	base := m.entry().model.Config
	ft := trainConfig(sys, base, modeFineTune, 3, 0.1, core.RegL1, 1)
	if ft.Train.Steps1 != 0 || ft.Train.Steps2 == 0 || ft.Train.ValEvery != 0 {
		t.Errorf("fine-tune budget %+v", ft.Train)
	}
	if ft.Train.LambdaTheta != 3 || ft.Train.LambdaDelta != 0.1 || ft.Train.Reg != core.RegL1 {
		t.Errorf("fine-tune objective %+v", ft.Train)
	}
	if ft.Arch != base.Arch {
		t.Error("training changed the architecture")
	}
	sc := trainConfig(sys, base, modeScratch, 1, 1, core.RegL2, 2)
	if sc.Train.Steps1 == 0 || sc.Train.Seed == ft.Train.Seed {
		t.Errorf("scratch budget %+v", sc.Train)
	}
	full := trainConfig(sys, base, modeFull, 1, 1, core.RegL2, 3)
	if def := core.DefaultConfig(sys, core.LNP).Train; full.Train.Steps2 != def.Steps2 {
		t.Errorf("full budget %d steps, want %d", full.Train.Steps2, def.Steps2)
	}
	for _, c := range []core.Config{ft, sc, full} {
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// TestOpenDuringRunKeepsItsWeights: opening a file for the model being
// trained stops the run, and its weights land one u behind the file.
func TestOpenDuringRunKeepsItsWeights(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	start := m.entry()
	m, cmds := startRun(t, m)
	m = send(t, m, openedMsg{path: "other.safetensors", model: start.model, info: start.info})
	if !strings.Contains(m.msg, "one u behind the file") {
		t.Errorf("open during a run: message %q", m.msg)
	}
	m, _ = run(t, m, tea.Batch(cmds...))
	file := m.entry()
	if file.src != srcFile || file.prev == nil || file.prev.src != srcTrained || file.prev.prev != start {
		t.Fatalf("entry chain after the run: file %v, behind it %+v", file.src, file.prev)
	}
	if u, _ := m.unsaved(); len(u) != 1 || u[0] != "spring/lnp" {
		t.Errorf("unsaved %v, want the run's weights behind the file", u)
	}
	m, _ = press(t, m, "u")
	if m.entry() != file.prev {
		t.Error("u did not go back to the run's weights")
	}
	settle(t, base)
}

// TestOpenAsksWhileTraining: opening a file during a run stopped the
// run without asking, where a switch of system or backbone asks first.
// o now warns as a switch does, naming the run, and opens the prompt
// when pressed again; any other key takes the warning off. The run
// goes on until a file opens: esc at the prompt leaves it training.
func TestOpenAsksWhileTraining(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	path := filepath.Join(t.TempDir(), "start.safetensors")
	if err := core.SaveCheckpoint(path, m.entry().model, m.entry().info, nets.F64); err != nil {
		t.Fatal(err)
	}
	m, cmds := startRun(t, m)
	run0 := m.run
	const want = "o again opens a checkpoint, which stops training spring/lnp"
	m, _ = press(t, m, "o")
	if m.prompt.active() || m.msg != want || m.msgKind != msgWarn {
		t.Fatalf("o during a run: prompt %v, message %q; want no prompt and the warning %q", m.prompt.active(), m.msg, want)
	}
	frame := m.render()
	frameOK(t, frame, 80, 24)
	if lines := strings.Split(frame, "\n"); !strings.Contains(strings.Join(strings.Fields(lines[1]+" "+lines[2]), " "), want) {
		t.Errorf("the frame does not show the warning whole:\n%s", frame)
	}
	if m, _ = press(t, m, "up"); m.msg != "" {
		t.Errorf("another key left the warning %q", m.msg)
	}
	// Esc answers the warning: the open is called off, the run goes on;
	// esc again would stop it.
	if m, _ = press(t, m, "o", "esc"); m.run != run0 || run0.stopping || m.msg != "o called off: training spring/lnp goes on" {
		t.Fatalf("o esc: run stopping %v, message %q; want the run going on and the open called off", run0.stopping, m.msg)
	}
	m, _ = press(t, m, "o", "o")
	if !m.prompt.active() || m.run != run0 || run0.stopping {
		t.Fatalf("o o: prompt %v, run stopping %v; want the prompt and the run going on", m.prompt.active(), run0.stopping)
	}
	if m, _ = press(t, m, "esc"); m.run != run0 || run0.stopping {
		t.Fatal("esc at the prompt stopped the run")
	}
	m, _ = press(t, m, "o", "o")
	m = typeText(t, m, path)
	m, _ = press(t, m, "enter")
	if m.run != nil || !run0.stopping || m.entry().src != srcFile || !strings.Contains(m.msg, "training of spring/lnp stopped") {
		t.Errorf("the file opened: run stopping %v, source %v, message %q", run0.stopping, m.entry().src, m.msg)
	}
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}

// TestQuitAfterSavingTheLastRun: saving the weights on screen is enough;
// the earlier run they grew from does not keep q warning.
func TestQuitAfterSavingTheLastRun(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	for range 2 {
		var cmds []tea.Cmd
		m, cmds = startRun(t, m)
		m, _ = run(t, m, tea.Batch(cmds...))
	}
	m.entry().saved = "kept.safetensors"
	if u, _ := m.unsaved(); len(u) != 0 {
		t.Errorf("unsaved %v after saving the latest weights", u)
	}
	m.setMsg(msgErr, "two\nlines")
	if strings.Contains(m.msg, "\n") {
		t.Errorf("message %q keeps its line break", m.msg)
	}
	settle(t, base)
}

// TestWarningsReadableWhileTraining: beside the long training status at
// 80×24, a warning (s during a run) and the quit warning wrap onto the
// third line whole; with the path prompt open the quit warning names
// ctrl+c, since q would be typed into the prompt. s refuses to save
// during the run, so the quit warning says to stop it first, or, once
// stopping, that s saves when it has stopped.
func TestWarningsReadableWhileTraining(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	m.prog = &core.Progress{Stage: 2, Step: 28, Steps: 300, StageETA: 24 * time.Second}
	shows := func(m Model, want string) {
		t.Helper()
		frame := m.render()
		frameOK(t, frame, 80, 24)
		lines := strings.Split(frame, "\n")
		// Whole on one line, or wrapped between words onto the next.
		status := strings.Join(strings.Fields(lines[1]+" "+lines[2]), " ")
		if !strings.Contains(status, want) {
			t.Errorf("%q is not shown whole:\n%s\n%s", want, lines[1], lines[2])
		}
	}
	m, _ = press(t, m, "s")
	shows(m, "training is running — wait for it or stop it (esc), then save")
	m, _ = press(t, m, "q")
	shows(m, "unsaved: spring/lnp · esc stops it, then s saves · q again quits")
	m, _ = press(t, m, "o", "o", "ctrl+c") // o asks first during a run
	if !m.prompt.active() || !strings.Contains(m.msg, "ctrl+c again quits") {
		t.Errorf("ctrl+c over the prompt: prompt active %v, message %q", m.prompt.active(), m.msg)
	}
	m, _ = press(t, m, "esc", "ctrl+c") // the key pressed is the one named
	shows(m, "unsaved: spring/lnp · esc stops it, then s saves · ctrl+c again quits")
	m, _ = press(t, m, "esc", "esc", "q")
	shows(m, "unsaved: spring/lnp · s saves once it stops · q again quits")
	m, _ = run(t, m, tea.Batch(cmds...))
	m, _ = press(t, m, "j", "q")
	shows(m, "unsaved: spring/lnp · s saves · q again quits")
	settle(t, base)
}

// TestRunRecalibrates: a run that completes refits the predictive spread
// to its own weights instead of carrying the fit of the weights it
// started from (here a sentinel); esc during the refit keeps the trained
// weights with the plain mixture collapse and z_θ fixed in refinement,
// never the stale fit.
func TestRunRecalibrates(t *testing.T) {
	sentinel := core.SpreadFit{StdScale: 50, DeltaStdScale: 50, ThetaStdScale: 50}
	for _, stop := range []bool{false, true} {
		m := newTest(t, "spring", 80, 24)
		base := runtime.NumGoroutine()
		m.entry().model.Config.Infer.SpreadFit = sentinel
		m.entry().model.Config.Infer.ZThetaPrior = 7
		m, cmds := startRun(t, m)
		r := m.run
		// Feed events until the refit starts (and, to stop it, press esc
		// at once), then to the end of the run.
		if stop {
			m, cmds = pump(t, m, cmds, func(m Model) bool { return m.run == nil || m.run.recalibrating })
			if m.run != nil {
				if st, _ := m.status(); !strings.Contains(st, "recalibrating") {
					t.Errorf("status %q during the refit", st)
				}
				m, _ = press(t, m, "esc")
			}
		}
		m, _ = pump(t, m, cmds, func(m Model) bool { return m.run == nil })
		if !r.refitStarted {
			t.Fatalf("stop %v: the run never began its refit", stop)
		}
		got := m.entry().model.Config.Infer
		switch {
		case !stop && (!strings.Contains(m.msg, "spread refitted") || reflect.DeepEqual(got.SpreadFit, sentinel) || reflect.DeepEqual(got.SpreadFit, core.SpreadFit{})):
			t.Errorf("completed run: message %q, spread %+v", m.msg, got.SpreadFit)
		case stop && (!strings.Contains(m.msg, "refit stopped") || !reflect.DeepEqual(got.SpreadFit, core.SpreadFit{}) || got.OnePass != nil || got.ZThetaPrior != 0):
			t.Errorf("stopped refit: message %q, spread %+v, one pass %v, z_θ prior %v", m.msg, got.SpreadFit, got.OnePass, got.ZThetaPrior)
		}
		if m.entry().src != srcTrained {
			t.Errorf("stop %v: the trained weights were not kept", stop)
		}
		settle(t, base)
	}
}

// TestFullRunValidatesTheRefit: a run that validates during training
// (the full budget) reports the validation of its refitted model, not the
// one its training scored with the fit of the weights it started from.
func TestFullRunValidatesTheRefit(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	cfg := core.DefaultConfig(sys, core.CNP)
	cfg.Arch.Hidden, cfg.Arch.LatentTheta, cfg.Arch.LatentDelta, cfg.Arch.DecHidden = 8, 4, 4, 8
	cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.ValEvery, cfg.Train.ValTasks = 2, 4, 4, 2
	model, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model.Config.Infer.SpreadFit = core.SpreadFit{StdScale: 50, DeltaStdScale: 50, ThetaStdScale: 50}
	r := &trainRun{mode: modeFull}
	startTraining(context.Background(), r, model)
	for {
		select {
		case <-r.events:
			continue
		case <-r.done:
		}
		break
	}
	if r.err != nil || r.res.Val == nil {
		t.Fatalf("run: %v, validation %v", r.err, r.res.Val)
	}
	want, err := r.model.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*r.res.Val, want) {
		t.Errorf("run's validation %+v, want the refitted model's %+v", r.res.Val.Metrics, want.Metrics)
	}
}

// TestRunUndonePastKeepsItsWeights: when the weights a stopped run
// started from are undone before it ends, its weights go on top instead
// of being dropped.
func TestRunUndonePastKeepsItsWeights(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	start := m.entry()
	m, cmds := startRun(t, m)
	m, _ = run(t, m, tea.Batch(cmds...)) // a first run: its weights are the second's start
	first := m.entry()
	m, cmds = startRun(t, m)
	m = send(t, m, openedMsg{path: "other.safetensors", model: start.model, info: start.info})
	m, _ = press(t, m, "u")      // back to the first run's weights
	m, _ = press(t, m, "u", "u") // and past them, unsaved: asked first
	if m.entry() != start {
		t.Fatalf("after two u: %v, want the starting weights", m.entry().sourceText())
	}
	m, _ = run(t, m, tea.Batch(cmds...))
	top := m.entry()
	if top.src != srcTrained || top == first || top.prev != start {
		t.Errorf("after the run: top %v (first run's: %v), behind it %v", top.src, top == first, top.prev == start)
	}
	settle(t, base)
}

// TestHeaderKeepsItsHeightWhileTraining: the header is three lines
// with and without a run, message, short or long, so the panels below
// stay put while the training status changes width with every step.
func TestHeaderKeepsItsHeightWhileTraining(t *testing.T) {
	m := newTest(t, "spring", 200, 40)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	m.setMsg(msgWarn, "short")
	if n := len(m.header()); n != headerLines {
		t.Errorf("header of %d lines with a short warning during a run, want %d", n, headerLines)
	}
	m, _ = press(t, m, "esc")
	m, _ = run(t, m, tea.Batch(cmds...))
	for _, msg := range []string{"", "short", strings.Repeat("a warning long enough to wrap ", 10)} {
		m.setMsg(msgWarn, "%s", msg)
		if n := len(m.header()); n != headerLines {
			t.Errorf("header of %d lines with the warning %q and no run, want %d", n, msg, headerLines)
		}
	}
	settle(t, base)
}

// TestNothingCutWhileTraining: at 80×24 the training status line, the
// averages' heading and the training box fit their text to the room,
// giving up words that are said elsewhere (the mode, the stage), rather
// than cutting the ETA or a word.
func TestNothingCutWhileTraining(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.Averages = avgTasks
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	// The stage's own ETA, not the whole run's at the mean rate (which
	// underestimates stage 2's dearer steps) is shown, and named so.
	m.prog = &core.Progress{Stage: 2, Step: 178, Steps: 300, Losses: core.Losses{Total: -0.92}, ETA: 99 * time.Second, StageETA: 3 * time.Second}
	frame := m.render()
	frameOK(t, frame, 80, 24)
	lines := strings.Split(frame, "\n")
	if status := strings.TrimRight(lines[1], " "); !strings.HasSuffix(status, "stage ETA 0:03 · esc stops") {
		t.Errorf("the training status is cut: %q", status)
	}
	side := strings.Join(sidebarLines(frame, smallSideW), "\n")
	// The loss keeps its third digit's zero (sigFixed): the stage, which
	// the status line says, gives way to it.
	for _, want := range []string{"this    mean: at end", " 178/300 loss -.920 ETA 0:03"} {
		if !strings.Contains(side, want) {
			t.Errorf("the sidebar lacks %q:\n%s", want, side)
		}
	}
	m, _ = press(t, m, "esc", "esc")
	run(t, m, tea.Batch(cmds...))
	settle(t, base)
}

// TestSparklineKeptWhenShort: at 80×24 on lv, with the averages on,
// the sidebar has no row left for the loss sparkline while a run
// trains. It was dropped without a mark; it now goes beside the
// training box's heading, shorter. Where it has its row (spring at
// 80×25), the heading stays plain.
func TestSparklineKeptWhenShort(t *testing.T) {
	losses := []float64{3, 2.5, 2, 1.6, 1.2, 1, 0.8, 0.7, 0.65, 0.6}
	for _, tc := range []struct {
		sys    string
		h      int
		inHead bool
	}{{"lv", 24, true}, {"spring", 25, false}} {
		m := newTest(t, tc.sys, 80, tc.h)
		m.opts.Averages = avgTasks
		base := runtime.NumGoroutine()
		m, cmds := startRun(t, m)
		m.prog = &core.Progress{Stage: 2, Step: 178, Steps: 300, Losses: core.Losses{Total: 0.6}, StageETA: 3 * time.Second}
		m.losses = losses
		frame := m.render()
		frameOK(t, frame, 80, tc.h)
		side := sidebarLines(frame, smallSideW)
		head := slices.IndexFunc(side, func(l string) bool { return strings.HasPrefix(l, "training") })
		if head < 0 {
			t.Fatalf("%s: no training box:\n%s", tc.sys, strings.Join(side, "\n"))
		}
		spark := sparkline(losses, smallSideW-2)
		inHead := strings.Contains(side[head], sparkline(losses, smallSideW-len("training ")-1))
		inRow := head+2 < len(side) && strings.Contains(side[head+2], spark)
		if inHead != tc.inHead || inRow == tc.inHead {
			t.Errorf("%s: sparkline beside the heading %v, on its own row %v; want beside the heading %v:\n%s",
				tc.sys, inHead, inRow, tc.inHead, strings.Join(side, "\n"))
		}
		if !strings.Contains(side[head+1], "178/300 loss") {
			t.Errorf("%s: the line under the heading is %q, want the step and loss", tc.sys, side[head+1])
		}
		m, _ = press(t, m, "esc")
		run(t, m, tea.Batch(cmds...))
		settle(t, base)
	}
}

// TestStoppedRunSaysPlainSpread: a run stopped between its steps keeps
// the weights of the steps done with the uncalibrated spread (its fit belonged
// to the weights it started from), and its message says so.
func TestStoppedRunSaysPlainSpread(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m.entry().model.Config.Infer.SpreadFit = core.SpreadFit{StdScale: 50}
	m, cmds := startRun(t, m)
	m, cmds = pump(t, m, cmds, func(m Model) bool { return m.run == nil || m.prog != nil })
	if m.run == nil {
		t.Skip("the run ended before its first progress report")
	}
	m, _ = press(t, m, "esc")
	m, _ = pump(t, m, cmds, func(m Model) bool { return m.run == nil })
	if got := m.entry().model.Config.Infer.SpreadFit; !strings.Contains(m.msg, "bands not recalibrated — s saves, u undoes") || !reflect.DeepEqual(got, core.SpreadFit{}) {
		t.Errorf("stopped run: message %q, spread %+v", m.msg, got)
	}
	settle(t, base)
}

// TestStoppedRunPlansTheStepsLeft: the weights of a run stopped while it
// trains record as their plan the steps the run had left, as apic
// train's partial file does, so that the saved file's inspect says what
// remains and train --init trains that, not the whole plan again.
func TestStoppedRunPlansTheStepsLeft(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	base := runtime.NumGoroutine()
	m, cmds := startRun(t, m)
	r := m.run
	m, _ = press(t, m, "esc")
	m, _ = pump(t, m, cmds, func(m Model) bool { return m.run == nil })
	if r.refitStarted {
		t.Skip("the run finished its steps before esc")
	}
	plan, done := r.cfg.Train, r.res
	if done.Steps1+done.Steps2 == 0 {
		t.Skip("the run stopped before its first step")
	}
	got := m.entry().model.Config.Train
	want1, want2 := plan.Steps1-done.Steps1, plan.Steps2-done.Steps2
	if got.Steps1 != want1 || got.Steps2 != want2 || !m.entry().info.Unfinished {
		t.Errorf("stopped after %d+%d of %d+%d steps: plan %d+%d (unfinished %v), want %d+%d",
			done.Steps1, done.Steps2, plan.Steps1, plan.Steps2, got.Steps1, got.Steps2, m.entry().info.Unfinished, want1, want2)
	}
	settle(t, base)
}

// TestThetaRowsSayOnePassWhileTraining: while a run trains, θ̂ ± σ in
// the sidebar is the network's one pass, not the refined estimate the
// rows show at rest, and only the metrics' heading said so; the θ rows'
// heading says it over the column, at 80 and 120 columns, and says
// "estimate" again once the run has ended.
func TestThetaRowsSayOnePassWhileTraining(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := newTest(t, "spring", size[0], size[1])
		heading := func(m Model) string {
			frame := m.render()
			frameOK(t, frame, size[0], size[1])
			for _, l := range sidebarLines(frame, m.sideWidth()) {
				if strings.HasPrefix(l, "θ   ") {
					return l
				}
			}
			t.Fatalf("%dx%d: no θ heading:\n%s", size[0], size[1], frame)
			return ""
		}
		if h := heading(m); !strings.Contains(h, "estimate±1σ") {
			t.Errorf("%dx%d: before a run the θ heading is %q", size[0], size[1], h)
		}
		base := runtime.NumGoroutine()
		m, cmds := startRun(t, m) // the explorer's own result is one pass: RefineDelay -1
		if m.run == nil || m.res == nil || m.res.refined != 0 {
			t.Fatalf("%dx%d: run %v, result %+v; want a run and a one-pass result", size[0], size[1], m.run != nil, m.res)
		}
		if h := heading(m); !strings.Contains(h, "one pass±1σ") || strings.Contains(h, "estimate") {
			t.Errorf("%dx%d: while training the θ heading is %q", size[0], size[1], h)
		}
		m, _ = press(t, m, "esc")
		m, _ = run(t, m, tea.Batch(cmds...))
		if m.run != nil {
			t.Fatalf("%dx%d: the run did not end", size[0], size[1])
		}
		if h := heading(m); !strings.Contains(h, "estimate±1σ") {
			t.Errorf("%dx%d: after the run the θ heading is %q", size[0], size[1], h)
		}
		settle(t, base)
	}
}

// TestTrainBoxKeepsETAOnLongRuns: a full run's step counts reach four
// and five digits and its stage ETA hours, and a stage-1 loss such as
// .000336 takes seven cells. In the 31-cell sidebar the box then cut
// its ETA to "ETA 0:…"; the loss gives way to it now (the status line
// and the sparkline keep the loss).
func TestTrainBoxKeepsETAOnLongRuns(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.run = &trainRun{mode: modeFull}
	for _, tc := range []struct {
		p    core.Progress
		want string
	}{
		{core.Progress{Stage: 1, Step: 1025, Steps: 3000, Losses: core.Losses{Total: 0.000336}, StageETA: 20 * time.Second}, "1025/3000 loss .00034 ETA 0:20"},
		{core.Progress{Stage: 2, Step: 12345, Steps: 36000, Losses: core.Losses{Total: -0.584}, StageETA: time.Hour + 2*time.Minute + 3*time.Second}, "12345/36000 ETA 1:02:03"},
		{core.Progress{Stage: 2, Step: 178, Steps: 300, Losses: core.Losses{Total: -0.92}, StageETA: 3 * time.Second}, "s2 178/300 loss -.920 ETA 0:03"},
	} {
		m.prog = &tc.p
		first := m.trainLines(smallSideW)[0]
		if got := strings.TrimSpace(ansi.Strip(first)); got != tc.want {
			t.Errorf("step %d/%d: training box reads %q, want %q", tc.p.Step, tc.p.Steps, got, tc.want)
		}
	}
}
