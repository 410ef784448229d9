package cli

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figureLegend is a legend for a whole figure, outside its panels: its
// entries side by side, in as many lines as the figure's width needs,
// each line centred. plot.Legend lists entries one below the other, so
// each entry is a one-entry plot.Legend, placed here.
type figureLegend struct {
	lines [][]plot.Legend
}

// figureLegendEntry is a legend entry: a name and the marks that
// illustrate it.
type figureLegendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// The figure legend's type size and spacing.
const (
	figureLegendFont vg.Length = 10 // points
	figureLegendGap            = 0.25 * vg.Inch
	figureLegendLead           = 0.06 * vg.Inch
)

// newFigureLegend lays entries out in lines no wider than width (an
// entry wider than that alone on its line).
func newFigureLegend(entries []figureLegendEntry, width vg.Length) figureLegend {
	var l figureLegend
	var line []plot.Legend
	used := vg.Length(0)
	for _, e := range entries {
		entry := plot.NewLegend()
		entry.TextStyle.Font = font.From(plot.DefaultFont, figureLegendFont)
		entry.Left, entry.Top = true, true
		entry.Add(e.name, e.thumbs...)
		w := legendWidth(entry)
		if len(line) > 0 && used+figureLegendGap+w > width {
			l.lines, line, used = append(l.lines, line), nil, 0
		}
		if len(line) > 0 {
			used += figureLegendGap
		}
		line, used = append(line, entry), used+w
	}
	if len(line) > 0 {
		l.lines = append(l.lines, line)
	}
	return l
}

// legendWidth is the width l's entries take.
func legendWidth(l plot.Legend) vg.Length {
	return l.Rectangle(draw.Canvas{}).Size().X
}

// lineHeight is the height of one line of entries, with its leading.
func (l figureLegend) lineHeight() vg.Length {
	return l.lines[0][0].Rectangle(draw.Canvas{}).Size().Y + figureLegendLead
}

// height is the height the legend takes; 0 without entries.
func (l figureLegend) height() vg.Length {
	if len(l.lines) == 0 {
		return 0
	}
	return vg.Length(len(l.lines)) * l.lineHeight()
}

// draw draws the legend's lines in c from its top, each centred.
func (l figureLegend) draw(c draw.Canvas) {
	if len(l.lines) == 0 {
		return
	}
	h := l.lineHeight()
	top := c.Max.Y
	for _, line := range l.lines {
		width := vg.Length(0)
		for i, e := range line {
			if i > 0 {
				width += figureLegendGap
			}
			width += legendWidth(e)
		}
		x := (c.Min.X + c.Max.X - width) / 2
		for _, e := range line {
			w := legendWidth(e)
			e.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - h}, Max: vg.Point{X: x + w, Y: top},
			}})
			x += w + figureLegendGap
		}
		top -= h
	}
}
