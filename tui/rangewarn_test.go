package tui

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// TestRangeWarningOnSliders: moving the context slider below what the
// shipped spring model was trained on puts the warning on the header's
// message line, on one line at 80 columns; moving back takes it off; noise beyond the
// training noise (the slider's largest, 0.5) warns the same way.
func TestRangeWarningOnSliders(t *testing.T) {
	m := newShippedTest(t, 100, 30)
	header := func() string { return strings.Join(m.header(), "\n") }
	if strings.Contains(header(), "trained") {
		t.Fatalf("the test context warns already:\n%s", header())
	}
	r := m.entry().model.TrainingRange()
	context := func() int { return int(m.ctxSteps["spring"].value()) }
	m = focusOn(t, m, ctlContext)
	for context() > r.ContextLo {
		m, _ = press(t, m, "left")
	}
	if context() != r.ContextLo {
		t.Skipf("the context ladder has no rung at the training minimum %d", r.ContextLo)
	}
	if h := header(); strings.Contains(h, "trained") {
		t.Errorf("context %d is inside the training range, yet:\n%s", context(), h)
	}
	m, _ = press(t, m, "left")
	frame := m.render()
	frameOK(t, frame, 100, 30)
	// The shipped spread is recalibrated down to a single point: below
	// the training sizes the intervals hold, the fit is rougher.
	want := fmt.Sprintf("%d points, under the %d–%d trained on: a rougher fit", context(), r.ContextLo, r.ContextHi)
	if !strings.Contains(frame, want) || m.msgKind != msgWarn {
		t.Errorf("context %d: the header lacks %q:\n%s", context(), want, header())
	}
	m, _ = press(t, m, "right")
	if h := header(); strings.Contains(h, "trained on") || !strings.Contains(h, "spring/lnp") {
		t.Errorf("back inside the range, the warning stays (or the model's description is not back):\n%s", h)
	}
	m = topNoise(t, m)
	if h := header(); !strings.Contains(h, "σ 0.5, over the 0.1 trained on: intervals miss the extra noise") {
		t.Errorf("noise 0.5: no warning in the header:\n%s", h)
	}
}

// TestRangeWarningOutlivesMessages: a later message (a model loaded, a
// file opened, an error) does not hide the range warning while the
// sliders stay outside the range; back inside, the message stands alone.
func TestRangeWarningOutlivesMessages(t *testing.T) {
	m := newShippedTest(t, 160, 48)
	m = topNoise(t, m)
	warn := "σ 0.5, over the 0.1 trained on"
	for _, k := range []msgKind{msgInfo, msgErr} {
		m.setMsg(k, "opened embedded:spring-cnp.safetensors")
		h := strings.Join(m.header(), "\n")
		if !strings.Contains(h, "opened embedded:spring-cnp.safetensors") || !strings.Contains(h, warn) {
			t.Errorf("message of kind %d: the header lacks the message or the warning:\n%s", k, h)
		}
		msg, kind := m.shownMsg()
		if kind != max(k, msgWarn) {
			t.Errorf("message of kind %d shown as kind %d", k, kind)
		}
		// An error comes after the warning, on the line below where it
		// is long; a note before it.
		if first := strings.HasPrefix(msg, warn); first != (k == msgErr) {
			t.Errorf("message of kind %d shown as %q", k, msg)
		}
	}
	for range 10 {
		m, _ = press(t, m, "left")
	}
	m.setMsg(msgInfo, "loaded atlas spring λθ=0.5")
	if msg, kind := m.shownMsg(); msg != "loaded atlas spring λθ=0.5" || kind != msgInfo {
		t.Errorf("inside the range: shown %q (kind %d)", msg, kind)
	}
}

// topNoise sets the noise control to the top of its ladder (σ 0.5),
// above the shipped model's training noise.
func topNoise(t *testing.T, m Model) Model {
	t.Helper()
	m = focusOn(t, m, ctlNoise)
	for range 10 {
		m, _ = press(t, m, "right")
	}
	return m
}

