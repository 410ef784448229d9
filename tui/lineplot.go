package tui

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"apic/core/cli"
)

// series is one curve of a line plot, sampled at n evenly spaced x values.
type series struct {
	name   string
	values []float64
	mark   string // "" draws a line, otherwise every cell of the curve is this mark
	color  color.Color
	// curve names what the series shows (its legend item's curve);
	// several series may share it (a band's edges, a role's channels).
	curve string
	// overlay marks a curve drawn under others (a baseline's) that
	// leaves the y axis and its labels to them.
	overlay bool
}

// scatter is a set of points of a line plot: x given as sample indices
// of the plot's n x values (context observations sit on grid points).
type scatter struct {
	name  string
	idx   []int
	vals  []float64
	mark  rune
	color color.Color
	curve string // as series.curve
}

// linePlot is a panel with a title, an asciigraph plot body, an x axis
// line and a legend. It is drawn exactly width × height cells, the last
// column blank: beside the sidebar's border or the next panel, a title
// or a legend that reached it would run into the border or the panel.
//
// asciigraph widens its range to fit every value and never clips, so the
// plot clamps values into its range itself, and it draws each series
// with its own asciigraph call on the same axis so that every series can
// have its own colour and marks (asciigraph's own colouring always emits
// escapes, even on a no-colour terminal).
type linePlot struct {
	title string
	// short, when set, replaces a title too wide for the panel before
	// the title is cut, so that a slice note at its end stays readable.
	short         string
	width, height int
	n             int // samples per series
	xName         string
	xLo, xHi      float64
	// yLo < yHi fixes the vertical range; otherwise it fits the data.
	yLo, yHi float64
	series   []series
	points   []scatter
	legend   []legendItem
	// legendRows, when 2, gives the legend two lines even where one
	// holds it (a panel beside, or sharing a range with, one whose legend
	// needs two).
	legendRows int
	// labelWMin, when wider than the y labels, pads them to this many
	// columns: panels stacked in a column share the x axis (t, or
	// advdiff's x), so their data start at the same column only where
	// their labels are as wide.
	labelWMin int
}

// labelGap is the columns of a plot body's prefix beside its y labels:
// asciigraph pads a label to its width plus one, then a space and the axis.
const labelGap = 3

// minPlotHeight is the smallest panel that still has a plot body.
const minPlotHeight = 6

// render draws the panel into height lines of exactly width cells.
func (p linePlot) render(t theme) []string { return p.renderLaidOut(t, nil) }

// renderLaidOut is render with the panel's layout at its size, where
// pre is not nil (a view that laid its panels out to size their
// legends), so that the body is not drawn again.
func (p linePlot) renderLaidOut(t theme, pre *panelLayout) []string {
	c := newCanvas(p.width, p.height)
	title := p.title
	if p.short != "" && ansi.StringWidth(title) > p.width-1 {
		title = p.short
	}
	lines := c.lines(t)
	lines[0] = padRight(t.paint(t.bold, t.truncate(title, p.width-1)), p.width)
	l := pre
	if l == nil {
		laid := p.layout()
		l = &laid
	}
	legendN, b := l.legendN, l.body
	if !l.ok {
		if l.msg != "" {
			lines[1] = padRight(l.msg, p.width)
		}
		return lines
	}
	p.legend = p.noteHidden(b.own, legendN)
	gl := b.graph.lines(t)
	for y := 0; y <= b.rows && 1+y < p.height; y++ {
		lines[1+y] = gl[y]
	}
	lines[b.rows+2] = padRight(t.paint(t.label, t.truncate(p.xAxis(b.prefix, b.dataW), p.width)), p.width)
	copy(lines[b.rows+3:], p.legendLines(t, max(b.prefix-2, 0), legendN))
	return lines
}

// plotBody is a drawn plot body: the graph (asciigraph's rows+1 lines,
// its y axis labels in the prefix columns, the data in dataW columns
// after them) and which curve drew each of its cells.
type plotBody struct {
	graph               canvas
	own                 ownership
	rows, prefix, dataW int
}

