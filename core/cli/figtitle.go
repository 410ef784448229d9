package cli

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure's title runs centred across its top. Its numbers make its
// length open-ended (lv's four θ at -0.0001235 ± 1.2e-05, a sweep of
// three axes with long names), and a line wider than the image would be
// cut at both edges, so a title that does not fit within
// figTitleMargin of either edge is wrapped onto more lines, first at
// its " · " separators, then at ", ", then at spaces; the strip it sits
// in grows by figTitleLeading a line.

// The title's font size, the room kept clear at either edge, and the
// distance between the baselines of a wrapped title's lines.
const (
	figTitleSize    = 13
	figTitleMargin  = 0.25 * vg.Inch
	figTitleLeading = 0.25 * vg.Inch
)

// figureHeading is a title laid out for a figure of a given width.
type figureHeading struct {
	lines []string
	first vg.Length // height of the strip holding the first line
}

// newFigureHeading lays title out for a figure width wide, in a strip
// of height first for its first line.
func newFigureHeading(title string, width, first vg.Length) figureHeading {
	sty := figTitleStyle()
	fits := func(s string) bool { return sty.Width(s) <= width-2*figTitleMargin }
	return figureHeading{lines: wrapTitle(title, fits, titleBreaks), first: first}
}

// figTitleStyle is the style of a figure's title.
func figTitleStyle() text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, figTitleSize), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
}

// height is that of the strip the heading takes at the top of a figure.
func (h figureHeading) height() vg.Length {
	return h.first + vg.Length(max(len(h.lines)-1, 0))*figTitleLeading
}

// draw draws the heading across the top of c, each line centred.
func (h figureHeading) draw(c draw.Canvas) {
	sty := figTitleStyle()
	x := (c.Min.X + c.Max.X) / 2
	for i, line := range h.lines {
		y := c.Max.Y - h.first/2 - vg.Length(i)*figTitleLeading
		c.FillText(sty, vg.Point{X: x, Y: y}, line)
	}
}

// titleBreak is where a title may be broken: at sep, the line before
// the break ending in keep ("," after a list item; nothing for a " · ").
type titleBreak struct{ sep, keep string }

// titleBreaks are the places tried, coarsest first.
var titleBreaks = []titleBreak{{" · ", ""}, {", ", ","}, {" ", ""}}

// wrapTitle breaks title into lines that fit, at the coarsest breaks
// that will do: its parts between breaks[0]'s separators are packed
// greedily, a part too long alone wrapped at the finer breaks after. A
// word too long alone (no break left) keeps a line of its own.
func wrapTitle(title string, fits func(string) bool, breaks []titleBreak) []string {
	if fits(title) || len(breaks) == 0 {
		return []string{title}
	}
	b := breaks[0]
	parts := strings.Split(title, b.sep)
	if len(parts) == 1 {
		return wrapTitle(title, fits, breaks[1:])
	}
	// A line may end in b.keep, so each is fitted with it.
	fitsKept := func(s string) bool { return fits(s + b.keep) }
	var lines []string
	line := ""
	for i, part := range parts {
		if i > 0 && fitsKept(line+b.sep+part) {
			line += b.sep + part
			continue
		}
		if i > 0 {
			lines = append(lines, line+b.keep)
		}
		sub := wrapTitle(part, fitsKept, breaks[1:])
		lines = append(lines, sub[:len(sub)-1]...)
		line = sub[len(sub)-1]
	}
	return append(lines, line)
}
