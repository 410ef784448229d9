package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/guptarohit/asciigraph"
)

// Series is one named curve of a line plot.
type Series struct {
	// Name labels the series in the legend. An unnamed series continues
	// the one before it (the other edge of a band, say): no legend entry
	// of its own, and the previous series' colour.
	Name   string
	Values []float64
	// Mark is the character the series is drawn with: "" for the default
	// of its position (seriesMarks), "─" for a solid line.
	Mark string
	// Under draws the series before (beneath) every series without it, so
	// that a wide band does not hide the curve it surrounds.
	Under bool
}

// LinePlot is an ASCII line plot of series sampled at the same evenly
// spaced x values (all apic grids are evenly spaced along each axis).
//
// asciigraph widens its vertical range to fit every value and never clips,
// so one wild value would flatten the rest of the plot; Render therefore
// clamps values into [YLo, YHi] itself and draws non-finite values as gaps.
type LinePlot struct {
	Title string
	// Width and Height are the plot area in characters; 0 means 64 × 10.
	Width, Height int
	// XLo and XHi are the x values of the first and last sample, used to
	// label the x axis; equal values draw no x axis.
	XLo, XHi float64
	// XLabels, two or more, name the samples' x values in place of XLo
	// and XHi's numeric axis: a line under the plot area writes each
	// under its column (a sweep's values, 10, 20, 50 or l1, l2, drawn
	// evenly spaced whatever they are), leaving out those that do not
	// fit (xLabelRow).
	XLabels []string
	// YLo and YHi fix the vertical range when YLo < YHi; values outside it
	// are clamped onto its edges. Otherwise the range fits the finite data.
	YLo, YHi float64
	// Color draws the series in ANSI colours (for terminals only).
	Color bool
}

// xTicks is how many values label a numeric x axis, evenly spaced from
// its first to its last sample.
const xTicks = 5

// xTickFormat writes the x axis's tick values with as many decimals as
// the one that needs the most: none where all are whole, else 2 (as
// asciigraph would), or up to 4 where 2 would misstate one (0.275 of
// levels from 0.05 to 0.95 read "0.27").
func xTickFormat(lo, hi float64) func(float64) string {
	decimals := 0
	for i := range xTicks {
		v := lo + float64(i)/float64(xTicks-1)*(hi-lo)
		d := 0
		for d < 4 && !exactAt(v, d, hi-lo) {
			d++
		}
		if d > 0 {
			decimals = max(decimals, d, 2)
		}
	}
	return func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
}

// exactAt reports whether v written with d decimals is v, to within a
// millionth of the axis's span (the ticks are sums of floating-point
// steps: 0.05 + 0.225 is not 0.275 to the last bit).
func exactAt(v float64, d int, span float64) bool {
	p := math.Pow(10, float64(d))
	return math.Abs(math.Round(v*p)/p-v) <= 1e-6*math.Abs(span)
}

// seriesMarks are the characters that tell series apart without colour:
// the first series is a solid line, later ones are drawn with marks.
var seriesMarks = []string{"", "•", "+", "x", "o", "*"}

var seriesColors = []asciigraph.AnsiColor{asciigraph.Blue, asciigraph.Red, asciigraph.Green, asciigraph.Goldenrod, asciigraph.Magenta, asciigraph.Cyan}

// mark is the character series s at position i is drawn with ("" for
// a solid line).
func (s Series) mark(i int) string {
	switch s.Mark {
	case "":
		return seriesMarks[i%len(seriesMarks)]
	case "─":
		return ""
	}
	return s.Mark
}

// legendMark is the character shown in the legend for series s at
// position i.
func legendMark(s Series, i int) string {
	if m := s.mark(i); m != "" {
		return m
	}
	return "─"
}

