package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestStatusNamesBothWorks: with the baselines fitting beside a
// diagnosis or the ablation's points, the status line at 120 columns
// said "◐ computing diagnostics 0/32… · koh-gp …, bcpi …, cpinn …": the
// fits' names without the "baselines:" that says what they are. At 120
// and 80 columns, running, a minute in and done, beside the note c
// leaves or A's on a control it cannot sweep, the line says both what
// computes and "baselines:", shows the last fit's state, and fits.
func TestStatusNamesBothWorks(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, view := range []string{"d", "A"} {
			m := newTest(t, "spring", size[0], size[1])
			m = focusOn(t, m, ctlSystem) // A's note: the system cannot be swept
			m, _ = pressNoRun(t, m, "c")
			m, _ = pressNoRun(t, m, view)
			want := map[string]string{"d": "computing diagnostics ", "A": "computing ablation "}[view]
			check := func(when string, m Model) {
				t.Helper()
				head := m.header()
				line := strings.TrimRight(ansi.Strip(head[1]), " ")
				if !strings.Contains(line, want) || !strings.Contains(line, "· baselines: koh-gp") || !strings.Contains(line, "cpinn") {
					t.Errorf("%d columns, %s, %s: the status line is %q, want %q, \"· baselines: koh-gp\" and cpinn's state", size[0], view, when, line, want)
				}
				if w := ansi.StringWidth(head[1]); w > size[0] {
					t.Errorf("%d columns, %s, %s: the status line is %d cells wide", size[0], view, when, w)
				}
			}
			check("as they start", m)
			m = send(t, m, progressTickMsg{at: m.base.started.Add(65 * time.Second)})
			check("a minute in", m)
			for i := range m.base.runs {
				m = send(t, m, fakeBaseline(m, m.base.gen, i, 1+float64(i)/10))
			}
			check("the fits done", m)
			m.stopAll()
		}
	}
}
