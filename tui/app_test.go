package tui

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
	"apic/sims"
)

func displayWidth(s string) int { return ansi.StringWidth(s) }

func TestNewRejectsBadSetup(t *testing.T) {
	if _, err := New(Options{System: "nope", Embedded: noEmbedded}); err == nil {
		t.Error("unknown system accepted")
	}
	if _, err := New(Options{Backbone: "gp", Embedded: noEmbedded}); err == nil {
		t.Error("unknown backbone accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.safetensors")
	if err := os.WriteFile(bad, []byte("not a checkpoint"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Checkpoint: bad, Embedded: noEmbedded}); err == nil {
		t.Error("unreadable checkpoint accepted")
	}
}

func TestUntrainedSaysSo(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	if m.entry().src != srcUntrained {
		t.Fatalf("source %v, want untrained", m.entry().src)
	}
	frame := m.render()
	for _, want := range []string{"untrained — press t to train", "checkpoint: untrained"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q", want)
		}
	}
}

func TestFocusKeys(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	n := len(m.controls())
	m, _ = press(t, m, "down", "down")
	if m.focus != 2 {
		t.Fatalf("focus %d after two downs, want 2", m.focus)
	}
	m, _ = press(t, m, "up", "k", "k")
	if m.focus != n-1 {
		t.Fatalf("focus %d after wrapping up, want %d", m.focus, n-1)
	}
	m, _ = press(t, m, "j")
	if m.focus != 0 {
		t.Fatalf("focus %d after wrapping down, want 0", m.focus)
	}
}

func TestContextAndNoiseReinfer(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	n0 := m.res.task.Context.Len()
	first := m.res.task.Context.GridIndex[0]
	m = focusOn(t, m, ctlContext)
	m, _ = press(t, m, "right")
	n1 := m.res.task.Context.Len()
	if n1 <= n0 {
		t.Fatalf("context %d → %d after →, want growth", n0, n1)
	}
	if m.res.task.Context.GridIndex[0] != first {
		t.Error("growing the context changed its earlier points")
	}
	m, _ = press(t, m, "left", "h")
	if got := m.res.task.Context.Len(); got >= n0 {
		t.Fatalf("context %d after two ←, want below %d", got, n0)
	}

	// The whole grid as context leaves nothing to score, and says so.
	for range 40 {
		m, _ = press(t, m, "right")
	}
	if len(m.res.task.Targets) == 0 && !strings.Contains(m.render(), "none: all in context") {
		t.Error("with every point in the context the metrics do not say why they are empty")
	}

	m = focusOn(t, m, ctlNoise)
	m, _ = press(t, m, "+")
	ctx := m.res.task.Context
	real := m.res.task.Real
	g := ctx.GridIndex[0]
	if ctx.Values[0][0] == real.True[g] {
		t.Error("noise σ > 0 left the context values noise-free")
	}
	if m.noise.value() <= 0 {
		t.Errorf("noise %v after +", m.noise.value())
	}
}

// TestAllInContextThetaSaysOnePass: with every point in context the
// metrics' heading says "none: all in context", not "one pass,
// refining…", so θ̂ ± σ and θ MAE changed when the refinement landed
// (spring at 100: ω 5.463±.051 to 5.4662±5e-4) with no word on screen;
// the θ rows' heading says "one pass" over the column until then.
func TestAllInContextThetaSaysOnePass(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := newTest(t, "spring", size[0], size[1])
		m = focusOn(t, m, ctlContext)
		for range 40 {
			m, _ = press(t, m, "right")
		}
		if len(m.res.task.Targets) != 0 || m.res.refined != 0 {
			t.Fatalf("%dx%d: %d targets, %d refinement steps; want none and a one-pass result", size[0], size[1], len(m.res.task.Targets), m.res.refined)
		}
		heading := func(m Model) string {
			for _, l := range sidebarLines(m.render(), m.sideWidth()) {
				if strings.HasPrefix(l, "θ   ") {
					return l
				}
			}
			t.Fatalf("%dx%d: no θ heading", size[0], size[1])
			return ""
		}
		if h := heading(m); !strings.Contains(h, "one pass±1σ") {
			t.Errorf("%dx%d: all in context, one pass: the θ heading is %q", size[0], size[1], h)
		}
		m.opts.RefineDelay = time.Millisecond
		nm, cmd := m.Update(refineMsg{gen: m.gen})
		m, _ = run(t, nm.(Model), cmd)
		if m.res.refined == 0 {
			t.Fatalf("%dx%d: the refinement did not land", size[0], size[1])
		}
		if h := heading(m); !strings.Contains(h, "estimate±1σ") {
			t.Errorf("%dx%d: all in context, refined: the θ heading is %q", size[0], size[1], h)
		}
	}
}

func TestLambdaAndRegularizerMarkStale(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	// The untrained model is "untrained", not stale; give it a trained
	// source so the stale status shows.
	m.entry().src = srcEmbedded
	if st, _ := m.status(); !strings.Contains(st, "idle") {
		t.Fatalf("status %q, want idle", st)
	}
	for _, id := range []control{ctlLamTheta, ctlLamDelta, ctlReg} {
		m := focusOn(t, m, id)
		m, _ = press(t, m, "right")
		if !m.stale() {
			t.Errorf("control %d moved but the model is not stale", id)
		}
		if st, _ := m.status(); !strings.Contains(st, "stale") {
			t.Errorf("control %d: status %q, want stale", id, st)
		}
	}
	m = focusOn(t, m, ctlLamDelta)
	m, _ = press(t, m, "right", "left")
	if m.stale() {
		t.Error("λδ moved back but the model is still stale")
	}
}

func TestSystemAndBackboneKeys(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "tab")
	if m.sys().Name() != "lv" || m.res == nil || len(m.res.pred.Mean) != m.sys().Grid().Size() {
		t.Fatalf("tab: system %s, result %v", m.sys().Name(), m.res != nil)
	}
	m, _ = press(t, m, "tab")
	if m.sys().Name() != "advdiff" {
		t.Fatalf("second tab: %s", m.sys().Name())
	}
	m, _ = press(t, m, "shift+tab", "shift+tab")
	if m.sys().Name() != "spring" {
		t.Fatalf("shift+tab twice: %s", m.sys().Name())
	}
	m = focusOn(t, m, ctlSystem)
	m, _ = press(t, m, "left")
	if m.sys().Name() != "advdiff" {
		t.Fatalf("← on system: %s", m.sys().Name())
	}
	m, _ = press(t, m, "right")

	m, _ = press(t, m, "b")
	if m.backbone.value() != "anp" || m.entry().model.Config.Arch.Backbone != core.ANP {
		t.Fatalf("b: backbone %s, model %s", m.backbone.value(), m.entry().model.Config.Arch.Backbone)
	}
	m = focusOn(t, m, ctlBackbone)
	m, _ = press(t, m, "right")
	if m.backbone.value() != "cnp" || m.res == nil {
		t.Fatalf("→ on backbone: %s", m.backbone.value())
	}
	// Each backbone keeps its own model.
	if m.entries[entryKey{"spring", "lnp"}] == nil || m.entries[entryKey{"spring", "anp"}] == nil {
		t.Error("switching backbones dropped a model")
	}
}