// nothingToPlot is a body's message where its series have no two
// finite values to draw.
const nothingToPlot = "  (nothing to plot yet)"

// yScale is a plot body's vertical scale: its rows, its range and tick
// step, and its y labels at their own width (labelW, before labelWMin
// pads them).
type yScale struct {
	rows         int
	lo, hi, step float64
	number       func(float64) string
	labelW       int
}

// scale is the vertical scale of a panel whose legend takes legendN
// lines; false where the panel has no room for a body, or nothing to
// draw, which msg then says ("" for no room).
func (p linePlot) scale(legendN int) (sc yScale, msg string, ok bool) {
	rows := p.height - 2 - legendN - 1 // title, x axis, legend; asciigraph draws rows+1 lines
	if rows < 2 || p.width < 16 || p.n < 2 {
		return sc, "", false
	}
	lo, hi := p.yLo, p.yHi
	if !(lo < hi) {
		lo, hi = p.dataRange()
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return sc, nothingToPlot, false
	}
	lo, hi, step := niceRange(lo, hi, rows)
	number := tickFormat(hi, step, rows)
	labelW := 0
	for i := 0; i <= rows; i++ {
		labelW = max(labelW, len(number(hi-float64(i)*step)))
	}
	return yScale{rows: rows, lo: lo, hi: hi, step: step, number: number, labelW: labelW}, "", true
}

// maxFixedTick is the widest y label written in fixed notation: wider,
// the labels take the exponent form where it is narrower.
const maxFixedTick = 7

// tickFormat writes the y labels hi, hi−step, … (rows steps): in fixed
// notation at the decimals of step, or where that takes more than
// maxFixedTick cells, in shortExp's form at the fewest mantissa
// decimals that write every label exactly, as the sidebar writes a
// number too small or large for fixed notation. Fixed, a δ of a few
// millionths took labels of "0.0000175", and a diverged run's
// trillions "12000000000000", the panel's width.
func tickFormat(hi, step float64, rows int) func(float64) string {
	zeroed := func(v float64) float64 {
		if math.Abs(v) < step*1e-6 {
			return 0
		}
		return v
	}
	decimals := stepDecimals(step)
	fixed := func(v float64) string { return strconv.FormatFloat(zeroed(v), 'f', decimals, 64) }
	widest := func(f func(float64) string) int {
		w := 0
		for i := 0; i <= rows; i++ {
			w = max(w, len(f(hi-float64(i)*step)))
		}
		return w
	}
	if widest(fixed) <= maxFixedTick {
		return fixed
	}
	for prec := 0; prec <= 6; prec++ {
		exp := func(v float64) string {
			if v = zeroed(v); v == 0 {
				return "0"
			}
			return shortExp(v, prec)
		}
		exact := true
		for i := 0; i <= rows && exact; i++ {
			v := zeroed(hi - float64(i)*step)
			back, err := strconv.ParseFloat(exp(v), 64)
			exact = err == nil && math.Abs(back-v) <= step*1e-6
		}
		if exact {
			if widest(exp) < widest(fixed) {
				return exp
			}
			break
		}
	}
	return fixed
}

// labelWidth is the width of the y labels of the panel's body beside a
// legend of legendN lines, before labelWMin pads them; 0 without a
// body. Stacked panels pad theirs to the widest (Model.plots).
func (p linePlot) labelWidth(legendN int) int {
	sc, _, ok := p.scale(legendN)
	if !ok {
		return 0
	}
	return sc.labelW
}

// drawBody draws the plot body of a panel whose legend takes legendN
// lines; false where the panel has no room for one, or nothing to draw,
// which msg then says ("" for no room).
func (p linePlot) drawBody(legendN int) (b plotBody, msg string, ok bool) {
	sc, msg, ok := p.scale(legendN)
	if !ok {
		return b, msg, false
	}
	rows, lo, hi := sc.rows, sc.lo, sc.hi
	labelW := max(sc.labelW, p.labelWMin)
	label := func(v float64) string { return fmt.Sprintf("%*s", labelW, sc.number(v)) }
	prefix := labelW + labelGap
	dataW := p.width - prefix - 1
	if dataW < 8 {
		return b, "", false
	}
	graph := newCanvas(p.width, rows+1)
	own := newOwnership(len(graph.cells), len(p.series)+len(p.points))
	if !p.drawSeries(graph, own, lo, hi, rows, prefix, dataW, label) {
		return b, nothingToPlot, false
	}
	p.drawPoints(graph, own, lo, hi, rows, prefix, dataW)
	return plotBody{graph: graph, own: own, rows: rows, prefix: prefix, dataW: dataW}, "", true
}

