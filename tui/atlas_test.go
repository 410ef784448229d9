package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"apic/checkpoints"
	"apic/core"
	"apic/sims"
)

// fakeAtlas is a spring/lnp atlas of untrained models (deterministic
// weights, so frames are fixed): λθ over 0…5 at λδ 1, λδ over 0…5 at λθ
// 1 without 1, and two regularisers; loads counts each cell's decodes.
func fakeAtlas(t testing.TB, loads map[string]int) func() []AtlasCell {
	t.Helper()
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	var cells []AtlasCell
	add := func(axis, value string, lt, ld float64, reg core.Regularizer) {
		cfg := core.DefaultConfig(sys, core.LNP)
		cfg.Train.LambdaTheta, cfg.Train.LambdaDelta, cfg.Train.Reg = lt, ld, reg
		cfg.Train.Seed = uint64(len(cells) + 1) // each cell its own weights
		c := AtlasCell{Cell: checkpoints.Cell{System: "spring", Axis: axis, Value: value}, Backbone: "lnp", Train: cfg.Train}
		c.Load = func() (*core.Model, core.Info, error) {
			loads[c.File()]++
			m, err := core.NewModel(cfg)
			return m, core.Info{Steps1: 1, Steps2: 2}, err
		}
		cells = append(cells, c)
	}
	for _, v := range []float64{0, 0.1, 0.2, 0.5, 1, 2, 5} {
		add(checkpoints.AxisLambdaTheta, formatLadder(v), v, 1, core.RegL2)
		if v != 1 {
			add(checkpoints.AxisLambdaDelta, formatLadder(v), 1, v, core.RegL2)
		}
	}
	add(checkpoints.AxisReg, "l1", 1, 1, core.RegL1)
	add(checkpoints.AxisReg, "gradpen", 1, 1, core.RegGradPen)
	return func() []AtlasCell { return cells }
}

// sized gives m the plain colour profile and a terminal size.
func sized(t testing.TB, m Model, w, h int) Model {
	t.Helper()
	m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	return send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// newAtlasTest is newTest with the fake atlas.
func newAtlasTest(t testing.TB, w, h int, loads map[string]int) Model {
	t.Helper()
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: fakeAtlas(t, loads), Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = sized(t, m, w, h)
	m, _ = run(t, m, m.Init())
	return m
}

// TestAtlasSwitchesWithoutTraining: moving λθ onto a value the atlas
// holds loads that model at once — no training run starts, the header
// names the cell, the model is not stale — and a value without a cell
// only marks the model stale, as before; each cell is decoded once, and
// u goes back past the atlas to the weights before it.
func TestAtlasSwitchesWithoutTraining(t *testing.T) {
	loads := map[string]int{}
	m := newAtlasTest(t, 80, 24, loads)
	base := m.entry()
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "left") // 1 → 0.5
	e := m.entry()
	if e.src != srcAtlas || e.cell.Value != "0.5" || e.model.Config.Train.LambdaTheta != 0.5 {
		t.Fatalf("after λθ → 0.5: source %v, cell %v", e.src, e.cell)
	}
	if m.run != nil || len(m.runs) > 0 || m.stale() {
		t.Fatalf("a run started (%v) or the model is stale (%v)", len(m.runs), m.stale())
	}
	if frame := m.render(); !strings.Contains(frame, "atlas: spring λθ=0.5") {
		t.Errorf("the header does not name the cell:\n%s", frame)
	}
	m, _ = press(t, m, "left") // 0.5 → 0.3: no cell
	if m.entry() != e || !m.stale() || !strings.Contains(m.render(), "stale") {
		t.Errorf("λθ 0.3 (no cell): the model changed or is not marked stale")
	}
	m, _ = press(t, m, "left", "right", "right") // 0.2, 0.3, 0.5
	if m.entry().cell.Value != "0.5" || loads["spring-lambda-theta-0.5.safetensors"] != 1 || loads["spring-lambda-theta-0.2.safetensors"] != 1 {
		t.Errorf("cell %v, loads %v: want λθ 0.5 again, each cell decoded once", m.entry().cell, loads)
	}
	m, _ = press(t, m, "u")
	if m.entry() != base {
		t.Errorf("u went back to %v, want the weights before the atlas", m.entry().sourceText())
	}
}

