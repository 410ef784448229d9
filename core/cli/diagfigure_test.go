package cli

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"apic/core"
)

// boundsTestDiagnostics is axesTestDiagnostics with its marks at the
// ends of the axes: reliability curves at coverages 0 and 1, truths and
// estimates at the priors' bounds with bars cut there, contractions of
// 1, and z-scores and contractions beyond the contraction panel's axes
// (drawn on its edge as triangles).
func boundsTestDiagnostics() core.Diagnostics {
	d := axesTestDiagnostics()
	for _, c := range d.Reliability {
		c.Empirical[0], c.Empirical[len(c.Empirical)-1] = 0, 1
	}
	for i := range d.Theta {
		th := &d.Theta[i]
		last := len(th.Truth) - 1
		th.Truth[0], th.Estimate[0], th.Std[0] = th.PriorLo, th.PriorLo, th.PriorHi-th.PriorLo
		th.Truth[last], th.Estimate[last], th.Std[last] = th.PriorHi, th.PriorHi, th.PriorHi-th.PriorLo
		th.Contraction[1], th.Contraction[2] = 1, -3
		th.ZScore[3], th.ZScore[4] = 9, -2.5
		th.Contraction[4] = 1
	}
	return d
}

// noFreeCornerTestDiagnostics is axesTestDiagnostics with reliability
// curves through the top left and bottom right, which with the diagonal
// leave no corner of their panels free for the legend: the y axis is
// raised for it (makeRoomForLegend).
func noFreeCornerTestDiagnostics() core.Diagnostics {
	d := axesTestDiagnostics()
	for _, c := range d.Reliability {
		copy(c.Empirical, []float64{0.9, 0.95, 0.5, 0.05, 0.1})
		for i, q := range d.Levels {
			c.Signed[i] = c.Empirical[i] - q
		}
	}
	return d
}

// diagnosticsTestCases are the diagnoses the figure's tests draw.
func diagnosticsTestCases() map[string]core.Diagnostics {
	return map[string]core.Diagnostics{"off round ticks": axesTestDiagnostics(), "at the bounds": boundsTestDiagnostics(),
		"no free corner": noFreeCornerTestDiagnostics()}
}

// TestDiagnosticsMarksInsideFrame: every point, line end, error-bar end
// and SBC bar corner of diagnose's figure lies inside its panel's data
// area, the extent of its grid, by at least its own half-size (a point's
// radius, half a cap's width, half a line's): contractions of 1 sat on
// the top edge, θ̂ at the prior's bounds in the corners, the SBC bars on
// the frame's bottom and sides.
func TestDiagnosticsMarksInsideFrame(t *testing.T) {
	for name, d := range diagnosticsTestCases() {
		_, drawn, areas, err := renderDiagnosticsFigure(d, "test", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range drawn {
			if b, ok := markOutsideData(p, p.DataCanvas(areas[i]).Rectangle); ok {
				t.Errorf("%s, panel %q: %s", name, p.Title.Text, b)
			}
		}
	}
}

// markOutsideData describes the first of p's marks (its glyph boxes)
// that reaches past data, the data area p is drawn in; false if none.
func markOutsideData(p *plot.Plot, data vg.Rectangle) (string, bool) {
	boxes := p.GlyphBoxes(p)
	if len(boxes) == 0 {
		return "no marks", true
	}
	at := func(lo, hi vg.Length, norm float64) vg.Length { return lo + vg.Length(norm)*(hi-lo) }
	for _, b := range boxes {
		x, y := at(data.Min.X, data.Max.X, b.X), at(data.Min.Y, data.Max.Y, b.Y)
		if x+b.Min.X < data.Min.X || x+b.Max.X > data.Max.X || y+b.Min.Y < data.Min.Y || y+b.Max.Y > data.Max.Y {
			return fmt.Sprintf("mark at (%.4g, %.4g), %v to %v, reaches past the data area %v to %v",
				p.X.Min+b.X*(p.X.Max-p.X.Min), p.Y.Min+b.Y*(p.Y.Max-p.Y.Min),
				vg.Point{X: x + b.Min.X, Y: y + b.Min.Y}, vg.Point{X: x + b.Max.X, Y: y + b.Max.Y}, data.Min, data.Max), true
		}
	}
	return "", false
}

// The SBC panel's bars stand on a count of 0, not on the bottom of its
// data area, which the margin below 0 (padAxes) puts at a negative
// count: plotter.Histogram drew them down to it.
func TestSBCBarsStandOnZero(t *testing.T) {
	th := core.ThetaDiagnostic{Name: "p", SBC: core.SBCHistogram{Draws: 32, Counts: []int{17, 3, 0, 11}}}
	p, err := sbcPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	roundAxes(p)
	padAxes(p)
	if !(p.Y.Min < 0) {
		t.Fatalf("y axis from %g: no margin below 0", p.Y.Min)
	}
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, figPanelW, figPanelH)
	drawPanel(p, c)
	data := p.DataCanvas(c)
	zero := data.Y(p.Y.Norm(0))
	var colour color.Color
	bars := 0
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			colour = a.Color
		case *recorder.Fill:
			if colour != sbcBarFill {
				continue
			}
			bars++
			for _, pc := range a.Path {
				if pc.Type != vg.CloseComp && pc.Pos.Y < zero-1e-6 {
					t.Errorf("bar %d reaches %v, below the count of 0 at %v", bars, pc.Pos.Y, zero)
					break
				}
			}
		}
	}
	if bars != len(th.SBC.Counts) {
		t.Errorf("%d bars filled, want %d", bars, len(th.SBC.Counts))
	}
}

