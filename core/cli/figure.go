package cli

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// The calibration figure is the paper's qualitative figure for one
// realization, drawn with gonum/plot:
//
//   - one-dimensional grids: one row per channel with three panels side
//     by side: the context observations with the nominal simulator
//     F(x; θ̂); the learned discrepancy with its 95% band; the corrected
//     prediction with its 95% band over the observations;
//   - two-dimensional (t, x) grids: per channel a row of heatmaps (the
//     nominal, the learned discrepancy, the corrected prediction with the
//     context positions marked; each over its colour bar, the nominal and
//     the prediction on one scale) above a row of slices at the first,
//     middle and last time (prediction and 95% band, nominal,
//     observations near that time).
//
// The bands are the calibrated ones (Prediction.BandDeviations): μ ± 2σ'
// with σ' the band shape's deviation at ±2σ's level, 95.4%, usually
// wider than μ ± 2 std (calibrate --json's std), and labelled for what
// they are, figBandLabel, not "± 2σ", which would read as twice that std.

// Figure colours: the paper's palette of blue predictions, grey nominal
// and black observations.
var (
	figPrediction  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	figBand        = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x40}
	figNominal     = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
	figDiscrepancy = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	figDiscBand    = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0x40}
	figObs         = color.Black
)

// Figure geometry.
const (
	figPanelW = 4 * vg.Inch
	figPanelH = 3 * vg.Inch
	figDPI    = 110
)

// writeCalibrationFigure renders c's figure and writes it to path as PNG,
// atomically: on any failure no file (and no partial file) is left, nor
// when ctx is cancelled first (savePNG).
func writeCalibrationFigure(ctx context.Context, path string, c calibration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	img, _, err := renderCalibrationFigure(c)
	if err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return savePNG(ctx, path, img)
}

// renderCalibrationFigure lays the panels out on one canvas, and returns
// it with every panel drawn on it, colour bars included. gonum/plot
// panics on some degenerate inputs; those become errors here, so that a
// figure problem never takes the command down.
func renderCalibrationFigure(c calibration) (img *vgimg.Canvas, drawn []*plot.Plot, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, drawn, err = nil, nil, fmt.Errorf("drawing failed: %v", r)
		}
	}()
	fig, err := layoutCalibrationFigure(c)
	if err != nil {
		return nil, nil, err
	}
	img = vgimg.NewWith(vgimg.UseWH(fig.size()), vgimg.UseDPI(figDPI))
	return img, fig.draw(draw.New(img)), nil
}

// calibrationFigure is the calibration figure laid out: its title, the
// notes under it (calibrationNotes), its rows of panels and the colour
// bar of each heatmap among them.
type calibrationFigure struct {
	heading figureHeading
	notes   figureNotes
	rows    [][]*plot.Plot
	bars    map[*plot.Plot]*plot.Plot
}

// layoutCalibrationFigure builds c's panels and lays its title and
// notes out for the figure's width.
func layoutCalibrationFigure(c calibration) (calibrationFigure, error) {
	var f calibrationFigure
	var err error
	if len(c.sys.Grid().Shape) == 2 {
		f.rows, f.bars, err = productPanels(c)
	} else {
		f.rows, err = linePanels(c)
	}
	if err != nil {
		return f, err
	}
	if len(f.rows) == 0 {
		return f, fmt.Errorf("grid has no channels")
	}
	// Every axis ends at a labelled round tick (roundAxes), a raised one
	// too (alignWithLegends).
	for _, row := range f.rows {
		for _, p := range row {
			roundAxes(p)
			roundAxes(f.bars[p])
		}
	}
	// A title across the top: system, θ̂ and the observations; the
	// noise and the warnings under it.
	width := vg.Length(len(f.rows[0])) * figPanelW
	f.heading = newFigureHeading(figureTitle(c), width, 0.4*vg.Inch)
	notes, warning := calibrationNotes(c)
	f.notes = newFigureNotes(notes, warning, width)
	return f, nil
}

// size is the figure's width and height.
func (f calibrationFigure) size() (w, h vg.Length) {
	return vg.Length(len(f.rows[0])) * figPanelW, vg.Length(len(f.rows))*figPanelH + f.heading.height() + f.notes.height()
}