// TestAtlasSnapsTheOtherSettings: moving λδ from a λθ-axis cell loads
// the λδ axis's cell and sets λθ to what it was trained with; settings
// back at the starting model's bring it back; a regulariser the atlas
// lacks marks the model stale.
func TestAtlasSnapsTheOtherSettings(t *testing.T) {
	m := newAtlasTest(t, 80, 24, map[string]int{})
	base := m.entry()
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "left") // λθ 0.5
	m = focusOn(t, m, ctlLamDelta)
	m, _ = press(t, m, "right") // λδ 1 → 2
	if e := m.entry(); e.cell.Axis != checkpoints.AxisLambdaDelta || e.cell.Value != "2" || m.lamTheta.value() != 1 || m.stale() {
		t.Fatalf("λδ → 2: cell %v, λθ %g, stale %v", e.cell, m.lamTheta.value(), m.stale())
	}
	m, _ = press(t, m, "left") // λδ 1: the starting settings bring the starting model back
	if m.entry() != base || !strings.Contains(m.msg, "back to the "+base.sourceText()+" model") {
		t.Fatalf("λδ → 1: %s (%q), want the model the explorer started with", m.entry().sourceText(), m.msg)
	}
	m = focusOn(t, m, ctlReg)
	m, _ = press(t, m, "left") // l2 → l1
	if e := m.entry(); e.cell.Axis != checkpoints.AxisReg || e.cell.Value != "l1" {
		t.Fatalf("reg → l1: cell %v", e.cell)
	}
	m, _ = press(t, m, "right", "right") // l2 (the starting model), orthogonal: none
	if m.entry() != base || !m.stale() {
		t.Errorf("reg orthogonal: %s, stale %v; want the starting model kept, stale", m.entry().sourceText(), m.stale())
	}
	// Back to l2 from there: the λθ=1 cell is trained at the starting
	// model's settings, which comes back in its place.
	m, _ = press(t, m, "left")
	if m.entry() != base || m.stale() || !strings.HasPrefix(m.msg, "back to the "+base.sourceText()+" model: λθ 1, λδ 1, l2") {
		t.Fatalf("reg orthogonal → l2: %s, stale %v (%q); want the starting model back", m.entry().sourceText(), m.stale(), m.msg)
	}
	// A setting the loaded cell does not share is named, not set back
	// silently.
	m, _ = press(t, m, "right") // orthogonal again: none, stale
	m = focusOn(t, m, ctlLamDelta)
	m, _ = press(t, m, "right") // λδ 2: its cell, trained with l2
	if want := "loaded atlas spring λδ=2: λθ 1, λδ 2, l2 (no model at orthogonal)"; !strings.HasPrefix(m.msg, want) || m.reg.value() != "l2" {
		t.Errorf("λδ → 2 at orthogonal: message %q, reg %s; want %q and l2", m.msg, m.reg.value(), want)
	}
}

