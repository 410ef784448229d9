package tui

import (
	"math"
	"slices"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// ablChart is one metric of the ablation view: a column per value of
// the axis, its 95% interval drawn as a bar │ with the mean ● on it, the
// current value's mean ◆ (◇ where it is not the model on screen);
// values not computed yet stay blank. Drawn
// exactly width × height cells: a title, the body and a line of value
// labels (the current one always, the others where they fit).
type ablChart struct {
	title  string
	labels []string
	ivs    []core.Interval // NaN Mean: not computed yet
	cur    int             // the current value's index, -1 if none
	// other says the current value's point is of another model than
	// the one on screen (an atlas model, where the embedded, a trained
	// or an opened one is shown): marked ◇, its interval left out of
	// the title, where it would read as the sidebar's.
	other         bool
	width, height int
	// metric is the metric's key: its range (core.MetricRange) bounds
	// the intervals and the axis, which for an MAE or an ECE starts at 0
	// at the lowest, where a wide interval would otherwise label it with
	// a negative error. An unknown key ("") bounds neither.
	metric string
	// labelW is the least room for the y labels: charts side by side
	// pass their widest, so that their columns line up.
	labelW int
	// fitted are the value labels to draw (fitLabels at x0): the view
	// fits them once for its four charts, which share the labels, the
	// width and x0. Nil: drawLabels fits them.
	fitted []string
	// digits are the significant digits of the title's interval (of
	// the mean, of the half-width), shared by the charts of one view
	// (sharedDigits) so that their titles read alike; zero: the most
	// that fit this chart's title.
	digits [2]int
	// y is the y scale that ivs take (yScale), picked once a frame by
	// scaled, for the labels' room, the title and the drawing to read;
	// the zero value is linear.
	y yAxis
}

// scaled is c with the y scale of its intervals picked (yScale).
func (c ablChart) scaled() ablChart {
	c.y = c.yScale()
	return c
}

// render draws the chart. Its last column stays blank (title and value
// labels included): the right chart of the view borders the sidebar.
func (c ablChart) render(t theme) []string {
	cv := newCanvas(c.width, c.height)
	y := c.y
	title := c.titleText(t)
	cv.text(0, 0, title, nil)
	body := c.height - 2
	lo, hi := c.yRange(y)
	if body < 2 || math.IsNaN(lo) || c.width < 16 {
		return c.finish(cv, t, title)
	}
	top, bottom := c.yLabels(y, lo, hi)
	c.labelW = max(ansi.StringWidth(top), ansi.StringWidth(bottom), c.labelW) // c is render's copy
	cv.text(c.labelW-ansi.StringWidth(top), 1, top, colLabel)
	cv.text(c.labelW-ansi.StringWidth(bottom), body, bottom, colLabel)
	for y := 1; y <= body; y++ {
		cv.set(c.labelW, y, '│', colLabel, nil)
	}
	row := func(v float64) int { // clipped to the body: an interval may reach below its axis
		return min(max(1+int(math.Round((hi-y.of(v))/(hi-lo)*float64(body-1))), 1), body)
	}
	for _, i := range c.drawOrder() {
		iv := c.ivs[i]
		if math.IsNaN(iv.Mean) {
			continue
		}
		iv = clampInterval(c.metric, iv)
		x := c.column(i, c.x0())
		for y := row(iv.Hi); y <= row(iv.Lo); y++ {
			cv.set(x, y, '│', colBand, nil)
		}
		mark, col := '●', colMean
		if i == c.cur {
			mark, col = '◆', colContext
			if c.other {
				mark = '◇'
			}
		}
		cv.set(x, row(iv.Mean), mark, col, nil)
	}
	c.drawLabels(cv, c.x0())
	return c.finish(cv, t, title)
}

// drawOrder is the order the points are drawn in: the current value's
// last. On a narrow chart values share a column (advdiff's 28 context
// sizes in 14 at 80 columns), and a neighbour's bar or mean drawn after
// it hid the ◆ that the status line says marks the current value.
func (c ablChart) drawOrder() []int {
	order := make([]int, 0, len(c.ivs))
	for i := range c.ivs {
		if i != c.cur {
			order = append(order, i)
		}
	}
	if c.cur >= 0 && c.cur < len(c.ivs) {
		order = append(order, c.cur)
	}
	return order
}

// titleText is the metric's name, the current value's interval and
// the log mark, in one column less than the chart: the interval takes
// fewer digits, or goes, where they would not fit.
func (c ablChart) titleText(t theme) string {
	room, suffix := c.titleRoom()
	title := c.title
	if c.hasTitleInterval() && room >= 4 {
		iv := c.ivs[c.cur]
		s, ok := intervalAt(c.metric, iv, room, c.digits, false)
		if c.digits == ([2]int{}) || !ok {
			s = t.intervalText(c.metric, iv, room, false)
		}
		title += " " + s
	}
	return t.truncate(title+suffix, c.width-1)
}

// hasTitleInterval reports whether the title shows the current value's
// interval: one computed, of the model on screen.
func (c ablChart) hasTitleInterval() bool {
	return c.cur >= 0 && c.cur < len(c.ivs) && !c.other && !math.IsNaN(c.ivs[c.cur].Mean)
}

// titleRoom is the room of the title's interval (at most 12 cells)
// beside the name and the log mark, and that mark.
func (c ablChart) titleRoom() (room int, suffix string) {
	if c.y.log {
		suffix = " · log"
	}
	return min(12, c.width-1-ansi.StringWidth(c.title+" "+suffix)), suffix
}

// sharedDigits are the most significant digits (of numDigits) at which
// every chart's title interval fits, for all of them to take: "recon
// MAE .0018±.0003" beside "δ MAE .00362±.0024" read as of different
// precision. A title whose interval fits at none (its mean alone shows)
// does not hold the others back; zero where no chart shows one.
func sharedDigits(charts []ablChart) [2]int {
	worst, any := 0, false
	for _, c := range charts {
		if !c.hasTitleInterval() {
			continue
		}
		room, _ := c.titleRoom()
		for i, d := range numDigits {
			if _, ok := intervalAt(c.metric, c.ivs[c.cur], room, d, false); ok {
				worst, any = max(worst, i), true
				break
			}
		}
	}
	if !any {
		return [2]int{}
	}
	return numDigits[worst]
}

// yLabels are the labels of the top and bottom of axis y's range.
func (c ablChart) yLabels(y yAxis, lo, hi float64) (top, bottom string) {
	return shortNumber(y.inverse(hi), 2), shortNumber(y.inverse(lo), 2)
}

// yLabelWidth is the room the chart's own y labels take, 0 when it has
// nothing to draw yet.
func (c ablChart) yLabelWidth() int {
	lo, hi := c.yRange(c.y)
	if math.IsNaN(lo) {
		return 0
	}
	top, bottom := c.yLabels(c.y, lo, hi)
	return max(ansi.StringWidth(top), ansi.StringWidth(bottom))
}

// finish paints the title bold over the canvas's lines.
func (c ablChart) finish(cv canvas, t theme, title string) []string {
	lines := cv.lines(t)
	lines[0] = padRight(t.paint(t.bold, title), c.width)
	return lines
}

// yAxis maps values onto the vertical axis: linearly, or as log10 of
// the value floored at floor (an interval reaching below it ends there).
type yAxis struct {
	log   bool
	floor float64
}

func (a yAxis) of(v float64) float64 {
	if !a.log {
		return v
	}
	return math.Log10(math.Max(v, a.floor))
}

func (a yAxis) inverse(v float64) float64 {
	if !a.log {
		return v
	}
	return math.Pow(10, v)
}

// logSpan is the ratio of the largest to the smallest positive mean
// from which the chart draws on a log scale: one outlier (a failed
// regulariser's MAE) would otherwise flatten every other value.
const logSpan = 20

// yScale picks the log scale when every mean is positive and they span
// more than logSpan; it floors the intervals a decade below the least.
func (c ablChart) yScale() yAxis {
	least, most := math.Inf(1), 0.0
	for _, iv := range c.ivs {
		iv = clampInterval(c.metric, iv)
		switch {
		case math.IsNaN(iv.Mean):
		case iv.Mean <= 0:
			return yAxis{}
		default:
			least, most = math.Min(least, iv.Mean), math.Max(most, iv.Hi)
		}
	}
	if math.IsInf(least, 0) || most/least <= logSpan {
		return yAxis{}
	}
	return yAxis{log: true, floor: least / 10}
}

// yRange spans the computed intervals on axis y, widened where they are
// flat; NaN when none is computed.
func (c ablChart) yRange(y yAxis) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, iv := range c.ivs {
		iv = clampInterval(c.metric, iv)
		for _, v := range []float64{iv.Lo, iv.Hi, iv.Mean} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, y.of(v)), math.Max(hi, y.of(v))
			}
		}
	}
	if math.IsInf(lo, 0) {
		return math.NaN(), math.NaN()
	}
	pad := 0.05 * (hi - lo)
	if pad <= 0 {
		pad = math.Max(1e-6, 0.1*math.Abs(hi))
	}
	lo, hi = lo-pad, hi+pad
	if !y.log {
		blo, bhi := core.MetricRange(c.metric)
		lo, hi = math.Max(lo, blo), math.Min(hi, bhi)
	}
	return lo, hi
}

