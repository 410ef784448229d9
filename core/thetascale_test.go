package core

import (
	"math"
	"testing"

	"apic/sims"
)

// TestThetaScale: the scale puts the 95th percentile of |θ̂ − θ| / σ_θ at
// 1.96, so that the scaled 95% intervals cover 95% of the parameters;
// parameters without a deviation are left out, and none at all gives 0
// (no scaling).
func TestThetaScale(t *testing.T) {
	var tasks []sims.Task
	var preds []Prediction
	// 100 one-parameter realizations with errors 0.01·k, k = 1..100, and
	// σ = 0.01: ratios k/1.96, the 95th percentile 95/1.96.
	for k := 1; k <= 100; k++ {
		tasks = append(tasks, sims.Task{Real: sims.Realization{Theta: []float64{1}}})
		preds = append(preds, Prediction{Theta: []float64{1 + 0.01*float64(k)}, ThetaStd: []float64{0.01}})
	}
	if got, want := thetaScale(tasks, preds), 95/1.96; math.Abs(got-want) > 1e-9 {
		t.Errorf("scale %v, want %v", got, want)
	}
	covered := 0
	s := thetaScale(tasks, preds)
	for i := range preds {
		if math.Abs(preds[i].Theta[0]-1) <= 1.96*s*preds[i].ThetaStd[0]+1e-12 {
			covered++
		}
	}
	if covered != 95 {
		t.Errorf("scaled intervals cover %d of 100, want 95", covered)
	}
	for i := range preds {
		preds[i].ThetaStd[0] = 0
	}
	if got := thetaScale(tasks, preds); got != 0 {
		t.Errorf("no deviations: scale %v, want 0", got)
	}
}