// The SBC panel's bars are opaque: translucent, each bar over the
// uniform band was light below the band's lower edge and darker within
// it, and read as two stacked counts.
func TestSBCBarsReadAsOneColour(t *testing.T) {
	th := core.ThetaDiagnostic{Name: "p", SBC: core.SBCHistogram{Draws: 99, Counts: []int{9, 18, 15, 7, 9, 8, 10, 7, 10, 9}}}
	p, err := sbcPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	drawPanel(p, draw.NewCanvas(&rec, figPanelW, figPanelH))
	var colour color.Color
	opaque := 0
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			colour = a.Color
		case *recorder.Fill:
			if _, _, _, alpha := colour.RGBA(); alpha == 0xffff && colour != color.White {
				opaque++
			}
		}
	}
	if opaque != len(th.SBC.Counts) {
		t.Errorf("%d opaque fills, want one per bar (%d)", opaque, len(th.SBC.Counts))
	}
}

// The diagnostics figure's legends, in panels padded by the margin and
// raised for them where no corner is free (repadRaisedAxis), hide none
// of the data: the raise, counted again after the margin, must still
// clear the data's top.
func TestDiagnosticsLegendsHideNoData(t *testing.T) {
	for name, d := range diagnosticsTestCases() {
		rows, err := diagnosticsPanels(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			for _, p := range row {
				roundAxes(p)
				padAxes(p)
			}
		}
		img, canvases := legendTestFigure(rows, repadRaisedAxis)
		if n := checkLegendsClear(t, name, img, rows, canvases); n != 2+2*len(d.Theta) {
			t.Errorf("%s: %d legends, want %d", name, n, 2+2*len(d.Theta))
		}
	}
}

// Every character the diagnostics figure writes, in titles, labels,
// ticks and legends, is one its font draws: the contraction panel's
// title counted its points beyond the axes as "(△ 2 beyond the axes)",
// and the font, which has no △, left a blank: "( 2 beyond the axes)".
func TestDiagnosticsFigureTextHasGlyphs(t *testing.T) {
	rows, err := diagnosticsPanels(boundsTestDiagnostics())
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, 3*figPanelW, figPanelH)
	newFigureHeading(diagnosticsFigureTitle(boundsTestDiagnostics(), "test", ""), 3*figPanelW, 0.5*vg.Inch).draw(c)
	for _, row := range rows {
		for _, p := range row {
			drawPanel(p, c)
		}
	}
	written := 0
	for _, a := range rec.Actions {
		s, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		written++
		face := font.DefaultCache.Lookup(s.Font, s.Font.Size).Face
		for _, r := range s.String {
			if i, err := face.GlyphIndex(nil, r); err != nil || i == 0 { // nil: a buffer of its own
				t.Errorf("%q: the font %v has no glyph for %q (%U)", s.String, s.Font.Typeface, r, r)
			}
		}
	}
	if written == 0 {
		t.Fatal("no text drawn")
	}
}

