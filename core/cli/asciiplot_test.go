package cli

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// yLabels returns the numbers on a line plot's y axis, top to bottom.
func yLabels(plot string) []string {
	var labels []string
	for _, line := range strings.Split(plot, "\n") {
		if i := strings.IndexAny(line, "┤┼"); i > 0 {
			labels = append(labels, strings.TrimSpace(line[:i]))
		}
	}
	return labels
}

func TestLinePlotClampsToRange(t *testing.T) {
	v := []float64{0, 0.5, 100, -0.5, math.Inf(1), math.NaN(), 0}
	out := LinePlot{Width: 20, Height: 4, YLo: -1, YHi: 1}.Render(Series{Name: "s", Values: v})
	labels := yLabels(out)
	if len(labels) == 0 || labels[0] != "1.0" || labels[len(labels)-1] != "-1.0" {
		t.Errorf("y labels %v, want 1.0 … -1.0 (clamped):\n%s", labels, out)
	}
}

// TestLinePlotAxisMarksZero: the y axis's ┼ marks the row labelled 0,
// where the range holds zero, and no row where it does not, whatever
// row the first series starts on (asciigraph marks that one), with
// colour or without, and for a series under another.
func TestLinePlotAxisMarksZero(t *testing.T) {
	starts := []float64{1.2, 1.6, 2.1, 1.4}
	for _, tc := range []struct {
		plot LinePlot
		zero bool
	}{
		{LinePlot{Width: 20, Height: 8, YLo: -1, YHi: 3}, true},
		{LinePlot{Width: 20, Height: 8, YLo: -1, YHi: 3, Color: true}, true},
		{LinePlot{Width: 20, Height: 8}, false},
		{LinePlot{Width: 20, Height: 8, YLo: 0, YHi: 2.5}, true},
	} {
		out := tc.plot.Render(Series{Name: "a", Values: starts, Under: true}, Series{Name: "b", Values: []float64{-0.5, 0.5, 1, 2}})
		if !tc.zero {
			out = tc.plot.Render(Series{Name: "a", Values: starts})
		}
		crosses := 0
		for _, line := range strings.Split(out, "\n") {
			i := strings.Index(line, "┼")
			if i < 0 {
				continue
			}
			crosses++
			if label := strings.TrimSpace(line[:i]); label != "0" && label != "0.0" && label != "0.00" {
				t.Errorf("%+v: ┼ on the row labelled %q, not 0:\n%s", tc.plot, label, out)
			}
		}
		if want := map[bool]int{true: 1, false: 0}[tc.zero]; crosses != want {
			t.Errorf("%+v: %d rows marked ┼, want %d:\n%s", tc.plot, crosses, want, out)
		}
	}
}

func TestLinePlotRoundLabels(t *testing.T) {
	v := []float64{0.013, 0.37, 0.81, 0.2}
	out := LinePlot{Width: 10, Height: 8}.Render(Series{Values: v})
	labels := yLabels(out)
	if labels[0] != "0.9" || labels[len(labels)-1] != "0.0" {
		t.Errorf("labels %v, want round steps from 0.9 down to 0.0", labels)
	}
	if n := len(labels); n > 11 {
		t.Errorf("%d rows for height 8", n)
	}
}

// TestLinePlotHugeLabels: values in the 1e30s are labelled with an
// exponent, not thirty-one digits.
func TestLinePlotHugeLabels(t *testing.T) {
	out := LinePlot{Width: 10, Height: 6}.Render(Series{Values: []float64{-2e30, 1e30, 2.4e30}})
	for _, l := range yLabels(out) {
		if len(l) > 8 || (l != "0" && !strings.Contains(l, "e+30")) {
			t.Errorf("label %q, want three digits and an exponent", l)
		}
	}
}

func TestLinePlotDegenerate(t *testing.T) {
	if out := (LinePlot{}).Render(Series{Values: []float64{2, 2, 2}}); !strings.Contains(out, "─") {
		t.Errorf("flat series not drawn:\n%s", out)
	}
	if out := (LinePlot{Title: "T"}).Render(Series{Values: []float64{math.NaN()}}); !strings.Contains(out, "no finite values") {
		t.Errorf("all-NaN series: %q", out)
	}
	if out := (LinePlot{}).Render(); !strings.Contains(out, "no finite values") {
		t.Errorf("no series: %q", out)
	}
}

func TestLinePlotLegendAndColor(t *testing.T) {
	s := []Series{{Name: "true", Values: []float64{0, 1}}, {Name: "nominal", Values: []float64{1, 0}}}
	plain := LinePlot{Width: 10, Height: 4}.Render(s...)
	if !strings.Contains(plain, "─ true   • nominal") || strings.Contains(plain, "\x1b") {
		t.Errorf("plain legend wrong or has escapes:\n%s", plain)
	}
	if colored := (LinePlot{Width: 10, Height: 4, Color: true}).Render(s...); !strings.Contains(colored, "\x1b[") {
		t.Errorf("Color set but no ANSI escapes")
	}
}