// drawSeries draws the series onto graph with asciigraph, the y axis
// and its labels from the first series that is not an overlay, and
// records in own which series drew each cell; false when no series that
// is not an overlay has two values to draw. The axis marks the zero
// line, not where asciigraph's curve starts (cli.AxisRune).
func (p linePlot) drawSeries(graph canvas, own ownership, lo, hi float64, rows, prefix, dataW int, label func(float64) string) bool {
	step := (hi - lo) / float64(rows)
	haveAxis := false
	for i, s := range p.series {
		if len(s.values) < 2 {
			continue
		}
		cs := asciigraph.DefaultCharSet
		if s.mark != "" {
			cs = asciigraph.CreateCharSet(s.mark)
		}
		out := asciigraph.Plot(cli.ClampSeries(s.values, lo, hi),
			asciigraph.Width(dataW), asciigraph.Height(rows),
			asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
			asciigraph.SeriesChars(cs), asciigraph.YAxisValueFormatter(label))
		for y, line := range strings.Split(out, "\n") {
			if y > rows {
				break
			}
			col := 0
			for _, r := range line {
				switch {
				case col < prefix:
					if col == prefix-1 {
						r = cli.AxisRune(label(hi - float64(y)*step))
					}
					if !haveAxis && !s.overlay {
						graph.set(col, y, r, colLabel, nil)
					}
				case r != ' ' && col < graph.w:
					graph.set(col, y, r, s.color, nil)
					own.claim(i, y*graph.w+col)
				}
				col++
			}
		}
		haveAxis = haveAxis || !s.overlay
	}
	return haveAxis
}

// drawPoints draws the scatter points onto graph, on asciigraph's own
// row mapping so that they sit on the curves they belong to, and records
// them in own after the series.
func (p linePlot) drawPoints(graph canvas, own ownership, lo, hi float64, rows, prefix, dataW int) {
	ratio := float64(rows) / (hi - lo)
	min2 := agRound(lo * ratio)
	for j, sc := range p.points {
		for i, g := range sc.idx {
			v := sc.vals[i]
			if math.IsNaN(v) {
				continue
			}
			// A point beyond the fixed range sits on its edge as an
			// arrow, so that it does not pass for a value there.
			mark := sc.mark
			switch {
			case v > hi:
				v, mark = hi, '↑'
			case v < lo:
				v, mark = lo, '↓'
			}
			x := prefix
			if p.n > 1 {
				x += int(math.Round(float64(g) * float64(dataW-1) / float64(p.n-1)))
			}
			y := rows - int(agRound(v*ratio)-min2)
			if x < 0 || y < 0 || x >= graph.w || y >= graph.h {
				continue
			}
			graph.set(x, y, mark, sc.color, nil)
			own.claim(len(p.series)+j, y*graph.w+x)
		}
	}
}

// xAxis is the x axis line: the first value, the axis name and the last
// value under the data columns.
func (p linePlot) xAxis(prefix, dataW int) string {
	left, right := formatAxis(p.xLo), formatAxis(p.xHi)
	axis := strings.Repeat(" ", prefix-1) + left
	mid := (prefix + dataW/2) - len([]rune(p.xName))/2
	if pad := mid - len([]rune(axis)); pad > 0 {
		axis += strings.Repeat(" ", pad) + p.xName
	}
	if pad := prefix + dataW - len(right) - len([]rune(axis)); pad > 0 {
		axis += strings.Repeat(" ", pad) + right
	}
	return axis
}

// panelLayout is how a panel is laid out at its size: its legend's
// lines and its plot body drawn above them (drawBody: ok false, with
// msg, where there is none).
type panelLayout struct {
	legendN int
	body    plotBody
	msg     string
	ok      bool
}

