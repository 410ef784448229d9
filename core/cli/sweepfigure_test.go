package cli

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"apic/core"
)

// TestSweepFigureKeepsMetricBounds: two seeds' t interval of a coverage
// of 0.9 runs from -0.37 to 2.17, that of an MAE of 0.0017 below 0;
// sweep.png's error bars and axes stop at 0 and 1 (MAE: 0), while the
// log-likelihood, unbounded, keeps its interval.
func TestSweepFigureKeepsMetricBounds(t *testing.T) {
	span := func(mean, lo, hi float64) sweepInterval { return sweepInterval{Mean: &mean, Lo: &lo, Hi: &hi, N: 2} }
	for _, tc := range []struct {
		k            string
		iv           sweepInterval
		below, above float64
	}{
		{core.KeyThetaCover, span(0.9, -0.37, 2.17), 0.9, 0.1},
		{core.KeyThetaMAE, span(0.0017, -0.0075, 0.011), 0.0017, 0.0093},
		{onePassPrefix + core.KeyDeltaMAE, span(0.01, -0.02, 0.04), 0.01, 0.03},
		{core.KeyReconECE, span(0.5, 0.2, 1.3), 0.3, 0.5},
		{core.KeyReconLL, span(-1, -5, 3), 4, 4},
	} {
		below, above := errorBar(tc.iv, tc.k)
		if math.Abs(below-tc.below) > 1e-12 || math.Abs(above-tc.above) > 1e-12 {
			t.Errorf("%s: error bar %v below, %v above the mean; want %v, %v", tc.k, below, above, tc.below, tc.above)
		}
	}

	one := 1.0
	sum := sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{
		{Seeds: 2, order: []string{"5"}, Metrics: map[string]sweepInterval{
			core.KeyThetaCover: span(0.9, -0.37, 2.17), core.KeyThetaMAE: span(0.0017, -0.0075, 0.011), core.KeyReconLL: span(-1, -5, 3)}},
		{Seeds: 1, order: []string{"30"}, Metrics: map[string]sweepInterval{
			core.KeyThetaCover: {Mean: &one, N: 1}, core.KeyThetaMAE: {Mean: &one, N: 1}, core.KeyReconLL: {Mean: &one, N: 1}}},
	}}
	xs, series := sweepCurves(sum)
	pos := []float64{5, 30}
	for _, tc := range []struct {
		k        string
		min, max float64 // the axis's ticks must stay within these
	}{
		{core.KeyThetaCover, 0, 1},
		{core.KeyThetaMAE, 0, math.Inf(1)},
		{core.KeyReconLL, math.Inf(-1), math.Inf(1)},
	} {
		p, err := sweepPanel(tc.k, "context", xs, series, pos, true)
		if err != nil {
			t.Fatal(err)
		}
		// The axis runs past a bound by its empty margin alone, where no
		// tick says a value the metric cannot take.
		room := axisMargin / (1 + 2*axisMargin) * (p.Y.Max - p.Y.Min)
		if p.Y.Min < tc.min-room*(1+1e-9) || p.Y.Max > tc.max+room*(1+1e-9) {
			t.Errorf("%s: y axis from %v to %v, beyond [%v, %v] and its margin", tc.k, p.Y.Min, p.Y.Max, tc.min, tc.max)
		}
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Value < tc.min || tk.Value > tc.max {
				t.Errorf("%s: y tick at %v (%q), outside [%v, %v]", tc.k, tk.Value, tk.Label, tc.min, tc.max)
			}
		}
	}
	if p, _ := sweepPanel(core.KeyReconLL, "context", xs, series, pos, true); p.Y.Min > -5 || p.Y.Max < 3 {
		t.Errorf("recon_ll: y axis from %v to %v cuts its interval [-5, 3]", p.Y.Min, p.Y.Max)
	}

	// A coverage of 1 in every cell: labelled room below 1, none above
	// but the margin.
	flat := sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{
		{Seeds: 1, order: []string{"5"}, Metrics: map[string]sweepInterval{core.KeyThetaCover: {Mean: &one, N: 1}}},
		{Seeds: 1, order: []string{"30"}, Metrics: map[string]sweepInterval{core.KeyThetaCover: {Mean: &one, N: 1}}},
	}}
	xs, series = sweepCurves(flat)
	p, _ := sweepPanel(core.KeyThetaCover, "context", xs, series, pos, true)
	var labels []float64
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Value)
		}
	}
	if len(labels) < 2 || labels[0] < 0 || labels[0] >= 1 || labels[len(labels)-1] != 1 {
		t.Errorf("flat coverage of 1: y axis labelled %v, want from x to 1 with 0 ≤ x < 1", labels)
	}

	path := filepath.Join(t.TempDir(), "sweep.png")
	if err := writeSweepFigure(context.Background(), path, sum, "Damped spring · sweep of context"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("sweep.png not written: %v", err)
	}
}

