package cli

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Where a panel's legend goes. gonum/plot draws a legend in a corner of
// the panel's frame over whatever lies there, its thumbnails reaching
// past the end of the data, where they read as more curves (calibrate's
// at t = 10), and a fixed corner can be where the data are (a
// reliability curve of over-wide intervals runs through the top left).
// Each legend goes instead into a framed box inside the data area, in
// the corner where it covers the fewest drawn marks (panelMarks), the
// panel's own corner first among equals; where every corner covers some,
// the y axis is raised to make room for it at the top.

// The legend box's margins, in points (vg.Length's unit).
const (
	legendInset     vg.Length = 4 // between the box and the data area's edges
	legendPad       vg.Length = 2 // between the box's frame and the entries
	legendClearance vg.Length = 2 // between the box and the marks it avoids
)

// legendFrame is the style of the line around a legend box.
var legendFrame = draw.LineStyle{Color: color.Gray{Y: 0xa0}, Width: vg.Points(0.5)}

// legendCorner is a corner of a data area, as plot.Legend names it.
type legendCorner struct{ top, left bool }

// legendCorners are the corners in the order tried after a panel's own.
var legendCorners = []legendCorner{{true, false}, {true, true}, {false, false}, {false, true}}

// alignWithLegends lays rows out in area as plot.Align does, each legend
// in its corner (placeLegend). Panels where every corner would cover
// data get room at the top (makeRoomForLegend), their y axis then fitted
// by fit (nil: left as raised), and the rows are laid out again.
func alignWithLegends(rows [][]*plot.Plot, tiles draw.Tiles, area draw.Canvas, fit func(*plot.Axis)) [][]draw.Canvas {
	canvases := plot.Align(rows, tiles, area)
	raised := false
	for i, row := range rows {
		for j, p := range row {
			if p == nil || placeLegend(p, canvases[i][j]) || !makeRoomForLegend(p, canvases[i][j]) {
				continue
			}
			if fit != nil {
				fit(&p.Y)
			}
			raised = true
		}
	}
	if !raised {
		return canvases
	}
	canvases = plot.Align(rows, tiles, area)
	for i, row := range rows {
		for j, p := range row {
			if p != nil {
				placeLegend(p, canvases[i][j])
			}
		}
	}
	return canvases
}

// placeLegend sets p's legend to the corner of its data area, as drawn
// in c, whose box covers the fewest marks, or comes within
// legendClearance of them, and reports whether that is none (true also
// for a panel without a legend). A box whose edge met a mark, a bar's
// top on its lower edge, hid none of it and yet read as the mark
// running on under it.
func placeLegend(p *plot.Plot, c draw.Canvas) bool {
	data := p.DataCanvas(c)
	if _, ok := legendBox(p, data, legendCorner{true, false}); !ok {
		return true
	}
	marks := drawnMarks(p, c)
	best, fewest := legendCorner{p.Legend.Top, p.Legend.Left}, -1
	for _, k := range append([]legendCorner{best}, legendCorners...) {
		box, _ := legendBox(p, data, k)
		if n := marks.hits(growBox(box, legendClearance)); fewest < 0 || n < fewest {
			best, fewest = k, n
		}
	}
	p.Legend.Top, p.Legend.Left = best.top, best.left
	return fewest == 0
}

// growBox is r widened by d on every side.
func growBox(r vg.Rectangle, d vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: r.Min.X - d, Y: r.Min.Y - d}, Max: vg.Point{X: r.Max.X + d, Y: r.Max.Y + d}}
}

// makeRoomForLegend raises p's y axis so that a band across the top of
// its data area, as drawn in c, holds the legend box clear of the axis's
// old range; it reports false, raising nothing, where the box would take
// more than half the height.
func makeRoomForLegend(p *plot.Plot, c draw.Canvas) bool {
	data := p.DataCanvas(c)
	box, ok := legendBox(p, data, legendCorner{true, false})
	height := data.Max.Y - data.Min.Y
	need := box.Max.Y - box.Min.Y + 2*legendInset
	if !ok || need > height/2 || !(p.Y.Max > p.Y.Min) {
		return false
	}
	p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)*float64(height/(height-need))
	return true
}

// legendBox is the box of p's legend in corner k of the data area data;
// false when the legend has no entries.
func legendBox(p *plot.Plot, data draw.Canvas, k legendCorner) (vg.Rectangle, bool) {
	size := p.Legend.Rectangle(data).Size()
	if size.Y <= 0 {
		return vg.Rectangle{}, false
	}
	w, h := size.X+2*legendPad, size.Y+2*legendPad
	lo := vg.Point{X: data.Max.X - legendInset - w, Y: data.Max.Y - legendInset - h}
	if k.left {
		lo.X = data.Min.X + legendInset
	}
	if !k.top {
		lo.Y = data.Min.Y + legendInset
	}
	return vg.Rectangle{Min: lo, Max: vg.Point{X: lo.X + w, Y: lo.Y + h}}, true
}

// drawWithoutLegend draws p in c as p.Draw does, but for its legend.
func drawWithoutLegend(p *plot.Plot, c draw.Canvas) {
	legend := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = legend }()
	p.Draw(c)
}

// drawPanel draws p in c with its legend in a framed box in the corner
// placeLegend chose.
func drawPanel(p *plot.Plot, c draw.Canvas) {
	drawWithoutLegend(p, c)
	k := legendCorner{p.Legend.Top, p.Legend.Left}
	box, ok := legendBox(p, p.DataCanvas(c), k)
	if !ok {
		return
	}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.SetLineStyle(legendFrame)
	c.Stroke(box.Path())
	// plot.Legend hangs its first entry a font descent below the top of
	// the canvas it is given.
	legend := p.Legend
	legend.Top = true
	descent := legend.TextStyle.FontExtents().Descent
	legend.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: box.Min.X + legendPad, Y: box.Min.Y + legendPad},
		Max: vg.Point{X: box.Max.X - legendPad, Y: box.Max.Y - legendPad + descent},
	}})
}
