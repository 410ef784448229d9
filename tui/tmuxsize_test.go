package tui

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// tmuxSizes are the terminals an 80×24 one leaves the explorer inside
// tmux or screen: their status bar takes a row, a second bar (or a
// split's border) another.
var tmuxSizes = []int{23, 22}

// tmuxView is one view of the explorer, reached from a fresh one on sys
// by open.
type tmuxView struct {
	name, sys string
	open      func(t *testing.T, m Model) Model
}

// keysView opens a view by pressing keys.
func keysView(keys ...string) func(t *testing.T, m Model) Model {
	return func(t *testing.T, m Model) Model {
		m, _ = press(t, m, keys...)
		return m
	}
}

// baselinesView shows the baselines, one fitted and one failed, and
// stops their fits.
func baselinesView(keys ...string) func(t *testing.T, m Model) Model {
	return func(t *testing.T, m Model) Model {
		m, _ = press(t, m, keys...)
		m, _ = pressNoRun(t, m, "c")
		m.base.cancel()
		m = send(t, m, fakeBaseline(m, m.base.gen, 0, 1.1))
		return send(t, m, baseMsg{gen: m.base.gen, idx: 1, err: errors.New("bcpi: no positive-definite covariance")})
	}
}

// trainingView is a run at its 120th step.
func trainingView(t *testing.T, m Model) Model {
	r := &trainRun{mode: modeFineTune}
	m.runs, m.run = []*trainRun{r}, r
	m.prog = &core.Progress{Stage: 1, Step: 120, Steps: 1000, Losses: core.Losses{Total: 1.23}}
	m.losses = []float64{3, 2.5, 2, 1.6, 1.2, 1.4, 1.3, 1.25}
	return m
}

// TestEveryViewAtTmuxSizes: an 80×24 terminal running tmux gave the
// explorer 80×23, which it refused as too small. Each view (every
// system and its other panels, the heatmaps, the diagnostics, the help,
// the prompts, the baselines, a training run) draws at 80×23 and 80×22
// with every control of the sidebar and every panel's title, x axis and
// legend that it has at 80×24.
func TestEveryViewAtTmuxSizes(t *testing.T) {
	var views []tmuxView
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		views = append(views,
			tmuxView{"panels", sys, keysView()},
			tmuxView{"other panels", sys, keysView("p")},
			tmuxView{"diagnostics", sys, openDiagnosis},
			tmuxView{"baselines", sys, baselinesView()},
			tmuxView{"training", sys, trainingView})
	}
	views = append(views,
		tmuxView{"heatmaps", "advdiff", keysView("v")},
		tmuxView{"other heatmaps", "advdiff", keysView("v", "p")},
		tmuxView{"heatmap baselines", "advdiff", baselinesView("v", "p")},
		tmuxView{"help", "spring", keysView("?")},
		tmuxView{"open prompt", "spring", keysView("o")},
		tmuxView{"save prompt", "spring", keysView("s")})
	for _, v := range views {
		t.Run(v.sys+" "+v.name, func(t *testing.T) {
			ref := v.open(t, newTest(t, v.sys, 80, 24)).render()
			for _, h := range tmuxSizes {
				m := v.open(t, newTest(t, v.sys, 80, h))
				frame := m.render()
				frameOK(t, frame, 80, h)
				if strings.Contains(frame, "too small") {
					t.Fatalf("80×%d: the too-small screen", h)
				}
				if m.help.ShowAll {
					// The help takes the whole screen, and scrolls.
					if !strings.Contains(frame, "keys  (? or esc closes") || !strings.Contains(frame, "lines 1–") {
						t.Errorf("80×%d: the help lacks its heading or its position:\n%s", h, frame)
					}
					continue
				}
				words := wordsOf(frame)
				for _, want := range viewLabels(ref) {
					if !strings.Contains(words, want) {
						t.Errorf("80×%d lacks %q, which 80×24 has:\n%s", h, want, frame)
					}
				}
				for _, want := range controlLabels(m) {
					if !strings.Contains(frame, want) {
						t.Errorf("80×%d: the sidebar lacks the control %q:\n%s", h, want, frame)
					}
				}
			}
		})
	}
}

// TestAveragesAtTmuxSizes: at 80×23 lv's sidebar shows every average,
// the title of the metrics in their heading; at 80×22 the three errors.
func TestAveragesAtTmuxSizes(t *testing.T) {
	for _, tc := range []struct {
		h    int
		want []string
	}{
		{23, []string{"recon MAE", "δ MAE", "θ MAE", "recon ECE", "recon LL"}},
		{22, []string{"recon MAE", "δ MAE", "θ MAE", "2 more rows"}},
	} {
		m := newAvgTest(t, "lv", 80, tc.h)
		frame := m.render()
		frameOK(t, frame, 80, tc.h)
		for _, want := range append(tc.want, " one pass  this    mean±95%/32") {
			if !strings.Contains(frame, want) {
				t.Errorf("80×%d lacks %q:\n%s", tc.h, want, frame)
			}
		}
	}
}

// viewLabels are the lines of a frame's panel area that label rather
// than plot: the panels' titles, x axes and legends, the diagnostics'
// lines but the hint (80×22 leaves it to the sidebar and the footer),
// the help's key lines. They do not depend on the height.
func viewLabels(frame string) []string {
	var out []string
	plotRow := regexp.MustCompile(`[┤┼]|^(t=\S+)?[ ▸]*[ .:=+*#%@-]*$`) // a line plot's or a heatmap's row
	for _, l := range strings.Split(frame, "\n")[headerLines:] {
		l = strings.TrimRight(ansi.Cut(l, 0, 80-smallSideW-1), " │")
		switch {
		case plotRow.MatchString(l):
		case strings.Contains(l, "d/esc closes"), strings.Contains(l, "lines 1–"), strings.Contains(l, "? help"):
		case strings.Contains(l, "open checkpoint:"), strings.Contains(l, "save as:"):
		default:
			// Words alone: a y axis one cell narrower moves the x axis
			// and the legend with it.
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return slices.Compact(out)
}

// controlLabels are the labels of the sidebar's controls of m.
func controlLabels(m Model) []string {
	out := []string{"system", "backbone", "context", "noise σ", "λθ", "λδ", "regulariser", "mode"}
	if m.is2D() {
		out = append(out, "time slice")
	}
	for _, c := range m.theta {
		out = append(out, fmt.Sprintf("  %s ", c.symbol()))
	}
	return out
}

// wordsOf is frame with each line's runs of spaces made one.
func wordsOf(frame string) string {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
