package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestDiagnosticsLeaveAGap: at 80×24 the diagnostics view leaves the
// panel area's last column blank, as the plots and the ablation view
// do, on every system, and its table keeps one line per row: it used to
// run into the sidebar's border.
func TestDiagnosticsLeaveAGap(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m := openDiagnosis(t, newTest(t, sys, 80, 24))
		area := panelArea(m)
		gapOK(t, m, sys)
		rows := 0
		for _, l := range area {
			if strings.HasPrefix(l, "  level ") && strings.Contains(l, "max|·|") {
				rows++
			}
			if strings.HasPrefix(l, "  recon ") || strings.HasPrefix(l, "  δ ") || strings.HasPrefix(l, "  θ ") {
				if len(strings.Fields(l)) < 6 { // the label's words, four levels and the max
					t.Errorf("%s: a table row is cut or wrapped: %q", sys, l)
				}
				rows++
			}
		}
		if want := 3 + len(m.sys().Params()); rows != want {
			t.Errorf("%s: %d table rows, want %d:\n%s", sys, rows, want, strings.Join(area, "\n"))
		}
		// Words wrap short of the gap too.
		m.diag.err = errors.New("cannot read " + strings.Repeat("x", 200)) // one unbroken word
		gapOK(t, m, sys+" failed")
	}
}

// gapOK checks that the panel area's last column is blank on every line.
func gapOK(t *testing.T, m Model, what string) {
	t.Helper()
	plotW := m.width - m.sideWidth() - 1
	for i, l := range panelArea(m) {
		if last := ansi.Cut(l, plotW-1, plotW); ansi.StringWidth(l) != plotW || last != " " {
			t.Errorf("%s: line %d reaches the sidebar: %q", what, i, l)
		}
	}
}

// TestPanelsLeaveAGap: the line plots' titles and legends, like their
// plot bodies, leave each panel's last column blank, so that none runs
// into the sidebar's border or the panel beside it: lv's δ̂ legend at
// 80×24, advdiff's truth-vs-prediction legend at 120×40 and the
// baselines' legend reached it.
func TestPanelsLeaveAGap(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		for _, sys := range []string{"spring", "lv", "advdiff"} {
			m := newTest(t, sys, sz[0], sz[1])
			for page := range 2 {
				what := fmt.Sprintf("%s %dx%d page %d", sys, sz[0], sz[1], page+1)
				gapOK(t, m, what)
				if m.width >= bigWidth && m.height >= bigHeight {
					// Two panels side by side: the left one's last
					// column too, before the gap between them.
					w1 := (m.width - m.sideWidth() - 1 - 1) / 2
					for i, l := range panelArea(m) {
						if ansi.Cut(l, w1-1, w1) != " " {
							t.Errorf("%s: line %d of the left panels reaches the right ones: %q", what, i, l)
						}
					}
					break
				}
				m, _ = press(t, m, "p")
			}
		}
	}
}

// TestStackedPanelsAlignTheirAxes: the line panels share their x axis,
// so every one puts its y axis at the same column, and a t on one lies
// under the same t on the panel below: lv's panel 1 (labels "2.0") and
// panel 2 (labels "-0.6") were three columns apart at 80×24.
func TestStackedPanelsAlignTheirAxes(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, sys := range []string{"spring", "lv", "advdiff"} {
			m := newTest(t, sys, sz[0], sz[1])
			for page := 0; page < 2; page++ {
				what := fmt.Sprintf("%s %dx%d page %d", sys, sz[0], sz[1], page)
				plotW := m.width - m.sideWidth() - 1
				halves := [][2]int{{0, plotW}}
				if w1 := (plotW - 1) / 2; sz[0] >= 120 {
					halves = [][2]int{{0, w1}, {w1 + 1, plotW}}
				}
				for _, h := range halves {
					axisCols := map[int]int{} // column → rows with the axis there
					for _, l := range panelArea(m) {
						cut := ansi.Cut(l, h[0], h[1])
						if i := strings.IndexAny(cut, "┤┼"); i >= 0 {
							axisCols[ansi.StringWidth(cut[:i])]++
						}
					}
					if len(axisCols) != 1 {
						t.Errorf("%s, columns %d–%d: y axes at columns %v (column: rows)", what, h[0], h[1], axisCols)
					}
				}
				m, _ = press(t, m, "p")
			}
		}
	}
}