// Render draws the series; later series are drawn over earlier ones. The
// result ends with a newline.
func (p LinePlot) Render(series ...Series) string {
	var b strings.Builder
	if p.Title != "" {
		b.WriteString(p.Title + "\n")
	}
	width, height := p.Width, p.Height
	if width < 2 {
		width = 64
	}
	if height < 2 {
		height = 10
	}
	var kept []Series
	for _, s := range series {
		if len(s.Values) > 0 {
			kept = append(kept, s)
		}
	}
	lo, hi := p.YLo, p.YHi
	if !(lo < hi) {
		lo, hi = finiteRange(kept)
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		b.WriteString("  (no finite values to plot)\n")
		return b.String()
	}
	ax := newYAxis(lo, hi, height)
	colors := seriesColorsOf(kept)
	data, chars, drawColors := ax.layers(kept, colors)
	opts := []asciigraph.Option{
		asciigraph.Width(width),
		asciigraph.Height(ax.rows),
		asciigraph.LowerBound(ax.lo),
		asciigraph.UpperBound(ax.hi),
		asciigraph.SeriesChars(chars...),
		asciigraph.YAxisValueFormatter(ax.label),
	}
	xLabelled := len(p.XLabels) >= 2
	if p.XLo != p.XHi && !xLabelled {
		opts = append(opts, asciigraph.XAxisRange(p.XLo, p.XHi), asciigraph.XAxisTickCount(xTicks),
			asciigraph.XAxisValueFormatter(xTickFormat(p.XLo, p.XHi)))
	}
	if p.Color {
		opts = append(opts, asciigraph.SeriesColors(drawColors...))
	}
	b.WriteString(markZeroAxis(asciigraph.PlotMany(data, opts...), ax.rows+1))
	b.WriteString("\n")
	if xLabelled {
		// asciigraph right-aligns the y labels in one column more than
		// the widest and leaves a space before the axis (its default
		// offset of 3); the plot area starts in the column after it.
		axis := ax.labelWidth + 2
		row := strings.Repeat(" ", axis+1) + xLabelRow(p.XLabels, width)
		b.WriteString(strings.TrimRight(row, " ") + "\n")
	}
	if legend := legendLine(kept, colors, p.Color); legend != "" {
		b.WriteString("     " + legend + "\n")
	}
	return b.String()
}

// AxisRune is the y axis character of a plot row labelled label: ┼ on
// the zero line (a label that reads 0), ┤ on every other row.
// asciigraph draws its ┼ where the first series starts, which reads as
// an origin or a zero the axis does not have there; the zero line is
// what a reader looks for in a discrepancy or a residual.
func AxisRune(label string) rune {
	if v, err := strconv.ParseFloat(strings.TrimSpace(label), 64); err == nil && v == 0 {
		return '┼'
	}
	return '┤'
}

// markZeroAxis redraws the y axis of the first rows lines of an
// asciigraph plot with AxisRune. asciigraph writes each of those lines
// as its label, a space and the axis character, uncoloured.
func markZeroAxis(plot string, rows int) string {
	lines := strings.Split(plot, "\n")
	for i := 0; i < rows && i < len(lines); i++ {
		at := strings.IndexAny(lines[i], "┤┼")
		if at < 0 {
			continue
		}
		_, size := utf8.DecodeRuneInString(lines[i][at:])
		lines[i] = lines[i][:at] + string(AxisRune(lines[i][:at])) + lines[i][at+size:]
	}
	return strings.Join(lines, "\n")
}

// yAxis is a plot's vertical axis: the data's range clampLo..clampHi,
// rounded outwards to lo..hi in rows steps of a round step, and how its
// labels are written.
type yAxis struct {
	lo, hi, clampLo, clampHi, step float64
	rows, decimals, digits         int
	exponent                       bool
	labelWidth                     int // the widest label asciigraph asked for
}

func newYAxis(lo, hi float64, height int) *yAxis {
	lo, hi = widenFlat(lo, hi)
	// Clamp to the requested range first, then round it outwards to
	// multiples of a round step so the axis labels are round numbers.
	ax := &yAxis{clampLo: lo, clampHi: hi}
	ax.step, ax.rows = niceStep(lo, hi, height)
	step := ax.step
	ax.lo, ax.hi = math.Floor(lo/step+1e-9)*step, math.Ceil(hi/step-1e-9)*step
	// stepDigit is the place of the step's last digit: -1 for 0.1 and
	// 0.2, -2 for 0.25.
	stepDigit := int(math.Floor(math.Log10(step) + 1e-9))
	ax.decimals = max(0, -stepDigit)
	if m := step / math.Pow(10, float64(stepDigit)); math.Abs(m-2.5) < 1e-9 {
		ax.decimals++ // steps of 0.25 need one more digit than steps of 0.2
		stepDigit--
	}
	// Beyond a million, or for values below 1e-4, fixed notation would
	// print a row of digits or of zeros: significant digits and an
	// exponent instead. Either way the labels carry the digits the step
	// needs to differ from row to row: a nearly flat series (MAEs of
	// 0.11995 to 0.1202) has a step far below its values, and three
	// significant digits labelled every row 0.12.
	magnitude := max(math.Abs(ax.lo), math.Abs(ax.hi))
	ax.exponent = magnitude >= 1e6 || magnitude < 1e-4
	ax.digits = 3
	if ax.exponent {
		ax.digits = max(ax.digits, int(math.Floor(math.Log10(magnitude)+1e-9))-stepDigit+1)
	}
	return ax
}

