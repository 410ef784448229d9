package tui

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestGoldenFrames runs the explorer as a program (teatest) on each
// system at 80×24, at the 80×23 tmux leaves of it, at the minimum and
// at a large terminal size, with a fixed seed,
// untrained deterministic weights and the ASCII colour profile, and
// compares the settled frame with testdata/TestGoldenFrames/*.golden.
// Regenerate with: go test ./tui -run TestGoldenFrames -update
func TestGoldenFrames(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, sz := range [][2]int{{80, 24}, {80, 23}, {80, minHeight}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sys, sz[0], sz[1]), func(t *testing.T) {
				m, err := New(Options{System: sys, Seed: 1, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
				if err != nil {
					t.Fatal(err)
				}
				tm := teatest.NewTestModel(t, m,
					teatest.WithInitialTermSize(sz[0], sz[1]),
					teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
				// The frame has settled once the first inference is drawn:
				// the metrics box then shows a recon MAE.
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					return bytes.Contains(b, []byte("1 simulator"))
				}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
				tm.Send(keyMsg("q"))
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
				if final.res == nil {
					t.Fatal("no inference on screen")
				}
				frame := final.render()
				frameOK(t, frame, sz[0], sz[1])
				golden.RequireEqual(t, []byte(frame))
			})
		}
	}
}

// TestGoldenHeatmaps is the advection–diffusion heatmap view (v).
func TestGoldenHeatmaps(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {80, minHeight}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newTest(t, "advdiff", sz[0], sz[1])
			m, _ = press(t, m, "v")
			frame := m.render()
			frameOK(t, frame, sz[0], sz[1])
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// TestGoldenHeatmapsNearExact is the heatmap view of a near-exact fit,
// whose |error| map needs an exponent on its colour bar: the other
// bars keep fixed notation beside it.
func TestGoldenHeatmapsNearExact(t *testing.T) {
	m := newTest(t, "advdiff", 160, 48)
	res := *m.res
	res.pred.Mean = slices.Clone(res.task.Real.True)
	for i := range res.pred.Mean {
		res.pred.Mean[i] += 1.5e-4 * float64(i%3) / 2
	}
	m.res = &res
	m, _ = press(t, m, "v")
	frame := m.render()
	frameOK(t, frame, 160, 48)
	golden.RequireEqual(t, []byte(frame))
}