// draw draws the figure on dc, which is f.size(), and returns every
// plot drawn, colour bars included.
func (f calibrationFigure) draw(dc draw.Canvas) (drawn []*plot.Plot) {
	body := drawHeadingAndNotes(dc, f.heading, f.notes)
	tiles := draw.Tiles{Rows: len(f.rows), Cols: len(f.rows[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := alignWithLegends(f.rows, tiles, body, roundRange)
	for i := range f.rows {
		for j, p := range f.rows[i] {
			switch {
			case p == nil:
				continue
			case f.bars[p] != nil:
				drawWithBar(canvases[i][j], p, f.bars[p])
				drawn = append(drawn, f.bars[p])
			default:
				drawPanel(p, canvases[i][j])
			}
			drawn = append(drawn, p)
		}
	}
	return drawn
}

// roundRange widens an axis to the round ticks (niceTicks) around its
// data, so that both ends are labelled: a curve reaching −0.98 would
// otherwise leave the axis past its last label, −0.5. A flat axis (a
// constant curve) is first widened by 1 each way, as plot would widen it
// at drawing time, past any rounding.
func roundRange(ax *plot.Axis) {
	if math.IsNaN(ax.Min) || math.IsNaN(ax.Max) || math.IsInf(ax.Min, 0) || math.IsInf(ax.Max, 0) || ax.Min > ax.Max {
		return
	}
	if ax.Min == ax.Max {
		ax.Min, ax.Max = ax.Min-1, ax.Max+1
	}
	// Widening can coarsen the step, which may leave an end between
	// labels again: repeat until the ends are multiples of the step the
	// ticker will choose (a few rounds at most, the step only growing).
	for range 4 {
		step := tickStep(ax.Min, ax.Max)
		lo, hi := math.Floor(ax.Min/step+1e-9)*step, math.Ceil(ax.Max/step-1e-9)*step
		if lo == ax.Min && hi == ax.Max {
			return
		}
		ax.Min, ax.Max = lo, hi
	}
}

// roundAxes widens each axis of p that niceTicks labels to round ticks
// at both ends (roundRange): every figure's panels, heatmaps and colour
// bars, so that no axis runs past its last label (advdiff's x axis
// stopped at 0.984 with 0.8 its last label, a sweep's metric past its
// top one). Axes labelled otherwise (a sweep's categories) and a nil p
// are left as they are.
func roundAxes(p *plot.Plot) {
	if p == nil {
		return
	}
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Tick.Marker.(niceTicks); ok {
			roundRange(ax)
		}
	}
}

// axisMargin is the part of a panel's axis length left empty beyond its
// outermost labels at each end (padAxes): at the labels themselves, the
// points and error-bar ends that reach an axis's ends (a sweep's first
// and last values, a coverage or contraction of 1, a θ̂ at the prior's
// bound) sat on the panel's edge, half outside the grid and against the
// axis. A twenty-fifth of a panel is about 9 points across and 6 up,
// more than a point's radius or half an error bar's cap (2.5 points
// each).
const axisMargin = 0.04

// padAxis widens ax by frac of its length at each end, labelled as it
// was (niceTicks at the step of its unpadded range): the margin carries
// no tick, its half-step ticks being at least a twelfth of the axis
// apart (tickStep labels at most seven), so it does not read as values
// the metric takes. An empty or flat axis is left as it is.
func padAxis(ax *plot.Axis, frac float64) {
	if !(ax.Max > ax.Min) {
		return
	}
	if t, ok := ax.Tick.Marker.(niceTicks); ok && !(t.stepHi > t.stepLo) {
		t.stepLo, t.stepHi = ax.Min, ax.Max
		ax.Tick.Marker = t
	}
	pad := frac * (ax.Max - ax.Min)
	ax.Min, ax.Max = ax.Min-pad, ax.Max+pad
}

// padAxes pads each axis of p that niceTicks labels, rounded to
// labelled ends (roundAxes), and an SBC panel's rank axis (rankTicks),
// by axisMargin (padAxis). A nil p is left as it is.
func padAxes(p *plot.Plot) {
	if p == nil {
		return
	}
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		switch ax.Tick.Marker.(type) {
		case niceTicks, rankTicks:
			padAxis(ax, axisMargin)
		}
	}
}

// repadRaisedAxis refits a padded axis (padAxes) whose top
// makeRoomForLegend raised: from its first label to the raised top less
// the old top margin, rounded to labelled ticks (roundRange), then
// padded again, so that a raised axis too ends a margin past its labels.
// The new margins are at least as wide as the old, which keeps the
// legend's band clear of the old range: the raise counted the old top
// margin, and counting it again took the rank counts of an SBC panel to
// 20 where 15 left room. An axis padded at a step of its own (a sweep's
// numeric x, roundValueAxis) is no y axis a legend raises. An axis
// bounded above (boundedTicks) is left as raised: its ticks stop at the
// bound, and the band above it, blank, needs no labelled end.
func repadRaisedAxis(ax *plot.Axis) {
	t, ok := ax.Tick.Marker.(niceTicks)
	if ok && t.bounded {
		return
	}
	if ok && t.stepHi > t.stepLo {
		ax.Min, ax.Max = t.stepLo, ax.Max-axisMargin*(t.stepHi-t.stepLo)
		ax.Tick.Marker = niceTicks{}
	}
	roundRange(ax)
	padAxis(ax, axisMargin)
}

// figBandLabel names the calibrated bands the figure draws, in legends
// and panel titles.
const figBandLabel = "95% band"

// figureTitle is "Damped spring · LNP, spring-lnp.safetensors · omega =
// 5.03 ± 0.04 (± 1 std) · 30 observations, refined": the model (as the
// diagnostics figure names it, and the checkpoint's file, since two of
// one backbone differ) and θ̂, whose ± is θ's posterior standard
// deviation, said so, where the panels below draw 95% bands.
func figureTitle(c calibration) string {
	s := c.sys.Title()
	if m := figureModelWords(c); m != "" {
		s += " · " + m
	}
	for i, p := range c.sys.Params() {
		sep := ","
		if i == 0 {
			sep = " ·"
		}
		s += fmt.Sprintf("%s %s = %.4g ± %.2g", sep, p.Name, c.pred.Theta[i], c.pred.ThetaStd[i])
	}
	if len(c.sys.Params()) > 0 {
		s += " (± 1 std)"
	}
	return s + " · " + core.Count(c.obs.Len(), "observation") + ", " + refinementWords(c.refine)
}

// figureModelWords names the model behind c: "LNP, spring-lnp.safetensors",
// the backbone and the checkpoint's file name (a path's directories and
// an "embedded:" prefix left out; calibrate's header prints them).
func figureModelWords(c calibration) string {
	var parts []string
	if c.model != nil && c.model.Config.Arch.Backbone != "" {
		parts = append(parts, strings.ToUpper(string(c.model.Config.Arch.Backbone)))
	}
	if name := checkpointFileName(c.checkpoint); name != "" {
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}

// checkpointFileName is the name a figure gives a checkpoint: its file's,
// a path's directories and an "embedded:" prefix left out (the command's
// text prints them); "" for none.
func checkpointFileName(checkpoint string) string {
	if name := filepath.Base(strings.TrimPrefix(checkpoint, embeddedPrefix)); checkpoint != "" && name != "." {
		return name
	}
	return ""
}

// refinementWords says how a prediction was made, for a figure that
// would otherwise not tell a one-pass answer from a refined one: "one
// pass" or "refined" (the step count is in calibrate's header; lv's
// four parameters leave the title no room for it).
func refinementWords(steps int) string {
	if steps == 0 {
		return "one pass"
	}
	return "refined"
}

// xys pairs an axis with values.
func xys(x, y []float64) plotter.XYs {
	out := make(plotter.XYs, len(x))
	for i := range x {
		out[i].X, out[i].Y = x[i], y[i]
	}
	return out
}

// addLine adds a solid or dashed line with a legend entry.
func addLine(p *plot.Plot, name string, x, y []float64, col color.Color, dashed bool) error {
	l, err := newLine(x, y, col, dashed)
	if err != nil {
		return err
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// newLine is the figures' line through (x, y) in col, dashed or solid.
func newLine(x, y []float64, col color.Color, dashed bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys(x, y))
	if err != nil {
		return nil, err
	}
	l.LineStyle = figLineStyle(col, dashed)
	return l, nil
}

// figLineStyle is the style of the figures' lines in col: 1.5 points
// wide, and dashed for the nominal and the reference lines.
func figLineStyle(col color.Color, dashed bool) draw.LineStyle {
	sty := draw.LineStyle{Color: col, Width: vg.Points(1.5)}
	if dashed {
		sty.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return sty
}

// bandLabel is the legend's name for the band from lo to hi in a panel
// that also draws others: figBandLabel, said to be about the line's
// width where at its widest it spans under 3 % of the panel's values (a
// line is about 1 % of a panel's height at the figure's size, so such a
// band shows at most a sliver either side of it; the explorer's legend
// says "< 1 row" alike), so that a legend entry is not read as a band
// that failed to draw.
func bandLabel(lo, hi []float64, others ...[]float64) string {
	least, most, widest := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range append([][]float64{lo, hi}, others...) {
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				least, most = min(least, x), max(most, x)
			}
		}
	}
	for i := range min(len(lo), len(hi)) {
		if w := hi[i] - lo[i]; !math.IsNaN(w) {
			widest = max(widest, w)
		}
	}
	if most > least && widest < 0.03*(most-least) {
		return figBandLabel + " (about the line's width)"
	}
	return figBandLabel
}

// addBand adds the filled region between lo and hi.
func addBand(p *plot.Plot, name string, x, lo, hi []float64, col color.Color) error {
	n := len(x)
	pts := make(plotter.XYs, 0, 2*n)
	for i := range n {
		pts = append(pts, plotter.XY{X: x[i], Y: hi[i]})
	}
	for i := n - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: x[i], Y: lo[i]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return err
	}
	poly.Color = col
	poly.LineStyle.Width, poly.LineStyle.Color = 0, nil
	p.Add(poly)
	if name != "" {
		p.Legend.Add(name, poly)
	}
	return nil
}

// addObs adds the observations as black dots.
func addObs(p *plot.Plot, pos, val []float64) error {
	if len(pos) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xys(pos, val))
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: figObs, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add(fmt.Sprintf("observations (%d)", len(pos)), s)
	return nil
}

