package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"apic/core"
)

// TestMetricsAndTrainingHintFitSmallTerminal: at 80×24, and at the
// 80×23 tmux leaves of it, the sidebar keeps every metric row (lv's
// recon ECE and LL had given their rows to the training box's hint) on
// every system and backbone, with the averages beside the metrics (as
// the explorer starts) and without, and the training box's hint (the
// keys that train, save and open) where it has room; where it has none,
// the footer says t trains.
func TestMetricsAndTrainingHintFitSmallTerminal(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, backbone := range []string{"cnp", "lnp", "anp"} {
			for _, size := range [][3]int{{avgTasks, 24}, {-1, 24}, {avgTasks, 23}, {-1, 23}} {
				averages, height := size[0], size[1]
				name := fmt.Sprintf("%s/%s averages %d at 80×%d", sys, backbone, averages, height)
				m, err := New(Options{System: sys, Backbone: backbone, Embedded: noEmbedded, SaveDir: t.TempDir(),
					RefineDelay: -1, Atlas: noAtlas, Averages: averages})
				if err != nil {
					t.Fatal(err)
				}
				// send, not run: the averages' rows show "…" until computed,
				// as many rows as with their values.
				m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
				m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: height})
				frame := m.render()
				frameOK(t, frame, 80, height)
				var side []string
				for _, l := range strings.Split(frame, "\n")[headerLines : height-1] {
					side = append(side, ansi.Cut(l, 80-smallSideW, 80))
				}
				text := strings.Join(side, "\n")
				// One row (trainHint) or, with room, two; where the
				// metrics need its row, the footer says t trains.
				lines := strings.Split(frame, "\n")
				if m.sideLayoutFor(smallSideW, height-headerLines-1) >= sideNoTrainHint {
					if footer := lines[len(lines)-1]; !strings.Contains(footer, "t train") {
						t.Errorf("%s: neither the sidebar nor the footer says t trains:\n%s", name, footer)
					}
				} else if !strings.Contains(text, "t train") || !strings.Contains(text, "s saves · o opens") {
					t.Errorf("%s: the sidebar has no training hint:\n%s", name, text)
				}
				for _, row := range []string{"recon MAE", "δ MAE", "θ MAE", "recon ECE", "recon LL"} {
					if !strings.Contains(text, row) {
						t.Errorf("%s: the sidebar lost %q:\n%s", name, row, text)
					}
				}
			}
		}
	}
}

// TestSideLayoutsSaveARowEach: before any run, each sidebar layout is
// one row shorter than the one before it, on every system, with the
// averages and without, and with the baselines shown (whose title the
// tightest layout leaves out): sideLayoutFor reads the layout off the
// full one's overflow.
func TestSideLayoutsSaveARowEach(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, averages := range []int{avgTasks, -1} {
			for _, baselines := range []bool{false, true} {
				m := newTest(t, sys, 80, 24)
				m.opts.Averages = averages
				tightest := sideNoControlsHeading
				if baselines {
					m, _ = pressNoRun(t, m, "c")
					m.base.cancel()
					tightest = sideNoBaselineTitle
				}
				full := len(m.sidebarUncut(smallSideW, 24, sideFull))
				for lay := sideFull; lay <= tightest; lay++ {
					if got := len(m.sidebarUncut(smallSideW, 24, lay)); got != full-int(lay) {
						t.Errorf("%s, averages %d, baselines %v: layout %d has %d rows, want %d", sys, averages, baselines, lay, got, full-int(lay))
					}
				}
			}
		}
	}
}

// TestGoldenFinishedRun: after a run, at 80×24, the sidebar keeps the
// three errors' averages (avgKeepRows) on every system, the training
// box giving up rows for them: lv's box had cut the averages to recon
// and δ MAE. Where every metric fits beside the whole box (120×40), the
// box stays whole.
func TestGoldenFinishedRun(t *testing.T) {
	for _, tc := range []struct {
		sys  string
		w, h int
	}{{"spring", 80, 24}, {"lv", 80, 24}, {"advdiff", 80, 24}, {"lv", 120, 40}} {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.sys, tc.w, tc.h), func(t *testing.T) {
			m := newAvgTest(t, tc.sys, tc.w, tc.h)
			// A finished run leaves its last report and the loss history.
			m.prog = &core.Progress{Stage: 2, Step: 300, Steps: 300, Losses: core.Losses{Total: 1.23}}
			m.losses = []float64{3, 2.5, 2, 1.6, 1.2, 1.4, 1.3, 1.25, 1.2, 1.23}
			frame := m.render()
			frameOK(t, frame, tc.w, tc.h)
			side := strings.Join(sidebarLines(frame, m.sideWidth()), "\n")
			for _, row := range []string{"recon MAE", "δ MAE", "θ MAE", "training", "1.23"} {
				if !strings.Contains(side, row) {
					t.Errorf("the sidebar lacks %q after a run:\n%s", row, side)
				}
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}
