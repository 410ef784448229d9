package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// TestSweepPanelShortensLongTicks: a category axis of long values (a
// 150-character checkpoint path) is drawn with labels of at most
// maxTickRunes runes, the start and end kept, a checkpoint by its file
// name without the extension.
func TestSweepPanelShortensLongTicks(t *testing.T) {
	long := "/data/runs/" + strings.Repeat("x", 150) + ".safetensors"
	xs := []string{long, "c.safetensors"}
	p, err := sweepPanel("recon_mae", "checkpoint", xs, nil, []float64{0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	ticks := p.X.Tick.Marker.Ticks(0, 1)
	var got []string
	for _, tk := range ticks {
		got = append(got, tk.Label)
		if n := utf8.RuneCountInString(tk.Label); n > maxTickRunes {
			t.Errorf("label %q has %d runes, more than %d", tk.Label, n, maxTickRunes)
		}
	}
	if len(got) != 2 || got[0] != "xxxxxxx…xxxxxxxx" || got[1] != "c" {
		t.Errorf("ticks %q", got)
	}
}

// TestSweepSingleValueAxis: a sweep of one value gets an x axis a
// little either side of it, labelled, the same in every panel, its
// points (one series or several, dodged) well inside it and, about a
// positive value, none drawn at zero or below: noise
// 0.05 alone ran from −1 to 1.5 (θ cover95's panel −0.6 to 0.6), and
// with three series their points stood at −0.05, 0.05 and 0.15, the
// outer two on the frame.
func TestSweepSingleValueAxis(t *testing.T) {
	for _, c := range []struct {
		x        string
		v        float64
		maxWidth float64
	}{{"0.05", 0.05, 0.02}, {"0.123", 0.123, 0.1}, {"20", 20, 5}, {"1000", 1000, 500}, {"0", 0, 2}} {
		for _, nSeries := range []int{1, 3} {
			sum := sweepSummary{Axes: []string{"noise", "refine"}}
			for r := range nSeries {
				at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
				m := map[string]sweepInterval{}
				for _, k := range slices.Concat(sweepFigureMetrics...) {
					m[k] = at(0.5 + 0.1*float64(r))
				}
				sum.Cells = append(sum.Cells, sweepGroup{Seeds: 1, order: []string{c.x, strconv.Itoa(r)}, Metrics: m})
			}
			_, series := sweepCurves(sum)
			rows, _, err := sweepFigurePanels(sum)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("noise=%s, %d series", c.x, nSeries)
			first := rows[0][0].X
			for i, row := range rows {
				for j, p := range row {
					k := sweepFigureMetrics[i][j]
					checkSingleValueAxis(t, fmt.Sprintf("%s, %s", name, k), p.X, c.v, c.maxWidth)
					if p.X.Min != first.Min || p.X.Max != first.Max {
						t.Errorf("%s, %s: x axis %v to %v, the first panel's %v to %v", name, k, p.X.Min, p.X.Max, first.Min, first.Max)
					}
					marks, err := sweepPanelMarks(k, series, []float64{c.v}, true)
					if err != nil {
						t.Fatal(err)
					}
					width := p.X.Max - p.X.Min
					for _, pl := range marks {
						s, ok := pl.(*plotter.Scatter)
						if !ok {
							continue
						}
						for _, xy := range s.XYs {
							if xy.X < p.X.Min+width/10 || xy.X > p.X.Max-width/10 || c.v > 0 && xy.X <= 0 {
								t.Errorf("%s, %s: a point at x = %v on the axis %v to %v", name, k, xy.X, p.X.Min, p.X.Max)
							}
						}
					}
				}
			}
		}
	}
}

// checkSingleValueAxis fails t unless ax holds v within at most
// maxWidth and labels at least two distinct ticks in it.
func checkSingleValueAxis(t *testing.T, name string, ax plot.Axis, v, maxWidth float64) {
	t.Helper()
	if !(ax.Min < v && v < ax.Max) || ax.Max-ax.Min > maxWidth {
		t.Errorf("%s: x axis %v to %v, want about %v, at most %v wide", name, ax.Min, ax.Max, v, maxWidth)
	}
	labels := map[string]bool{}
	for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
		if tk.Label != "" && tk.Value >= ax.Min && tk.Value <= ax.Max {
			labels[tk.Label] = true
		}
	}
	if len(labels) < 2 {
		t.Errorf("%s: x axis %v to %v labels %d ticks, want at least 2", name, ax.Min, ax.Max, len(labels))
	}
}
