package cli

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// gridHeatMap is a heatmap of f whose cells stop at the grid's first and
// last points, where plotter.HeatMap draws them half a cell past: its
// axes then end at the grid's ends (0 and 1 on advdiff's), which round
// to labelled ticks, not at −0.0078 and 0.992, which rounded to −0.2.
// The halves of the outer cells that fall outside are cut off. A grid of
// one row or column is drawn as plotter.HeatMap draws it.
type gridHeatMap struct {
	*plotter.HeatMap
	f gridField
}

// spans is whether f has two points or more along both axes.
func (h gridHeatMap) spans() bool { return len(h.f.cols) > 1 && len(h.f.rows) > 1 }

// DataRange implements plot.DataRanger: the grid's first and last points.
func (h gridHeatMap) DataRange() (xmin, xmax, ymin, ymax float64) {
	if !h.spans() {
		return h.HeatMap.DataRange()
	}
	return h.f.cols[0], h.f.cols[len(h.f.cols)-1], h.f.rows[0], h.f.rows[len(h.f.rows)-1]
}

// Plot implements plot.Plotter: an image of half cells, each cell two
// pixels each way but the outer ones, which keep their inner half. The
// cells are as wide as the grid's spacing, which the figures' grids keep
// even.
func (h gridHeatMap) Plot(c draw.Canvas, p *plot.Plot) {
	if !h.spans() {
		h.HeatMap.Plot(c, p)
		return
	}
	nc, nr := h.f.Dims()
	w, ht := 2*nc-2, 2*nr-2
	img := image.NewNRGBA(image.Rect(0, 0, w, ht))
	for px := range w {
		for py := range ht {
			if col := h.colour(h.f.Z((px+1)/2, (ht-py)/2)); col != nil {
				img.Set(px, py, col)
			}
		}
	}
	xmin, xmax, ymin, ymax := h.DataRange()
	plotter.NewImage(img, xmin, ymin, xmax, ymax).Plot(c, p)
}

// colour is v's colour as plotter.HeatMap picks it; nil leaves the
// pixel empty.
func (h gridHeatMap) colour(v float64) color.Color {
	pal := h.Palette.Colors()
	scale := float64(len(pal)-1) / (h.Max - h.Min)
	switch {
	case v < h.Min:
		return h.Underflow
	case v > h.Max:
		return h.Overflow
	case math.IsNaN(v), math.IsInf(scale, 0):
		return h.NaN
	}
	return pal[int((v-h.Min)*scale+0.5)]
}

// wrapPeriodic appends to a periodic axis, whose points leave out its
// end (advdiff's x: i/64 up to 63/64, x = 1 being x = 0), that end, and
// to each of vs, laid out as rows of len(axis) values, a copy of each
// row's first value there: the figures' x axes then run to 1, a round
// tick, with the data, not past them. An axis whose last gap is not its
// first (not one that leaves the end out) is returned as it is.
func wrapPeriodic(axis []float64, period float64, vs ...[]float64) ([]float64, [][]float64) {
	n := len(axis)
	if n < 2 || math.Abs(axis[n-1]+(axis[1]-axis[0])-(axis[0]+period)) > 1e-9*period {
		return axis, vs
	}
	wrapped := append(axis[:n:n], axis[0]+period)
	out := make([][]float64, len(vs))
	for i, v := range vs {
		for r := 0; r+n <= len(v); r += n {
			out[i] = append(out[i], v[r:r+n]...)
			out[i] = append(out[i], v[r])
		}
	}
	return wrapped, out
}
