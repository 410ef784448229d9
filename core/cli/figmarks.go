package cli

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// panelMarks are what a panel's plotters draw, read back from a recording
// of its drawing rather than from the plotters (which a plot.Plot keeps to
// itself): every line, band, bar, error bar and glyph, whatever drew it,
// in canvas coordinates, without the panel's background and grid, which a
// legend may cover.
type panelMarks struct {
	segments [][2]vg.Point // lines, and the outlines of filled shapes
	circles  []markCircle  // glyphs
	areas    [][]vg.Point  // filled polygons: bands, histogram bars
}

// markCircle is a glyph's circle.
type markCircle struct {
	centre vg.Point
	radius vg.Length
}

// drawnMarks records p drawn in c, without its legend, and returns the
// marks in it.
func drawnMarks(p *plot.Plot, c draw.Canvas) panelMarks {
	var rec recorder.Canvas
	drawWithoutLegend(p, draw.Canvas{Canvas: &rec, Rectangle: c.Rectangle})
	var m panelMarks
	var colour color.Color
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			colour = a.Color
		case *recorder.Stroke:
			if colour != plotter.DefaultGridLineStyle.Color {
				m.addPath(a.Path, false)
			}
		case *recorder.Fill:
			if colour != p.BackgroundColor {
				m.addPath(a.Path, true)
			}
		}
	}
	return m
}

// addPath adds a stroked or filled path's pieces: its polylines (curves
// by their control points, which is enough to tell where they pass) and
// its arcs as whole circles.
func (m *panelMarks) addPath(path vg.Path, filled bool) {
	var poly []vg.Point
	flush := func() {
		for i := 1; i < len(poly); i++ {
			m.segments = append(m.segments, [2]vg.Point{poly[i-1], poly[i]})
		}
		if filled && len(poly) >= 3 {
			m.areas = append(m.areas, poly)
		}
		poly = nil
	}
	for _, pc := range path {
		switch pc.Type {
		case vg.MoveComp:
			flush()
			poly = []vg.Point{pc.Pos}
		case vg.LineComp:
			poly = append(poly, pc.Pos)
		case vg.CurveComp:
			poly = append(append(poly, pc.Control...), pc.Pos)
		case vg.ArcComp:
			m.circles = append(m.circles, markCircle{pc.Pos, pc.Radius})
		case vg.CloseComp:
			if len(poly) > 0 {
				poly = append(poly, poly[0])
			}
		}
	}
	flush()
}

// hits counts the marks that r would cover: the segments and circles
// that meet it, and the filled areas around its centre.
func (m panelMarks) hits(r vg.Rectangle) int {
	n := 0
	for _, s := range m.segments {
		if segmentMeetsBox(s[0], s[1], r) {
			n++
		}
	}
	for _, c := range m.circles {
		if circleMeetsBox(c, r) {
			n++
		}
	}
	centre := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
	for _, a := range m.areas {
		if polygonHolds(a, centre) {
			n++
		}
	}
	return n
}

// segmentMeetsBox reports whether the segment from a to b meets r
// (Liang–Barsky clipping: the part of the segment inside each of r's
// four half-planes, which is empty when the segment misses r).
func segmentMeetsBox(a, b vg.Point, r vg.Rectangle) bool {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		switch {
		case p == 0 && q < 0:
			return false // parallel to this edge and outside it
		case p < 0:
			t0 = max(t0, q/p)
		case p > 0:
			t1 = min(t1, q/p)
		}
	}
	return t0 <= t1
}

// circleMeetsBox reports whether c's disc meets r.
func circleMeetsBox(c markCircle, r vg.Rectangle) bool {
	nearest := vg.Point{X: min(max(c.centre.X, r.Min.X), r.Max.X), Y: min(max(c.centre.Y, r.Min.Y), r.Max.Y)}
	dx, dy := nearest.X-c.centre.X, nearest.Y-c.centre.Y
	return dx*dx+dy*dy <= c.radius*c.radius
}

// polygonHolds reports whether pt lies inside the polygon (even-odd
// rule).
func polygonHolds(poly []vg.Point, pt vg.Point) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > pt.Y) != (b.Y > pt.Y) && pt.X < a.X+(pt.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}
