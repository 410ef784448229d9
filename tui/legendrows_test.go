package tui

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestLegendKeepsItsRows: a legend took a second line when a hidden
// curve's note ("95% band (< 1 row)") did not fit its first, and gave
// it back when the note went: the plot above jumped a row with the
// realization, and with the steps of a run. The rows depend on the
// legend's items alone.
func TestLegendKeepsItsRows(t *testing.T) {
	mean := make([]float64, 50)
	for i := range mean {
		mean[i] = math.Sin(float64(i) / 8)
	}
	rows := func(width int, halfWidth float64) int {
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i, v := range mean {
			lo[i], hi[i] = v-halfWidth, v+halfWidth
		}
		p := linePlot{width: width, height: 14, n: len(mean), yLo: -1.2, yHi: 1.2,
			series: []series{{values: lo, mark: "·", curve: bandName}, {values: hi, mark: "·", curve: bandName}, {values: mean, curve: deltaName}},
			legend: []legendItem{{mark: "──", name: deltaName, curve: deltaName}, {mark: "·", name: bandName, curve: bandName, hidden: bandName + thinBand}}}
		return p.layout().legendN
	}
	for _, w := range []int{24, 60} {
		if thin, wide := rows(w, 1e-4), rows(w, 0.3); thin != wide {
			t.Errorf("width %d: the legend takes %d lines under a thin band, %d under a wide one", w, thin, wide)
		}
	}

	// The explorer at 120×40 on the shipped spring model, whose band is
	// thinner than a row at some seeds (1) and not at others (8): the x
	// axes stay on their rows from realization to realization.
	m, err := New(Options{System: "spring", SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = sized(t, m, 120, 40)
	m, _ = run(t, m, m.Init())
	axis := regexp.MustCompile(`^ +0 +t +4 `)
	first := -1
	for seed := 1; seed <= 10; seed++ {
		lines := strings.Split(m.render(), "\n")
		at := -1
		for i, l := range lines {
			if axis.MatchString(l) {
				at = i
				break
			}
		}
		if first < 0 {
			first = at
		}
		if at != first {
			t.Errorf("seed %d: the first x axis on row %d, on row %d at seed 1", m.seed, at, first)
		}
		m, _ = press(t, m, "r")
	}
}