func TestRealizationKey(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	th := m.res.task.Real.Theta[0]
	m, _ = press(t, m, "r")
	if m.seed != 2 {
		t.Fatalf("seed %d after r, want 2", m.seed)
	}
	if m.res.task.Real.Theta[0] == th {
		t.Error("r kept the same realization")
	}
	if !strings.Contains(m.render(), "seed 2") {
		t.Error("the new seed is not shown")
	}
}

// TestThetaOverrideLegend: with θ set by hand, panel 1 names the
// simulator at that θ, not at the estimate (spring: one channel, so the
// legend has a simulator entry).
func TestThetaOverrideLegend(t *testing.T) {
	m := newTest(t, "spring", 160, 48)
	if frame := m.render(); !strings.Contains(frame, "── F(x; θ̂)") {
		t.Fatal("panel 1's legend does not name F(x; θ̂) before any override")
	}
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right", "right")
	if !m.overridden() {
		t.Fatal("θ not set by hand")
	}
	frame := m.render()
	if !strings.Contains(frame, "── F(x; θ)") || strings.Contains(frame, "F(x; θ̂)") {
		t.Errorf("panel 1 still names F(x; θ̂) with θ set by hand:\n%s", frame)
	}
}

func TestThetaOverrideAndAuto(t *testing.T) {
	m := newTest(t, "lv", 160, 48)
	est := m.res.pred.Theta[1]
	m = focusOn(t, m, ctlTheta+1)
	m, _ = press(t, m, "right", "right")
	set := m.theta[1].value
	if !m.theta[1].set || math.Abs(set-est) < 0.05 {
		t.Fatalf("θ₁ set %v (estimate %v)", set, est)
	}
	if got := m.res.pred.Theta[1]; got != set {
		t.Fatalf("prediction used θ₁ = %v, want the set %v", got, set)
	}
	// The other parameters stay at their estimates, and the readout
	// keeps showing the estimate.
	if got := m.res.pred.Theta[0]; math.Abs(got-m.res.est[0]) > 1e-12 {
		t.Errorf("θ₀ = %v, want its estimate %v", got, m.res.est[0])
	}
	if math.Abs(m.res.est[1]-est) > 1e-12 {
		t.Errorf("readout estimate %v, want %v", m.res.est[1], est)
	}
	frame := m.render()
	if !strings.Contains(frame, "set by hand") || !strings.Contains(frame, "needed δ") {
		t.Error("override not shown in the panels")
	}
	m, _ = press(t, m, "a")
	if m.theta[1].set || m.overridden() {
		t.Fatal("a left θ overridden")
	}
	if math.Abs(m.res.pred.Theta[1]-est) > 1e-12 {
		t.Errorf("θ̂₁ = %v after a, want the estimate %v", m.res.pred.Theta[1], est)
	}
}

func TestModeKey(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "m")
	if m.mode.value() != string(modeScratch) {
		t.Fatalf("mode %s after m", m.mode.value())
	}
	m = focusOn(t, m, ctlMode)
	m, _ = press(t, m, "right")
	if m.mode.value() != string(modeFull) {
		t.Fatalf("mode %s after →", m.mode.value())
	}
}

func TestSliceHeatmapAndPageKeys(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "v", "[")
	if m.heat {
		t.Error("v turned on heatmaps for a 1-D system")
	}
	m, _ = press(t, m, "p")
	if m.page != 1 || !strings.Contains(m.render(), "3 corrected") {
		t.Error("p did not show panels 3 and 4")
	}
	m, _ = press(t, m, "p")

	m, _ = press(t, m, "tab", "tab")
	s0 := m.slice
	m, _ = press(t, m, "]")
	if m.slice != s0+1 {
		t.Fatalf("] moved the slice %d → %d", s0, m.slice)
	}
	m, _ = press(t, m, "{", "[")
	if m.slice != s0-8 {
		t.Fatalf("{ [ moved the slice to %d, want %d", m.slice, s0-8)
	}
	m, _ = press(t, m, "}")
	if m.slice != s0 {
		t.Fatalf("} moved the slice to %d, want %d", m.slice, s0)
	}
	m = focusOn(t, m, ctlSlice)
	m, _ = press(t, m, "left")
	if m.slice != s0-1 {
		t.Fatalf("← on the slice row: %d", m.slice)
	}
	m, _ = press(t, m, "v")
	if !m.heat || !strings.Contains(m.render(), "1 truth G(t, x)") {
		t.Fatal("v did not show the heatmaps")
	}
	frameOK(t, m.render(), 80, 24)
}

func TestHelpKey(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "?")
	if !m.help.ShowAll || !strings.Contains(m.render(), "previous control") {
		t.Fatal("? did not show the full help")
	}
	m, _ = press(t, m, "esc")
	if m.help.ShowAll {
		t.Fatal("esc did not close the help")
	}
	m, _ = press(t, m, "?", "?")
	if m.help.ShowAll {
		t.Fatal("? did not toggle the help")
	}
}

// TestHelpFitsSmallTerminal: at 80×24 the ? help shows every key of
// advdiff (the system with the most) on its first screen, and ↓ scrolls
// to the panels' descriptions, stopping at the last line.
func TestHelpFitsSmallTerminal(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	m, _ = press(t, m, "?")
	first := m.render()
	frameOK(t, first, 80, 24)
	for _, b := range m.keys.FullHelp() {
		for _, k := range b {
			if !strings.Contains(first, k.Help().Desc) {
				t.Errorf("the first help screen lacks %q:\n%s", k.Help().Desc, first)
			}
		}
	}
	if !strings.Contains(first, "↑/↓ scroll, pgup/pgdn a screen · lines 1–19 of") {
		t.Errorf("the help does not say it scrolls:\n%s", first)
	}
	for range 100 {
		m, _ = press(t, m, "down")
	}
	last := m.render()
	frameOK(t, last, 80, 24)
	n := len(helpAt(m, 80))
	if want := fmt.Sprintf("lines %d–%d of %d", n-18, n, n); !strings.Contains(last, want) {
		t.Errorf("↓ did not reach the help's last line:\n%s", last)
	}
	m, _ = press(t, m, "up")
	if m.render() == last {
		t.Error("↑ after the end did not scroll back at once")
	}
	if m.focus != 0 {
		t.Errorf("scrolling the help moved the focus to %d", m.focus)
	}
}

// TestHelpPagesByScreen: pgdn and space scroll the ? help a screen
// down, keeping one line of the last in sight, and pgup back; neither
// closes the help nor moves the focus (before, any key but ↑/↓ closed
// it, so that its end at 80×24 was some fifty ↓ away).
func TestHelpPagesByScreen(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	m, _ = press(t, m, "?")
	for i, k := range []string{"pgdown", "space"} {
		m, _ = press(t, m, k)
		if !m.help.ShowAll {
			t.Fatalf("%s closed the help", k)
		}
		if want := fmt.Sprintf("lines %d–%d of", 1+18*(i+1), 19+18*(i+1)); !strings.Contains(m.render(), want) {
			t.Errorf("after %s: want %q:\n%s", k, want, m.render())
		}
	}
	m, _ = press(t, m, "pgup", "pgup", "pgup")
	if !strings.Contains(m.render(), "lines 1–19 of") || !m.help.ShowAll || m.focus != 0 {
		t.Errorf("pgup did not page back to the top (focus %d):\n%s", m.focus, m.render())
	}
}