// layout lays the panel out at its size: the legend takes legendNeed's
// lines, or two where legendRows says so and the panel has the room,
// and the body is drawn once for them.
func (p linePlot) layout() panelLayout {
	return p.layoutAt(p.legendN())
}

// layoutAt lays the panel out with a legend of n lines (layout's
// legendN, where the caller has it already).
func (p linePlot) layoutAt(n int) panelLayout {
	l := panelLayout{legendN: n}
	l.body, l.msg, l.ok = p.drawBody(n)
	return l
}

// legendN is how many lines the panel's legend takes: its own need
// (legendCount), or two where legendRows asks for two and the panel has
// the room.
func (p linePlot) legendN() int { return p.legendNFrom(p.legendCount()) }

// legendNFrom is legendN from the legend's own need, count.
func (p linePlot) legendNFrom(count int) int {
	if p.legendRows == 2 && p.height >= minPlotHeight+2 {
		return 2
	}
	return count
}

// legendNeed is how many lines the legend takes in a w × h panel: two
// where the panel has the room and one line from the left edge holds
// not every item, or not every item with one of them noted at its
// widest (widestNote) where two lines would; else one. The notes the plot does need (noteHidden)
// depend on what its body hides, which moves with the realization and
// with every step of a run: deciding by them, the plot gained or lost
// a row, and the panels jumped, as a note came and went. Notes of
// several items at once that the line cannot hold are left out, as
// where two lines could not hold them (noteHidden); allowing for all
// of them at once cost most 80×24 panels a row of their seven.
func (p linePlot) legendNeed(w, h int) int {
	p.width, p.height = w, h
	return p.legendCount()
}

// legendCount is legendNeed at the panel's size.
func (p linePlot) legendCount() int {
	if p.height < minPlotHeight+2 {
		return 1
	}
	if !p.legendFits(1) {
		return 2
	}
	for i := range p.legend {
		q := p
		q.legend = slices.Clone(p.legend)
		q.legend[i].name = p.widestNote(i)
		if !q.legendFits(1) && q.legendFits(2) {
			return 2
		}
	}
	return 1
}

// widestNote is the name legend item i takes with its widest note
// (notedForms): its hidden name, or "name ≈ cover" with the longest
// name of the curves drawn after its own, which can cover it; its name
// alone where nothing can.
func (p linePlot) widestNote(i int) string {
	it := p.legend[i]
	curves := len(p.series) + len(p.points)
	first := -1
	for c := 0; c < curves && first < 0; c++ {
		if it.curve != "" && p.curveName(c) == it.curve {
			first = c
		}
	}
	if first < 0 {
		return it.name // no curve, or none drawn: never noted
	}
	note := ""
	for c := first + 1; c < curves; c++ {
		switch cover := p.curveName(c); {
		case cover == it.curve:
		case cover == "":
			note = longer(note, " (covered)")
		default:
			note = longer(note, " ≈ "+cover)
		}
	}
	switch {
	case note == "":
		return it.name // drawn last: nothing covers it
	case it.hidden != "":
		return it.hidden // its only note
	}
	return it.name + note
}

// longer is the wider of a and b on screen (a where they are as wide).
func longer(a, b string) string {
	if ansi.StringWidth(b) > ansi.StringWidth(a) {
		return b
	}
	return a
}

// legendLines draws the legend, marks in their colours, on n lines
// (1 or 2). On one line the items go two spaces apart from lead, or one,
// or from the panel's left edge, as needed for every item to fit, and
// otherwise it keeps those that fit from the edge; two lines hold every
// item (the "needed δ" and "nominal" marks are what some lessons are
// about).
func (p linePlot) legendLines(t theme, lead, n int) []string {
	line := func(items []legendItem, lead, sep int) string {
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = t.paint(t.fg(it.color), it.mark) + " " + it.name
		}
		return padRight(strings.Repeat(" ", lead)+strings.Join(parts, strings.Repeat(" ", sep)), p.width)
	}
	all := len(p.legend)
	if n == 1 {
		for _, try := range []struct{ lead, sep int }{{lead, 2}, {lead, 1}, {0, 1}} {
			if p.fitLegend(p.legend, try.lead, try.sep) == all {
				return []string{line(p.legend, try.lead, try.sep)}
			}
		}
		return []string{line(p.legend[:p.fitLegend(p.legend, 0, 1)], 0, 1)}
	}
	first := p.fitLegend(p.legend, 0, 1)
	rest := p.legend[first:]
	return []string{line(p.legend[:first], 0, 1), line(rest[:p.fitLegend(rest, 0, 1)], 0, 1)}
}

