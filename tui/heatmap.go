package tui

import (
	"math"
	"strings"
)

// heatmap is a panel showing a field on a product grid (rows × cols,
// row-major; rows run down the panel) with a colour bar. In colour each
// character cell shows two field rows: the upper half-block ▀ takes the
// upper row's colour as foreground and the lower row's as background. A
// plain theme shades one field row per line with a character ramp.
//
// The range [lo, hi] is fixed by the caller (per panel and realization),
// so colours keep their meaning while controls move.
type heatmap struct {
	title         string
	width, height int
	rows, cols    int
	values        []float64
	lo, hi        float64
	cmap          colormap
	rowName       string // e.g. "t", increasing downwards
	colName       string // e.g. "x", increasing to the right
	rowLo, rowHi  float64
	colLo, colHi  float64
	// marked says to mark field row markRow, the one the time-slice
	// keys select, with ▸ in the gutter beside the line that shows it.
	marked  bool
	markRow int
}

// shadeRamp runs from the low end of the range (blank) to the high end.
const shadeRamp = " .:-=+*#%@"

// render draws the panel into height lines of exactly width cells:
// title, picture, colour bar, axis labels.
func (h heatmap) render(t theme) []string {
	out := make([]string, h.height)
	out[0] = padRight(t.paint(t.bold, t.truncate(h.title, h.width)), h.width)
	for i := 1; i < h.height; i++ {
		out[i] = strings.Repeat(" ", h.width)
	}
	body := h.height - 3
	gutter := 4
	cw := min(h.cols, h.width-gutter-1)
	if body < 2 || cw < 8 || len(h.values) != h.rows*h.cols {
		return out
	}
	pixRows := body
	if !t.plain {
		pixRows = 2 * body
	}
	pixRows = min(pixRows, h.rows+h.rows%2)
	lines := pixRows
	if !t.plain {
		lines = (pixRows + 1) / 2
	}
	c := newCanvas(h.width, lines)
	at := func(pr, pc int) float64 {
		r := evenIndex(pr, pixRows, h.rows)
		col := evenIndex(pc, cw, h.cols)
		return h.values[r*h.cols+col]
	}
	for y := 0; y < lines; y++ {
		for x := 0; x < cw; x++ {
			if t.plain {
				c.set(gutter+x, y, shade(h.unit(at(y, x))), nil, nil)
				continue
			}
			top := h.cmap.at(h.unit(at(2*y, x)), t.profile)
			bot := top
			if 2*y+1 < pixRows {
				bot = h.cmap.at(h.unit(at(2*y+1, x)), t.profile)
			}
			c.set(gutter+x, y, '▀', top, bot)
		}
	}
	c.text(0, 0, h.rowName+"="+formatAxis(h.rowLo), colLabel)
	if lines > 1 {
		c.text(0, lines-1, h.rowName+"="+formatAxis(h.rowHi), colLabel)
	}
	if y := h.markLine(pixRows, lines); y >= 0 {
		c.text(gutter-1, y, "▸", colLabel)
	}
	for y, l := range c.lines(t) {
		out[1+y] = l
	}
	out[body+1] = h.colorBar(t, gutter, cw)
	axis := strings.Repeat(" ", gutter) + h.colName + "=" + formatAxis(h.colLo)
	right := h.colName + "=" + formatAxis(h.colHi)
	if pad := gutter + cw - len([]rune(axis)) - len(right); pad > 0 {
		axis += strings.Repeat(" ", pad) + right
	}
	out[body+2] = padRight(t.paint(t.label, axis), h.width)
	return out
}

// markLine is the picture line that shows field row markRow (the first
// whose pixel rows reach it), or -1 when there is no mark.
func (h heatmap) markLine(pixRows, lines int) int {
	if !h.marked || h.markRow < 0 || h.markRow >= h.rows {
		return -1
	}
	for pr := range pixRows {
		if evenIndex(pr, pixRows, h.rows) >= h.markRow {
			return min(lines-1, pr*lines/pixRows)
		}
	}
	return lines - 1
}

// unit maps v into [0, 1] over the panel's range; NaN stays NaN.
func (h heatmap) unit(v float64) float64 {
	if math.IsNaN(v) || !(h.hi > h.lo) {
		return math.NaN()
	}
	return math.Max(0, math.Min(1, (v-h.lo)/(h.hi-h.lo)))
}

// colorBar is "lo ▕ramp▏ hi" under the picture.
func (h heatmap) colorBar(t theme, gutter, cw int) string {
	// Each bar its own format: a view's bars sharing one wrote the
	// truth's "1.00e0" and the discrepancy's "-2.23e-1" beside a
	// near-exact fit's |error| of "8.93e-5".
	f := barFormat(h.lo, h.hi)
	lo, hi := f(h.lo), f(h.hi)
	n := cw - len(lo) - len(hi) - 2
	if n < 4 {
		return strings.Repeat(" ", h.width)
	}
	c := newCanvas(h.width, 1)
	c.text(gutter, 0, lo+" ", colLabel)
	for i := 0; i < n; i++ {
		u := float64(i) / float64(n-1)
		if t.plain {
			c.set(gutter+len(lo)+1+i, 0, shade(u), nil, nil)
		} else {
			c.set(gutter+len(lo)+1+i, 0, '█', h.cmap.at(u, t.profile), nil)
		}
	}
	c.text(gutter+len(lo)+1+n, 0, " "+hi, colLabel)
	return c.lines(t)[0]
}

// shade is the ramp character for u ∈ [0, 1] ('?' for NaN).
func shade(u float64) rune {
	if math.IsNaN(u) {
		return '?'
	}
	r := []rune(shadeRamp)
	return r[int(math.Round(u*float64(len(r)-1)))]
}

// evenIndex is the i-th of m indices spread evenly over 0..n-1, first and
// last included.
func evenIndex(i, m, n int) int {
	if m <= 1 || n <= 1 {
		return 0
	}
	return min(n-1, int(math.Round(float64(i)*float64(n-1)/float64(m-1))))
}
