package tui

import (
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
	rows := func(width int, halfWidth float64) int {
		p := sineBandPlot(width, halfWidth)
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
