package cli

import (
	"image"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"

	"apic/core"
)

// legendTestFigure lays rows out as the figures do, on an image of the
// figures' resolution, and draws every panel without its legend, so that
// what a legend box would hide can be read off the pixels.
func legendTestFigure(rows [][]*plot.Plot, fit func(*plot.Axis)) (*vgimg.Canvas, [][]draw.Canvas) {
	img := vgimg.NewWith(vgimg.UseWH(vg.Length(len(rows[0]))*figPanelW, vg.Length(len(rows))*figPanelH), vgimg.UseDPI(figDPI))
	tiles := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := alignWithLegends(rows, tiles, draw.New(img), fit)
	for i, row := range rows {
		for j, p := range row {
			if p != nil {
				drawWithoutLegend(p, canvases[i][j])
			}
		}
	}
	return img, canvases
}

// dataPixels counts the pixels inside r (points, from the bottom left)
// that show data: coloured or dark, where the ground is white and the
// grid's hairlines a light grey.
func dataPixels(img *vgimg.Canvas, r vg.Rectangle) int {
	pic := img.Image()
	w, h := img.Size()
	bounds := pic.Bounds()
	scale := float64(bounds.Dx()) / float64(w)
	px := func(x, y vg.Length) image.Point {
		return image.Point{X: int(float64(x) * scale), Y: int(float64(h-y) * scale)}
	}
	lo, hi := px(r.Min.X, r.Max.Y), px(r.Max.X, r.Min.Y)
	n := 0
	for y := lo.Y + 1; y < hi.Y-1; y++ {
		for x := lo.X + 1; x < hi.X-1; x++ {
			r, g, b, _ := pic.At(x, y).RGBA()
			top, bottom := max(r, g, b)>>8, min(r, g, b)>>8
			if top-bottom > 20 || top < 170 {
				n++
			}
		}
	}
	return n
}

// checkLegendsClear fails t for each panel whose legend box leaves its
// data area or hides data.
func checkLegendsClear(t *testing.T, name string, img *vgimg.Canvas, rows [][]*plot.Plot, canvases [][]draw.Canvas) (legends int) {
	t.Helper()
	for i, row := range rows {
		for j, p := range row {
			if p == nil {
				continue
			}
			data := p.DataCanvas(canvases[i][j])
			box, ok := legendBox(p, data, legendCorner{p.Legend.Top, p.Legend.Left})
			if !ok {
				continue
			}
			legends++
			if box.Min.X < data.Min.X || box.Min.Y < data.Min.Y || box.Max.X > data.Max.X || box.Max.Y > data.Max.Y {
				t.Errorf("%s: panel %q: legend box %v leaves the data area %v", name, p.Title.Text, box, data.Rectangle)
			}
			if n := dataPixels(img, box); n > 0 {
				t.Errorf("%s: panel %q: the legend (top %v, left %v) hides %d pixels of data", name, p.Title.Text, p.Legend.Top, p.Legend.Left, n)
			}
		}
	}
	return legends
}

// The calibration figure's legends sit inside their panels' data areas
// and hide none of the curves, bands or observations: calibrate's once
// sat on the frame's top right, their thumbnails past t = 10, where they
// read as more curves.
func TestCalibrationLegendsHideNoData(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		for _, constant := range []bool{false, true} {
			c := syntheticCalibration(lookup(t, name), constant)
			var rows [][]*plot.Plot
			var err error
			if name == "advdiff" {
				var all [][]*plot.Plot
				all, _, err = productPanels(c)
				rows = all[1:2] // the slices; the heatmaps have no legend
			} else {
				rows, err = linePanels(c)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				for _, p := range row {
					roundRange(&p.Y)
				}
			}
			img, canvases := legendTestFigure(rows, roundRange)
			if n := checkLegendsClear(t, name, img, rows, canvases); n != 3*len(rows) {
				t.Errorf("%s: %d legends, want one per panel, %d", name, n, 3*len(rows))
			}
		}
	}
}

