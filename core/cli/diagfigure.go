package cli

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"apic/core"
)

// The diagnostics figure, drawn with gonum/plot: a first row of
// reliability diagrams (the function bands, the θ intervals, and every
// curve signed), then one row per parameter: θ̂ against θ with 95% error
// bars, the SBC rank histogram against its uniform expectation, and
// contraction against z-score.

// writeDiagnosticsFigure renders d's figure and writes it to path as
// PNG, atomically: on any failure no file (and no partial file) is left,
// nor when ctx is cancelled first (savePNG). Its title names system (the
// system's title) and the checkpoint (diagnosticsFigureTitle).
func writeDiagnosticsFigure(ctx context.Context, path string, d core.Diagnostics, system, checkpoint string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	img, _, _, err := renderDiagnosticsFigure(d, system, checkpoint)
	if err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return savePNG(ctx, path, img)
}

// renderDiagnosticsFigure lays the panels out on one canvas, and returns
// it with the panels drawn on it and the canvas each was drawn in;
// gonum/plot's panics on degenerate input become errors.
func renderDiagnosticsFigure(d core.Diagnostics, system, checkpoint string) (img *vgimg.Canvas, drawn []*plot.Plot, areas []draw.Canvas, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, drawn, areas, err = nil, nil, nil, fmt.Errorf("drawing failed: %v", r)
		}
	}()
	fig, err := layoutDiagnosticsFigure(d, system, checkpoint)
	if err != nil {
		return nil, nil, nil, err
	}
	img = vgimg.NewWith(vgimg.UseWH(fig.size()), vgimg.UseDPI(figDPI))
	drawn, areas = fig.draw(draw.New(img))
	return img, drawn, areas, nil
}

// diagnosticsFigure is the diagnostics figure laid out: its title, the
// notes under it (diagnosisNotes) and its rows of panels.
type diagnosticsFigure struct {
	heading figureHeading
	notes   figureNotes
	rows    [][]*plot.Plot
}

// layoutDiagnosticsFigure builds d's panels and lays its title and
// notes out for the figure's width.
func layoutDiagnosticsFigure(d core.Diagnostics, system, checkpoint string) (diagnosticsFigure, error) {
	rows, err := diagnosticsPanels(d)
	if err != nil {
		return diagnosticsFigure{}, err
	}
	// Every axis runs axisMargin past labelled round ticks at its ends
	// (roundAxes, padAxes), the rank axis past its last bar, a raised one
	// too (alignWithLegends, repadRaisedAxis) but for a coverage axis,
	// whose band above 1 is left blank, so that no point sits on the
	// frame.
	for _, row := range rows {
		for _, p := range row {
			roundAxes(p)
			padAxes(p)
		}
	}
	width := vg.Length(len(rows[0])) * figPanelW
	notes, warning := diagnosisNotes(d)
	return diagnosticsFigure{
		heading: newFigureHeading(diagnosticsFigureTitle(d, system, checkpoint), width, 0.5*vg.Inch),
		notes:   newFigureNotes(notes, warning, width),
		rows:    rows,
	}, nil
}

// size is the figure's width and height.
func (f diagnosticsFigure) size() (w, h vg.Length) {
	return vg.Length(len(f.rows[0])) * figPanelW, vg.Length(len(f.rows))*figPanelH + f.heading.height() + f.notes.height()
}