// TestSweepPanelNarrowRangeLabels: a sweep whose metric spans 0.02747 to
// 0.02763 gets y labels that all differ (two read 0.0276 once).
func TestSweepPanelNarrowRangeLabels(t *testing.T) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	sum := sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{
		{Seeds: 1, order: []string{"5"}, Metrics: map[string]sweepInterval{core.KeyReconMAE: at(0.02747)}},
		{Seeds: 1, order: []string{"30"}, Metrics: map[string]sweepInterval{core.KeyReconMAE: at(0.02763)}},
	}}
	xs, series := sweepCurves(sum)
	p, err := sweepPanel(core.KeyReconMAE, "context", xs, series, []float64{5, 30}, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label == "" {
			continue
		}
		if seen[tk.Label] {
			t.Errorf("y axis [%g, %g]: label %s twice", p.Y.Min, p.Y.Max, tk.Label)
		}
		seen[tk.Label] = true
	}
}

// sweep.png has a title saying what was swept on which system and
// backbone, and one legend for all panels, between the title and the
// panels, where no error bar runs through it (each panel had its own,
// at its top right, over the bars).
func TestSweepFigureTitleAndLegend(t *testing.T) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	var sum sweepSummary
	sum.Axes = []string{"context", "noise"}
	for _, x := range []string{"5", "30"} {
		for _, noise := range []string{"0", "0.05"} {
			sum.Cells = append(sum.Cells, sweepGroup{Seeds: 2, order: []string{x, noise}, Metrics: map[string]sweepInterval{
				core.KeyReconMAE: at(0.01), core.KeyThetaCover: at(0.9)}})
		}
	}
	var rows []sweepRow
	for i := range sum.Cells {
		// The cells' evaluations at their context and noise, which the
		// axes name.
		rows = append(rows, sweepRow{system: "spring", backbone: "lnp", tasks: 8, context: 5 + 25*(i/2), noise: 0.05 * float64(i%2)})
	}
	title := sweepFigureTitle(sum.Axes, rows, sum)
	if want := "Damped spring · LNP · sweep of context, a series per noise · 2 seeds × 8 realizations · mean ± t-based 95% interval over seeds"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}

	panels, legend, err := sweepFigurePanels(sum)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	heading := newFigureHeading(title, 3*figPanelW, sweepTitleHeight)
	c := draw.NewCanvas(&rec, 3*figPanelW, vg.Length(len(panels))*figPanelH+heading.height()+legend.height())
	drawSweepFigure(c, panels, heading, legend)
	stripBottom := c.Max.Y - heading.height() - legend.height()
	drawn := map[string]int{}
	for _, a := range rec.Actions {
		f, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		drawn[f.String]++
		if f.String == title || strings.HasPrefix(f.String, "noise=") {
			if f.Point.Y < stripBottom {
				t.Errorf("%q drawn at y %v, below the heading (from %v)", f.String, f.Point.Y, stripBottom)
			}
		}
	}
	for _, s := range []string{title, "noise=0", "noise=0.05"} {
		if drawn[s] != 1 {
			t.Errorf("%q drawn %d times, want once", s, drawn[s])
		}
	}

	// Cells of another backbone each, and seeds that differ.
	rows[0].backbone, sum.Cells[0].Seeds = "cnp", 1
	if got, want := sweepFigureTitle(sum.Axes[:1], rows, sum), "Damped spring · sweep of context · 1–2 seeds × 8 realizations · mean ± t-based 95% interval over seeds"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	// One seed everywhere: no interval, so no word of one.
	for i := range sum.Cells {
		sum.Cells[i].Seeds = 1
	}
	if got, want := sweepFigureTitle(sum.Axes[:1], rows, sum), "Damped spring · sweep of context · 1 seed × 8 realizations"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
}

