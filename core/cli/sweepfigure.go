package cli

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"apic/core"
)

// sweepFigureMetrics are the panels of sweep.png, two rows of three.
var sweepFigureMetrics = [][]string{
	{core.KeyReconMAE, core.KeyDeltaMAE, core.KeyThetaMAE},
	{core.KeyReconECE, core.KeyDeltaECE, core.KeyThetaCover},
}

// onePassFigureRow is the third row of panels of a training sweep: the
// MAEs without refinement.
var onePassFigureRow = []string{onePassPrefix + core.KeyReconMAE, onePassPrefix + core.KeyDeltaMAE, onePassPrefix + core.KeyThetaMAE}

// figureRows are the panels of sum's figure: the one-pass row only where
// a cell has one-pass scores.
func figureRows(sum sweepSummary) [][]string {
	rows := sweepFigureMetrics
	for _, g := range sum.Cells {
		if g.Metrics[onePassFigureRow[0]].Mean != nil {
			return append(rows[:len(rows):len(rows)], onePassFigureRow)
		}
	}
	return rows
}

// writeSweepFigure draws each metric against the first axis, one line
// per value of the other axes, with error bars of the seeds' 95%
// interval, under title and a legend of the lines, and writes it
// atomically as PNG.
func writeSweepFigure(ctx context.Context, path string, sum sweepSummary, title string) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("--png: drawing failed: %v", r)
		}
	}()
	rows, legend, err := sweepFigurePanels(sum)
	if err != nil {
		return fmt.Errorf("--png: %w", err)
	}
	heading := newFigureHeading(title, 3*figPanelW, sweepTitleHeight)
	head := heading.height() + legend.height()
	img := vgimg.NewWith(vgimg.UseWH(3*figPanelW, vg.Length(len(rows))*figPanelH+head), vgimg.UseDPI(figDPI))
	drawSweepFigure(draw.New(img), rows, heading, legend)
	return savePNG(ctx, path, img)
}

// sweepTitleHeight is the height of sweep.png's first title line.
const sweepTitleHeight = 0.4 * vg.Inch

// sweepFigurePanels are sum's panels (figureRows) and the legend of
// their lines, which all panels share.
func sweepFigurePanels(sum sweepSummary) ([][]*plot.Plot, figureLegend, error) {
	xs, series := sweepCurves(sum)
	// Numeric axis values are placed at their value, others evenly with
	// their names as ticks.
	pos := make([]float64, len(xs))
	numeric := true
	for i, x := range xs {
		v, perr := strconv.ParseFloat(x, 64)
		pos[i], numeric = v, numeric && perr == nil
	}
	if !numeric {
		for i := range pos {
			pos[i] = float64(i)
		}
	}
	panels := figureRows(sum)
	rows := make([][]*plot.Plot, len(panels))
	for r, metrics := range panels {
		for _, k := range metrics {
			p, err := sweepPanel(k, sum.Axes[0], xs, series, pos, numeric)
			if err != nil {
				return nil, figureLegend{}, err
			}
			rows[r] = append(rows[r], p)
		}
	}
	entries, err := sweepLegendEntries(series, numeric)
	if err != nil {
		return nil, figureLegend{}, err
	}
	return rows, newFigureLegend(entries, 3*figPanelW-vg.Inch), nil
}

// sweepLegendEntries are the legend's entries, one per named series,
// drawn as its marks are: line and point on a numeric axis, the point
// alone on categories.
func sweepLegendEntries(series []sweepSeries, numeric bool) ([]figureLegendEntry, error) {
	var entries []figureLegendEntry
	for si, s := range series {
		if name := strings.TrimSpace(s.name); name != "" {
			line, points, err := sweepSeriesMarks(plotter.XYs{{}}, si)
			if err != nil {
				return nil, err
			}
			marks := []plot.Thumbnailer{line, points}
			if !numeric {
				marks = marks[1:] // categories are drawn as points alone
			}
			entries = append(entries, figureLegendEntry{name, marks})
		}
	}
	return entries, nil
}

