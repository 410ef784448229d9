package cli

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"apic/core"
)

// drawnText is every string p draws (title, axis labels, ticks and
// legend), in order.
func drawnText(p *plot.Plot) []string {
	var rec recorder.Canvas
	p.Draw(draw.NewCanvas(&rec, 4*vg.Inch, 3*vg.Inch))
	var out []string
	for _, a := range rec.Actions {
		if f, ok := a.(*recorder.FillString); ok {
			out = append(out, f.String)
		}
	}
	return out
}

// The calibration figure labels its bands for what they are, the
// calibrated 95% band, not "± 2σ", which reads as twice the std that
// calibrate --json prints beside it; its title says θ's ± is one sd.
func TestCalibrationFigureLabelsBands(t *testing.T) {
	for _, name := range []string{"spring", "advdiff"} {
		c := syntheticCalibration(lookup(t, name), false)
		var rows [][]*plot.Plot
		var err error
		if name == "advdiff" {
			rows, _, err = productPanels(c)
		} else {
			rows, err = linePanels(c)
		}
		if err != nil {
			t.Fatal(err)
		}
		bands := 0
		for _, row := range rows {
			for _, p := range row {
				text := strings.Join(drawnText(p), "\n")
				if strings.Contains(text, "2σ") {
					t.Errorf("%s: panel %q still says 2σ:\n%s", name, p.Title.Text, text)
				}
				bands += strings.Count(text, "\n95% band")
			}
		}
		if want := map[string]int{"spring": 2, "advdiff": 3}[name]; bands != want {
			t.Errorf("%s: %d legend entries \"95%% band\", want %d", name, bands, want)
		}
	}
	if got := figureTitle(syntheticCalibration(lookup(t, "spring"), false)); !strings.Contains(got, "omega = 0 ± 0 (± 1 std)") {
		t.Errorf("title %q does not say its ± is one sd", got)
	}
}

// TestFigureTitleSaysHowPredicted: calibrate --png's title tells a
// one-pass answer (--refine 0) from a refined one.
func TestFigureTitleSaysHowPredicted(t *testing.T) {
	c := syntheticCalibration(lookup(t, "spring"), false)
	for steps, want := range map[int]string{0: "observations, one pass", 5: "observations, refined"} {
		c.refine = steps
		if got := figureTitle(c); !strings.HasSuffix(got, want) {
			t.Errorf("%d refinement steps: title %q, want it to end %q", steps, got, want)
		}
	}
}

// TestFigureTitleNamesModel: calibrate --png's title says which model
// made the figure, the backbone and the checkpoint's file, as the
// diagnostics figure says its backbone: two figures of one system from
// different checkpoints were otherwise told apart by nothing.
func TestFigureTitleNamesModel(t *testing.T) {
	c := syntheticCalibration(lookup(t, "spring"), false)
	c.model = &core.Model{Config: core.Config{Arch: core.Arch{Backbone: core.ANP}}}
	for path, want := range map[string]string{
		"embedded:spring-anp.safetensors": "Damped spring · ANP, spring-anp.safetensors · omega",
		"/runs/a/model.safetensors":       "Damped spring · ANP, model.safetensors · omega",
	} {
		c.checkpoint = path
		if got := figureTitle(c); !strings.HasPrefix(got, want) {
			t.Errorf("checkpoint %s: title %q, want it to start %q", path, got, want)
		}
	}
}

// TestHeatmapTitleNamesObservationRings: the rings drawn over the
// corrected prediction's heatmap are the observations; a heatmap has no
// legend, so its title says so, with their count.
func TestHeatmapTitleNamesObservationRings(t *testing.T) {
	c := syntheticCalibration(lookup(t, "advdiff"), false)
	rows, _, err := productPanels(c)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("corrected prediction u, ○ %d observations", c.obs.Len())
	if got := rows[0][2].Title.Text; got != want {
		t.Errorf("prediction heatmap titled %q, want %q", got, want)
	}
}

