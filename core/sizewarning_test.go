package core

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestSizeWarning: spring data a hundred times smaller than the
// system's (inside the training value range, so no other warning
// speaks) are flagged, the same data at their own scale are not, and
// no shipped checkpoint's test realizations at 20 and 30 context points
// and noise 0, 0.05 and 0.1 (the most the checkpoints were trained on)
// are flagged.
func TestSizeWarning(t *testing.T) {
	m, tasks := shippedModel(t, "spring", LNP, 1)
	a := &APIC{Model: m, Opt: PredictOptions{Samples: 8, Seed: 1, Refine: -1}}
	for _, scale := range []float64{1, 0.01} {
		ctx := tasks[0].Context
		ctx.Values = make([][]float64, len(tasks[0].Context.Values))
		for i, v := range tasks[0].Context.Values {
			ctx.Values[i] = []float64{v[0] * scale}
		}
		p, err := a.Calibrate(context.Background(), ctx, tasks[0].Real.Side)
		if err != nil {
			t.Fatal(err)
		}
		ws := sizeWarnings(m.Sys, ctx, p)
		// A poorly trained model shrinks or swells the prediction on good
		// data too: the warning names it beside the data's scale.
		if flagged := len(ws) == 1 && strings.HasPrefix(ws[0], "the prediction of y is ") && strings.Contains(ws[0], "(a wrong unit or scale, another system's data?), or the model fits poorly"); flagged != (scale != 1) {
			t.Errorf("data ×%g: warnings %q", scale, ws)
		}
	}
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, bb := range Backbones {
			m, _ := shippedModel(t, sys, bb, 1)
			a := &APIC{Model: m, Opt: PredictOptions{Samples: 8, Seed: 1, Refine: -1}}
			for _, n := range []int{20, 30} {
				for _, noise := range []float64{0, 0.05, 0.1} {
					tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 10, Seed: 7, Context: n, Noise: noise})
					if err != nil {
						t.Fatal(err)
					}
					for i, tk := range tasks {
						p, err := a.Calibrate(context.Background(), tk.Context, tk.Real.Side)
						if err != nil {
							t.Fatal(err)
						}
						if ws := sizeWarnings(m.Sys, tk.Context, p); len(ws) > 0 {
							t.Errorf("%s/%s context %d noise %g realization %d: %q", sys, bb, n, noise, i, ws)
						}
					}
				}
			}
		}
	}
}

// TestSizeRatios: ‖g_c‖/‖f_c‖ per channel of a grid-major vector, NaN
// where f_c is zero.
func TestSizeRatios(t *testing.T) {
	got := sizeRatios([]float64{3, 1, 4, 0}, []float64{0, 2, 0, 0}, 2)
	if !math.IsNaN(got[0]) || got[1] != 0.5 {
		t.Errorf("sizeRatios = %v, want [NaN 0.5]", got)
	}
}