// noteHidden is the first of the legend's noted forms (notedForms)
// that fits its n lines; where none does, the legend as it was.
func (p linePlot) noteHidden(own ownership, n int) []legendItem {
	for _, form := range p.notedForms(own) {
		q := p
		q.legend = form
		if q.legendFits(n) {
			return form
		}
	}
	return p.legend
}

// notedForms are the legend with each item none of whose curve's cells
// the plot body shows (own) noted, longest first. A legend entry over no
// mark reads as a curve not drawn: a band thinner than a row lies under
// its curve (advdiff's δ̂) and takes its hidden name, and a curve every
// cell of which another covers (the true δ under a δ̂ that matches it to
// a row) is named as equal to the curve on top, "true δ ≈ δ̂". Where
// several lie under one curve (baselines that agree with APIC) the
// shorter forms say so once for all of them: "k koh-gp, b bcpi ≈
// prediction", then by their marks alone, "kb ≈ prediction".
func (p linePlot) notedForms(own ownership) [][]legendItem {
	covers := make([]string, len(p.legend)) // "" where the item is in sight or has a hidden name
	noted := slices.Clone(p.legend)
	for i, it := range noted {
		if it.curve == "" {
			continue
		}
		cover, hidden := p.coverOf(own, it.curve)
		switch {
		case !hidden:
		case it.hidden != "":
			noted[i].name = it.hidden
		case cover != "":
			covers[i] = cover
			noted[i].name = it.name + " ≈ " + cover
		default:
			noted[i].name = it.name + " (covered)"
		}
	}
	return [][]legendItem{noted, groupCovered(noted, covers, p.legend, false), groupCovered(noted, covers, p.legend, true)}
}

// groupCovered is the noted legend with the items that lie under one
// curve (covers) next to each other, at the first one's place, and the
// curve named once, after the last: "k koh-gp, b bcpi ≈ prediction"; or,
// with marksOnly, one item of their marks, "kb ≈ prediction", coloured
// as a legend item of several colours is (legendFor). A curve alone
// under another keeps its name: "• ≈ δ̂" would not say what • is, where
// the baselines' marks are their initials. plain is the legend before
// its notes.
func groupCovered(noted []legendItem, covers []string, plain []legendItem, marksOnly bool) []legendItem {
	var out []legendItem
	done := map[string]bool{}
	for i, it := range noted {
		cover := covers[i]
		if cover == "" {
			out = append(out, it)
			continue
		}
		if done[cover] {
			continue
		}
		done[cover] = true
		var group []legendItem
		for j := i; j < len(noted); j++ {
			if covers[j] == cover {
				group = append(group, plain[j])
			}
		}
		if !marksOnly || len(group) == 1 {
			for k := range group {
				group[k].name += ","
			}
			group[len(group)-1].name = strings.TrimSuffix(group[len(group)-1].name, ",") + " ≈ " + cover
			out = append(out, group...)
			continue
		}
		merged := legendItem{color: group[0].color, name: "≈ " + cover}
		for _, g := range group {
			merged.mark += g.mark
			if g.color != merged.color {
				merged.color = colLabel
			}
		}
		out = append(out, merged)
	}
	return out
}

// curveName is the curve of series i, or of point set i − len(series).
func (p linePlot) curveName(i int) string {
	if i < len(p.series) {
		return p.series[i].curve
	}
	return p.points[i-len(p.series)].curve
}