// drawSweepFigure draws heading and the legend across the top of c, the
// panels below, and returns the panels' canvases. The legend is the
// figure's, not each panel's: the panels' lines are the same series, and
// a legend inside a panel sits on its error bars, which run the panel's
// height.
func drawSweepFigure(c draw.Canvas, rows [][]*plot.Plot, heading figureHeading, legend figureLegend) [][]draw.Canvas {
	heading.draw(c)
	strip := c
	strip.Max.Y = c.Max.Y - heading.height()
	strip.Min.Y = strip.Max.Y - legend.height()
	legend.draw(strip)
	body := c
	body.Max.Y = strip.Min.Y
	tiles := draw.Tiles{Rows: len(rows), Cols: 3, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(rows, tiles, body)
	for i := range rows {
		for j, p := range rows[i] {
			p.Draw(canvases[i][j])
		}
	}
	return canvases
}

// sweepPanel is the panel of metric k against the first axis, whose
// values xs sit at pos (numeric: at their values, else at their index,
// labelled with their names).
func sweepPanel(k, axis string, xs []string, series []sweepSeries, pos []float64, numeric bool) (*plot.Plot, error) {
	label := sweepMetricLabel(k)
	p := newPanel(label, axis, label)
	if !numeric {
		ticks := make([]plot.Tick, len(xs))
		for i, x := range xs {
			ticks[i] = plot.Tick{Value: float64(i), Label: shortTickLabel(x)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		// Half a step of room each side, so that the first and last
		// categories' points and error bars are not drawn on the frame.
		p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	}
	if coverLevel(k) {
		p.Title.Text += ", dashed at 0.95"
	}
	marks, err := sweepPanelMarks(k, series, pos, numeric)
	if err != nil {
		return nil, err
	}
	p.Add(marks...)
	// The error bars stop at the metric's bounds; the axis, fitted to
	// the data, must not run past them either. A flat panel (a coverage
	// of 1 in every cell) gets some room, within the bounds: plot would
	// widen it by 1 each way, to a coverage axis from 0 to 2.
	lo, hi := metricRange(k)
	if p.Y.Min == p.Y.Max {
		pad := math.Abs(p.Y.Min) / 10
		if pad == 0 {
			pad = 1
		}
		p.Y.Min, p.Y.Max = p.Y.Min-pad, p.Y.Max+pad
	}
	p.Y.Min, p.Y.Max = max(p.Y.Min, lo), min(p.Y.Max, hi)
	// The y axis then ends at labelled round ticks; the bounds, 0 and 1,
	// are multiples of the step of any range within them, so the rounded
	// axis stays within them.
	roundRange(&p.Y)
	padAxis(&p.Y, axisMargin)
	if numeric {
		roundValueAxis(&p.X, pos)
	}
	return p, nil
}

// roundValueAxis fits a numeric sweep axis ax, which holds the dodged
// points (dodgeStep), to the round ticks around the values pos, labelled
// at the step of those (niceTicks), and widens it no further than the
// points: rounded from the dodged points, an axis of noise 0, 0.05 and
// 0.1 ran from −0.05 to 0.15, a quarter of it each side empty, and
// beyond what noise can be. Its ends are then the first and last labels
// or within a dodge of them, and axisMargin beyond (padAxis). One value
// v gets the axis v ± its singleValueSpan, rounded (roundRange): as a
// flat axis, widened by 1 each way, noise 0.05 ran from −1 to 1.5, its
// point squeezed against the tick of 0 and the axis mostly negative
// noise.
func roundValueAxis(ax *plot.Axis, pos []float64) {
	lo, hi := slices.Min(pos), slices.Max(pos)
	if !(hi > lo) {
		span := singleValueSpan(lo)
		ax.Min, ax.Max = min(ax.Min, lo-span), max(ax.Max, lo+span)
		roundRange(ax)
		return
	}
	values := plot.Axis{Min: lo, Max: hi}
	roundRange(&values)
	ax.Min, ax.Max = min(ax.Min, values.Min), max(ax.Max, values.Max)
	ax.Tick.Marker = niceTicks{stepLo: values.Min, stepHi: values.Max}
	padAxis(ax, axisMargin)
}

// singleValueSpan is how far either side of v the axis of a sweep of
// the one value v runs: a tenth of |v| rounded up to a round step (1, 2
// or 5 × 10^k), at least 1 for a whole number (context 20 runs from 18
// to 22, refine 1 from 0 to 2, noise 0.05 from 0.045 to 0.055), and 1
// about 0, which has no scale of its own.
func singleValueSpan(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	span := roundStep(math.Abs(v) / 10)
	if v == math.Trunc(v) {
		span = max(span, 1)
	}
	return span
}

// sweepMetricLabel is metric k as sweep.png names it, in the words of
// sweep's table and eval's report ("recon MAE", "θ cover95"), not the
// results.csv column (recon_mae), which a figure in a paper cannot use;
// a one-pass score is "one-pass recon MAE". A metric without a label
// keeps its key.
func sweepMetricLabel(k string) string {
	base, onePass := strings.CutPrefix(k, onePassPrefix)
	label, ok := metricLabels[base]
	if !ok {
		return k
	}
	if base == core.KeyThetaMAE {
		label = "θ MAE" // the mean over θ, as sweep's table heads it
	}
	if onePass {
		label = "one-pass " + label
	}
	return label
}

// errorBar is the error bar of metric k's interval iv: its ends, cut at
// the metric's bounds (metricRange), as distances below and above the
// mean; 0, 0 without an interval. With few seeds the t interval of a
// coverage of 0.9 runs past 2, that of a small MAE below 0: values the
// metric cannot take.
func errorBar(iv sweepInterval, k string) (below, above float64) {
	if iv.Mean == nil || iv.Lo == nil || iv.Hi == nil {
		return 0, 0
	}
	least, most := metricRange(k)
	return *iv.Mean - max(*iv.Lo, least), min(*iv.Hi, most) - *iv.Mean
}

// errPoints are a series' means with their intervals as error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// coverLevel is whether metric k's panel draws the 0.95 level (θ's
// coverage of its 95% intervals).
func coverLevel(k string) bool {
	return strings.TrimPrefix(k, onePassPrefix) == core.KeyThetaCover
}

// sweepPanelMarks are what metric k's panel draws: each series
// (sweepSeriesPlotters), its points moved by dodgeStep so that the
// series sharing an axis value stand apart, then the 0.95 level where
// coverLevel. The level comes last, over the series: drawn under them,
// a series at 0.95 (a coverage right on target) hid it, the panel's
// title still saying "dashed at 0.95".
func sweepPanelMarks(k string, series []sweepSeries, pos []float64, numeric bool) ([]plot.Plotter, error) {
	var marks []plot.Plotter
	step := dodgeStep(pos, numeric, len(series))
	for si, s := range series {
		shifted := make([]float64, len(pos))
		for i, x := range pos {
			shifted[i] = x + (float64(si)-float64(len(series)-1)/2)*step
		}
		m, err := sweepSeriesPlotters(s, k, shifted, si, numeric)
		if err != nil {
			return nil, err
		}
		marks = append(marks, m...)
	}
	if coverLevel(k) {
		marks = append(marks, newLevelRule(pos, 0.95))
	}
	return marks, nil
}

// dodgeStep is how far apart, along x, the n series' points of one axis
// value are drawn, so that their error bars do not hide one another. All
// n together spread over at most 0.6 of a category (a tenth between
// neighbours), or on a numeric axis over at most a third of the closest
// two values' gap and 2.4 % of the axis's span, so that no point leaves
// its value's neighbourhood (one numeric value v spreads as a category
// would over one singleValueSpan of v, its axis being two of them wide).
// 0 for one series.
func dodgeStep(pos []float64, numeric bool, n int) float64 {
	if n < 2 || len(pos) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(pos))
	span := sorted[len(sorted)-1] - sorted[0]
	if !numeric {
		return min(0.1, 0.6/float64(n-1))
	}
	if span == 0 {
		return min(0.1, 0.6/float64(n-1)) * singleValueSpan(sorted[0])
	}
	gap := span
	for i := 1; i < len(sorted); i++ {
		if d := sorted[i] - sorted[i-1]; d > 0 {
			gap = min(gap, d)
		}
	}
	return min(gap/3, 0.024*span) / float64(n-1)
}

// levelRule is the line y = level, the level a coverage is read
// against, dashed in the nominal's grey as the other figures' reference
// lines are, across the whole data area whatever its x axis: a line
// from the first axis value to the last stopped short of the axis's
// ends, and about one value its own half a unit each way made the
// coverage panel's x axis differ from its neighbours'.
type levelRule struct {
	level    float64
	xlo, xhi float64 // the axis values, which its data range spans
	style    draw.LineStyle
}

// newLevelRule is the level rule at level over the axis values pos.
func newLevelRule(pos []float64, level float64) levelRule {
	return levelRule{level: level, xlo: slices.Min(pos), xhi: slices.Max(pos), style: figLineStyle(figNominal, true)}
}

// Plot implements plot.Plotter.
func (r levelRule) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(r.level)
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the level at the axis values,
// so that the y axis holds the level and the x axis is the values'.
func (r levelRule) DataRange() (xmin, xmax, ymin, ymax float64) {
	return r.xlo, r.xhi, r.level, r.level
}

// sweepSeriesPlotters are one series of metric k: its points at the means,
// joined by a line on a numeric axis (on categories a line would draw a
// trend between values that have no order), and error bars (errorBar)
// where a cell has an interval. The figure's legend names it
// (sweepFigurePanels).
func sweepSeriesPlotters(s sweepSeries, k string, pos []float64, index int, joined bool) ([]plot.Plotter, error) {
	var pts errPoints
	for i, g := range s.cells {
		if g == nil || g.Metrics[k].Mean == nil {
			continue
		}
		iv := g.Metrics[k]
		pts.XYs = append(pts.XYs, plotter.XY{X: pos[i], Y: *iv.Mean})
		lo, hi := errorBar(iv, k)
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{lo, hi})
	}
	if len(pts.XYs) == 0 {
		return nil, nil
	}
	line, points, err := sweepSeriesMarks(pts.XYs, index)
	if err != nil {
		return nil, err
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	bars.Color = line.Color
	if joined {
		return []plot.Plotter{line, points, bars}, nil
	}
	return []plot.Plotter{points, bars}, nil
}

// sweepSeriesMarks are the line and points of series index through pts,
// in its colour, glyph and dashes (sweepSeriesStyle).
func sweepSeriesMarks(pts plotter.XYs, index int) (*plotter.Line, *plotter.Scatter, error) {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, nil, err
	}
	col, shape, dashes := sweepSeriesStyle(index)
	line.Color, points.Color = col, col
	line.Dashes, points.Shape = dashes, shape
	return line, points, nil
}

// sweepSeriesColors are the series' colours, Okabe and Ito's palette
// for colour-blind readers, the first two a blue and an orange that
// greyscale keeps apart too: the plotting library's default red and
// green, a sweep's refine=0 and refine=5, are the pair a red-green
// colour-blind reader cannot tell apart, and print as one grey.
var sweepSeriesColors = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.Black,
}