// TestAtlasSwitchIsFast: with the embedded atlas, a λθ step onto a cell
// takes under 100 ms, its first decode included.
func TestAtlasSwitchIsFast(t *testing.T) {
	cells := EmbeddedAtlas()
	if _, ok := atlasPick(cells, "spring", "lnp", ctlLamTheta, settings{0.5, 1, "l2"}); !ok {
		t.Skip("no spring λθ 0.5 cell embedded")
	}
	m, err := New(Options{System: "spring", SaveDir: t.TempDir(), RefineDelay: -1, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = sized(t, m, 80, 24)
	m = focusOn(t, m, ctlLamTheta)
	for m.lamTheta.value() != 1 {
		m = send(t, m, keyMsg("right"))
	}
	start := time.Now()
	m = send(t, m, keyMsg("left"))
	if took := time.Since(start); took > 100*time.Millisecond || m.entry().src != srcAtlas {
		t.Errorf("λθ → %g took %v (source %v), want an atlas model within 100 ms", m.lamTheta.value(), took, m.entry().sourceText())
	}
}

// TestAtlasNoteGoesWhenTheSettingsMoveOn: the note that an atlas model
// was loaded names the settings it was loaded at; stepping λθ on to a
// value without a cell leaves that model on screen, stale, and the
// note, no longer true, goes (the status line says stale).
func TestAtlasNoteGoesWhenTheSettingsMoveOn(t *testing.T) {
	m := newAtlasTest(t, 100, 30, map[string]int{})
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "right") // 1 → 2: an atlas cell
	if e := m.entry(); e.src != srcAtlas || e.cell.Value != "2" || !strings.Contains(m.render(), "loaded atlas spring λθ=2") {
		t.Fatalf("λθ → 2: source %v, cell %v, message %q", e.src, e.cell, m.msg)
	}
	m, _ = press(t, m, "right") // 2 → 3: none
	frame := m.render()
	if m.lamTheta.value() != 3 || !m.stale() || !strings.Contains(frame, "stale") {
		t.Fatalf("λθ → %g: stale %v, want 3 and stale:\n%s", m.lamTheta.value(), m.stale(), frame)
	}
	if strings.Contains(frame, "loaded atlas") || strings.Contains(frame, "u goes back") {
		t.Errorf("λθ 3: the note of the λθ=2 load stays:\n%s", frame)
	}
	if !strings.Contains(frame, "atlas: spring λθ=2") {
		t.Errorf("λθ 3: the header no longer names the model on screen:\n%s", frame)
	}
	m, _ = press(t, m, "left", "left") // 2, then 1: the model before the atlas
	if !strings.Contains(m.msg, "back to the") {
		t.Fatalf("λθ → 1: message %q", m.msg)
	}
	m, _ = press(t, m, "right", "right") // 2, then 3: the load note goes again
	if strings.Contains(m.render(), "loaded atlas") {
		t.Errorf("λθ 2 → 3 again: the load note stays (%q)", m.msg)
	}
}

// TestAtlasControlAtItsEndChangesNothing: pressing on λδ at the end of
// its ladder loads no model and leaves λθ alone (it loaded the cell at
// that λδ and snapped λθ to the cell's value).
func TestAtlasControlAtItsEndChangesNothing(t *testing.T) {
	m := newAtlasTest(t, 80, 24, map[string]int{})
	m.lamTheta, m.lamDelta = m.lamTheta.step(100), m.lamDelta.step(-100) // λθ 10 (no cell), λδ 0
	before := m.entry()
	m = focusOn(t, m, ctlLamDelta)
	m, _ = press(t, m, "left")
	if m.entry() != before || m.lamTheta.value() != 10 || m.lamDelta.value() != 0 {
		t.Errorf("λδ at 0, ← : model %s, λθ %g, λδ %g; want nothing changed (λθ 10)", m.entry().sourceText(), m.lamTheta.value(), m.lamDelta.value())
	}
}

// TestAtlasHeaderSaysItsBudget: an atlas model's header names its
// training steps beside those of the shipped model the controls go back
// to, at 80 columns too, and keeps them after the next message; the
// note that said so when it loaded went with it ("new realization").
// The ? help says the atlas trained fewer steps.
// Without a model of another budget under it, the steps stand alone.
func TestAtlasHeaderSaysItsBudget(t *testing.T) {
	for _, w := range []int{80, 160} {
		m := newShippedTest(t, w, 48)
		m = focusOn(t, m, ctlLamTheta)
		m, _ = press(t, m, "left", "r")
		e := m.entry()
		if e.src != srcAtlas || e.prev.src != srcEmbedded {
			t.Fatalf("%d columns: %s over %s, want an atlas model over the shipped one", w, e.sourceText(), e.prev.sourceText())
		}
		a, s := e.info, e.prev.info
		if a.Steps1+a.Steps2 >= s.Steps1+s.Steps2 {
			t.Fatalf("atlas steps %d+%d, shipped %d+%d: the test needs a smaller atlas budget", a.Steps1, a.Steps2, s.Steps1, s.Steps2)
		}
		want := fmt.Sprintf("%d+%d steps (shipped %d+%d)", a.Steps1, a.Steps2, s.Steps1, s.Steps2)
		if title := m.header()[0]; !strings.Contains(title, want) || strings.Contains(title, "…") {
			t.Errorf("%d columns: title %q lacks %q", w, title, want)
		}
		if help := strings.Join(helpAt(m, w), "\n"); !strings.Contains(help, "atlas model (lnp, fewer steps)") {
			t.Errorf("%d columns: the help does not say the atlas models trained fewer steps", w)
		}
	}
	m := newAtlasTest(t, 80, 24, map[string]int{})
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "left")
	if title := m.header()[0]; !strings.Contains(title, "atlas: spring λθ=0.5, 1+2 steps") || strings.Contains(title, "(") {
		t.Errorf("over untrained weights: title %q", title)
	}
}

// TestAtlasNoteNamesTheValuesItHas: a λθ without an atlas model says
// which values load at once, and a backbone without atlas models which
// backbone has them; the model on screen stays, stale. A class waited
// on λθ 3 to learn only that the model was stale.
func TestAtlasNoteNamesTheValuesItHas(t *testing.T) {
	m := newAtlasTest(t, 80, 24, map[string]int{})
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "right", "right") // 1 → 2 → 3: no cell at 3
	if _, cut := m.headerCut(); cut {
		t.Errorf("λθ 3: the note is cut at 80×24: %q", m.msg)
	}
	if want := "the atlas has λθ 0, 0.1, 0.2, 0.5, 1, 2, 5; t trains this one"; m.msg != want || !m.stale() {
		t.Errorf("λθ 3: message %q, stale %v; want %q", m.msg, m.stale(), want)
	}
	m = focusOn(t, m, ctlBackbone)
	m, _ = press(t, m, "right") // lnp → anp: no atlas cells
	m = focusOn(t, m, ctlLamTheta)
	m, _ = press(t, m, "left")
	if want := "the atlas has spring/lnp models only (b switches)"; m.msg != want {
		t.Errorf("%s, λθ %g: message %q; want %q", m.backbone.value(), m.lamTheta.value(), m.msg, want)
	}
}