// newPanel is a plot with the figure's common styling.
func newPanel(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// addZeroLine draws y = 0 across xs as a thin grey line under what
// follows: the reference a discrepancy is read against.
func addZeroLine(p *plot.Plot, xs []float64) error {
	l, err := plotter.NewLine(plotter.XYs{{X: xs[0]}, {X: xs[len(xs)-1]}})
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: figNominal, Width: vg.Points(0.6)}
	p.Add(l)
	return nil
}

// linePanels builds the three panels per channel of a one-dimensional
// grid.
func linePanels(c calibration) ([][]*plot.Plot, error) {
	g := c.sys.Grid()
	axis := gridAxes(g)[0]
	xName := g.StateNames[0]
	nc := len(g.Channels)
	p := c.pred
	bandY, bandD := p.BandDeviations()
	var rows [][]*plot.Plot
	for ch, name := range g.Channels {
		mean, std := channel(p.Mean, ch, nc), channel(bandY, ch, nc)
		nom := channel(p.Nominal, ch, nc)
		dm, ds := channel(p.DeltaMean, ch, nc), channel(bandD, ch, nc)
		pos, val := observedChannel(c.obs, ch, 0, nil)

		obsPanel := newPanel(contextPanelTitle(len(pos)), xName, name)
		if err := addLine(obsPanel, "nominal", axis, nom, figNominal, false); err != nil {
			return nil, err
		}
		if err := addObs(obsPanel, pos, val); err != nil {
			return nil, err
		}

		discPanel := newPanel("learned discrepancy, "+figBandLabel, xName, "δ "+name)
		if err := addZeroLine(discPanel, axis); err != nil {
			return nil, err
		}
		lo, hi := band(dm, ds, 2)
		if err := addBand(discPanel, bandLabel(lo, hi, dm, []float64{0}), axis, lo, hi, figDiscBand); err != nil {
			return nil, err
		}
		if err := addLine(discPanel, "discrepancy", axis, dm, figDiscrepancy, false); err != nil {
			return nil, err
		}

		predPanel := newPanel("corrected prediction, "+figBandLabel, xName, name)
		lo, hi = band(mean, std, 2)
		if err := addBand(predPanel, bandLabel(lo, hi, mean, nom, val), axis, lo, hi, figBand); err != nil {
			return nil, err
		}
		if err := addLine(predPanel, "nominal", axis, nom, figNominal, true); err != nil {
			return nil, err
		}
		if err := addLine(predPanel, "prediction", axis, mean, figPrediction, false); err != nil {
			return nil, err
		}
		if err := addObs(predPanel, pos, val); err != nil {
			return nil, err
		}
		rows = append(rows, []*plot.Plot{obsPanel, discPanel, predPanel})
	}
	return rows, nil
}