// label writes the axis label of v, noting its width.
func (ax *yAxis) label(v float64) string {
	if math.Abs(v) < ax.step*1e-6 {
		v = 0 // not -1.1e-17
	}
	l := strconv.FormatFloat(v, 'f', ax.decimals, 64)
	if ax.exponent {
		l = strconv.FormatFloat(v, 'g', ax.digits, 64)
	}
	ax.labelWidth = max(ax.labelWidth, utf8.RuneCountInString(l))
	return l
}

// seriesColorsOf gives each series its colour: by position, an unnamed
// series keeping the previous one's.
func seriesColorsOf(kept []Series) []asciigraph.AnsiColor {
	colors := make([]asciigraph.AnsiColor, len(kept))
	for i, s := range kept {
		colors[i] = seriesColors[i%len(seriesColors)]
		if s.Name == "" && i > 0 {
			colors[i] = colors[i-1]
		}
	}
	return colors
}

// layers are the series in drawing order (Under series first), clamped
// to the axis, with their marks and colours.
func (ax *yAxis) layers(kept []Series, colors []asciigraph.AnsiColor) (data [][]float64, chars []asciigraph.CharSet, drawColors []asciigraph.AnsiColor) {
	var order []int
	for _, under := range []bool{true, false} {
		for i, s := range kept {
			if s.Under == under {
				order = append(order, i)
			}
		}
	}
	data = make([][]float64, len(kept))
	chars = make([]asciigraph.CharSet, len(kept))
	drawColors = make([]asciigraph.AnsiColor, len(kept))
	for j, i := range order {
		s := kept[i]
		data[j] = ClampSeries(s.Values, ax.clampLo, ax.clampHi)
		chars[j] = asciigraph.DefaultCharSet
		if m := s.mark(i); m != "" {
			chars[j] = asciigraph.CreateCharSet(m)
		}
		drawColors[j] = colors[i]
	}
	return data, chars, drawColors
}

// legendLine is the plot's legend ("" with no named series): asciigraph's
// own always emits ANSI escapes, so this writes a plain one (coloured
// marks with color).
func legendLine(kept []Series, colors []asciigraph.AnsiColor, color bool) string {
	var legend []string
	for i, s := range kept {
		if s.Name == "" {
			continue
		}
		mark := legendMark(s, i)
		if color {
			mark = colors[i].String() + mark + asciigraph.Default.String()
		}
		legend = append(legend, mark+" "+s.Name)
	}
	return strings.Join(legend, "   ")
}

// xLabelRow writes the labels xs under the columns of evenly spaced
// samples across width columns, as asciigraph draws them: sample k at
// column k·(width−1)/(n−1), the last one at width−2, the last column it
// draws. The first label starts at its column, the last ends at its
// own, the others are centred; one that would run into another, or
// past the plot, is left out (the title lists them all).
func xLabelRow(xs []string, width int) string {
	row := []rune(strings.Repeat(" ", width-1))
	lastStart := width - 1 - utf8.RuneCountInString(xs[len(xs)-1])
	free := 0 // the first column the next label may take
	for k, x := range xs {
		label := []rune(x)
		col := min(width-2, int(math.Round(float64(k*(width-1))/float64(len(xs)-1))))
		start := col - len(label)/2
		switch k {
		case 0:
			start = 0
		case len(xs) - 1:
			start = lastStart
		}
		end := start + len(label) // one past the label
		if start < free || end > len(row) || (k < len(xs)-1 && end >= lastStart) {
			continue
		}
		copy(row[start:], label)
		free = end + 1
	}
	return string(row)
}

// niceStep returns the smallest round step (1, 2, 2.5 or 5 times a power
// of ten) that covers [lo, hi] in about height rows (a quarter more at
// most, so rounding the range outwards rarely halves the resolution), and
// that number of rows once the range is rounded to multiples of the step.
func niceStep(lo, hi float64, height int) (step float64, rows int) {
	raw := (hi - lo) / float64(height)
	maxRows := height + height/4
	decade := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10, 20, 25, 50, 100} {
		step = m * decade
		rows = int(math.Round(math.Ceil(hi/step-1e-9) - math.Floor(lo/step+1e-9)))
		if rows <= maxRows {
			return step, rows
		}
	}
	return step, rows
}

// finiteRange returns the smallest and largest finite value of the series,
// or (+Inf, -Inf) when there is none.
func finiteRange(series []Series) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// widenFlat gives a constant signal some vertical room: asciigraph cannot
// scale an empty range.
func widenFlat(lo, hi float64) (float64, float64) {
	if hi-lo > 1e-12*max(1, math.Abs(lo), math.Abs(hi)) {
		return lo, hi
	}
	mid := (lo + hi) / 2
	pad := max(math.Abs(mid)/2, 1)
	return mid - pad, mid + pad
}