// column is the x of value i, the values spread evenly from x0 to one
// column before the right edge.
func (c ablChart) column(i, x0 int) int {
	span := c.width - 2 - x0 // a blank column to the right edge
	if len(c.ivs) < 2 {
		return x0 + span/2
	}
	return x0 + int(math.Round(float64(i*span)/float64(len(c.ivs)-1)))
}

// x0 is the first point's column: after the y labels' room (labelW),
// the axis and a space.
func (c ablChart) x0() int { return c.labelW + 2 }

// drawLabels writes the value labels on the last line under their
// columns: those of fitLabels (c.fitted where the view fitted them),
// each where it leaves a space to its neighbours.
func (c ablChart) drawLabels(cv canvas, x0 int) {
	labels := c.fitted
	if labels == nil {
		labels, _ = c.fitLabels(x0)
	}
	for i, x := range c.layoutLabels(labels, x0) {
		if x < 0 {
			continue
		}
		col := colLabel
		if i == c.cur {
			col = colContext
		}
		cv.text(x, c.height-1, labels[i], col)
	}
}

// fitLabels are the value labels to draw with the first column at x0:
// the chart's own where each fits under its point, else, for words (a
// regulariser's), their shortest distinct prefixes of two letters or
// more that all fit; numbers are never cut, "10" for "100" would lie.
// all is false when some label is left out or cut, so that the view
// can name the values in a legend.
func (c ablChart) fitLabels(x0 int) (labels []string, all bool) {
	if fits(c.layoutLabels(c.labels, x0)) {
		return c.labels, true
	}
	if !slices.ContainsFunc(c.labels, isNumber) {
		for n := maxWidth(c.labels) - 1; n >= 2; n-- {
			cut := prefixes(c.labels, n)
			if distinct(cut) && fits(c.layoutLabels(cut, x0)) {
				return cut, false
			}
		}
	}
	return c.labels, false
}