func TestHeatmap(t *testing.T) {
	field := [][]float64{{0, -1, -2}, {-4, -3, 0}}
	out := Heatmap{RowName: "t", ColName: "x"}.Render(field, []float64{0, 1}, []float64{0, 0.5, 1})
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(lines[0], "│ :+") || !strings.HasSuffix(lines[1], "│@# ") {
		t.Errorf("shading wrong:\n%s", out)
	}
	if !strings.Contains(out, "'@' = 4") || !strings.Contains(out, "all values ≤ 0") {
		t.Errorf("footer wrong:\n%s", out)
	}
	mixed := Heatmap{}.Render([][]float64{{1, -1}}, nil, nil)
	if !strings.Contains(mixed, "values change sign") {
		t.Errorf("mixed signs not reported:\n%s", mixed)
	}
	// Larger fields are sampled down to the requested size.
	big := make([][]float64, 50)
	for i := range big {
		big[i] = make([]float64, 100)
	}
	out = Heatmap{Rows: 5, Cols: 20}.Render(big, nil, nil)
	if n := strings.Count(out, "│"); n != 5 {
		t.Errorf("%d rows, want 5", n)
	}
}

func TestSparkline(t *testing.T) {
	s := Sparkline([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 8)
	if s != "▁▂▃▄▅▆▇█" {
		t.Errorf("sparkline %q", s)
	}
	if n := utf8.RuneCountInString(Sparkline(make([]float64, 100), 30)); n != 30 {
		t.Errorf("width %d, want 30", n)
	}
	if Sparkline(nil, 10) != "" {
		t.Errorf("empty input should give empty sparkline")
	}
}

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		height int
		step   float64
	}{
		{-1, 1, 10, 0.2},
		{0.196, 1, 8, 0.1},
		{-0.947, 0.923, 10, 0.2},
		{0, 0.0223, 10, 0.002},
	} {
		step, rows := niceStep(tc.lo, tc.hi, tc.height)
		if math.Abs(step-tc.step) > 1e-12 || rows > tc.height+tc.height/4 {
			t.Errorf("niceStep(%v, %v, %d) = %v, %d; want step %v", tc.lo, tc.hi, tc.height, step, rows, tc.step)
		}
	}
}

// TestLinePlotBandUnderCurve: a band drawn Under stays beneath the curve
// it surrounds, even where they coincide, and an unnamed series shares
// the legend entry of the one before it.
func TestLinePlotBandUnderCurve(t *testing.T) {
	vals := []float64{0, 1, 2, 3, 2, 1, 0, 1, 2, 3}
	out := LinePlot{Width: 10, Height: 6}.Render(
		Series{Name: "curve", Values: vals},
		Series{Name: "±2σ", Values: vals, Mark: "·", Under: true},
		Series{Values: vals, Mark: "·", Under: true},
	)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	body, legend := strings.Join(lines[:len(lines)-1], "\n"), lines[len(lines)-1]
	if strings.Contains(body, "·") {
		t.Errorf("the band hides the curve:\n%s", out)
	}
	if strings.Count(legend, "±2σ") != 1 || !strings.Contains(legend, "· ±2σ") || !strings.Contains(legend, "─ curve") {
		t.Errorf("legend %q: want one ±2σ entry marked ·, and the curve", legend)
	}
}

// TestLinePlotXLabels: the x labels are the line under the plot area,
// the first starting in the area's first column, whatever the width of
// the y labels; they take the place of a numeric x axis.
func TestLinePlotXLabels(t *testing.T) {
	for _, values := range [][]float64{{0, 8, 3}, {0.0012, 0.0031, 0.0007}, {-2e30, 1e30, 2.4e30}} {
		p := LinePlot{Width: 20, Height: 6, XLo: 1, XHi: 3, XLabels: []string{"a", "b", "c"}}
		lines := strings.Split(p.Render(Series{Name: "s", Values: values}), "\n")
		last := -1
		for i, l := range lines {
			if strings.ContainsAny(l, "┤┼") {
				last = i
			}
		}
		if last < 0 || last+2 >= len(lines) {
			t.Fatalf("no plot area and legend:\n%s", strings.Join(lines, "\n"))
		}
		bottom, under := []rune(lines[last]), lines[last+1]
		axis := slices.IndexFunc(bottom, func(r rune) bool { return r == '┤' || r == '┼' })
		if want := strings.Repeat(" ", axis+1) + "a"; !strings.HasPrefix(under, want) || strings.Join(strings.Fields(under), " ") != "a b c" {
			t.Errorf("values %v: label line %q, want a, b, c from column %d:\n%s", values, under, axis+1, strings.Join(lines, "\n"))
		}
		if !strings.Contains(lines[last+2], "─ s") {
			t.Errorf("values %v: the legend does not follow the labels:\n%s", values, strings.Join(lines, "\n"))
		}
	}
}

// TestXTickFormat: the x axis's ticks are written exactly, at one
// number of decimals for all: whole numbers bare, else two, or more
// where two would misstate a tick (0.275 as "0.27").
func TestXTickFormat(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 4, []string{"0", "1", "2", "3", "4"}},
		{0, 10, []string{"0.00", "2.50", "5.00", "7.50", "10.00"}},
		{0.05, 0.95, []string{"0.050", "0.275", "0.500", "0.725", "0.950"}},
		{0, 1, []string{"0.00", "0.25", "0.50", "0.75", "1.00"}},
		{0, 0.1, []string{"0.000", "0.025", "0.050", "0.075", "0.100"}},
	} {
		f := xTickFormat(tc.lo, tc.hi)
		for i, want := range tc.want {
			v := tc.lo + float64(i)/float64(xTicks-1)*(tc.hi-tc.lo)
			if got := f(v); got != want {
				t.Errorf("[%g, %g] tick %d: %q, want %q", tc.lo, tc.hi, i, got, want)
			}
		}
	}
}
