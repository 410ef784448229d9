package cli

import (
	"image"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"apic/core"
)

// panelImage draws p alone on an image of one panel at the figures'
// resolution, and returns it with p's data area there.
func panelImage(p *plot.Plot) (*vgimg.Canvas, draw.Canvas) {
	img := vgimg.NewWith(vgimg.UseWH(figPanelW, figPanelH), vgimg.UseDPI(figDPI))
	c := draw.New(img)
	p.Draw(c)
	return img, p.DataCanvas(c)
}

// referenceShare is the share of the pixels along the segment from a
// to b (points, from the bottom left) where the reference lines' grey
// (figNominal) shows, within a pixel of the segment: about 4/7 along a
// dashed reference line on top, none where a curve covers it.
func referenceShare(img *vgimg.Canvas, a, b vg.Point) float64 {
	pic := img.Image()
	w, h := img.Size()
	scale := float64(pic.Bounds().Dx()) / float64(w)
	px := func(p vg.Point) (float64, float64) { return float64(p.X) * scale, float64(h-p.Y) * scale }
	x0, y0 := px(a)
	x1, y1 := px(b)
	steps := int(max(math.Abs(x1-x0), math.Abs(y1-y0)))
	grey := 0
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(max(steps, 1))
		at := image.Point{X: int(x0 + t*(x1-x0)), Y: int(y0 + t*(y1-y0))}
		if nearReferenceGrey(pic, at) {
			grey++
		}
	}
	return float64(grey) / float64(steps+1)
}

// nearReferenceGrey says whether a pixel within one of at is the
// reference lines' grey (not a grid hairline's lighter grey, nor a
// curve's colour).
func nearReferenceGrey(pic image.Image, at image.Point) bool {
	nr, ng, nb, _ := figNominal.RGBA()
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			r, g, b, _ := pic.At(at.X+dx, at.Y+dy).RGBA()
			if math.Abs(float64(r)-float64(nr)) < 0x1800 && math.Abs(float64(g)-float64(ng)) < 0x1800 && math.Abs(float64(b)-float64(nb)) < 0x1800 {
				return true
			}
		}
	}
	return false
}

// isCurveName says whether s names one of
// TestReliabilityDiagonalOverCurves's curves.
func isCurveName(s string) bool { return s == "reconstruction" || s == "θ omega" }

// TestSweepCoverLevelOverSeries: θ cover95's dashed 0.95 level stays in
// sight where a series sits on it (a coverage right on target): drawn
// under the series it was hidden, the title still saying "dashed at
// 0.95". It also runs across the whole panel, not from the first value
// to the last only.
func TestSweepCoverLevelOverSeries(t *testing.T) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	sum := sweepSummary{Axes: []string{"context"}}
	for _, x := range []string{"4", "10", "30"} {
		sum.Cells = append(sum.Cells, sweepGroup{Seeds: 1, order: []string{x}, Metrics: map[string]sweepInterval{core.KeyThetaCover: at(0.95)}})
	}
	xs, series := sweepCurves(sum)
	p, err := sweepPanel(core.KeyThetaCover, "context", xs, series, []float64{4, 10, 30}, true)
	if err != nil {
		t.Fatal(err)
	}
	img, data := panelImage(p)
	trX, trY := p.Transforms(&data)
	y := trY(0.95)
	room := vg.Points(6) // past a point's circle
	for _, seg := range []struct {
		what     string
		from, to vg.Length
	}{
		{"between the points", trX(10) + room, trX(30) - room},
		{"before the first value", data.Min.X + 2, trX(4) - room},
	} {
		if seg.to-seg.from < vg.Points(10) {
			t.Fatalf("%s: no room to look (%v to %v; x axis %v to %v)", seg.what, seg.from, seg.to, p.X.Min, p.X.Max)
		}
		if share := referenceShare(img, vg.Point{X: seg.from, Y: y}, vg.Point{X: seg.to, Y: y}); share < 0.3 {
			t.Errorf("%s, the dashed 0.95 level shows along %.0f%% of the series at 0.95, want it on top (≥ 30%%)", seg.what, 100*share)
		}
	}
}

// TestReliabilityDiagonalOverCurves: the reliability panels' dashed
// "calibrated" diagonal and the signed panel's zero line stay in sight
// under a perfectly calibrated curve, the legend still naming the
// diagonal first.
func TestReliabilityDiagonalOverCurves(t *testing.T) {
	levels := []float64{0.05, 0.25, 0.5, 0.75, 0.95}
	d := core.Diagnostics{Backbone: "lnp", Tasks: 40, Levels: levels, Reliability: []core.ReliabilityCurve{
		{Name: "reconstruction", Empirical: core.JSONFloats(levels), Signed: core.JSONFloats{0, 0, 0, 0, 0}},
		{Name: "theta:omega", Empirical: core.JSONFloats(levels), Signed: core.JSONFloats{0, 0, 0, 0, 0}},
	}}
	panels, err := reliabilityPanels(d)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range panels {
		roundAxes(p)
		img, data := panelImage(p)
		trX, trY := p.Transforms(&data)
		// Between the markers at 0.25 and 0.5, and at 0.5 and 0.75.
		for _, span := range [][2]float64{{0.29, 0.46}, {0.54, 0.71}} {
			y0, y1 := span[0], span[1]
			if i == 2 {
				y0, y1 = 0, 0 // the signed panel's zero line
			}
			a, b := vg.Point{X: trX(span[0]), Y: trY(y0)}, vg.Point{X: trX(span[1]), Y: trY(y1)}
			if share := referenceShare(img, a, b); share < 0.3 {
				t.Errorf("panel %q: the dashed reference shows along %.0f%% of a calibrated curve from %v to %v, want it on top (≥ 30%%)", p.Title.Text, 100*share, span[0], span[1])
			}
		}
		if text := drawnText(p); i < 2 && !(slices.Contains(text, "calibrated") && slices.Index(text, "calibrated") < slices.IndexFunc(text, isCurveName)) {
			t.Errorf("panel %q: legend %q does not name the diagonal first", p.Title.Text, text)
		}
	}
}
