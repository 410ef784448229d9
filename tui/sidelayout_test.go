package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// TestTrainingHintFitsSmallTerminal: at 80×24 the sidebar keeps the
// training box's hint (the keys that train, save and open) on every
// system and backbone, with the averages beside the metrics (as the
// explorer starts) and without; the last session's taller header had
// cut it on all three, below "training" or with it.
func TestTrainingHintFitsSmallTerminal(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, backbone := range []string{"cnp", "lnp", "anp"} {
			for _, averages := range []int{avgTasks, -1} {
				name := fmt.Sprintf("%s/%s averages %d", sys, backbone, averages)
				m, err := New(Options{System: sys, Backbone: backbone, Embedded: noEmbedded, SaveDir: t.TempDir(),
					RefineDelay: -1, Atlas: noAtlas, Averages: averages})
				if err != nil {
					t.Fatal(err)
				}
				// send, not run: the averages' rows show "…" until computed,
				// as many rows as with their values.
				m = send(t, m, tea.ColorProfileMsg{Profile: colorprofile.ASCII})
				m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
				frame := m.render()
				frameOK(t, frame, 80, 24)
				var side []string
				for _, l := range strings.Split(frame, "\n")[headerLines : 24-1] {
					side = append(side, ansi.Cut(l, 80-smallSideW, 80))
				}
				text := strings.Join(side, "\n")
				// One row (trainHint) or, with room, two.
				if !strings.Contains(text, "t train") || !strings.Contains(text, "s saves · o opens") {
					t.Errorf("%s: the sidebar has no training hint:\n%s", name, text)
				}
				for _, row := range []string{"recon MAE", "δ MAE", "θ MAE"} {
					if !strings.Contains(text, row) {
						t.Errorf("%s: the sidebar lost %q for the hint:\n%s", name, row, text)
					}
				}
			}
		}
	}
}

// TestSideLayoutsSaveARowEach: before any run, each sidebar layout is
// one row shorter than the one before it, on every system, with the
// averages and without: sideLayoutFor reads the layout off the full
// one's overflow.
func TestSideLayoutsSaveARowEach(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, averages := range []int{avgTasks, -1} {
			m := newTest(t, sys, 80, 24)
			m.opts.Averages = averages
			full := len(m.sidebarUncut(smallSideW, 24, sideFull))
			for lay := sideFull; lay <= sideNoControlsHeading; lay++ {
				if got := len(m.sidebarUncut(smallSideW, 24, lay)); got != full-int(lay) {
					t.Errorf("%s, averages %d: layout %d has %d rows, want %d", sys, averages, lay, got, full-int(lay))
				}
			}
		}
	}
}