// draw draws the figure on dc, which is f.size(), and returns the panels
// drawn and the canvas each was drawn in.
func (f diagnosticsFigure) draw(dc draw.Canvas) (drawn []*plot.Plot, areas []draw.Canvas) {
	body := drawHeadingAndNotes(dc, f.heading, f.notes)
	tiles := draw.Tiles{Rows: len(f.rows), Cols: len(f.rows[0]), PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 5,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	canvases := alignWithLegends(f.rows, tiles, body, repadRaisedAxis)
	for i := range f.rows {
		for j, p := range f.rows[i] {
			if p != nil {
				drawPanel(p, canvases[i][j])
				drawn, areas = append(drawn, p), append(areas, canvases[i][j])
			}
		}
	}
	return drawn, areas
}

// diagnosticsPanels are the figure's rows: the reliability diagrams,
// then one row per parameter.
func diagnosticsPanels(d core.Diagnostics) ([][]*plot.Plot, error) {
	first, err := reliabilityPanels(d)
	if err != nil {
		return nil, err
	}
	rows := [][]*plot.Plot{first}
	for _, th := range d.Theta {
		row, err := thetaPanels(th)
		if err != nil {
			return nil, fmt.Errorf("θ %s: %w", th.Name, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// diagnosticsFigureTitle is the diagnostics figure's title: "Damped
// spring · LNP, spring-lnp.safetensors · 200 realizations, context 30,
// noise 0, seed 1, 32 samples, 5 refinement steps". It names the
// checkpoint's file, as calibrate's figure does: figures of two
// checkpoints of one backbone would otherwise be told apart by nothing.
func diagnosticsFigureTitle(d core.Diagnostics, system, checkpoint string) string {
	model := strings.ToUpper(d.Backbone)
	if name := checkpointFileName(checkpoint); name != "" {
		model += ", " + name
	}
	return fmt.Sprintf("%s · %s · %s, %s", system, model, diagnosisCondition(d), core.Count(d.Refine, "refinement step"))
}

// diagPanel is a panel with the figure's styling, the legend in the
// given corner where it covers no data (placeLegend), and the ticks of
// the calibration figure (niceTicks): gonum's default labelled a
// recovery axis over the prior U(0.3, 2) at 0.4, 1.2 and 2.0, over
// U(0.002, 0.08) at 0.01, 0.04 and 0.07, and rank counts at 0, 8 and 16.
func diagPanel(title, xLabel, yLabel string, legendTop, legendLeft bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.Top, p.Legend.Left = legendTop, legendLeft
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// curveXYs pairs the levels with a curve's values, leaving NaN out.
func curveXYs(levels, values []float64) plotter.XYs {
	var out plotter.XYs
	for i, p := range levels {
		if i < len(values) && !math.IsNaN(values[i]) {
			out = append(out, plotter.XY{X: p, Y: values[i]})
		}
	}
	return out
}

// diagColorOrder is the order the diagnostics figure takes plotutil's
// colours in: its sixth, a brick red, comes after the pink, so that lv's
// six curves (reconstruction, discrepancy, four parameters) do not draw
// the reconstruction's red and γ's brick red side by side in the signed
// panel, which has no legend to tell them apart.
var diagColorOrder = []int{0, 1, 2, 3, 4, 6, 5}

// diagColor is the diagnostics figure's colour i.
func diagColor(i int) color.Color {
	return plotutil.Color(diagColorOrder[i%len(diagColorOrder)])
}

// addCurve adds a line with points and a legend entry in colour i.
func addCurve(p *plot.Plot, name string, pts plotter.XYs, i int) error {
	if len(pts) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	col := diagColor(i)
	l.Color, l.Width = col, vg.Points(1.5)
	s.Color, s.Shape, s.Radius = col, plotutil.Shape(i), vg.Points(2.2)
	p.Add(l, s)
	if name != "" {
		p.Legend.Add(name, l, s)
	}
	return nil
}

// reliabilityPanels are the first row: coverage against level for the
// function bands and for θ (the diagonal is calibration), and every
// curve signed, with the binomial ±2 standard-error band of a calibrated
// θ interval over the realizations. The dashed diagonal and zero line
// are drawn over the curves, their legend entry first: under them, a
// calibrated curve, the one a reader hopes for, hid the reference it is
// read against, and the "calibrated" entry named a line not seen.
func reliabilityPanels(d core.Diagnostics) ([]*plot.Plot, error) {
	fn := diagPanel("reliability: G and δ on the targets", "nominal coverage", "empirical coverage", true, true)
	th := diagPanel("reliability: θ intervals", "nominal coverage", "empirical coverage", true, true)
	// The signed curves keep the colours of the two panels before, whose
	// legends name them; a legend here would cover the curves.
	signed := diagPanel("signed: empirical − nominal", fmt.Sprintf("nominal coverage (grey: ±2 s.e., n = %d)", d.Tasks), "empirical − nominal", false, true)
	diag, err := newLine([]float64{0, 1}, []float64{0, 1}, figNominal, true)
	if err != nil {
		return nil, err
	}
	zero, err := newLine([]float64{0, 1}, []float64{0, 0}, figNominal, true)
	if err != nil {
		return nil, err
	}
	for _, p := range []*plot.Plot{fn, th} {
		p.Legend.Add("calibrated", diag)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		// No coverage above 1: a legend's raise leaves the band above
		// it unlabelled.
		p.Y.Tick.Marker = boundedTicks(1)
	}
	if err := addSEBand(signed, d.Levels, d.Tasks); err != nil {
		return nil, err
	}
	for i, c := range d.Reliability {
		target := fn
		if strings.HasPrefix(c.Name, "theta:") {
			target = th
		}
		name := curveLabel(c.Name)
		if err := addCurve(target, name, curveXYs(d.Levels, c.Empirical), i); err != nil {
			return nil, err
		}
		if err := addCurve(signed, "", curveXYs(d.Levels, c.Signed), i); err != nil {
			return nil, err
		}
	}
	fn.Add(diag)
	th.Add(diag)
	signed.Add(zero)
	signed.X.Min, signed.X.Max = 0, 1
	return []*plot.Plot{fn, th, signed}, nil
}

// addSEBand shades ±2 binomial standard errors, 2·√(p(1 − p)/n), around
// zero: how far a calibrated θ curve over n realizations strays by chance.
func addSEBand(p *plot.Plot, levels []float64, n int) error {
	if n < 1 {
		return nil
	}
	x := append([]float64{0}, levels...)
	x = append(x, 1)
	lo, hi := make([]float64, len(x)), make([]float64, len(x))
	for i, q := range x {
		se := twoBinomialSE(q, n)
		lo[i], hi[i] = -se, se
	}
	return addBand(p, "", x, lo, hi, color.NRGBA{A: 0x28})
}

// thetaPanels are a parameter's row: recovery, SBC histogram,
// contraction against z-score.
func thetaPanels(th core.ThetaDiagnostic) ([]*plot.Plot, error) {
	rec, err := recoveryPanel(th)
	if err != nil {
		return nil, err
	}
	sbc, err := sbcPanel(th)
	if err != nil {
		return nil, err
	}
	con, err := contractionPanel(th)
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{rec, sbc, con}, nil
}

// errorPoints are points with symmetric vertical error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// recoveryPanel is θ̂ against θ with θ̂ ± 1.96 σ_post bars, cut to the
// prior box as calibrate cuts its intervals, and the diagonal.
func recoveryPanel(th core.ThetaDiagnostic) (*plot.Plot, error) {
	p := diagPanel(fmt.Sprintf("θ recovery: %s (cover95 %s)", th.Name, fixed(float64(th.Cover95), 2)), "true "+th.Name, "estimate "+th.Name, true, true)
	if err := addLine(p, "estimate = truth", []float64{th.PriorLo, th.PriorHi}, []float64{th.PriorLo, th.PriorHi}, figNominal, true); err != nil {
		return nil, err
	}
	pts := recoveryPoints(th)
	if len(pts.XYs) == 0 {
		return p, nil
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	bars.Color, bars.Width = figBand, vg.Points(1)
	s, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: figPrediction, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	p.Add(bars, s)
	p.Legend.Add("estimate ± 1.96σ", s)
	p.X.Min, p.X.Max = th.PriorLo, th.PriorHi
	return p, nil
}

// recoveryPoints are the recovery panel's points (θ, θ̂) and their bars,
// θ̂ ± 1.96 σ_post cut to the prior box.
func recoveryPoints(th core.ThetaDiagnostic) errorPoints {
	var pts errorPoints
	z := core.CentralZ(0.95)
	for i := range th.Truth {
		x, y := th.Truth[i], th.Estimate[i]
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		e := z * th.Std[i]
		if !(e >= 0) || math.IsInf(e, 0) {
			e = 0
		}
		lo, hi := max(0, min(e, y-th.PriorLo)), max(0, min(e, th.PriorHi-y))
		pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: y})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{lo, hi})
	}
	return pts
}

// sbcPanel is the rank histogram with the uniform expectation and its
// 99% binomial band.
func sbcPanel(th core.ThetaDiagnostic) (*plot.Plot, error) {
	sbc := th.SBC
	title := fmt.Sprintf("SBC ranks: %s (%s)", th.Name, sbcBrief(sbc, "χ² "))
	p := diagPanel(title, fmt.Sprintf("rank of θ among %d posterior draws", sbc.Draws), "realizations", true, false)
	// The rank axis ends where the last bar does, at a label.
	p.X.Tick.Marker = rankTicks{end: sbc.Draws + 1}
	n := 0
	for _, c := range sbc.Counts {
		n += c
	}
	bins := len(sbc.Counts)
	if n == 0 || bins == 0 {
		p.Title.Text = "SBC ranks: " + th.Name + " (no posterior spread)"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(sbc.Draws+1), 0, 1
		return p, nil
	}
	width := float64(sbc.Draws+1) / float64(bins)
	e := float64(n) / float64(bins)
	q := 1 / float64(bins)
	half := 2.576 * math.Sqrt(float64(n)*q*(1-q))
	if err := addBand(p, "uniform, 99% band", []float64{0, float64(sbc.Draws + 1)}, []float64{max(0, e-half), max(0, e-half)}, []float64{e + half, e + half}, color.NRGBA{A: 0x28}); err != nil {
		return nil, err
	}
	h := &plotter.Histogram{Width: width, FillColor: sbcBarFill, LineStyle: draw.LineStyle{Color: figPrediction, Width: vg.Points(1)}}
	for i, c := range sbc.Counts {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: float64(i) * width, Max: float64(i+1) * width, Weight: float64(c)})
	}
	p.Add(rankBars{h})
	if err := addLine(p, "expected count", []float64{0, float64(sbc.Draws + 1)}, []float64{e, e}, figNominal, true); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = 0, float64(sbc.Draws+1)
	p.Y.Min = 0
	p.Y.Max = max(p.Y.Max, e+half)
	return p, nil
}

// sbcBarFill is the fill of the SBC panel's bars: the light blue of
// the figures' bands, opaque. Translucent, a bar was light blue below
// the uniform band's lower edge and grey-blue within it, and read as
// two stacked counts.
var sbcBarFill = color.RGBA{R: 0xc7, G: 0xdd, B: 0xec, A: 0xff}

// rankBars draws a histogram's bins as bars from a count of 0 up to
// their counts: plotter.Histogram draws them up from the bottom of the
// data area, which on an axis padded below 0 (padAxes) read as counts
// below zero.
type rankBars struct{ *plotter.Histogram }

// Plot implements plot.Plotter.
func (b rankBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, bin := range b.Bins {
		x0, x1, y0, y1 := trX(bin.Min), trX(bin.Max), trY(0), trY(bin.Weight)
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		if b.FillColor != nil {
			c.FillPolygon(b.FillColor, c.ClipPolygonXY(pts))
		}
		c.StrokeLines(b.LineStyle, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// GlyphBoxes implements plot.GlyphBoxer: each bar's four corners, with
// half the outline's width about them, so that plot keeps them on the
// canvas and a test can tell that none reaches the frame.
func (b rankBars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := b.LineStyle.Width / 2
	box := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	var boxes []plot.GlyphBox
	for _, bin := range b.Bins {
		for _, corner := range [][2]float64{{bin.Min, 0}, {bin.Max, 0}, {bin.Min, bin.Weight}, {bin.Max, bin.Weight}} {
			boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(corner[0]), Y: p.Y.Norm(corner[1]), Rectangle: box})
		}
	}
	return boxes
}

// contractionXLabel is the contraction panel's x label: the z-score
// and, since the panel has no legend, what its dashed lines are. (The
// plotting library draws no subscripts: σ(post) rather than σ_post.)
const contractionXLabel = "z-score (estimate − truth)/σ(post); ±2 dashed"

// contractionPanel is contraction against z-score, with |z| = 2 marked:
// calibrated posteriors sit within it, over-confident ones spread beyond
// it at high contraction. The axes stop at |z| = zAxisMax and a
// contraction of contractionAxisMin; points beyond sit at the axes'
// ends as open triangles, so that one wild z does not squeeze the rest
// into a line.
func contractionPanel(th core.ThetaDiagnostic) (*plot.Plot, error) {
	p := diagPanel("contraction against z-score: "+th.Name, contractionXLabel, "contraction 1 − σ²(post)/σ²(prior)", false, true)
	var inside, edge plotter.XYs
	zlim, cmin := 3.0, 0.0
	for i := range th.ZScore {
		z, c := th.ZScore[i], th.Contraction[i]
		if math.IsNaN(z) || math.IsNaN(c) {
			continue
		}
		zlim, cmin = max(zlim, math.Ceil(math.Min(math.Abs(z), zAxisMax))), min(cmin, max(c, contractionAxisMin))
		if math.Abs(z) > zAxisMax || c < contractionAxisMin {
			edge = append(edge, plotter.XY{X: math.Copysign(math.Min(math.Abs(z), zAxisMax), z), Y: max(c, contractionAxisMin)})
			continue
		}
		inside = append(inside, plotter.XY{X: z, Y: c})
	}
	if len(inside)+len(edge) == 0 {
		p.Title.Text += " (no posterior spread)"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -3, 3, 0, 1
		return p, nil
	}
	for _, z := range []float64{-2, 2} {
		if err := addLine(p, "", []float64{z, z}, []float64{cmin, 1}, figNominal, true); err != nil {
			return nil, err
		}
	}
	// No legend: any corner may hold points. The title counts the
	// triangles instead.
	if len(edge) > 0 {
		p.Title.Text += fmt.Sprintf(" (triangles: %d off axes)", len(edge))
	}
	for _, set := range []struct {
		pts   plotter.XYs
		shape draw.GlyphDrawer
	}{{inside, draw.CircleGlyph{}}, {edge, draw.TriangleGlyph{}}} {
		if len(set.pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(set.pts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: figPrediction, Radius: vg.Points(2), Shape: set.shape}
		p.Add(s)
	}
	p.X.Min, p.X.Max = -zlim, zlim
	p.Y.Min, p.Y.Max = cmin, 1
	return p, nil
}

// The contraction panel's axis limits: a z-score beyond 6 or a
// posterior with twice the prior's variance is already plainly wrong.
const (
	zAxisMax           = 6.0
	contractionAxisMin = -1.0
)
