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
					flagged += len(m.misfitWarnings(p, ctxs[i]))
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
		var terms []obsTerm
		var labels []string
		for i := range c.n {
			v := 0.05
			if i < c.far {
				v = 0.6 // six deviations
			}
			terms = append(terms, obsTerm{idx: []int{i}, w: []float64{1}, y: v})
			labels = append(labels, fmt.Sprintf("y = %g at t = %d", v, i))
		}
		w := misfitText(p, terms, func(k int) string { return labels[k] })
		want := c.far >= misfitLeast && float64(c.far) >= misfitShare*float64(c.n)
		if (len(w) == 1) != want {
			t.Errorf("%d of %d far: warnings %q, want one: %v", c.far, c.n, w, want)
		}
		if want && !strings.HasPrefix(w[0], fmt.Sprintf("%d of %d observations lie more than 5 deviations", c.far, c.n)) {
			t.Errorf("warning %q", w[0])
		}
	}
}

// TestOutlierWarning: one or two observations far beyond the band (10
// deviations), too few for the misfit warning, are named on their own;
// values within 10 deviations are not.
func TestOutlierWarning(t *testing.T) {
	p := Prediction{Mean: make([]float64, 40), Std: make([]float64, 40), NoiseStd: []float64{0.1}}
	for _, c := range []struct {
		far  []float64 // the outlying values (deviations of 0.1)
		want string
	}{
		{nil, ""},
		{[]float64{0.9}, ""},
		{[]float64{2}, "the observation y = 2 at t = 0 lies 20 deviations"},
		{[]float64{2, -5}, "2 observations lie more than 10 deviations of the observation band from the prediction (the farthest, y = -5 at t = 1, 50)"},
	} {
		var terms []obsTerm
		var labels []string
		for i := range 40 {
			v := 0.01
			if i < len(c.far) {
				v = c.far[i]
			}
			terms = append(terms, obsTerm{idx: []int{i}, w: []float64{1}, y: v})
			labels = append(labels, fmt.Sprintf("y = %g at t = %d", v, i))
		}
		w := misfitText(p, terms, func(k int) string { return labels[k] })
		switch {
		case c.want == "" && len(w) > 0:
			t.Errorf("outliers %v: warnings %q, want none", c.far, w)
		case c.want != "" && (len(w) != 1 || !strings.HasPrefix(w[0], c.want)):
			t.Errorf("outliers %v: warnings %q, want one starting %q", c.far, w, c.want)
		}
	}
}

// TestOutlierWarningOffGrid: a calibration whose context holds one wild
// value between grid points (a user's data) names it; the same context
// without it gets no such warning.
func TestOutlierWarningOffGrid(t *testing.T) {
	m, tasks := shippedModel(t, "spring", LNP, 1)
	clean := tasks[0].Context
	wild := sims.Context{
		States:    append(append([][]float64(nil), clean.States...), []float64{2.01}),
		Values:    append(append([][]float64(nil), clean.Values...), []float64{50}),
		Mask:      append(append([][]bool(nil), clean.Mask...), []bool{true}),
		GridIndex: append(append([]int(nil), clean.GridIndex...), -1),
	}
	for _, c := range []struct {
		ctx  sims.Context
		want bool
	}{{clean, false}, {wild, true}} {
		a := &APIC{Model: m, Opt: PredictOptions{Samples: 8, Seed: 1, Refine: -1}}
		p, err := a.Calibrate(context.Background(), c.ctx, tasks[0].Real.Side)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range Warnings(m, c.ctx, tasks[0].Real.Side, p) {
			// One outlier or several, the misfit warning names this one
			// (the farthest).
			got = got || strings.Contains(w, "deviations of the observation band") && strings.Contains(w, "y = 50 at t = 2.01")
		}
		if got != c.want {
			t.Errorf("outlier at t = 2.01 in the context: %v; named: %v", c.want, got)
		}
	}
}