// TestUnobservedChannelPanelSaysSo: calibrating lv on prey alone, the
// predator row's first panel held the nominal only under the title
// "context and nominal"; it says the channel was not observed.
func TestUnobservedChannelPanelSaysSo(t *testing.T) {
	c := syntheticCalibration(lookup(t, "lv"), false)
	for i := range c.obs.Mask {
		c.obs.Mask[i][1] = false // no predator observations
	}
	rows, err := linePanels(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[0][0].Title.Text; got != "context and nominal at estimated θ" {
		t.Errorf("observed prey: first panel titled %q", got)
	}
	if got := rows[1][0].Title.Text; !strings.Contains(got, "not observed") {
		t.Errorf("unobserved predator: first panel titled %q, want it to say the channel was not observed", got)
	}
}

// TestDiagnosticsFigureNamesItsReferenceLines: the SBC panel's dashed
// line (the count each bin expects) is in its legend, the contraction
// panel's dashed |z| = 2 lines (it has no legend) in its x label, and
// neither axis writes σ_post with an underscore the plotting library
// draws as is.
func TestDiagnosticsFigureNamesItsReferenceLines(t *testing.T) {
	th := core.ThetaDiagnostic{Name: "omega", PriorLo: 3, PriorHi: 8, ZScore: core.JSONFloats{0.5, -1}, Contraction: core.JSONFloats{0.9, 0.95},
		SBC: core.NewSBCHistogram([]int{5, 6, 4, 5, 5})}
	sbc, err := sbcPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	if text := drawnText(sbc); !strings.Contains(strings.Join(text, "\n"), "expected count") {
		t.Errorf("the SBC panel does not name its dashed line: %q", text)
	}
	con, err := contractionPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(con.X.Label.Text, "±2 dashed") {
		t.Errorf("contraction x label %q does not say what its dashed lines are", con.X.Label.Text)
	}
	for _, l := range []string{con.X.Label.Text, con.Y.Label.Text} {
		if strings.Contains(l, "_") {
			t.Errorf("label %q writes a subscript the figure cannot draw", l)
		}
	}
}

// TestDiagnosticsColoursStandApart: the first six curve colours (lv's
// reconstruction, discrepancy and four parameters, drawn together in the
// signed panel without a legend) are pairwise at least 60 apart in RGB.
func TestDiagnosticsColoursStandApart(t *testing.T) {
	rgb := func(i int) [3]float64 {
		r, g, b, _ := diagColor(i).RGBA()
		return [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
	}
	for i := range 6 {
		for j := range i {
			a, b := rgb(i), rgb(j)
			if d := math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2])); d < 60 {
				t.Errorf("colours %d %v and %d %v are %.0f apart", j, b, i, a, d)
			}
		}
	}
}

// TestBandLabelSaysWhenAboutTheLinesWidth: a band under 3 % of its
// panel's values at its widest is named as about the line's width, so
// that its legend entry is not read as a band that failed to draw; a
// visible band keeps the plain name.
func TestBandLabelSaysWhenAboutTheLinesWidth(t *testing.T) {
	line := []float64{-1, 0, 1}
	for _, c := range []struct {
		half float64
		want string
	}{{0.025, figBandLabel + " (about the line's width)"}, {0.05, figBandLabel}} { // widest 0.05 of 2.05, 0.1 of 2.1
		lo, hi := make([]float64, len(line)), make([]float64, len(line))
		for i, v := range line {
			lo[i], hi[i] = v-c.half, v+c.half
		}
		if got := bandLabel(lo, hi, line); got != c.want {
			t.Errorf("half-width %v of a panel 2 high: %q, want %q", c.half, got, c.want)
		}
	}
	if got := bandLabel([]float64{1}, []float64{1}); got != figBandLabel {
		t.Errorf("a panel with no span: %q", got)
	}
}