// sweepSeriesStyle is series index's colour, point glyph and line
// dashes: each series differs from the others in all three, so that
// one is told from another without its colour (in greyscale, by a
// colour-blind reader), as every series had the same ring and solid
// line.
func sweepSeriesStyle(index int) (color.Color, draw.GlyphDrawer, []vg.Length) {
	return sweepSeriesColors[index%len(sweepSeriesColors)], plotutil.Shape(index), plotutil.Dashes(index)
}

// checkSweepFigures checks, before any cell runs, the sweep.png that
// --png will write in each sweep folder of dirs: a directory, pipe or
// device there (or a link to one), or a file that is not a PNG, is
// refused now rather than after hours of cells. Whether the folder
// takes new files is left to the run's folder check (a --collect of a
// read-only folder still prints its summary).
func checkSweepFigures(dirs ...string) error {
	for _, dir := range dirs {
		fig := filepath.Join(dir, "sweep.png")
		if err := core.CheckWriteTarget(fig, "a figure"); err != nil {
			return UsageError("--png: %v", err)
		}
		if err := checkReplacesOnlyPNG(fig); err != nil {
			return err
		}
	}
	return nil
}

// maxTickRunes is the longest category tick label a sweep panel draws:
// a panel is a few inches wide, and a label longer than it (a
// checkpoint's path) pushed the panels off the figure and their lines
// out of their frames.
const maxTickRunes = 16

// shortTickLabel is x as a tick shows it: a checkpoint's path by its
// file name without the extension, then cut to maxTickRunes runes by an
// ellipsis in the middle, keeping its start and its end; the run's
// results.csv keeps the whole value.
func shortTickLabel(x string) string {
	if strings.Contains(x, "/") || strings.HasSuffix(x, core.CheckpointExt) {
		x = strings.TrimSuffix(filepath.Base(x), core.CheckpointExt)
	}
	r := []rune(x)
	if len(r) <= maxTickRunes {
		return x
	}
	head := (maxTickRunes - 1) / 2
	tail := maxTickRunes - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
