package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

// thetaCase draws n realizations' θ from the prior and estimates that
// are the truth plus noise of the given size (in box widths), or, with
// noise < 0, independent uniform draws that know nothing of θ.
func thetaCase(params []sims.Param, n int, noise float64, seed uint64) ([]sims.Task, []Prediction) {
	rng := rand.New(rand.NewPCG(seed, 2))
	tasks, preds := make([]sims.Task, n), make([]Prediction, n)
	for i := range tasks {
		th, est := make([]float64, len(params)), make([]float64, len(params))
		for q, p := range params {
			w := p.Hi - p.Lo
			th[q] = p.Lo + w*rng.Float64()
			if noise < 0 {
				est[q] = p.Lo + w*rng.Float64()
			} else {
				est[q] = th[q] + noise*w*rng.NormFloat64()
			}
		}
		tasks[i].Real.Theta = th
		preds[i] = Prediction{Theta: est, ThetaStd: make([]float64, len(params))}
	}
	return tasks, preds
}

// TestThetaPriorWeight: estimates that know θ keep it (ρ ≈ 0);
// estimates that know nothing of it are replaced by the prior mean
// (ρ ≈ 1); half-informative ones are shrunk part way.
func TestThetaPriorWeight(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	params := sys.Params()
	for _, c := range []struct {
		noise  float64
		lo, hi float64
	}{{0, 0, 0.001}, {0.01, 0, 0.01}, {-1, 0.9, 1}, {0.29, 0.35, 0.65}} {
		tasks, preds := thetaCase(params, 2000, c.noise, 4)
		if rho := thetaPriorWeight(params, tasks, preds); !(rho >= c.lo && rho <= c.hi) {
			t.Errorf("noise %v: ρ %.3f, want in [%v, %v]", c.noise, rho, c.lo, c.hi)
		}
	}
}

// TestShrinkThetaCoversWithThePrior: at ρ = 1 every θ is the prior mean
// with the prior's deviation, whose 95% interval spans the whole box, so
// a scale fitted afterwards covers uninformative estimates.
func TestShrinkThetaCoversWithThePrior(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	params := sys.Params()
	tasks, preds := thetaCase(params, 500, -1, 5)
	shrunk := withPriorWeight(params, preds, 1)
	if preds[0].Theta[0] == shrunk[0].Theta[0] {
		t.Fatal("withPriorWeight changed its input instead of a copy")
	}
	for i, p := range shrunk {
		for q, th := range p.Theta {
			if math.Abs(th-priorMean(params[q])) > 1e-12 || math.Abs(p.ThetaStd[q]-priorStd(params[q])) > 1e-12 {
				t.Fatalf("realization %d parameter %d: θ %v ± %v, want the prior's %v ± %v", i, q, th, p.ThetaStd[q], priorMean(params[q]), priorStd(params[q]))
			}
		}
	}
	if s := thetaScaleAt(tasks, shrunk, 0.965); s > 1 {
		t.Errorf("scale %v after full shrinkage, want ≤ 1 (the prior's interval covers the box)", s)
	}
}