// coverOf reports whether curve drew cells of which the body shows
// none (hidden) and, if so, the curve on top of most of them (of a tie,
// the name that sorts first; "" where that curve has no name).
func (p linePlot) coverOf(own ownership, curve string) (cover string, hidden bool) {
	counts := map[string]int{}
	for i := range own.drawn {
		if p.curveName(i) != curve {
			continue
		}
		for _, cell := range own.drawn[i] {
			top := p.curveName(own.owner[cell])
			if top == curve {
				return "", false
			}
			counts[top]++
		}
	}
	best := -1
	for name, k := range counts {
		if k > best || k == best && name < cover {
			cover, best = name, k
		}
	}
	return cover, best > 0
}

// ownership records which curve (a series, or a point set after the
// series) drew each cell of a plot body last, and the cells each drew.
type ownership struct {
	owner []int   // per cell; -1 where none drew
	drawn [][]int // per curve, the cells it drew
}

func newOwnership(cells, curves int) ownership {
	o := ownership{owner: make([]int, cells), drawn: make([][]int, curves)}
	for i := range o.owner {
		o.owner[i] = -1
	}
	return o
}

// claim records that curve drew cell, over whatever was there.
func (o ownership) claim(curve, cell int) {
	o.owner[cell] = curve
	o.drawn[curve] = append(o.drawn[curve], cell)
}

// legendFits reports whether every legend item fits on n lines (1 or 2)
// as legendLines lays them out.
func (p linePlot) legendFits(n int) bool {
	first := p.fitLegend(p.legend, 0, 1)
	if n == 1 || first == len(p.legend) {
		return first == len(p.legend)
	}
	rest := p.legend[first:]
	return p.fitLegend(rest, 0, 1) == len(rest)
}

// fitLegend is how many of items fit on one line from column lead, sep
// spaces apart, short of the panel's last column.
func (p linePlot) fitLegend(items []legendItem, lead, sep int) int {
	width := lead
	for i, it := range items {
		w := ansi.StringWidth(it.mark + " " + it.name)
		if i > 0 {
			w += sep
		}
		if width+w > p.width-1 {
			return i
		}
		width += w
	}
	return len(items)
}

// dataRange is the finite range of every series and point set.
func (p linePlot) dataRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	upd := func(v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, s := range p.series {
		for _, v := range s.values {
			upd(v)
		}
	}
	for _, sc := range p.points {
		for _, v := range sc.vals {
			upd(v)
		}
	}
	return lo, hi
}

// niceRange returns a range that covers [lo, hi] in exactly rows steps of
// a round size (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten),
// starting at a multiple of the step, so asciigraph's row count is exact
// and its labels are round numbers.
func niceRange(lo, hi float64, rows int) (float64, float64, float64) {
	if !(hi-lo > 1e-12*math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))) {
		mid := (lo + hi) / 2
		pad := math.Max(math.Abs(mid)/2, 1)
		lo, hi = mid-pad, mid+pad
	}
	raw := (hi - lo) / float64(rows)
	decade := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, k := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30, 40, 50} {
		step := k * decade
		start := math.Floor(lo/step+1e-9) * step
		if start+float64(rows)*step >= hi-1e-9*step {
			// Centre the spare rows around the data.
			spare := math.Floor((start + float64(rows)*step - hi) / step / 2)
			if spare > 0 && start-spare*step <= lo {
				start -= spare * step
			}
			return start, start + float64(rows)*step, step
		}
	}
	step := 100 * decade
	start := math.Floor(lo/step) * step
	return start, start + float64(rows)*step, step
}

// stepDecimals is the number of decimals that shows multiples of step
// exactly.
func stepDecimals(step float64) int {
	for d := 0; d < 10; d++ {
		x := step * math.Pow(10, float64(d))
		if math.Abs(x-math.Round(x)) < 1e-6*x {
			return d
		}
	}
	return 10
}

// agRound is asciigraph's rounding (half away from zero).
func agRound(x float64) float64 {
	if x < 0 {
		return -math.Floor(-x + 0.5)
	}
	return math.Floor(x + 0.5)
}

// formatAxis writes an axis's end ("t=0.508", "x=0.984") at three
// significant digits.
func formatAxis(v float64) string { return formatG(v, 3) }
