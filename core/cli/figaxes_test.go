package cli

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"apic/core"
)

// axisEndsUnlabelled says which ends of p's axes labelled by niceTicks
// carry no label: "x max 0.992 (last label 0.8)"; none, nil.
func axisEndsUnlabelled(p *plot.Plot) []string {
	return append(axisEndsOff("x", p.X, 0), axisEndsOff("y", p.Y, 0)...)
}

// axisEndsOff says which ends of ax, if niceTicks or rankTicks label
// it, lie further than slack × its length from its first and last
// labels.
func axisEndsOff(name string, ax plot.Axis, slack float64) []string {
	switch ax.Tick.Marker.(type) {
	case niceTicks, rankTicks:
	default:
		return nil // a category axis, or a hidden one
	}
	var labelled []float64
	for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
		if tk.Label != "" {
			labelled = append(labelled, tk.Value)
		}
	}
	if len(labelled) < 2 {
		return []string{fmt.Sprintf("%s [%g, %g] has %d labels", name, ax.Min, ax.Max, len(labelled))}
	}
	var bad []string
	tol := (1e-9 + slack) * (ax.Max - ax.Min)
	if first := labelled[0]; math.Abs(first-ax.Min) > tol {
		bad = append(bad, fmt.Sprintf("%s min %g (first label %g)", name, ax.Min, first))
	}
	if last := labelled[len(labelled)-1]; math.Abs(last-ax.Max) > tol {
		bad = append(bad, fmt.Sprintf("%s max %g (last label %g)", name, ax.Max, last))
	}
	return bad
}

// checkAxisEnds fails t for every drawn panel whose axes do not end at
// labelled ticks.
func checkAxisEnds(t *testing.T, figure string, drawn []*plot.Plot) {
	t.Helper()
	if len(drawn) == 0 {
		t.Errorf("%s: no panels drawn", figure)
	}
	for _, p := range drawn {
		for _, b := range axisEndsUnlabelled(p) {
			t.Errorf("%s, panel %q (%q): %s", figure, p.Title.Text, p.X.Label.Text, b)
		}
	}
}

// Every axis of calibrate's figure, colour bars included, ends at a
// labelled tick: advdiff's x axis stopped at 0.984 (0.992 on its
// heatmaps, which drew half a cell past the grid) with 0.8 its last
// label, and its δ colour bar at ±0.19 with ±0.1 its outer labels.
func TestCalibrationFigureAxesEndOnLabels(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff", "testsys", "testfield", "testplain"} {
		for _, constant := range []bool{false, true} {
			_, drawn, err := renderCalibrationFigure(syntheticCalibration(lookup(t, name), constant))
			if err != nil {
				t.Fatalf("%s (constant %v): %v", name, constant, err)
			}
			checkAxisEnds(t, fmt.Sprintf("calibrate %s (constant %v)", name, constant), drawn)
		}
	}
}