// ClampSeries copies v with values clamped into [lo, hi] (infinities onto
// the edges); NaN stays NaN and is drawn as a gap. asciigraph widens its
// bounds to the data instead of clipping, so every caller that fixes a
// plot's range clamps first (the explorer too).
func ClampSeries(v []float64, lo, hi float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		switch {
		case math.IsNaN(x):
			out[i] = x
		case x < lo:
			out[i] = lo
		case x > hi:
			out[i] = hi
		default:
			out[i] = x
		}
	}
	return out
}

// Heatmap is a character-shaded picture of a field on a product grid, for
// example a discrepancy δ(t, x): rows top to bottom, columns left to right.
type Heatmap struct {
	Title string
	// Rows and Cols bound the picture in characters; larger fields are
	// sampled down evenly (first and last row and column always shown).
	// 0 means 16 rows × 64 columns.
	Rows, Cols int
	// RowName and ColName label the axes ("t", "x").
	RowName, ColName string
}

// shadeRamp runs from zero magnitude (blank) to the largest (@).
const shadeRamp = " .:-=+*#%@"

// Render draws values[r][c], whose rows sit at rowAxis[r] and columns at
// colAxis[c]. Shade grows with |value|; a footer gives the scale and the
// sign of the values. The result ends with a newline.
func (h Heatmap) Render(values [][]float64, rowAxis, colAxis []float64) string {
	var b strings.Builder
	if h.Title != "" {
		b.WriteString(h.Title + "\n")
	}
	nr := len(values)
	if nr == 0 || len(values[0]) == 0 {
		b.WriteString("  (empty field)\n")
		return b.String()
	}
	nc := len(values[0])
	rows, cols := h.Rows, h.Cols
	if rows < 1 {
		rows = 16
	}
	if cols < 1 {
		cols = 64
	}
	rows, cols = min(rows, nr), min(cols, nc)

	maxAbs, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, row := range values {
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			maxAbs = max(maxAbs, math.Abs(v))
			lo, hi = min(lo, v), max(hi, v)
		}
	}

	labels := make([]string, rows)
	labelWidth := 0
	for i := range rows {
		r := evenIndex(i, rows, nr)
		labels[i] = h.RowName + "=" + axisNumber(rowAxis, r)
		labelWidth = max(labelWidth, len(labels[i]))
	}
	ramp := []byte(shadeRamp)
	for i := range rows {
		r := evenIndex(i, rows, nr)
		fmt.Fprintf(&b, "  %*s │", labelWidth, labels[i])
		for j := range cols {
			v := values[r][evenIndex(j, cols, nc)]
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				b.WriteByte('?')
			case maxAbs == 0:
				b.WriteByte(ramp[0])
			default:
				level := int(math.Round(math.Abs(v) / maxAbs * float64(len(ramp)-1)))
				b.WriteByte(ramp[level])
			}
		}
		b.WriteString("\n")
	}
	pad := strings.Repeat(" ", labelWidth+3)
	b.WriteString(pad + "└" + strings.Repeat("─", cols) + "\n")
	left := h.ColName + "=" + axisNumber(colAxis, 0)
	right := h.ColName + "=" + axisNumber(colAxis, nc-1)
	gap := max(1, cols-len(left)-len(right)+1)
	b.WriteString(pad + " " + left + strings.Repeat(" ", gap) + right + "\n")

	sign := "values change sign"
	switch {
	case lo > hi:
		sign = "no finite values"
	case lo >= 0:
		sign = "all values ≥ 0"
	case hi <= 0:
		sign = "all values ≤ 0"
	}
	fmt.Fprintf(&b, "%sshade ∝ |value|: %q = 0 … %q = %s; %s\n", pad, ramp[0], ramp[len(ramp)-1], strconv.FormatFloat(maxAbs, 'g', 3, 64), sign)
	return b.String()
}

// evenIndex is the i-th of m indices spread evenly over 0..n-1, first and
// last included.
func evenIndex(i, m, n int) int {
	if m <= 1 {
		return 0
	}
	return int(math.Round(float64(i) * float64(n-1) / float64(m-1)))
}

