package cli

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"apic/core"
)

// verdictTestDiagnostics is axesTestDiagnostics with parameters v and
// kappa, kappa's 95% intervals covering half the truths, and warnings.
func verdictTestDiagnostics(warnings ...string) core.Diagnostics {
	d := axesTestDiagnostics()
	d.Theta[0].Name, d.Theta[1].Name = "v", "kappa"
	d.Theta[0].Cover95, d.Theta[1].Cover95 = 0.95, 0.5
	d.Warnings = warnings
	return d
}

// diagnosticsFigureStrings is every string the diagnostics figure of d
// draws, in the order drawn.
func diagnosticsFigureStrings(t *testing.T, d core.Diagnostics) []string {
	t.Helper()
	fig, err := layoutDiagnosticsFigure(d, "Advection-diffusion", "embedded:advdiff-lnp.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	w, h := fig.size()
	return drawnStrings(w, h, func(c draw.Canvas) { fig.draw(c) })
}

// TestDiagnosticsFigureShowsVerdict: diagnose --png draws the verdict a
// line per parameter, as the text prints it, and each warning's
// headline, so that the figure alone says whether the checkpoint passed;
// it drew the panels only.
func TestDiagnosticsFigureShowsVerdict(t *testing.T) {
	noise := "noise σ = 0.3 is more than the model was trained on (at most σ = 0.1)"
	d := verdictTestDiagnostics(noise + ": its intervals do not account for the extra noise")
	drawn := strings.Join(diagnosticsFigureStrings(t, d), "\n")
	verdict := strings.Split(strings.TrimSpace(verdictLines(d)), "\n")
	if len(verdict) != 2 || !strings.HasPrefix(verdict[1], "verdict θ kappa: over-confident, cover95 0.50") {
		t.Fatalf("verdict %q: not the test's", verdict)
	}
	for _, want := range append(verdict, "warning: "+noise) {
		if !strings.Contains(drawn, "\n"+want+"\n") {
			t.Errorf("the figure does not draw the line %q; it draws:\n%s", want, drawn)
		}
	}
	if strings.Contains(drawn, "extra noise") {
		t.Errorf("the figure draws the warning's explanation, not its headline alone:\n%s", drawn)
	}
}

// warningHeadline keeps a warning up to the colon that opens its
// explanation, a parameter's name and its colon with it.
func TestWarningHeadline(t *testing.T) {
	for w, want := range map[string]string{
		"noise σ = 0.3 is more than the model was trained on (at most σ = 0.1): its intervals do not account for the extra noise": "noise σ = 0.3 is more than the model was trained on (at most σ = 0.1)",
		"omega: its std is at least 0.9 of the prior's own (1.44) in 37 of 60 realizations: there the model claims":               "omega: its std is at least 0.9 of the prior's own (1.44) in 37 of 60 realizations",
		"embedded:x.safetensors is unfinished: the weights of a training run":                                                     "embedded:x.safetensors is unfinished",
		"no colon at all": "no colon at all",
	} {
		if got := warningHeadline(w); got != want {
			t.Errorf("warningHeadline(%q) = %q, want %q", w, got, want)
		}
	}
}

// The figure lists at most maxFigureWarnings warnings and counts the
// rest; one more than that is listed rather than counted.
func TestDiagnosisNotesCountExtraWarnings(t *testing.T) {
	for _, n := range []int{maxFigureWarnings + 1, maxFigureWarnings + 7} {
		var ws []string
		for i := range n {
			ws = append(ws, fmt.Sprintf("warning %d", i))
		}
		notes, warning := diagnosisNotes(verdictTestDiagnostics(ws...))
		listed, counted := 0, ""
		for i, s := range notes {
			switch {
			case strings.HasPrefix(s, "warning: "):
				listed++
			case strings.HasPrefix(s, "and "):
				counted = s
			}
			if strings.HasPrefix(s, "verdict") == warning[i] {
				t.Errorf("%q: warning %v", s, warning[i])
			}
		}
		wantListed, wantCounted := n, ""
		if n > maxFigureWarnings+1 {
			wantListed, wantCounted = maxFigureWarnings, fmt.Sprintf("and %d more warnings", n-maxFigureWarnings)
		}
		if listed != wantListed || !strings.HasPrefix(counted, wantCounted) || (wantCounted == "") != (counted == "") {
			t.Errorf("%d warnings: %d listed and %q, want %d and %q", n, listed, counted, wantListed, wantCounted)
		}
	}
}

// The notes' lines fit within the figure's margins, a failures line and
// the longest warnings wrapped, and carry no combining mark, which the
// plotting library draws beside its letter ("θˆ below θ").
func TestDiagnosisNotesFitAndDrawWhole(t *testing.T) {
	d := verdictTestDiagnostics(
		longCheckpoint+" is unfinished: "+unfinishedWords(longCheckpoint),
		"gamma: refinement starts from the network's θ̂, whose mean absolute error 0.000123 is 104% of the 0.000118 that answering the prior's centre 0.0123 every time gives, and brings it to 1.23e-05: the refinement, not the network, is calibrating gamma (--refine 0 evaluates the network's one pass)")
	d.Theta[1].SBC = core.NewSBCHistogram([]int{40, 5, 5, 5, 45})
	d.Theta[1].Cover95 = 0.95
	for i := range 40 {
		d.Failures.Realizations = append(d.Failures.Realizations, core.Failure{Index: i, Reason: fmt.Sprintf("reason number %d of a long list of reasons", i)})
	}
	d.Failures.Count = len(d.Failures.Realizations)
	notes, warning := diagnosisNotes(d)
	width := 3 * figPanelW
	laid := newFigureNotes(notes, warning, width)
	if len(laid.lines) <= len(notes) {
		t.Errorf("%d notes in %d lines: the long ones were not wrapped", len(notes), len(laid.lines))
	}
	for _, l := range laid.lines {
		w := figNoteStyle(l.warning).Width(l.text)
		if l.indented {
			w += figNoteIndent
		}
		if w > width-2*figTitleMargin {
			t.Errorf("note line %q is %.0f pt wide, more than the figure's %.0f pt less its margins", l.text, float64(w), float64(width))
		}
		for _, r := range l.text {
			if unicode.Is(unicode.Mn, r) {
				t.Errorf("note line %q has the combining mark %U", l.text, r)
			}
		}
	}
}

// calibrationFigureStrings is every string the calibration figure of c
// draws, in the order drawn.
func calibrationFigureStrings(t *testing.T, c calibration) []string {
	t.Helper()
	fig, err := layoutCalibrationFigure(c)
	if err != nil {
		t.Fatal(err)
	}
	w, h := fig.size()
	return drawnStrings(w, h, func(c draw.Canvas) { fig.draw(c) })
}

// TestCalibrationFigureShowsNoiseAndWarnings: calibrate --png draws the
// estimated noise of each channel, as the text prints it, and each
// warning's headline: a figure of a context the model was not trained
// for looked as sure of itself as any, its warnings in the text only.
func TestCalibrationFigureShowsNoiseAndWarnings(t *testing.T) {
	c := syntheticCalibration(lookup(t, "lv"), false)
	c.pred.NoiseStd = []float64{0.025, 0.0217}
	c.warnings = []string{"only 5 context points; the model was trained on 15 to 100: its intervals were recalibrated for contexts down to 1, but θ and the discrepancy are rougher than inside the range",
		"alpha: θ̂ = 0.5012 is at its prior's lower bound 0.5: the data may lie outside what the prior allows"}
	drawn := "\n" + strings.Join(calibrationFigureStrings(t, c), "\n") + "\n"
	noise := noiseEstimateWords(c)
	if !strings.HasPrefix(noise, "prey 0.025 [") || !strings.Contains(noise, ", predator 0.0217 [") {
		t.Fatalf("noise %q: not the test's", noise)
	}
	for _, want := range []string{
		"estimated noise σ (with the model's misfit; 95% interval): " + noise,
		"warning: only 5 context points; the model was trained on 15 to 100",
		"warning: alpha: estimated θ = 0.5012 is at its prior's lower bound 0.5",
	} {
		if !strings.Contains(drawn, "\n"+want+"\n") {
			t.Errorf("the figure does not draw the line %q; it draws:%s", want, drawn)
		}
	}
	if strings.Contains(drawn, "rougher than inside") {
		t.Errorf("the figure draws a warning's explanation, not its headline alone:%s", drawn)
	}
}

// figureWords writes a letter under a combining circumflex as the
// letter estimated, which the plotting library can draw.
func TestFigureWordsDropCircumflexes(t *testing.T) {
	for in, want := range map[string]string{
		"biased, θ̂ below θ": "biased, estimated θ below θ",
		"the prey noise σ̂ = 0.3 is more than the model was trained on": "the prey noise estimated σ = 0.3 is more than the model was trained on",
		"the nominal F(θ̂)": "the nominal F(estimated θ)",
		"no hat":            "no hat",
	} {
		if got := figureWords(in); got != want {
			t.Errorf("figureWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// drawnStrings is every string drawFigure draws on a canvas of w×h, in
// the order drawn.
func drawnStrings(w, h vg.Length, drawFigure func(draw.Canvas)) []string {
	var rec recorder.Canvas
	drawFigure(draw.NewCanvas(&rec, w, h))
	var out []string
	for _, a := range rec.Actions {
		if s, ok := a.(*recorder.FillString); ok {
			out = append(out, s.String)
		}
	}
	return out
}
