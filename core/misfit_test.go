package core

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"apic/sims"
)

// TestMisfitWarningsRareOnFittingData: on the shipped files' test
// realizations, noisy or not, the context lies inside its own
// observation band and the misfit warning almost never fires.
func TestMisfitWarningsRareOnFittingData(t *testing.T) {
	if testing.Short() {
		t.Skip("nine shipped files")
	}
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, bb := range Backbones {
			m, _ := shippedModel(t, sys, bb, 1)
			for _, noise := range []float64{0, 0.05} {
				tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 24, Seed: 9, Noise: noise})
				if err != nil {
					t.Fatal(err)
				}
				ctxs, sides := make([]sims.Context, len(tasks)), make([][]float64, len(tasks))
				for i, task := range tasks {
					ctxs[i], sides[i] = task.Context, task.Real.Side
				}
				preds, err := m.PredictContext(context.Background(), ctxs, sides, PredictOptions{Samples: 8, Seed: 1, Refine: -1})
				if err != nil {
					t.Fatal(err)
				}
				flagged := 0
				for i, p := range preds {
					flagged += len(misfitWarnings(p, ctxs[i]))
				}
				if flagged > 1 {
					t.Errorf("%s/%s σ %g: %d of %d fitting contexts flagged", sys, bb, noise, flagged, len(tasks))
				}
			}
		}
	}
}

// TestMisfitWarnings: a context with at least three observations and a
// tenth of them beyond five deviations of the observation band is
// flagged, with the count; fewer, or a smaller share, is not.
func TestMisfitWarnings(t *testing.T) {
	p := Prediction{Mean: make([]float64, 50), Std: make([]float64, 50), NoiseStd: []float64{0.1}}
	for _, c := range []struct{ n, far int }{{10, 2}, {10, 3}, {40, 3}, {40, 4}} {
		var ctx sims.Context
		for i := range c.n {
			v := 0.05
			if i < c.far {
				v = 0.6 // six deviations
			}
			ctx.GridIndex = append(ctx.GridIndex, i)
			ctx.Values = append(ctx.Values, []float64{v})
			ctx.Mask = append(ctx.Mask, []bool{true})
		}
		w := misfitWarnings(p, ctx)
		want := c.far >= misfitLeast && float64(c.far) >= misfitShare*float64(c.n)
		if (len(w) == 1) != want {
			t.Errorf("%d of %d far: warnings %q, want one: %v", c.far, c.n, w, want)
		}
		if want && !strings.HasPrefix(w[0], fmt.Sprintf("%d of %d observations lie more than 5 deviations", c.far, c.n)) {
			t.Errorf("warning %q", w[0])
		}
	}
}