// newShippedTest is the explorer on the shipped spring model (whose
// training range the warnings read), at w × h, after Init.
func newShippedTest(t *testing.T, w, h int) Model {
	t.Helper()
	m, err := New(Options{System: "spring", SaveDir: t.TempDir(), RefineDelay: -1, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = run(t, m, m.Init())
	return m
}

// TestShortRangeWarningsAgreeWithCore: the explorer's short warnings
// fire exactly where core's RangeWarnings do, one for one, and each fits
// an 80-column message line beside the idle status.
func TestShortRangeWarningsAgreeWithCore(t *testing.T) {
	m := newShippedTest(t, 80, 24)
	model := m.entry().model
	r := model.TrainingRange()
	for _, n := range []int{1, r.ContextLo - 1, r.ContextLo, r.ContextHi, r.ContextHi + 1, 1000} {
		for _, noise := range []float64{0, r.NoiseHi, r.NoiseHi * 1.5, 0.5} {
			short := shortRangeWarnings(r, n, noise)
			long := model.RangeWarnings(n, noise)
			if len(short) != len(long) {
				t.Errorf("context %d, σ %g: %q against core's %q", n, noise, short, long)
			}
			for _, w := range short {
				if width := len([]rune("● idle  │  " + w)); width > 80 {
					t.Errorf("%q takes %d columns beside the status", w, width)
				}
			}
		}
	}
	want := []string{"3 points, under the 5–60 trained on: intervals too narrow", "σ 0.02, trained noise-free: intervals miss the noise"}
	if w := shortRangeWarnings(core.TrainingRange{ContextLo: 5, ContextHi: 60}, 3, 0.02); !slices.Equal(w, want) {
		t.Errorf("a noise-free range: %q, want %q", w, want)
	}
	if w := bothOutside(core.TrainingRange{ContextLo: 15, ContextHi: 100, NoiseHi: 0.1}, 1, 0.5); w != "1 point, σ 0.5: beyond training (15–100 points, σ ≤ 0.1)" {
		t.Errorf("both outside: %q", w)
	}
	recal := core.TrainingRange{ContextLo: 5, ContextHi: 60, CalibratedLo: 2, CalibratedHi: 100}
	if w := shortRangeWarnings(recal, 100, 0); !slices.Equal(w, []string{"100 points, over the 5–60 trained on: an extrapolated fit"}) {
		t.Errorf("recalibrated up to 100, context 100: %q", w)
	}
	if w := shortRangeWarnings(recal, 101, 0); !slices.Equal(w, []string{"101 points, over the 5–60 trained on: spread extrapolated"}) {
		t.Errorf("recalibrated up to 100, context 101: %q", w)
	}
	if w := shortRangeWarnings(recal, 2, 0); !slices.Equal(w, []string{"2 points, under the 5–60 trained on: a rougher fit"}) {
		t.Errorf("recalibrated down to 2, context 2: %q", w)
	}
	if w := shortRangeWarnings(recal, 1, 0); !slices.Equal(w, []string{"1 point, under the 5–60 trained on: intervals too narrow"}) {
		t.Errorf("recalibrated down to 2, context 1: %q", w)
	}
}

// TestBothOutsideOnOneLine: a context size and a noise both outside the
// training range give one warning that fits the message line at 80
// columns, not two side by side that wrap.
func TestBothOutsideOnOneLine(t *testing.T) {
	m := newShippedTest(t, 80, 24)
	m = focusOn(t, m, ctlContext)
	for range 20 {
		m, _ = press(t, m, "left")
	}
	m = topNoise(t, m)
	r := m.entry().model.TrainingRange()
	want := bothOutside(r, int(m.ctxSteps["spring"].value()), m.noise.value())
	frame := m.render()
	frameOK(t, frame, 80, 24)
	if !strings.Contains(frame, want) {
		t.Errorf("the frame lacks %q on one line:\n%s", want, frame)
	}
}

// TestQuitWarningBeforeRangeWarning: beside a training status, which
// leaves the message the line below alone, the quit warning with the
// noise outside the training range still ends in the key that quits;
// after the range warning, that end was the part cut.
func TestQuitWarningBeforeRangeWarning(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := newShippedTest(t, w, 40)
		base := runtime.NumGoroutine()
		m = topNoise(t, m)
		m, cmds := startRun(t, m)
		m.prog = &core.Progress{Stage: 1, Step: 891, Steps: 3000, StageETA: 7 * time.Second}
		m, _ = press(t, m, "q")
		lines, _ := m.headerCut()
		if below := ansi.Strip(lines[2]); !strings.Contains(below, "unsaved: spring/lnp · esc stops it, then s saves · q again quits") {
			t.Errorf("at %d columns the quit warning is cut:\n%s\n%s", w, ansi.Strip(lines[1]), below)
		}
		m, _ = press(t, m, "esc")
		run(t, m, tea.Batch(cmds...))
		settle(t, base)
	}
}