// contextPanelTitle titles a channel's first panel, which holds n
// observations: one of a channel the data leave out (lv's predator
// column dropped) says so, rather than leave an empty panel to be read
// as a drawing failure.
func contextPanelTitle(n int) string {
	if n == 0 {
		return "nominal at estimated θ (channel not observed)"
	}
	return "context and nominal at estimated θ"
}

// gridField is a channel of grid values as a plotter.GridXYZ: columns
// along the last axis (x), rows along the first (t).
type gridField struct {
	values     []float64
	rows, cols []float64 // axis values
}

func (f gridField) Dims() (c, r int)   { return len(f.cols), len(f.rows) }
func (f gridField) Z(c, r int) float64 { return f.values[r*len(f.cols)+c] }
func (f gridField) X(c int) float64    { return f.cols[c] }
func (f gridField) Y(r int) float64    { return f.rows[r] }

// heatPanel is a heatmap of f titled title, and the colour bar that
// reads it (labelled label), its colours spanning the finite values of
// scale (fields drawn side by side share one scale, so that their
// colours compare); diverging fields get a colour scale symmetric about
// zero, blue below and red above.
func heatPanel(title, rowName, colName, label string, f gridField, scale []Series, diverging bool) (heat, bar *plot.Plot) {
	lo, hi := finiteRange(scale)
	if diverging {
		a := max(math.Abs(lo), math.Abs(hi))
		lo, hi = -a, a
	}
	lo, hi = widenFlat(lo, hi)
	// The colour bar's axis is the colour scale: it ends at labelled
	// round ticks only where the scale does (a diverging one stays
	// symmetric).
	scaleAxis := plot.Axis{Min: lo, Max: hi}
	roundRange(&scaleAxis)
	lo, hi = scaleAxis.Min, scaleAxis.Max
	cm := moreland.ExtendedBlackBody()
	if diverging {
		cm = moreland.SmoothBlueRed()
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(f, cm.Palette(255))
	h.Min, h.Max = lo, hi
	heat = plot.New()
	heat.Title.Text = title
	heat.X.Label.Text, heat.Y.Label.Text = colName, rowName
	heat.X.Tick.Marker, heat.Y.Tick.Marker = niceTicks{}, niceTicks{}
	heat.Add(gridHeatMap{HeatMap: h, f: f})

	bar = plot.New()
	bar.HideY()
	bar.X.Padding = 0
	bar.X.Label.Text = label
	bar.X.Tick.Marker = niceTicks{}
	bar.Add(&plotter.ColorBar{ColorMap: cm})
	return heat, bar
}

// colourBarH is the height of the strip under a heatmap that holds its
// colour bar, tick labels and label.
const colourBarH = 0.6 * vg.Inch

// drawWithBar draws the heatmap heat in c above its colour bar, the bar
// as wide as the heatmap's data area.
func drawWithBar(c draw.Canvas, heat, bar *plot.Plot) {
	hc := c
	hc.Min.Y += colourBarH
	heat.Draw(hc)
	data := heat.DataCanvas(hc)
	bc := c
	bc.Max.Y = c.Min.Y + colourBarH
	bc.Min.X, bc.Max.X = data.Min.X, data.Max.X
	bar.Draw(bc)
}

// productPanels builds, per channel of a two-dimensional grid, a row of
// heatmaps and a row of slices. A periodic x axis is drawn to its end,
// which is its start (wrapPeriodic).
func productPanels(c calibration) (rows [][]*plot.Plot, bars map[*plot.Plot]*plot.Plot, err error) {
	g := c.sys.Grid()
	axes := gridAxes(g)
	last := len(g.StateNames) - 1
	rowName, colName := g.StateNames[0], g.StateNames[last]
	nc := len(g.Channels)
	p := c.pred
	bandY, _ := p.BandDeviations()
	bars = map[*plot.Plot]*plot.Plot{}
	for ch, name := range g.Channels {
		cols := axes[1]
		fields := [][]float64{channel(p.Nominal, ch, nc), channel(p.DeltaMean, ch, nc), channel(p.Mean, ch, nc), channel(bandY, ch, nc)}
		if g.IsPeriodic(last) {
			cols, fields = wrapPeriodic(cols, g.Hi[last]-g.Lo[last], fields...)
		}
		nom, disc, mean, std := fields[0], fields[1], fields[2], fields[3]
		field := func(v []float64) gridField { return gridField{values: v, rows: axes[0], cols: cols} }
		both := []Series{{Values: nom}, {Values: mean}}
		nomPanel, nomBar := heatPanel("nominal "+name+" at estimated θ", rowName, colName, name, field(nom), both, false)
		discPanel, discBar := heatPanel("learned discrepancy "+name, rowName, colName, "δ "+name, field(disc), []Series{{Values: disc}}, true)
		predPanel, predBar := heatPanel("corrected prediction "+name, rowName, colName, name, field(mean), both, false)
		bars[nomPanel], bars[discPanel], bars[predPanel] = nomBar, discBar, predBar
		if err := addContextRings(predPanel, c.obs, ch); err != nil {
			return nil, nil, err
		}
		rows = append(rows, []*plot.Plot{nomPanel, discPanel, predPanel})
		slices, err := slicePanels(c, ch, cols, mean, std, nom)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, slices)
	}
	return rows, bars, nil
}