// TestNewRealizationSkipsSeedZero: r past the largest seed wraps to 1,
// not to 0, which --seed refuses.
func TestNewRealizationSkipsSeedZero(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.seed = math.MaxUint64
	if m, _ = press(t, m, "r"); m.seed != 1 {
		t.Errorf("seed after the largest: %d, want 1", m.seed)
	}
}

func TestQuitKeys(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	if _, quit := press(t, m, "q"); !quit {
		t.Error("q did not quit")
	}
	if _, quit := press(t, m, "ctrl+c"); !quit {
		t.Error("ctrl+c did not quit")
	}
}

func TestSaveAndOpen(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := m.opts.SaveDir
	m, _ = press(t, m, "s")
	if m.prompt.kind != promptSave {
		t.Fatal("s did not open the save prompt")
	}
	want := filepath.Join(dir, "apic-spring-lnp-1.safetensors")
	if m.prompt.path() != want {
		t.Fatalf("suggested %q, want %q", m.prompt.path(), want)
	}
	m, _ = press(t, m, "enter")
	if m.msgKind != msgInfo || !strings.Contains(m.msg, "saved") {
		t.Fatalf("after saving: %q", m.msg)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	// A second save, asked for twice (TestSaveAgainAsks), suggests a
	// new name; typing an existing one fails.
	m, _ = press(t, m, "s", "s")
	if got := m.prompt.path(); got != filepath.Join(dir, "apic-spring-lnp-2.safetensors") {
		t.Fatalf("second suggestion %q", got)
	}
	m, _ = press(t, m, "ctrl+u")
	m = typeText(t, m, want)
	m, _ = press(t, m, "enter")
	if m.msgKind != msgErr || !strings.Contains(m.msg, "exists, and the explorer never overwrites") {
		t.Fatalf("overwriting: %q", m.msg)
	}
	// A directory that does not exist is named plainly, without the
	// atomic write's temporary file.
	m, _ = press(t, m, "s", "s", "ctrl+u")
	m = typeText(t, m, filepath.Join(dir, "nosuch", "x.safetensors"))
	m, _ = press(t, m, "enter")
	if want := "save failed: directory " + filepath.Join(dir, "nosuch") + " does not exist"; m.msg != want {
		t.Fatalf("saving into a missing directory: %q, want %q", m.msg, want)
	}
	// Other causes are named without the temporary file too: here a
	// "directory" that is a file.
	m, _ = press(t, m, "s", "s", "ctrl+u")
	notDir := filepath.Join(want, "x.safetensors")
	m = typeText(t, m, notDir)
	m, _ = press(t, m, "enter")
	if m.msgKind != msgErr || !strings.HasPrefix(m.msg, "save failed: cannot write "+notDir+": ") || strings.Contains(m.msg, ".tmp") {
		t.Fatalf("saving under a file: %q", m.msg)
	}
	// A shipped checkpoint's name is not a place to save.
	m, _ = press(t, m, "s", "s", "ctrl+u")
	m = typeText(t, m, "embedded:mine.safetensors")
	m, _ = press(t, m, "enter")
	if m.msgKind != msgErr || !strings.Contains(m.msg, "read-only") {
		t.Fatalf("saving as embedded:NAME: %q", m.msg)
	}
	// esc cancels a prompt.
	m, _ = press(t, m, "s", "s", "esc")
	if m.prompt.active() {
		t.Fatal("esc left the prompt open")
	}

	// Open it from another system: the explorer switches back.
	m, _ = press(t, m, "tab")
	before := m.entries[entryKey{"spring", "lnp"}].model
	m, _ = press(t, m, "o")
	if m.prompt.kind != promptOpen {
		t.Fatal("o did not open the prompt")
	}
	m = typeText(t, m, want)
	m, _ = press(t, m, "enter")
	if m.msgKind != msgInfo || m.sys().Name() != "spring" || m.entry().src != srcFile {
		t.Fatalf("open: %q, system %s", m.msg, m.sys().Name())
	}
	if m.entry().model == before {
		t.Error("the opened model is the old one")
	}
	// At 80 columns a temporary path leaves room for its name only.
	if h := m.header()[0]; !strings.Contains(h, "file …/"+filepath.Base(want)) {
		t.Errorf("header does not show the file's name:\n%s", h)
	}
	// u goes back to the system shown before the open, and the weights
	// the file replaced are spring/lnp's again; forward again by
	// reopening.
	opened, from := m.entry(), m.entries[entryKey{"lv", "lnp"}]
	m, _ = press(t, m, "u")
	if m.sys().Name() != "lv" || m.entry() != from {
		t.Errorf("u after o shows %s, want lv/lnp as before the open", m.sys().Name())
	}
	if m.entries[entryKey{"spring", "lnp"}].model != before {
		t.Error("u after o did not restore the replaced weights")
	}
	m, _ = press(t, m, "shift+tab")
	m.entries[m.key()] = opened

	// A bad file gives a clear error and changes nothing.
	bad := filepath.Join(dir, "junk.safetensors")
	if err := os.WriteFile(bad, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	cur := m.entry()
	m, _ = press(t, m, "o")
	m = typeText(t, m, bad)
	m, _ = press(t, m, "enter")
	if m.msgKind != msgErr || !strings.Contains(m.msg, "cannot open") {
		t.Fatalf("bad file: %q", m.msg)
	}
	if m.entry() != cur {
		t.Error("a bad file replaced the model")
	}
}

func TestPromptEditing(t *testing.T) {
	p := newPrompt(promptOpen, "ab", "")
	p = p.edit(keyMsg("c"))
	p = p.edit(keyMsg("backspace"))
	p = p.edit(keyMsg("backspace"))
	if got := p.path(); got != "a" {
		t.Fatalf("edited value %q, want a", got)
	}
	p = p.edit(keyMsg("ctrl+u"))
	if p.path() != "" {
		t.Fatal("ctrl+u did not clear")
	}
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = send(t, m, tea.PasteMsg{Content: "/some/file.safetensors\n"})
	if got := m.prompt.path(); got != "/some/file.safetensors" {
		t.Fatalf("pasted %q", got)
	}
	dir := t.TempDir()
	for _, n := range []string{"apic-one.safetensors", "apic-two.safetensors", "other.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p = newPrompt(promptOpen, filepath.Join(dir, "ap"), "")
	p, read := p.tab(1)
	p = p.completed(read().(completedMsg))
	if got := p.path(); got != filepath.Join(dir, "apic-") {
		t.Fatalf("tab completed to %q", got)
	}
	// The names left to choose from show in place of the hint, until
	// the next key.
	if v := p.view(120, plainTheme); !strings.Contains(v, "2 matches: apic-one.safetensors  apic-two.safetensors") {
		t.Errorf("prompt after an ambiguous tab: %q", v)
	}
	if p = p.edit(keyMsg("o")); len(p.matches) != 0 || !strings.Contains(p.view(120, plainTheme), "tab complete") {
		t.Error("the matches outlived the next key")
	}
}

// TestUndoOpenOfAnotherModel: a file of another system or backbone
// opened over the one on screen goes back to it with u (system,
// backbone and model), as the open's message promises, also where that
// system and backbone had no model yet.
func TestUndoOpenOfAnotherModel(t *testing.T) {
	for _, to := range []entryKey{{"lv", "cnp"}, {"spring", "anp"}} {
		t.Run(to.system+"-"+to.backbone, func(t *testing.T) {
			m := newTest(t, "spring", 80, 24)
			before := m.entry()
			sys, err := sims.Lookup(to.system)
			if err != nil {
				t.Fatal(err)
			}
			model, err := core.NewModel(core.DefaultConfig(sys, core.Backbone(to.backbone)))
			if err != nil {
				t.Fatal(err)
			}
			nm, cmd := m.Update(openedMsg{path: "other.safetensors", gen: m.openGen, model: model})
			m, _ = run(t, nm.(Model), cmd)
			if m.key() != to || m.entry().model != model || !strings.Contains(m.msg, "u goes back") {
				t.Fatalf("after the open: %v, message %q", m.key(), m.msg)
			}
			if !m.keysNow().Undo.Enabled() {
				t.Error("the short help leaves out the u the message promises")
			}
			m, _ = press(t, m, "u")
			if m.key() != (entryKey{"spring", "lnp"}) || m.entry() != before || m.res == nil {
				t.Fatalf("after u: %v (same model %v, result %v), message %q; want spring/lnp as before the open",
					m.key(), m.entry() == before, m.res != nil, m.msg)
			}
			if !strings.Contains(m.msg, "back to spring/lnp") {
				t.Errorf("message after u: %q", m.msg)
			}
			// The file is undone on its own system and backbone too.
			if e := m.entries[to]; e != nil && e.model == model {
				t.Errorf("%v still shows the undone file", to)
			}
			if m, _ = press(t, m, "u"); !strings.Contains(m.msg, "nothing to undo") {
				t.Errorf("a second u: %q, want nothing to undo", m.msg)
			}
		})
	}
}

// TestEscWithNothingToStop: the training box's hint says "esc stops",
// and esc with no run stopped nothing and said nothing. It says so now.
// Over baseline fits esc stops them (TestEscStopsBaselines).
func TestEscWithNothingToStop(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "esc")
	if !strings.Contains(m.msg, "no training run to stop") {
		t.Errorf("esc at rest: %q, want it to say there is no run to stop", m.msg)
	}
}

// TestEscStopsBaselines: esc over running baseline fits cancels their
// context, so that the work ends, and says which it stopped. A fit
// that ended stays on screen, the stopped ones' rows say so, and a
// result that comes back late is dropped; with nothing to show the
// baselines are cleared and c runs them again at once.
func TestEscStopsBaselines(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	ctx := m.base.ctx
	m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
	late := fakeBaseline(m, m.base.gen, 2, 1.2)
	m, _ = pressNoRun(t, m, "esc")
	if ctx.Err() == nil {
		t.Fatal("esc left the fits' context live: their work goes on")
	}
	if m.base.running() || !m.base.active || m.base.runs[0].pred == nil {
		t.Fatalf("after esc: running %v, active %v, koh-gp %+v; want stopped, koh-gp kept", m.base.running(), m.base.active, m.base.runs[0])
	}
	if want := "baselines stopped: bcpi, cpinn · koh-gp kept · " + baseDoneNote; m.msg != want {
		t.Errorf("status %q, want %q", m.msg, want)
	}
	m = send(t, m, late)
	if m.base.runs[2].pred != nil {
		t.Error("a fit's result that came back after esc was recorded")
	}
	frame := ansi.Strip(m.render())
	for _, want := range []string{"cpinn  stopped (esc)", "bcpi   stopped (esc)", "cpinn stopped"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "✗") || m.msgKind == msgErr {
		t.Errorf("a stop reads as a failure:\n%s", frame)
	}

	m = newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	ctx = m.base.ctx
	m, _ = pressNoRun(t, m, "esc")
	if ctx.Err() == nil || m.base.active {
		t.Fatalf("esc with no fit ended: context live %v, active %v; want cancelled and cleared", ctx.Err() == nil, m.base.active)
	}
	if want := "baselines stopped: koh-gp, bcpi, cpinn · c runs them again"; m.msg != want {
		t.Errorf("status %q, want %q", m.msg, want)
	}
	m, started := pressNoRun(t, m, "c")
	defer m.base.cancel()
	if !started || !m.base.running() {
		t.Error("c after esc did not run the baselines again")
	}
}

// TestEscStopsTrainingBeforeBaselines: with a run training beside the
// fits, esc stops the run first, and the fits' note does not say that
// esc stops them; esc again does.
func TestEscStopsTrainingBeforeBaselines(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, cmds := startRun(t, m)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	if !strings.HasPrefix(m.msg, baseAgainNoteTraining) {
		t.Errorf("c while a run trains: %q, want it to start %q", m.msg, baseAgainNoteTraining)
	}
	ctx := m.base.ctx
	m, _ = pressNoRun(t, m, "esc")
	if !m.run.stopping || ctx.Err() != nil {
		t.Fatalf("esc: run stopping %v, fits cancelled %v; want the run stopped first", m.run.stopping, ctx.Err() != nil)
	}
	m, _ = pressNoRun(t, m, "esc")
	if ctx.Err() == nil || !strings.HasPrefix(m.msg, "baselines stopped: ") {
		t.Errorf("esc again: fits cancelled %v, message %q", ctx.Err() != nil, m.msg)
	}
	run(t, m, tea.Batch(cmds...))
}

func TestUndoKey(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "u")
	if !strings.Contains(m.msg, "nothing to undo") {
		t.Fatalf("u with nothing to undo: %q", m.msg)
	}
	// A note on what a key did goes when the next key acts.
	if next, _ := press(t, m, "j"); strings.Contains(next.msg, "nothing to undo") {
		t.Errorf("after j the message still reads %q", next.msg)
	}
	// Weights trained here and saved in no file: u asks first, as q
	// does; any other key calls it off, and u again drops them.
	old := m.entry()
	newer := &entry{model: old.model, src: srcTrained, prev: old}
	m.entries[m.key()] = newer
	m, _ = press(t, m, "u")
	if m.entry() != newer || m.msgKind != msgWarn || !strings.Contains(m.msg, "u again drops them, s saves them") {
		t.Fatalf("u over unsaved trained weights: entry dropped %v, message %q", m.entry() != newer, m.msg)
	}
	m, _ = press(t, m, "j", "u")
	if m.entry() != newer {
		t.Fatal("u after another key dropped the unsaved weights without asking")
	}
	m, _ = press(t, m, "u")
	if m.entry() != old {
		t.Fatal("u again did not restore the previous weights")
	}
	// Saved, they are in a file: u drops them at once.
	newer.saved = "x.safetensors"
	m.entries[m.key()] = newer
	if m, _ = press(t, m, "u"); m.entry() != old {
		t.Fatal("u over saved weights asked")
	}
}

func TestResizeTooSmallAndBack(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	m, _ = press(t, m, "v")
	for _, sz := range [][2]int{{20, 5}, {1, 1}, {0, 0}, {79, 24}, {80, 21}} {
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		frame := m.render()
		if sz[0] >= 1 && sz[1] >= 1 {
			frameOK(t, frame, sz[0], sz[1])
		}
		if sz[0] >= 20 && !strings.Contains(frame, "too small") {
			t.Errorf("%dx%d: no too-small screen:\n%s", sz[0], sz[1], frame)
		}
	}
	for _, sz := range [][2]int{{80, 24}, {80, 22}, {160, 48}, {119, 40}, {200, 60}} {
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		frameOK(t, m.render(), sz[0], sz[1])
	}
}

// TestTooSmallIgnoresKeys: behind the "too small" screen keys change
// nothing the user cannot see; q still quits.
func TestTooSmallIgnoresKeys(t *testing.T) {
	m := newTest(t, "spring", 40, 10)
	m, quit := press(t, m, "tab", "b", "r", "t")
	if quit || m.sys().Name() != "spring" || m.backbone.value() != "lnp" || m.run != nil {
		t.Errorf("keys acted behind the too-small screen: system %s, backbone %s, training %v", m.sys().Name(), m.backbone.value(), m.run != nil)
	}
	if _, quit := press(t, m, "q"); !quit {
		t.Error("q did not quit from the too-small screen")
	}
}

func TestFramesFitEverySystemAndSize(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m := newTest(t, sys, 80, 24)
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 36}, {160, 48}} {
			m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			frameOK(t, m.render(), sz[0], sz[1])
			m2, _ := press(t, m, "?")
			frameOK(t, m2.render(), sz[0], sz[1])
		}
	}
}