// TestSweepPanelsNameMetricsInWords: sweep.png's panels are titled and
// their y axes labelled as sweep's table names the metrics ("recon
// MAE", "θ cover95"), not by results.csv's column keys (recon_mae,
// theta_cover95), which a paper's figure cannot show.
func TestSweepPanelsNameMetricsInWords(t *testing.T) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	metrics := map[string]sweepInterval{}
	for _, k := range append(slices.Concat(sweepFigureMetrics...), onePassFigureRow...) {
		metrics[k] = at(0.5)
	}
	sum := sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{
		{Seeds: 1, order: []string{"5"}, Metrics: metrics},
		{Seeds: 1, order: []string{"30"}, Metrics: metrics},
	}}
	rows, _, err := sweepFigurePanels(sum)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"recon MAE", "δ MAE", "θ MAE"},
		{"recon ECE", "δ ECE", thetaCoverLabel},
		{"one-pass recon MAE", "one-pass δ MAE", "one-pass θ MAE"},
	}
	for i, row := range rows {
		for j, p := range row {
			title := want[i][j]
			if title == thetaCoverLabel {
				title += ", dashed at 0.95" // its reference line
			}
			if p.Title.Text != title || p.Y.Label.Text != want[i][j] {
				t.Errorf("panel %d,%d: title %q, y label %q; want %q, %q", i, j, p.Title.Text, p.Y.Label.Text, title, want[i][j])
			}
			for _, s := range drawnText(p) {
				if strings.Contains(s, "_") {
					t.Errorf("panel %q draws the column key %q", p.Title.Text, s)
				}
			}
		}
	}
}