// A legend goes to a corner free of data, and where there is none the
// y axis is raised to make one at the top.
func TestLegendFindsRoom(t *testing.T) {
	panel := func(pts plotter.XYs) *plot.Plot {
		p := newPanel("", "x", "y")
		l, err := plotter.NewLine(pts)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add("a curve with a long name", l)
		return p
	}
	// Data up the right: the legend goes left.
	rising := panel(plotter.XYs{{X: 0, Y: 0}, {X: 0.5, Y: 0}, {X: 1, Y: 1}})
	// A zigzag through all four corners: no corner is free.
	zigzag := panel(plotter.XYs{{X: 0, Y: 1}, {X: 0.25, Y: 0}, {X: 0.5, Y: 1}, {X: 0.75, Y: 0}, {X: 1, Y: 1}, {X: 1, Y: 0}, {X: 0, Y: 0}})
	rows := [][]*plot.Plot{{rising, zigzag}}
	img, canvases := legendTestFigure(rows, nil)
	checkLegendsClear(t, "synthetic", img, rows, canvases)
	if !rising.Legend.Left || rising.Y.Max != 1 {
		t.Errorf("rising data: legend top %v, left %v, y axis to %g; want it on the left, the axis to 1", rising.Legend.Top, rising.Legend.Left, rising.Y.Max)
	}
	if !zigzag.Legend.Top || zigzag.Y.Max <= 1 {
		t.Errorf("zigzag: legend top %v, y axis to %g; want it at the top of a raised axis", zigzag.Legend.Top, zigzag.Y.Max)
	}
}

// The reliability diagram of intervals that cover too much runs through
// the top left, the corner its legend had: the legend moves off it.
func TestReliabilityLegendAvoidsCurve(t *testing.T) {
	levels := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	wide := core.JSONFloats{0.5, 0.8, 0.88, 0.92, 0.95, 0.97, 0.98, 0.99, 0.995} // half the truths in the 10% intervals
	d := core.Diagnostics{Levels: levels, Tasks: 20, Reliability: []core.ReliabilityCurve{
		{Name: "recon", Empirical: wide, Signed: wide}, {Name: "theta:omega", Empirical: wide, Signed: wide},
	}}
	row, err := reliabilityPanels(d)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]*plot.Plot{row}
	img, canvases := legendTestFigure(rows, nil)
	if n := checkLegendsClear(t, "reliability", img, rows, canvases); n != 2 {
		t.Errorf("%d legends, want 2", n)
	}
	// The corner the legend had would hide the curve: the test shows the
	// move.
	for j, p := range row[:2] {
		old, _ := legendBox(p, p.DataCanvas(canvases[0][j]), legendCorner{true, true})
		if dataPixels(img, old) == 0 {
			t.Errorf("panel %q: the top left corner is free of data; the test shows nothing", p.Title.Text)
		}
	}
}

// drawPanel draws the legend's entries inside its box.
func TestDrawPanelBoxesLegend(t *testing.T) {
	rows, err := linePanels(syntheticCalibration(lookup(t, "spring"), false))
	if err != nil {
		t.Fatal(err)
	}
	p := rows[0][2]
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, figPanelW, figPanelH)
	placeLegend(p, c)
	drawPanel(p, c)
	box, _ := legendBox(p, p.DataCanvas(c), legendCorner{p.Legend.Top, p.Legend.Left})
	legendWords := map[string]bool{"95%": true, "nominal": true, "prediction": true, "observations": true}
	entries := 0
	for _, a := range rec.Actions {
		f, ok := a.(*recorder.FillString)
		if !ok || !legendWords[strings.Fields(f.String)[0]] {
			continue
		}
		entries++
		if f.Point.X < box.Min.X || f.Point.X > box.Max.X || f.Point.Y < box.Min.Y || f.Point.Y > box.Max.Y {
			t.Errorf("legend entry %q drawn at %v, outside its box %v", f.String, f.Point, box)
		}
	}
	if entries != 4 {
		t.Errorf("%d legend entries drawn, want 4", entries)
	}
}

// A legend keeps clear of the marks by legendClearance, not just off
// them: lv-anp's SBC ranks of beta put a bar's top on the lower edge of
// the legend's box, where it read as a bar running on under the legend.
// Every height of that bar, at two places among the bins, is tried.
func TestLegendKeepsClearOfData(t *testing.T) {
	for top := 18; top <= 40; top++ {
		for _, at := range []int{12, 17} {
			counts := []int{13, 7, 2, 7, 5, 7, 8, 7, 3, 12, 10, 9, 10, 13, 10, 11, 17, 9, 18, 10}
			counts[at] = top
			p, err := sbcPanel(core.ThetaDiagnostic{Name: "beta", SBC: core.NewSBCHistogram(counts)})
			if err != nil {
				t.Fatal(err)
			}
			roundAxes(p)
			padAxes(p)
			_, canvases := legendTestFigure([][]*plot.Plot{{p, nil, nil}}, repadRaisedAxis)
			box, _ := legendBox(p, p.DataCanvas(canvases[0][0]), legendCorner{p.Legend.Top, p.Legend.Left})
			if n := drawnMarks(p, canvases[0][0]).hits(growBox(box, legendClearance)); n > 0 {
				t.Errorf("a bar of %d at bin %d: the legend (top %v, left %v) comes within %v pt of %d marks", top, at, p.Legend.Top, p.Legend.Left, legendClearance, n)
			}
		}
	}
}