func TestRefinesWhenControlsRest(t *testing.T) {
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: time.Millisecond, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = run(t, m, m.Init())
	want := m.entry().model.Config.Infer.Refine
	if want == 0 {
		t.Skip("the default model does not refine")
	}
	if m.res.refined != want || !strings.Contains(m.render(), "refined") {
		t.Fatalf("refined %d steps, want %d", m.res.refined, want)
	}
	// A slider move shows the one-pass answer first, then refines again.
	m = focusOn(t, m, ctlContext)
	nm, cmd := m.Update(keyMsg("right"))
	m = nm.(Model)
	m = send(t, m, cmd())
	if m.res.refined != 0 || m.res.task.Context.Len() <= 30 {
		t.Fatalf("first answer after a move: refined %d, context %d", m.res.refined, m.res.task.Context.Len())
	}
	m, _ = press(t, m, "right")
	if m.res.refined != want {
		t.Fatalf("not refined after the controls rested")
	}
	// With θ set by hand, the estimate beside it is the refined one, as
	// before the override: setting θ does not move θ̂.
	est := slices.Clone(m.res.est)
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right")
	if !m.overridden() || m.res.refined != want || !slices.Equal(m.res.est, est) {
		t.Fatalf("θ set by hand: refined %d, estimate %v, want %d steps and the estimate %v", m.res.refined, m.res.est, want, est)
	}
	if !strings.Contains(m.render(), "θ set by hand") {
		t.Error("the metrics title does not say θ is set by hand")
	}
}