// The heatmaps of a periodic (t, x) grid run to x = 1, the grid's x = 0
// again, and stop there, not half a cell past it.
func TestHeatmapSpansPeriodicGrid(t *testing.T) {
	c := syntheticCalibration(lookup(t, "advdiff"), false)
	rows, _, err := productPanels(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(rows[0], rows[1]...) {
		if p.X.Min != 0 || p.X.Max != 1 {
			t.Errorf("panel %q: x axis [%g, %g], want [0, 1]", p.Title.Text, p.X.Min, p.X.Max)
		}
	}
}

// wrapPeriodic appends the axis's end and each row's first value; an
// axis that holds its end already, or is not evenly spaced to it, is
// left alone.
func TestWrapPeriodic(t *testing.T) {
	axis, vs := wrapPeriodic([]float64{0, 0.25, 0.5, 0.75}, 1, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	if fmt.Sprint(axis, vs) != "[0 0.25 0.5 0.75 1] [[1 2 3 4 1 5 6 7 8 5]]" {
		t.Errorf("wrapped: %v %v", axis, vs)
	}
	for _, a := range [][]float64{{0, 0.5, 1}, {0, 0.25, 0.5}, {0}} {
		got, vs := wrapPeriodic(a, 1, []float64{1, 2, 3})
		if len(got) != len(a) || len(vs[0]) != 3 {
			t.Errorf("%v: wrapped to %v %v", a, got, vs)
		}
	}
}

// axesTestDiagnostics is a diagnosis whose every range ends off a round
// tick: priors U(0.3, 2) and U(0.002, 0.08), signed curves to ±0.16,
// SBC counts to 17, z-scores to 4.4.
func axesTestDiagnostics() core.Diagnostics {
	d := core.Diagnostics{Backbone: "lnp", Tasks: 40, Levels: []float64{0.05, 0.25, 0.5, 0.75, 0.95}}
	wavy := func(a float64) core.JSONFloats { // a coverage: in [0, 1]
		v := make(core.JSONFloats, len(d.Levels))
		for i, q := range d.Levels {
			v[i] = min(1, max(0, q+a*math.Sin(7*q)))
		}
		return v
	}
	signed := func(a float64) core.JSONFloats {
		v := wavy(a)
		for i, q := range d.Levels {
			v[i] -= q
		}
		return v
	}
	d.Reliability = []core.ReliabilityCurve{
		{Name: "recon", Empirical: wavy(0.03), Signed: signed(0.03)},
		{Name: "theta:v", Empirical: wavy(0.16), Signed: signed(0.16)},
	}
	for _, prior := range [][2]float64{{0.3, 2}, {0.002, 0.08}} {
		th := core.ThetaDiagnostic{Name: "p", PriorLo: prior[0], PriorHi: prior[1],
			SBC: core.SBCHistogram{Draws: 32, Counts: []int{17, 3, 9, 11}}}
		for i := range 20 {
			x := prior[0] + (prior[1]-prior[0])*(float64(i)+0.3)/20
			th.Truth = append(th.Truth, x)
			th.Estimate = append(th.Estimate, x*(1+0.01*math.Sin(float64(i))))
			th.Std = append(th.Std, 0.013*x)
			th.ZScore = append(th.ZScore, 4.4*math.Sin(float64(i)))
			th.Contraction = append(th.Contraction, 0.93+0.05*math.Cos(float64(i)))
		}
		d.Theta = append(d.Theta, th)
	}
	return d
}

// Every axis of diagnose's figure ends at a labelled tick but for the
// empty margin that keeps the outermost points off the edge (axisMargin;
// the signed panel's ran to ±0.16 with ±0.15 its outer labels, a
// recovery axis from 0.3 with 0.5 its first), a legend's raised axis
// too up to its bound, and no tick falls in the margin or, on an axis
// raised for a legend, in the band above the bound, where it would
// label a coverage or a contraction above 1 (a raise labelled 1.2) or a
// count below 0.
func TestDiagnosticsFigureAxesEndOnLabels(t *testing.T) {
	for name, d := range diagnosticsTestCases() {
		_, drawn, _, err := renderDiagnosticsFigure(d, "test", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(drawn) != 3*(1+len(d.Theta)) {
			t.Fatalf("%s: %d panels drawn", name, len(drawn))
		}
		for _, p := range drawn {
			xlo, xhi, ylo, yhi := diagnosticsPanelBounds(p.Title.Text)
			y := p.Y
			if raisedForLegend(p, yhi) {
				// The band the raise adds above the bound is blank:
				// the labels end at the bound, a margin below the
				// legend's band.
				y.Max = yhi + axisMargin*(yhi-y.Min)/(1+axisMargin)
			}
			bad := append(axisEndsOff("x", p.X, axisMargin), axisEndsOff("y", y, axisMargin)...)
			bad = append(bad, ticksBeyond("x", p.X, xlo, xhi)...)
			bad = append(bad, ticksBeyond("y", p.Y, ylo, yhi)...)
			for _, b := range bad {
				t.Errorf("diagnose, %s, panel %q: %s", name, p.Title.Text, b)
			}
		}
	}
}

// diagnosticsPanelBounds are the values the axes of the diagnostics
// panel titled title can take: coverages from 0 to 1, a contraction at
// most 1, a count at least 0.
func diagnosticsPanelBounds(title string) (xlo, xhi, ylo, yhi float64) {
	inf := math.Inf(1)
	switch {
	case strings.HasPrefix(title, "reliability"):
		return 0, 1, 0, 1
	case strings.HasPrefix(title, "signed"):
		return 0, 1, -1, 1
	case strings.HasPrefix(title, "contraction"):
		return -inf, inf, -inf, 1
	case strings.HasPrefix(title, "SBC"):
		return 0, inf, 0, inf
	}
	return -inf, inf, -inf, inf
}

// raisedForLegend is whether p's y axis runs past its bound hi by more
// than its margin, which only a legend's raise does (makeRoomForLegend).
func raisedForLegend(p *plot.Plot, hi float64) bool {
	return p.Legend.Top && p.Y.Max > hi+axisMargin*(p.Y.Max-p.Y.Min)
}

// ticksBeyond says which ticks of ax, labelled or not, lie outside its
// first and last labels (in its margin, padAxis) or outside [lo, hi].
func ticksBeyond(name string, ax plot.Axis, lo, hi float64) []string {
	ticks := ax.Tick.Marker.Ticks(ax.Min, ax.Max)
	var bad []string
	for i, tk := range ticks {
		if (i == 0 || i == len(ticks)-1) && tk.Label == "" {
			bad = append(bad, fmt.Sprintf("%s tick at %g in the margin past the labels", name, tk.Value))
		}
		if tk.Value < lo || tk.Value > hi {
			bad = append(bad, fmt.Sprintf("%s tick at %g (%q) outside [%g, %g]", name, tk.Value, tk.Label, lo, hi))
		}
	}
	return bad
}

// sweep.png's metric axes end at labelled ticks but for the empty margin
// that keeps the outermost points off the edge (axisMargin; δ MAE's
// stopped at 0.27 with 0.25 its last label), and a numeric x axis at
// the round ticks around the swept values, widened only by the dodge of
// the points (dodgeStep) and the margin: rounded from the dodged points,
// noise 0, 0.05, 0.1 got an axis from −0.05 to 0.15. A single value's
// axis, its point in the middle, has no margin.
func TestSweepFigureAxesEndOnLabels(t *testing.T) {
	interval := func(mean, half float64) sweepInterval {
		lo, hi := mean-half, mean+half
		return sweepInterval{Mean: &mean, Lo: &lo, Hi: &hi, N: 2}
	}
	for _, tc := range []struct {
		xs     []string
		lo, hi float64 // the numeric axis's labelled span; 0, 0: categories
	}{
		{[]string{"12", "20", "47"}, 10, 50},
		{[]string{"0", "0.05", "0.1"}, 0, 0.1},
		{[]string{"0.5", "1", "1.5"}, 0.5, 1.5}, // labelled 0.5, 1.0, 1.5 (tickStep)
		{[]string{"cnp", "lnp"}, 0, 0},
		{[]string{"0.05"}, 0, 0},
	} {
		sum := sweepSummary{Axes: []string{"x", "noise"}}
		for i, x := range tc.xs {
			for j, noise := range []string{"0", "0.05"} {
				v := 0.0123 * float64(1+i+3*j)
				sum.Cells = append(sum.Cells, sweepGroup{Seeds: 2, order: []string{x, noise}, Metrics: map[string]sweepInterval{
					core.KeyReconMAE: interval(v, v/3), core.KeyDeltaMAE: interval(7*v, 3*v), core.KeyThetaMAE: interval(v, 0),
					core.KeyReconECE: interval(0.13, 0.07), core.KeyDeltaECE: interval(0.21, 0.3), core.KeyThetaCover: interval(0.97, 0.31)}})
			}
		}
		rows, legend, err := sweepFigurePanels(sum)
		if err != nil {
			t.Fatal(err)
		}
		heading := newFigureHeading("test", 3*figPanelW, sweepTitleHeight)
		var rec recorder.Canvas
		drawSweepFigure(draw.NewCanvas(&rec, 3*figPanelW, vg.Length(len(rows))*figPanelH+heading.height()+legend.height()), rows, heading, legend)
		for _, row := range rows {
			for _, p := range row {
				bad := axisEndsOff("y", p.Y, axisMargin)
				if tc.hi > tc.lo {
					// The dodge (at most 1.2 % of the span each way)
					// and the margin beyond it.
					slack := 0.015 + axisMargin*1.03
					bad = append(bad, axisEndsOff("x", p.X, slack)...)
					if p.X.Min < tc.lo-slack*(tc.hi-tc.lo) || p.X.Max > tc.hi+slack*(tc.hi-tc.lo) {
						bad = append(bad, fmt.Sprintf("x [%g, %g] beyond [%g, %g] and the dodge", p.X.Min, p.X.Max, tc.lo, tc.hi))
					}
				} else {
					bad = append(bad, axisEndsOff("x", p.X, 0)...)
				}
				for _, b := range bad {
					t.Errorf("sweep of %v, panel %q: %s", tc.xs, p.Title.Text, b)
				}
			}
		}
	}
}