// layoutLabels is the x of each label on the last line, -1 for one
// left out: the current value first, then the ends, which show the
// axis's span, then the rest left to right, each where it keeps a
// space to those placed and still lies under its own point (pushed in
// from the right edge it might otherwise sit under a neighbour's).
// A label centred under its point where it has room, else shifted
// along it: at 80 columns ".2" between ".1" and ".5" on the λ axes
// fits only so, and a ladder 0 .1 _ .5 1 2 5 does not say what _ is.
func (c ablChart) layoutLabels(labels []string, x0 int) []int {
	xs := make([]int, len(labels))
	for i := range xs {
		xs[i] = -1
	}
	used := make([]bool, c.width)
	free := func(x, n int) bool {
		for j := max(0, x-1); j < min(c.width, x+n+1); j++ {
			if used[j] {
				return false
			}
		}
		return true
	}
	place := func(i int) {
		n := ansi.StringWidth(labels[i])
		col := c.column(i, x0)
		centred := col - n/2
		for _, d := range labelShifts(n) {
			x := max(0, min(c.width-1-n, centred+d))
			if col < x || col >= x+n || !free(x, n) {
				continue
			}
			xs[i] = x
			for j := x; j < x+n; j++ {
				used[j] = true
			}
			return
		}
	}
	order := []int{c.cur, 0, len(labels) - 1}
	for i := range labels {
		order = append(order, i)
	}
	placed := make([]bool, len(labels))
	for _, i := range order {
		if i >= 0 && i < len(labels) && !placed[i] {
			placed[i] = true
			place(i)
		}
	}
	return xs
}

// labelShifts are the shifts from centred that keep a label n cells
// wide over its point, nearest first, the rightward first on a tie
// (labels are placed left to right).
func labelShifts(n int) []int {
	shifts := []int{0}
	for d := 1; d < n; d++ {
		shifts = append(shifts, d, -d)
	}
	return shifts
}

// fits says every label was placed.
func fits(xs []int) bool { return !slices.Contains(xs, -1) }

// isNumber says label s reads as a number ("30", ".01", "1e-3").
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// maxWidth is the widest of labels.
func maxWidth(labels []string) int {
	w := 0
	for _, s := range labels {
		w = max(w, ansi.StringWidth(s))
	}
	return w
}

// prefixes cuts each label to its first n runes.
func prefixes(labels []string, n int) []string {
	out := make([]string, len(labels))
	for i, s := range labels {
		if r := []rune(s); len(r) > n {
			s = string(r[:n])
		}
		out[i] = s
	}
	return out
}

// distinct says no two labels are the same.
func distinct(labels []string) bool {
	seen := map[string]bool{}
	for _, s := range labels {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}