// TestFullHelpListsEveryKey: the ? help lists the training keys before
// any run, says what λθ, λδ and the regularisers weigh, and describes
// the panels of the view on screen.
func TestFullHelpListsEveryKey(t *testing.T) {
	m := newTest(t, "advdiff", 120, 40)
	m, _ = press(t, m, "?")
	frame := m.render()
	for _, want := range []string{"esc", "stop training", "undo last training, open or atlas model", "ctrl+c"} {
		if !strings.Contains(frame, want) {
			t.Errorf("full help lacks %q", want)
		}
	}
	// The panels follow the controls, a scroll down at this size.
	if whole := strings.Join(helpAt(m, 120), "\n"); !strings.Contains(whole, "1 simulator F(x; θ̂)") {
		t.Errorf("full help lacks the panels:\n%s", whole)
	}
	// At the smallest size the keys show, and the controls' notes a few
	// lines down.
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		small := newTest(t, sys, 80, 24)
		small, _ = press(t, small, "?")
		keys := small.render()
		small, _ = press(t, small, "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down", "down")
		if f := small.render(); !strings.Contains(f, "train mode: fine-tune") || !strings.Contains(f, "λδ·L_δ") || !strings.Contains(keys, "q quit") {
			t.Errorf("%s at 80×24: the full help lost its keys or controls:\n%s\n%s", sys, keys, f)
		}
	}
	m, _ = press(t, m, "?", "v", "?")
	if whole := strings.Join(helpAt(m, 120), "\n"); !strings.Contains(whole, "1 ground truth G(t, x)") || strings.Contains(whole, "1 simulator F(x; θ̂)") {
		t.Error("the full help over the heatmaps describes the slice panels")
	}
}

// TestLongMessageWraps: an error too long for the status line goes on
// onto the third line, so its end (the cause) stays readable, and the
// frame keeps its size; other messages are cut.
func TestLongMessageWraps(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.setMsg(msgErr, "cannot open /home/someone/experiments/2026/spring/checkpoints/run-17.safetensors: header length 4294967295 exceeds the file")
	frame := m.render()
	frameOK(t, frame, 80, 24)
	lines := strings.Split(frame, "\n")
	if !strings.Contains(lines[2], "exceeds the file") {
		t.Errorf("the message's end is not on the third line:\n%s\n%s\n%s", lines[0], lines[1], lines[2])
	}
	// What the third line shows of a message too long for two is the
	// start of what the second left and the message's very end, not
	// the end of a re-spaced copy.
	long := "cannot open this file: /home/someone/experiments/2026/spring/checkpoints/run-17/with/a/long/name/in/many/parts.safetensors"
	m.setMsg(msgErr, "%s", long)
	lines = strings.Split(m.render(), "\n")
	second := strings.TrimSpace(lines[1][strings.Index(lines[1], "cannot"):])
	head, tail, ok := strings.Cut(strings.TrimSpace(lines[2]), "…") // inside a path, no space after it
	if !ok || !strings.HasPrefix(long, second+head) || !strings.HasSuffix(long, tail) {
		t.Errorf("third line %q does not go on from %q and keep the message's end", lines[2], second)
	}
	// A path split between the lines comes through whole: no spaces put
	// into it.
	path := "/home/someone/exp/spring/model-with-a-long-name.safetensors"
	m.setMsg(msgErr, "cannot open %s: no such file", path)
	lines = strings.Split(m.render(), "\n")
	joined := strings.TrimSpace(lines[1][strings.Index(lines[1], "cannot"):]) + strings.TrimSpace(lines[2])
	if !strings.Contains(joined, path) {
		t.Errorf("the path did not survive the wrap:\n%s\n%s", lines[1], lines[2])
	}
	m.setMsg(msgInfo, "%s", strings.Repeat("a long progress note ", 8))
	if lines = strings.Split(m.render(), "\n"); strings.Contains(lines[2], "progress") {
		t.Error("a long info message took a third line; only errors wrap")
	}
	m.setMsg(msgInfo, "short")
	if lines = strings.Split(m.render(), "\n"); strings.Contains(lines[2], "short") || !strings.Contains(lines[1], "short") {
		t.Error("a short message does not stay on the status line")
	}
}

