package tui

import (
	"slices"
	"strings"
	"testing"
)

// The fourth panel draws the truth last, over the prediction: drawn
// under it, a good fit's line hid the truth it fits. The legend still
// names the truth's mark.
func TestTruthDrawnOverPrediction(t *testing.T) {
	for _, sys := range []string{"spring", "lv"} {
		m := newTest(t, sys, 160, 48)
		p4 := m.linePanels()[3]
		truth := m.res.task.Real.True
		a := m.axis()
		last := p4.series[len(p4.series)-1]
		if !slices.Equal(last.values, a.channel(truth, a.channels-1)) {
			t.Errorf("%s: panel 4 draws %q last, not the truth", sys, last.mark)
		}
		for c := 0; c < a.channels; c++ {
			ti := slices.IndexFunc(p4.series, func(s series) bool { return slices.Equal(s.values, a.channel(truth, c)) })
			mi := slices.IndexFunc(p4.series, func(s series) bool { return slices.Equal(s.values, a.channel(m.res.pred.Mean, c)) })
			if ti < mi {
				t.Errorf("%s channel %d: truth drawn at %d, under the prediction at %d", sys, c, ti, mi)
			}
		}
		if !slices.ContainsFunc(p4.legend, func(l legendItem) bool { return l.name == "truth G" }) {
			t.Errorf("%s: panel 4's legend lacks the truth", sys)
		}
	}
}

// The bands are called what they are, the calibrated 95% band: "±2σ"
// read as twice the std calibrate --json prints, a third of the width.
func TestBandsNamedNinetyFive(t *testing.T) {
	m := newTest(t, "spring", 160, 48)
	for i, p := range m.linePanels() {
		text := p.title + p.short
		for _, l := range p.legend {
			text += " " + l.name
		}
		if strings.Contains(text, "2σ") {
			t.Errorf("panel %d still says 2σ: %s", i+1, text)
		}
		if (i == 1 || i == 2) && !slices.ContainsFunc(p.legend, func(l legendItem) bool { return l.name == "95% band" }) {
			t.Errorf("panel %d's legend does not name its 95%% band: %s", i+1, text)
		}
	}
}

// A model that fits advdiff to a row (the shipped ones) hides every
// truth mark under its δ̂ and its prediction under the truth: each
// panel's legend then says which curve the hidden one lies under, at
// the smallest window and a large one, rather than name marks that are
// nowhere to be seen.
func TestLegendsSayWhichCurvesLieUnderOthers(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := newTest(t, "advdiff", sz[0], sz[1])
		res := *m.res
		real := res.task.Real
		res.pred.DeltaMean = real.Discrepancy()
		res.pred.Mean = slices.Clone(real.True)
		m.res = &res
		frame := m.render()
		if sz[0] < 120 {
			m, _ = press(t, m, "p")
			frame += m.render()
		}
		for _, want := range []string{"• " + trueDeltaName + " ≈ " + deltaName, "── " + predictionName + " ≈ " + truthName} {
			if !strings.Contains(frame, want) {
				t.Errorf("%dx%d: no %q in the legends:\n%s", sz[0], sz[1], want, frame)
			}
		}
	}
}