// The contraction panel's title, for the longest parameter name (lv's
// gamma) and a two-digit count off the axes, fits across its panel.
func TestContractionTitleFitsPanel(t *testing.T) {
	th := core.ThetaDiagnostic{Name: "gamma", PriorLo: 0, PriorHi: 1, ZScore: []float64{1, 9}, Contraction: []float64{0.5, 0.5}}
	p, err := contractionPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	title := strings.Replace(p.Title.Text, ": 1 off", ": 99 off", 1)
	if title == p.Title.Text {
		t.Fatalf("title %q counts no point off the axes", title)
	}
	if w := p.Title.TextStyle.Width(title); w > figPanelW {
		t.Errorf("title %q is %v wide, the panel %v", title, w, figPanelW)
	}
}

// The SBC panel's rank axis ends where its last bar does, at draws + 1,
// labelled there, within the margin (padAxes), at integers no more than
// seven: 32 draws had it rounded on to 40, labelled 0 to 30, seven ranks
// past the bars.
func TestSBCRankAxisEndsAtLastBar(t *testing.T) {
	for _, draws := range []int{32, 99, 30, 6, 1, 0} {
		th := core.ThetaDiagnostic{Name: "p", SBC: core.SBCHistogram{Draws: draws, Counts: []int{5, 3}}}
		p, err := sbcPanel(th)
		if err != nil {
			t.Fatal(err)
		}
		roundAxes(p)
		padAxes(p)
		end := float64(draws + 1)
		if pad := axisMargin * end; math.Abs(p.X.Min+pad) > 1e-9 || math.Abs(p.X.Max-end-pad) > 1e-9 {
			t.Errorf("%d draws: x axis [%g, %g], want [%g, %g]", draws, p.X.Min, p.X.Max, -pad, end+pad)
		}
		var labels []float64
		for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			if tk.Value < 0 || tk.Value > end || tk.Value != math.Trunc(tk.Value) {
				t.Errorf("%d draws: tick %g (%q) off the integers from 0 to %g", draws, tk.Value, tk.Label, end)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Value)
			}
		}
		if len(labels) < 2 || len(labels) > 7 || labels[0] != 0 || labels[len(labels)-1] != end {
			t.Errorf("%d draws: labels at %v, want 2 to 7 from 0 to %g", draws, labels, end)
		}
	}
}

// Where draws + 1 has a divisor that gives three to seven labels, the
// rank axis is labelled at its multiples, evenly; otherwise at a round
// step and at the end, no nearer than half a step to the label before.
func TestRankTickLabels(t *testing.T) {
	for end, want := range map[int]string{
		100: "0 20 40 60 80 100", 33: "0 11 22 33", 64: "0 16 32 48 64", 3: "0 1 2 3",
		31: "0 5 10 15 20 25 31", 7: "0 2 4 7", 1: "0 1",
	} {
		var got []string
		for _, tk := range rankTickMarks(end) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, " "); s != want {
			t.Errorf("end %d: labels %s, want %s", end, s, want)
		}
	}
}

// TestDiagnosticsFigureTitleNamesCheckpoint: the diagnostics figure names
// the checkpoint's file, as calibrate's does, so that the figures of two
// checkpoints of one system and backbone can be told apart; an embedded
// one is named without its prefix.
func TestDiagnosticsFigureTitleNamesCheckpoint(t *testing.T) {
	d := core.Diagnostics{Backbone: "lnp", Tasks: 200, Context: 30, Seed: 1, Samples: 32, Refine: 5}
	for _, tc := range []struct{ checkpoint, want string }{
		{"runs/a/bad.safetensors", "Damped spring · LNP, bad.safetensors · 200 realizations"},
		{"embedded:spring-lnp.safetensors", "Damped spring · LNP, spring-lnp.safetensors · 200 realizations"},
		{"", "Damped spring · LNP · 200 realizations"},
	} {
		if got := diagnosticsFigureTitle(d, "Damped spring", tc.checkpoint); !strings.HasPrefix(got, tc.want) {
			t.Errorf("checkpoint %q: title %q, want it to begin %q", tc.checkpoint, got, tc.want)
		}
	}
}