// TestHelpShowsCutMessage: an error the status line cuts (its middle
// elided at 80×24) is whole in the ? help, under the header; one the
// line shows whole is not repeated there.
func TestHelpShowsCutMessage(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	long := "cannot open README.md: not a safetensors file (its first 8 bytes give a header length of 723499994654515235, above the 100000000-byte limit) and a few more words to be sure"
	m.setMsg(msgErr, "%s", long)
	noSpace := strings.NewReplacer(" ", "")
	lines, cut := m.headerCut()
	header := strings.Join(lines, "\n")
	if !cut || strings.Contains(noSpace.Replace(header), noSpace.Replace(long)) {
		t.Fatalf("the status line shows all of the message; the test needs a longer one:\n%s", header)
	}
	m, _ = press(t, m, "?")
	frame := m.render()
	frameOK(t, frame, 80, 24)
	body := strings.Join(strings.Split(frame, "\n")[len(m.header()):], "")
	if !strings.Contains(noSpace.Replace(body), noSpace.Replace(long)) {
		t.Errorf("the help does not show the whole message:\n%s", frame)
	}
	m.setMsg(msgErr, "cannot open x: no such file or directory")
	_, cut = m.headerCut()
	if frame = m.render(); cut || strings.Contains(frame, "in full; the status line cuts it") {
		t.Errorf("the help repeats a message the status line shows whole:\n%s", frame)
	}
}