// endLabel is an axis end v to three digits, 0 where v is rounding
// noise beside the axis's span (a range computed as 1 − 1 + 2.2e-16).
func endLabel(v, span float64) string {
	if math.Abs(v) < 1e-9*math.Abs(span) {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// axisNumber formats axis[i] briefly, or the index when there is no axis.
func axisNumber(axis []float64, i int) string {
	if i < len(axis) {
		return strconv.FormatFloat(axis[i], 'g', 3, 64)
	}
	return strconv.Itoa(i)
}

// sparkTicks are the eight block heights of a sparkline.
var sparkTicks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as one line of at most width block characters
// (a field's shape at a glance); values are sampled down evenly and
// non-finite ones are left blank.
func Sparkline(values []float64, width int) string {
	n := len(values)
	if n == 0 || width < 1 {
		return ""
	}
	width = min(width, n)
	lo, hi := finiteRange([]Series{{Values: values}})
	var b strings.Builder
	for i := range width {
		v := values[evenIndex(i, width, n)]
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparkTicks[len(sparkTicks)/2])
		default:
			k := int(math.Round((v - lo) / (hi - lo) * float64(len(sparkTicks)-1)))
			b.WriteRune(sparkTicks[k])
		}
	}
	return b.String()
}

// ScatterPlot is an ASCII scatter plot on a fixed range: each cell shows
// how many points fall in it ('•' for one, 2–9, '*' for more); points
// outside the range sit on its edge, non-finite ones are left out.
type ScatterPlot struct {
	Title         string
	Width, Height int // plot area in characters; 0 means 40 × 10
	XLo, XHi      float64
	YLo, YHi      float64
	// Diagonal draws the line y = x with '·' under the points (an
	// estimate against its truth).
	Diagonal bool
	// XName and YName name the axes: XName centred between the x
	// axis's end labels, YName on a line of its own above the y axis.
	XName, YName string
}

// ScatterGlyphs says what a ScatterPlot's cells show, for a legend.
const ScatterGlyphs = "• 1, 2–9 that many, * 10 or more"

// Render draws the points (xs[i], ys[i]). The result ends with a
// newline.
func (p ScatterPlot) Render(xs, ys []float64) string {
	w, h := p.Width, p.Height
	if w < 2 {
		w = 40
	}
	if h < 2 {
		h = 10
	}
	xlo, xhi := widenFlat(p.XLo, p.XHi)
	ylo, yhi := widenFlat(p.YLo, p.YHi)
	col := func(x float64) int { return min(w-1, max(0, int((x-xlo)/(xhi-xlo)*float64(w-1)+0.5))) }
	row := func(y float64) int { return min(h-1, max(0, int((yhi-y)/(yhi-ylo)*float64(h-1)+0.5))) }
	cells := make([][]rune, h)
	counts := make([][]int, h)
	for r := range cells {
		cells[r] = []rune(strings.Repeat(" ", w))
		counts[r] = make([]int, w)
	}
	if p.Diagonal {
		for c := range w {
			x := xlo + (xhi-xlo)*float64(c)/float64(w-1)
			if x >= ylo && x <= yhi {
				cells[row(x)][c] = '·'
			}
		}
	}
	for i := range min(len(xs), len(ys)) {
		x, y := xs[i], ys[i]
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			continue
		}
		r, c := row(y), col(x)
		counts[r][c]++
		switch n := counts[r][c]; {
		case n == 1:
			cells[r][c] = '•'
		case n <= 9:
			cells[r][c] = rune('0' + n)
		default:
			cells[r][c] = '*'
		}
	}
	yl, yh := endLabel(yhi, yhi-ylo), endLabel(ylo, yhi-ylo)
	lw := max(utf8.RuneCountInString(yl), utf8.RuneCountInString(yh))
	var b strings.Builder
	if p.Title != "" {
		b.WriteString(strings.Repeat(" ", lw+1) + p.Title + "\n")
	}
	if p.YName != "" {
		b.WriteString(p.YName + "\n")
	}
	for r := range h {
		label := ""
		switch r {
		case 0:
			label = yl
		case h - 1:
			label = yh
		}
		fmt.Fprintf(&b, "%*s│%s\n", lw, label, strings.TrimRight(string(cells[r]), " "))
	}
	b.WriteString(strings.Repeat(" ", lw) + "└" + strings.Repeat("─", w) + "\n")
	xl, xh := endLabel(xlo, xhi-xlo), endLabel(xhi, xhi-xlo)
	pad := max(1, w-utf8.RuneCountInString(xl)-utf8.RuneCountInString(xh))
	mid := strings.Repeat(" ", pad)
	if n := displayWidth(p.XName); p.XName != "" && n+2 <= pad {
		left := (pad - n) / 2
		mid = strings.Repeat(" ", left) + p.XName + strings.Repeat(" ", pad-n-left)
	}
	b.WriteString(strings.Repeat(" ", lw+1) + xl + mid + xh + "\n")
	return b.String()
}