// addContextRings marks channel ch's context positions in obs as small
// open circles over the heatmap p, and counts them in its title: a
// heatmap has no room for a legend.
func addContextRings(p *plot.Plot, obs sims.Context, ch int) error {
	var at plotter.XYs
	for i, st := range obs.States {
		if ch < len(obs.Mask[i]) && obs.Mask[i][ch] {
			at = append(at, plotter.XY{X: st[len(st)-1], Y: st[0]})
		}
	}
	if len(at) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(at)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0x30, G: 0xa0, B: 0xff, A: 0xff}, Radius: vg.Points(1.3), Shape: draw.RingGlyph{}}
	p.Add(s)
	p.Title.Text += fmt.Sprintf(", ○ %s", core.Count(len(at), "observation"))
	return nil
}

// slicePanels are channel ch's slices at the first, middle and last
// time: prediction and 95% band, nominal, observations near that time.
// mean, std and nom are the channel's values, rows of len(cols).
func slicePanels(c calibration, ch int, cols, mean, std, nom []float64) ([]*plot.Plot, error) {
	g := c.sys.Grid()
	times := gridAxes(g)[0]
	rowName, colName, name := g.StateNames[0], g.StateNames[len(g.StateNames)-1], g.Channels[ch]
	ncol := len(cols)
	var slices []*plot.Plot
	ks := sliceRows(len(times))
	for len(ks) < 3 {
		ks = append(ks, ks[len(ks)-1])
	}
	for _, k := range ks[:3] {
		seg := func(v []float64) []float64 { return v[k*ncol : (k+1)*ncol] }
		sp := newPanel(fmt.Sprintf("%s = %.3g", rowName, times[k]), colName, name)
		lo, hi := band(seg(mean), seg(std), 2)
		if err := addBand(sp, bandLabel(lo, hi, seg(mean), seg(nom)), cols, lo, hi, figBand); err != nil {
			return nil, err
		}
		if err := addLine(sp, "nominal", cols, seg(nom), figNominal, true); err != nil {
			return nil, err
		}
		if err := addLine(sp, "prediction", cols, seg(mean), figPrediction, false); err != nil {
			return nil, err
		}
		pos, val := observedChannel(c.obs, ch, len(g.StateNames)-1, nearRow(times, k))
		if err := addObs(sp, pos, val); err != nil {
			return nil, err
		}
		slices = append(slices, sp)
	}
	return slices, nil
}

// savePNG writes img to path as a PNG, atomically (nets.WriteFileAtomic):
// on any failure no file, and no partial file, is left. A Ctrl-C or
// SIGTERM (ctx cancelled) before the file is in place stops it too,
// with path as it was: the encoding of a large figure takes a quarter
// of a second, in which the signal was otherwise ignored and the
// command ended with status 0, so that a shell loop running it went on.
func savePNG(ctx context.Context, path string, img *vgimg.Canvas) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := nets.WriteFileAtomic(path, func(w io.Writer) error {
		if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(ctxWriter{ctx, w}); err != nil {
			return err
		}
		return ctx.Err() // the last bytes may have gone in one write
	})
	if err != nil {
		return fmt.Errorf("--png: %w", err)
	}
	return nil
}

// ctxWriter is w that fails, with ctx's error, once ctx is cancelled.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