// TestSweepCategoryAxisKeepsPointsOffFrame: on a sweep of categories
// (backbone=cnp,lnp,anp) the first and last categories' points and
// error bars sat on the panel's frame, half hidden by it; the axis runs
// half a category past each.
func TestSweepCategoryAxisKeepsPointsOffFrame(t *testing.T) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	sum := sweepSummary{Axes: []string{"backbone"}}
	for _, b := range []string{"anp", "cnp", "lnp"} {
		sum.Cells = append(sum.Cells, sweepGroup{Seeds: 1, order: []string{b}, Metrics: map[string]sweepInterval{core.KeyReconMAE: at(0.1)}})
	}
	xs, series := sweepCurves(sum)
	p, err := sweepPanel(core.KeyReconMAE, "backbone", xs, series, []float64{0, 1, 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != -0.5 || p.X.Max != 2.5 {
		t.Errorf("category axis from %v to %v, want -0.5 to 2.5", p.X.Min, p.X.Max)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	if !slices.Equal(labels, []string{"anp", "cnp", "lnp"}) {
		t.Errorf("category ticks %q, want anp, cnp, lnp", labels)
	}
}

// TestSweepPointsInsideFrame: every point and error-bar end of
// sweep.png lies inside its panel's data area, the extent of its grid,
// by at least its own half-size (a point's radius, half a cap's width
// and line): the first and last values' points sat on the panel's edge,
// half off the grid and against the axis, and a coverage of 1's bar end
// on the grid's top line; a single value's point stays in the middle.
func TestSweepPointsInsideFrame(t *testing.T) {
	for _, xs := range [][]string{{"0", "0.05", "0.1"}, {"5", "10", "30"}, {"cnp", "lnp", "anp"}, {"0.05"}} {
		sum := sweepSummary{Axes: []string{"x", "context"}}
		for i, x := range xs {
			for j, c := range []string{"10", "30"} {
				v := 0.01 * float64(1+i+3*j)
				sum.Cells = append(sum.Cells, sweepGroup{Seeds: 3, order: []string{x, c}, Metrics: map[string]sweepInterval{
					core.KeyReconMAE: interval(v, 2*v), core.KeyDeltaMAE: interval(v, v/2), core.KeyThetaMAE: interval(v, 0),
					core.KeyReconECE: interval(0.5, 0.6), core.KeyDeltaECE: interval(0.2, 0.05), core.KeyThetaCover: interval(1, 0.2)}})
			}
		}
		rows, legend, err := sweepFigurePanels(sum)
		if err != nil {
			t.Fatal(err)
		}
		heading := newFigureHeading("test", 3*figPanelW, sweepTitleHeight)
		var rec recorder.Canvas
		canvases := drawSweepFigure(draw.NewCanvas(&rec, 3*figPanelW, vg.Length(len(rows))*figPanelH+heading.height()+legend.height()), rows, heading, legend)
		for i, row := range rows {
			for j, p := range row {
				data := p.DataCanvas(canvases[i][j])
				boxes := p.GlyphBoxes(p)
				if len(boxes) == 0 {
					t.Fatalf("sweep of %v, panel %q: no points", xs, p.Title.Text)
				}
				for _, b := range boxes {
					x, y := data.X(b.X), data.Y(b.Y)
					if x+b.Min.X < data.Min.X || x+b.Max.X > data.Max.X || y+b.Min.Y < data.Min.Y || y+b.Max.Y > data.Max.Y {
						t.Errorf("sweep of %v, panel %q: mark at (%.4g, %.4g) of the axes, %v to %v, reaches past the data area %v to %v",
							xs, p.Title.Text, p.X.Min+b.X*(p.X.Max-p.X.Min), p.Y.Min+b.Y*(p.Y.Max-p.Y.Min),
							vg.Point{X: x + b.Min.X, Y: y + b.Min.Y}, vg.Point{X: x + b.Max.X, Y: y + b.Max.Y}, data.Min, data.Max)
						break
					}
				}
			}
		}
	}
}

// TestSweepSeriesApartAndCategoriesUnjoined: where several series share
// an axis value their points (and error bars) are drawn apart, each
// within its value's neighbourhood, so that no bar hides another; a
// categorical axis (backbone=cnp,lnp,anp) draws points alone, where a
// line would draw a trend between values that have no order; θ
// cover95's panel draws its 0.95 level.
func TestSweepSeriesApartAndCategoriesUnjoined(t *testing.T) {
	iv := func(v float64) sweepInterval { return interval(v, 0.01) }
	for _, c := range []struct {
		axis    string
		xs      []string
		numeric bool
	}{{"context", []string{"5", "10", "30"}, true}, {"backbone", []string{"cnp", "lnp", "anp"}, false}} {
		sum := sweepSummary{Axes: []string{c.axis, "noise"}}
		for _, x := range c.xs {
			for _, noise := range []string{"0", "0.05", "0.1"} {
				sum.Cells = append(sum.Cells, sweepGroup{Seeds: 3, order: []string{x, noise}, Metrics: map[string]sweepInterval{
					core.KeyReconMAE: iv(0.01), core.KeyThetaCover: iv(0.9)}})
			}
		}
		xs0, series := sweepCurves(sum)
		pos := []float64{0, 1, 2}
		if c.numeric {
			pos = []float64{5, 10, 30}
		}
		if len(xs0) != 3 {
			t.Fatalf("%s: axis values %v", c.axis, xs0)
		}
		mae, err := sweepPanelMarks(core.KeyReconMAE, series, pos, c.numeric)
		if err != nil {
			t.Fatal(err)
		}
		cover, err := sweepPanelMarks(core.KeyThetaCover, series, pos, c.numeric)
		if err != nil {
			t.Fatal(err)
		}
		var xs []float64
		lines, levels := 0, 0
		for _, pl := range mae {
			switch v := pl.(type) {
			case *plotter.Scatter:
				for _, xy := range v.XYs {
					xs = append(xs, xy.X)
				}
			case *plotter.Line:
				lines++
			}
		}
		for _, pl := range cover {
			if l, ok := pl.(levelRule); ok && l.level == 0.95 {
				levels++
			}
		}
		if len(xs) != 9 {
			t.Fatalf("%s: %d points, want 9", c.axis, len(xs))
		}
		slices.Sort(xs)
		for i := 1; i < len(xs); i++ {
			if xs[i] == xs[i-1] {
				t.Errorf("%s: two series drawn at x = %v, one over the other", c.axis, xs[i])
			}
		}
		for i := 0; i < 9; i += 3 { // each value's three points, near it
			if spread := xs[i+2] - xs[i]; spread <= 0 || i+3 < 9 && xs[i+3]-xs[i+2] <= spread {
				t.Errorf("%s: points %v not grouped by value", c.axis, xs)
			}
		}
		if wantLines := map[bool]int{true: 3, false: 0}[c.numeric]; lines != wantLines {
			t.Errorf("%s: %d lines, want %d", c.axis, lines, wantLines)
		}
		if levels != 1 {
			t.Errorf("%s: θ cover95 draws %d lines at 0.95, want 1", c.axis, levels)
		}
	}
}

// TestDodgeStep: series spread over a tenth of a category each (0.6 in
// all at most), over a third of a numeric axis's closest gap or 2.4 % of
// its span, and about a single numeric value as a category would over
// one singleValueSpan; one series stays.
func TestDodgeStep(t *testing.T) {
	for _, c := range []struct {
		pos     []float64
		numeric bool
		n       int
		want    float64
	}{
		{[]float64{0, 1, 2}, false, 3, 0.1},
		{[]float64{0, 1, 2}, false, 13, 0.05},
		{[]float64{5, 10, 30, 90}, true, 2, 5.0 / 3},
		{[]float64{0, 50, 100}, true, 2, 0.024 * 100},
		{[]float64{0, 0.1, 1, 10, 100}, true, 3, 0.1 / 3 / 2},
		{[]float64{30}, true, 3, 0.1 * 5}, // 30's axis: 25 to 35
		{[]float64{0.05}, true, 3, 0.1 * 0.005},
		{[]float64{5, 10}, true, 1, 0},
	} {
		if got := dodgeStep(c.pos, c.numeric, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("dodgeStep(%v, %v, %d) = %v, want %v", c.pos, c.numeric, c.n, got, c.want)
		}
	}
}

// TestSweepSeriesTellApartWithoutColour: each series of sweep.png, up
// to as many as it has colours, draws its points in a glyph and its
// line in dashes of its own, in panels and legend alike, and the first
// two series (refine=0 and refine=5, say) differ in lightness: every
// series had the same ring and solid line, and the first two were a red
// and a green that a red-green colour-blind reader, or a greyscale
// print, cannot tell apart.
func TestSweepSeriesTellApartWithoutColour(t *testing.T) {
	n := len(sweepSeriesColors)
	sum := sweepSummary{Axes: []string{"context", "refine"}}
	for _, x := range []string{"10", "30"} {
		for s := range n {
			sum.Cells = append(sum.Cells, sweepGroup{Seeds: 3, order: []string{x, fmt.Sprint(s)}, Metrics: map[string]sweepInterval{
				core.KeyReconMAE: interval(0.01, 0.001)}})
		}
	}
	_, series := sweepCurves(sum)
	marks, err := sweepPanelMarks(core.KeyReconMAE, series, []float64{10, 30}, true)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := sweepLegendEntries(series, true)
	if err != nil {
		t.Fatal(err)
	}
	var shapes, dashes, thumbs []string
	for _, pl := range marks {
		switch v := pl.(type) {
		case *plotter.Scatter:
			shapes = append(shapes, fmt.Sprintf("%T", v.Shape))
		case *plotter.Line:
			dashes = append(dashes, fmt.Sprint(v.Dashes))
		}
	}
	for _, e := range entries {
		for _, th := range e.thumbs {
			if s, ok := th.(*plotter.Scatter); ok {
				thumbs = append(thumbs, fmt.Sprintf("%T", s.Shape))
			}
		}
	}
	for what, got := range map[string][]string{"point glyphs": shapes, "line dashes": dashes, "legend glyphs": thumbs} {
		if len(got) != n || len(slices.Compact(slices.Sorted(slices.Values(got)))) != n {
			t.Errorf("%d series draw %s %v: not one of its own each", n, what, got)
		}
	}
	lightness := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 0xffff
	}
	first, _, _ := sweepSeriesStyle(0)
	second, _, _ := sweepSeriesStyle(1)
	if d := math.Abs(lightness(first) - lightness(second)); d < 0.25 {
		t.Errorf("the first two series' colours differ by %.2f in lightness, under 0.25: one grey in print", d)
	}
}

// TestSweepFigureTitleNamesHeldCondition: sweep.png's title names the
// context size and noise that no axis varies, as the cells' evaluations
// (eval.json) record them: a sweep of the backbone at --fix noise=0.05
// was titled as if at no noise, and a sweep of noise left its context
// unsaid.
func TestSweepFigureTitleNamesHeldCondition(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "refine=0,1", "--fix", "noise=0.05", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	axes, rows, err := readSweep("sw")
	if err != nil {
		t.Fatal(err)
	}
	title := sweepFigureTitle(axes, rows, summarize(axes, rows))
	if want := "Damped spring · LNP · context 30, noise 0.05 · sweep of refine"; !strings.HasPrefix(title, want) {
		t.Errorf("title %q, want it to begin %q", title, want)
	}
	// An axis names its own values; a value that differs between cells
	// without an axis is left out.
	rows = []sweepRow{{system: "spring", context: 10, noise: 0.1}, {system: "spring", context: 30, noise: 0.1}}
	sum := sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{{Seeds: 1}, {Seeds: 1}}}
	for axes, want := range map[string]string{
		"context": "Damped spring · noise 0.1 · sweep of context",
		"noise":   "Damped spring · sweep of noise",
	} {
		if got := sweepFigureTitle([]string{axes}, rows, sum); !strings.HasPrefix(got, want) {
			t.Errorf("axis %s: title %q, want it to begin %q", axes, got, want)
		}
	}
}