// TestOpenErrorWording: a failed open reads "cannot open PATH: cause",
// without the loader's "load checkpoint:" or an os error's "open PATH:"
// (or "read PATH:", for a directory) saying it again, so that at 80 columns the room goes to the cause.
func TestOpenErrorWording(t *testing.T) {
	dir := t.TempDir()
	// A text file's first 8 bytes read as an absurd header length.
	text := filepath.Join(dir, "README.md")
	if err := os.WriteFile(text, []byte("# apic — amortized physics calibration\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A safetensors file with no tensors is read, then refused as a model.
	empty := filepath.Join(dir, "empty.safetensors")
	if err := os.WriteFile(empty, []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nosuch.safetensors")
	// A directory is refused unopened, as not a regular file.
	sub := filepath.Join(dir, "apic")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	causes := map[string]string{text: "not a checkpoint (safetensors) file: ", empty: "not an apic checkpoint", missing: "no such file or directory", sub: "a directory, not a regular file"}
	for path, cause := range causes {
		m := newTest(t, "spring", 80, 24)
		m, _ = press(t, m, "o")
		m = typeText(t, m, path)
		m, _ = press(t, m, "enter")
		if want := "cannot open " + path + ": " + cause; m.msgKind != msgErr || !strings.HasPrefix(m.msg, want) {
			t.Errorf("opening %s: %q, want it to start %q", filepath.Base(path), m.msg, want)
		}
		if strings.Count(m.msg, path) != 1 || strings.Contains(m.msg, "load checkpoint") {
			t.Errorf("opening %s: %q repeats the path or the loader's wrapping", filepath.Base(path), m.msg)
		}
	}
}

// TestCheckpointOptionTakesEmbeddedNames: --checkpoint embedded:NAME
// opens a shipped file, as the other commands' flags do; an unknown name
// is an error listing the shipped ones.
func TestCheckpointOptionTakesEmbeddedNames(t *testing.T) {
	m, err := New(Options{Checkpoint: "embedded:lv-cnp.safetensors", SaveDir: t.TempDir(), RefineDelay: -1, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	if m.sys().Name() != "lv" || m.backbone.value() != "cnp" {
		t.Errorf("opened %s/%s, want lv/cnp", m.sys().Name(), m.backbone.value())
	}
	_, err = New(Options{Checkpoint: "embedded:nosuch.safetensors", SaveDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "spring-lnp.safetensors") {
		t.Errorf("unknown embedded name: %v, want an error listing the shipped files", err)
	}
}

// TestSaveRefusesDirectory: a save path that is an existing directory
// is refused as not a regular file, and the message offers a free name
// in it; the save used to put the file there under that name unasked.
// Nothing is written, in it or beside it as DIR.safetensors; a path
// ending in a separator that is no directory says so.
func TestSaveRefusesDirectory(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir := filepath.Join(t.TempDir(), "experiments", "models")
	if err := os.Mkdir(filepath.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, typed := range []string{dir, dir + string(filepath.Separator)} {
		m, _ = press(t, m, "s", "ctrl+u")
		m = typeText(t, m, typed)
		m, _ = press(t, m, "enter")
		want := "save failed: " + typed + " is a directory, not a regular file; give a file name such as " + filepath.Join(dir, "apic-spring-lnp-1.safetensors")
		if m.msgKind != msgErr || m.msg != want {
			t.Errorf("saving to %s: %q, want %q", typed, m.msg, want)
		}
	}
	if _, err := os.Stat(dir + ".safetensors"); err == nil {
		t.Error("the save wrote DIR.safetensors beside the directory")
	}
	if names := dirNamesOf(t, dir); len(names) != 0 {
		t.Errorf("the directory holds %v, want nothing saved", names)
	}
	m, _ = press(t, m, "s", "ctrl+u")
	missing := filepath.Join(dir, "nosuch") + string(filepath.Separator)
	m = typeText(t, m, missing)
	m, _ = press(t, m, "enter")
	if want := "save failed: directory " + filepath.Join(dir, "nosuch") + " does not exist"; m.msg != want {
		t.Errorf("saving into a missing directory %s: %q, want %q", missing, m.msg, want)
	}
}

// dirNamesOf lists the names in dir.
func dirNamesOf(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestSharedRangePanelsKeepTicks: panels 1 and 3 share a range, so they
// draw it with the same ticks however long panel 2's legend grows (with
// θ set by hand it needs two lines at 120×36, and panel 1 used to give
// up a plot row for it, its ticks then differing from panel 3's).
func TestSharedRangePanelsKeepTicks(t *testing.T) {
	for _, size := range [][2]int{{120, 36}, {80, 24}} {
		m := newTest(t, "lv", size[0], size[1])
		m = focusOn(t, m, ctlTheta)
		m, _ = press(t, m, "right", "right", "right")
		if !m.overridden() {
			t.Fatal("θ not set by hand")
		}
		tick := regexp.MustCompile(`^\s*(-?[0-9.]+) [┤┼]`)
		ticks := func(frame, title string) []string {
			var out []string
			in := false
			for _, l := range strings.Split(frame, "\n") {
				if strings.HasPrefix(l, title) {
					in = true
					continue
				}
				if !in {
					continue
				}
				g := tick.FindStringSubmatch(l)
				if g == nil {
					break
				}
				out = append(out, g[1])
			}
			return out
		}
		p1 := ticks(m.render(), "1 simulator")
		if m.width < bigWidth || m.height < bigHeight {
			m, _ = press(t, m, "p")
		}
		p3 := ticks(m.render(), "3 corrected")
		if len(p1) == 0 || strings.Join(p1, " ") != strings.Join(p3, " ") {
			t.Errorf("%dx%d: panel 1's ticks %v, panel 3's %v", size[0], size[1], p1, p3)
		}
	}
}

// TestSliceNoteNeverCut: on advdiff every line plot's title keeps its
// slice time whole at every slice, θ estimated or set by hand (panel 2's
// title used to end "vs true δ at t=0.09…" at 120×36).
func TestSliceNoteNeverCut(t *testing.T) {
	for _, size := range [][2]int{{120, 36}, {120, 40}, {160, 48}, {80, 24}} {
		for _, byHand := range []bool{false, true} {
			m := newTest(t, "advdiff", size[0], size[1])
			m.heat = false
			if byHand {
				m = focusOn(t, m, ctlTheta)
				m, _ = press(t, m, "right")
			}
			panels := 4
			if m.width < bigWidth || m.height < bigHeight {
				panels = 2
			}
			for m.slice = 0; m.slice < m.sys().Grid().Shape[0]; m.slice++ {
				note := " at " + sliceTime(m.sys().Grid().States[m.slice*m.axis().n][0])
				frame := m.render()
				if n := strings.Count(frame, note+" ") + strings.Count(frame, note+"\n") + strings.Count(frame, note+"│"); n != panels {
					t.Fatalf("%dx%d (θ by hand %v), slice %d: %d titles end %q, want %d:\n%s",
						size[0], size[1], byHand, m.slice, n, note, panels, frame)
				}
			}
		}
	}
}

// TestSliceTitleMatchesControl: the panels' titles name the time slice
// as the time slice control does, at every slice: the titles wrote
// "t=0" and "t=0.0159" beside the control's "t=0.000" and "t=0.016".
func TestSliceTitleMatchesControl(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	m.heat = false
	m = focusOn(t, m, ctlSlice)
	for m.slice = 0; m.slice < m.sys().Grid().Shape[0]; m.slice++ {
		var title, control string
		for _, l := range strings.Split(m.render(), "\n") {
			if _, after, ok := strings.Cut(l, " at t="); ok && title == "" {
				title, _, _ = strings.Cut(after, " ")
			}
			if _, after, ok := strings.Cut(l, "time slice"); ok {
				_, control, _ = strings.Cut(after, "t=")
				control, _, _ = strings.Cut(control, " ")
			}
		}
		if title == "" || title != control {
			t.Fatalf("slice %d: title's t=%q, the control's t=%q", m.slice, title, control)
		}
	}
}

// TestStatusDropsStaleMessages: setting θ by hand after a takes back a's
// "θ back to the estimate" (the status line used to keep it), and on a
// 1-D system the time-slice keys say that they are for advdiff instead
// of leaving the previous message.
func TestStatusDropsStaleMessages(t *testing.T) {
	m := newTest(t, "lv", 120, 36)
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right", "a")
	if !strings.Contains(m.render(), "θ back to the estimate") {
		t.Fatalf("a did not say θ is back to the estimate: %q", m.msg)
	}
	m, _ = press(t, m, "right")
	if !m.overridden() {
		t.Fatal("θ not set by hand again")
	}
	if frame := m.render(); strings.Contains(frame, "back to the estimate") {
		t.Errorf("θ set by hand, yet the status line says it is back to the estimate:\n%s", frame)
	}
	for _, k := range []string{"[", "]", "{", "}"} {
		m, _ = press(t, m, "r")
		m, _ = press(t, m, k)
		if strings.Contains(m.msg, "new realization") || !strings.Contains(m.msg, "advdiff") || !strings.Contains(m.render(), "are for systems on a (t, x) grid") {
			t.Errorf("%s on lv: status %q, want it to say slices are for advdiff", k, m.msg)
		}
	}
}

// TestHelpSaysFullContextHasNoTargets: at the largest context (every
// grid point) the help's apic eval and diagnose commands would be
// refused, and the help says so, within 80 columns; below it, not.
func TestHelpSaysFullContextHasNoTargets(t *testing.T) {
	for _, sys := range []string{"lv", "advdiff"} {
		m := newTest(t, sys, 80, 24)
		note := "need a context that leaves targets"
		if strings.Contains(strings.Join(helpAt(m, 80), "\n"), note) {
			t.Errorf("%s at context %v: the help says no targets are left", sys, m.ctxSteps[sys].value())
		}
		m = focusOn(t, m, ctlContext)
		for range 40 {
			m, _ = press(t, m, "right")
		}
		if got, want := int(m.ctxSteps[sys].value()), m.sys().Grid().Points(); got != want {
			t.Fatalf("%s: context %d, want every grid point (%d)", sys, got, want)
		}
		lines := helpAt(m, 80)
		found := false
		for _, l := range lines {
			if w := displayWidth(l); w > 80 {
				t.Errorf("%s: help line %d columns wide: %q", sys, w, l)
			}
			found = found || strings.Contains(l, note)
		}
		if !found {
			t.Errorf("%s at context %d: the help does not say the commands need targets:\n%s", sys, m.sys().Grid().Points(), strings.Join(lines, "\n"))
		}
		m, _ = press(t, m, "?")
		frameOK(t, m.render(), 80, 24)
	}
}

// TestHelpExplainsCutIntervals: the sidebar's averages and the ablation
// read "mean [lo,hi]" or "mean ≤hi" where an interval is cut at a
// metric's bound; without a word in the help "≤.008" reads as a bound
// on the mean, not as the interval's upper end.
func TestHelpExplainsCutIntervals(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	help := strings.Join(helpAt(m, 80), "\n")
	for _, want := range []string{"[lo,hi]", "≤hi", "≥lo"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help does not explain %q:\n%s", want, help)
		}
	}
	for _, l := range helpAt(m, 80) {
		if w := displayWidth(l); w > 80 {
			t.Errorf("help line %d columns wide: %q", w, l)
		}
	}
}

// TestSliceKeptPerSystem: advdiff's time slice survives a round trip
// through another system, as the context size does.
func TestSliceKeptPerSystem(t *testing.T) {
	m := newTest(t, "advdiff", 100, 30)
	m, _ = press(t, m, "]", "]", "]")
	s := m.slice
	m, _ = press(t, m, "tab", "shift+tab")
	if m.sys().Name() != "advdiff" {
		t.Fatalf("tab, shift+tab ended on %s", m.sys().Name())
	}
	if m.slice != s {
		t.Errorf("slice after leaving and returning: %d, want %d", m.slice, s)
	}
}

// TestThetaKeptPerSystem: θ set by hand survives a round trip through
// another system, as the context size does, and a backbone switch and a
// new realization; each system keeps its own, and a clears them for
// good.
func TestThetaKeptPerSystem(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right", "right", "right")
	want := m.theta[0]
	if !want.set {
		t.Fatal("→ on ω set nothing")
	}
	m, _ = press(t, m, "tab")
	if m.sys().Name() != "lv" || m.overridden() {
		t.Fatalf("tab: on %s with θ overridden %v, want lv on its estimate", m.sys().Name(), m.overridden())
	}
	m = focusOn(t, m, ctlTheta+1)
	m, _ = press(t, m, "left")
	lvWant := m.theta[1]
	m, _ = press(t, m, "shift+tab")
	checkTheta := func(after string, i int, want thetaControl) {
		t.Helper()
		if got := m.theta[i]; got != want {
			t.Fatalf("%s: %s θ row %d %+v, want %+v", after, m.sys().Name(), i, got, want)
		}
		if got := m.res.pred.Theta[i]; got != want.value {
			t.Fatalf("%s: the prediction used θ = %v, want the set %v", after, got, want.value)
		}
	}
	checkTheta("tab, shift+tab", 0, want)
	m, _ = press(t, m, "b")
	checkTheta("b", 0, want)
	m, _ = press(t, m, "r")
	checkTheta("r", 0, want)
	m, _ = press(t, m, "tab")
	checkTheta("back on lv", 1, lvWant)
	m, _ = press(t, m, "shift+tab", "a", "tab", "shift+tab")
	if m.overridden() {
		t.Errorf("θ set by hand is back after a and a round trip: %+v", m.theta)
	}
}

// TestKeyNotesGo: a note on what a key did goes when the next key acts,
// where it would read as about that key: "heatmaps are for …" stayed
// after p, "θ back to the estimate θ̂" while the context moved,
// "cancelled" after the save prompt had closed, "baselines cleared"
// through the ablation view. The help does not take it off.
func TestKeyNotesGo(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys       []string // the last sets the note
		note, next string
	}{
		{"heatmaps", []string{"v"}, "heatmaps are for", "p"},
		{"theta", []string{"a"}, thetaAutoMsg, "right"},
		{"cancelled", []string{"s", "esc"}, "cancelled", "right"},
		{"baselines", []string{"c", "c"}, "baselines cleared", "A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTest(t, "spring", 100, 30)
			// On the context, where a key moves it and A sweeps it; θ
			// set by hand for a to put back.
			m = focusOn(t, m, ctlContext)
			m.theta[0].set = true
			for _, k := range tc.keys {
				m, _ = pressNoRun(t, m, k)
			}
			if !strings.Contains(m.msg, tc.note) {
				t.Fatalf("after %v: message %q, want %q", tc.keys, m.msg, tc.note)
			}
			if m, _ = pressNoRun(t, m, "?"); !strings.Contains(m.msg, tc.note) {
				t.Errorf("? took the note off")
			}
			m, _ = pressNoRun(t, m, "?")
			if m, _ = pressNoRun(t, m, tc.next); strings.Contains(m.msg, tc.note) {
				t.Errorf("after %s the note stays: %q", tc.next, m.msg)
			}
			if m.base.cancel != nil {
				m.base.cancel()
			}
		})
	}
}

// TestAutoThetaSaysWhenNothingWasSet: a with no θ set by hand says θ
// is the estimate already and how to set one, rather than nothing.
func TestAutoThetaSaysWhenNothingWasSet(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "a")
	if m.msg != thetaIsAutoMsg {
		t.Errorf("a with θ on its estimate: message %q, want %q", m.msg, thetaIsAutoMsg)
	}
	m.theta[0].set = true
	if m, _ = pressNoRun(t, m, "a"); m.msg != thetaAutoMsg {
		t.Errorf("a with θ set by hand: message %q, want %q", m.msg, thetaAutoMsg)
	}
}

// Once every baseline has ended, the note no longer says c stops them.
func TestBaselineNoteWhenDone(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	for i := range m.base.runs {
		m = send(t, m, fakeBaseline(m, m.base.gen, i, 1.1))
	}
	if strings.Contains(m.msg, "stops") || m.msg != baseDoneNote {
		t.Errorf("all done: message %q, want %q", m.msg, baseDoneNote)
	}
}

// TestHeaderKeepsTheFileName: short of room the header drops the
// system's title, then "checkpoint:", then a file's folders, so that the
// file's name stays whole rather than cut at the end.
func TestHeaderKeepsTheFileName(t *testing.T) {
	for _, tc := range []struct {
		e    entry
		want string
	}{
		{entry{src: srcFile, path: "/tmp/a/b/model.safetensors"}, "file …/model.safetensors"},
		{entry{src: srcFile, path: "embedded:lv-cnp.safetensors"}, "file embedded:lv-cnp.safetensors"},
		{entry{src: srcFile, path: "/x/m.safetensors", saved: "/y/z.safetensors"}, "file …/m.safetensors, saved …/z.safetensors"},
		// The name of a file is whatever it is: ", saved " in it is not
		// the header's own words.
		{entry{src: srcFile, path: "/d/a, saved b/c.safetensors"}, "file …/c.safetensors"},
		{entry{src: srcEmbedded, saved: "/tmp/long/dir/a.safetensors"}, "embedded, saved …/a.safetensors"},
		{entry{src: srcTrained, saved: "/t/b.safetensors"}, "trained here, saved …/b.safetensors"},
		{entry{src: srcTrained}, "trained here (unsaved)"},
		{entry{src: srcEmbedded}, "embedded"},
	} {
		if got := tc.e.shortSourceText(plainTheme); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
	m, err := New(Options{Checkpoint: "embedded:lv-cnp.safetensors", SaveDir: t.TempDir(), RefineDelay: -1, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if h := m.header()[0]; !strings.Contains(h, "file embedded:lv-cnp.safetensors") || strings.Contains(h, "…") {
		t.Errorf("80 columns: %q", h)
	}
}

// TestHelpExplainsSpringBaselines: on spring, where KOH-GP's θ̂ runs to
// the prior's edge (docs/baselines.md), the help says it is the expected
// failure, so that a class does not read it as a broken baseline; other
// systems' help does not.
func TestHelpExplainsSpringBaselines(t *testing.T) {
	const want = "koh-gp's θ̂ often runs to the prior's edge"
	for sys, has := range map[string]bool{"spring": true, "lv": false} {
		m := newTest(t, sys, 80, 24)
		help := strings.Join(helpAt(m, 80), "\n")
		if strings.Contains(help, want) != has {
			t.Errorf("%s: help mentions the edge: %v, want %v", sys, !has, has)
		}
		for _, l := range helpAt(m, 80) {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("%s: help line of %d cells: %q", sys, w, l)
			}
		}
	}
}

// TestOpenPromptPlaceholderIsAnExample: the open prompt's example path
// reads as one ("e.g. …"), and enter on the empty prompt says how to give
// a path, not only that none was given.
func TestOpenPromptPlaceholderIsAnExample(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	if frame := m.render(); !strings.Contains(frame, "e.g. model.safetensors") {
		t.Errorf("the open prompt's placeholder does not read as an example:\n%s", frame)
	}
	m, _ = press(t, m, "enter")
	if !strings.Contains(m.msg, "no path given: type one (tab completes), or embedded:NAME") {
		t.Errorf("enter on an empty open prompt: %q", m.msg)
	}
}

// TestModeChangeDuringRunSaysNextRun: m while a run goes on changes the
// next run's mode, which the sidebar shows beside a status naming the
// run's own; a note says which is which.
func TestModeChangeDuringRunSaysNextRun(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.run = &trainRun{mode: trainMode(m.mode.value())}
	m, _ = press(t, m, "m")
	want := fmt.Sprintf("train mode %s is the next run's; this one goes on as %s", m.mode.value(), m.run.mode)
	if m.msg != want {
		t.Errorf("m during a run: %q, want %q", m.msg, want)
	}
	// The status line has no room for the note at 80 columns; the
	// sidebar's row says whose mode it is.
	if frame := m.render(); !strings.Contains(frame, "next run's mode") {
		t.Errorf("the sidebar's mode row reads as the run's:\n%s", frame)
	}
	m.run = nil
	if m, _ = press(t, m, "m"); strings.Contains(m.msg, "next run's") {
		t.Errorf("m with no run: %q", m.msg)
	}
}
