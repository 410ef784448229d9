package core

import (
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// TestContextMeanMAE: the flat line stands at each channel's mean over
// the context's observations of it (an unobserved value left out) and
// is scored on the target values; a channel never observed leaves no
// yardstick.
func TestContextMeanMAE(t *testing.T) {
	task := sims.Task{
		Real: sims.Realization{True: []float64{1, 10, 3, 20, 5, 40}}, // 3 points × 2 channels
		Context: sims.Context{
			Values: [][]float64{{1, 10}, {3, 0}},
			Mask:   [][]bool{{true, true}, {true, false}},
		},
	}
	// Channel 0's line at 2, channel 1's at 10; targets: point 2.
	if got := contextMeanMAE(task, 2, []int{4, 5}); got != (3+30)/2.0 {
		t.Errorf("contextMeanMAE %v, want 16.5", got)
	}
	task.Context.Mask = [][]bool{{true, false}, {true, false}}
	if got := contextMeanMAE(task, 2, []int{4, 5}); !math.IsNaN(got) {
		t.Errorf("with channel 1 unobserved: %v, want NaN", got)
	}
}

// TestSummariseWarnsAtFlatLineError: Summarise warns where the corrected
// prediction is no closer to G than the flat line at the context's
// mean, with both numbers; a 5+5-step spring model's reconstruction was
// worse than that while its ECE looked calibrated. A closer one, or
// realizations without the yardstick, give no warning.
func TestSummariseWarnsAtFlatLineError(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	per := func(recon, guess float64) []TaskMetrics {
		tm := TaskMetrics{Values: map[string]float64{KeyReconMAE: recon}, ThetaAE: []float64{0}, ThetaErr: []float64{0}, ContextMeanMAE: guess}
		return []TaskMetrics{tm, tm}
	}
	flat := func(ws []string) []string {
		var out []string
		for _, w := range ws {
			if strings.Contains(w, "flat line") {
				out = append(out, w)
			}
		}
		return out
	}
	ws := flat(Summarise(sys, per(0.55, 0.2)).Warnings)
	if len(ws) != 1 || !strings.HasPrefix(ws[0], "the corrected prediction's mean absolute error 0.55 is 275% of the 0.2 that a flat line at each channel's mean over the context gives") {
		t.Errorf("recon MAE 0.55 against 0.2: %q", ws)
	}
	for _, tc := range [][2]float64{{0.15, 0.2}, {0.55, math.NaN()}, {0.55, 0}} {
		if ws := flat(Summarise(sys, per(tc[0], tc[1])).Warnings); len(ws) != 0 {
			t.Errorf("recon MAE %v against %v: %q, want none", tc[0], tc[1], ws)
		}
	}
}
