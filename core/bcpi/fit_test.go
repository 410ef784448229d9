package bcpi

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"apic/core/internal/nominaltask"
	"apic/sims"
)

// TestRecoversSpringOmega fits 30 points of sin(ωt) on a small budget:
// ω is recovered and the discrepancy is near zero.
func TestRecoversSpringOmega(t *testing.T) {
	sys, task := nominaltask.New(t, "spring", []float64{5.3}, nil, 30)
	c, err := New(sys, Options{Starts: 3, Steps: 300, Draws: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Fit(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.predict(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("θ̂ %.4f ± %.4f, MAP %.4f, acceptance %.2f, δ amplitude %.4f", p.Theta[0], p.ThetaStd[0], f.model.decode(f.MAP).theta[0], f.Accept, nominaltask.Amplitude(p.DeltaMean))
	if e := math.Abs(p.Theta[0] - 5.3); e > 0.02 {
		t.Errorf("θ̂ = %.4f, want 5.3 ± 0.02", p.Theta[0])
	}
	if a := nominaltask.Amplitude(p.DeltaMean); a > 0.05 {
		t.Errorf("discrepancy amplitude %.4f, want < 0.05 on nominal data", a)
	}
}

// TestAdvDiffRuns fits a small advdiff problem (a periodic x, the
// initial field as observations, three-term operator) on a tiny budget:
// θ stays in its box and every predicted value is finite.
func TestAdvDiffRuns(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	r := sims.Draw(sys, rng)
	task, err := sims.NewSplit(sys, rng).Task(sys, r, r.True, 48, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(sys, Options{Starts: 1, MaxIterations: 3, Steps: 20, Draws: 2, Collocation: 24, Seed: 3})
	p, err := c.Calibrate(context.Background(), task.Context, r.Side)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range sys.Params() {
		if !(p.Theta[i] > q.Lo && p.Theta[i] < q.Hi) {
			t.Errorf("θ̂_%s = %g outside [%g, %g]", q.Name, p.Theta[i], q.Lo, q.Hi)
		}
	}
	for i := range p.Mean {
		if math.IsNaN(p.Mean[i]) || !(p.Std[i] > 0) || math.IsNaN(p.DeltaMean[i]) || !(p.DeltaStd[i] > 0) {
			t.Fatalf("value %d: mean %g std %g, δ %g ± %g", i, p.Mean[i], p.Std[i], p.DeltaMean[i], p.DeltaStd[i])
		}
	}
}

// TestRecoversLVTheta fits 30 points (both channels) of a nominal
// Lotka–Volterra trajectory through the linearisation around the nominal
// solution: θ is recovered and the discrepancy is near zero.
func TestRecoversLVTheta(t *testing.T) {
	theta := []float64{1.1, 0.8, 1.2, 0.9}
	sys, task := nominaltask.New(t, "lv", theta, []float64{1.2, 0.9}, 30)
	c, err := New(sys, Options{Starts: 3, MaxIterations: 100, Steps: 200, Draws: 3, Collocation: 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Fit(context.Background(), task.Context, task.Real.Side)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.predict(context.Background(), f, task.Real.Side)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("θ̂ %.4f, MAP %.4f, acceptance %.2f, δ amplitude %.4f", p.Theta, f.model.decode(f.MAP).theta, f.Accept, nominaltask.Amplitude(p.DeltaMean))
	for i, th := range theta {
		if e := math.Abs(p.Theta[i] - th); e > 0.05 {
			t.Errorf("θ̂_%d = %.4f, want %.2f ± 0.05", i, p.Theta[i], th)
		}
	}
	if a := nominaltask.Amplitude(p.DeltaMean); a > 0.1 {
		t.Errorf("discrepancy amplitude %.4f, want < 0.1 on nominal data", a)
	}
	// The chain barely moves on nominal data, so the draws agree to many
	// digits: the spread must still be positive (it once cancelled to
	// zero, and the log-likelihood was NaN).
	for i := range p.Std {
		if !(p.Std[i] > 0) || !(p.DeltaStd[i] > 0) {
			t.Fatalf("value %d: std %g, δ std %g, want > 0", i, p.Std[i], p.DeltaStd[i])
		}
	}
}

// TestRecoversAdvDiffTheta fits 64 points of nominal advection–
// diffusion fields from one start on a small budget: v and κ are
// recovered and the discrepancy is near zero. Before the nominal
// solution became the prior mean (usesNominalMean) the MAP sat at the
// box's corner.
func TestRecoversAdvDiffTheta(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	for k, theta := range [][]float64{{1.1, 0.02}, {1.7, 0.006}} {
		side := sys.SampleSide(rand.New(rand.NewPCG(5, uint64(5+k))))
		sys, task := nominaltask.New(t, "advdiff", theta, side, 64)
		c, err := New(sys, Options{Starts: 1, MaxIterations: 25, Steps: 30, Draws: 2, Collocation: 48, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		f, err := c.Fit(context.Background(), task.Context, side)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.predict(context.Background(), f, side)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("θ %v: θ̂ %.4f, MAP %.4f, acceptance %.2f, δ amplitude %.4f", theta, p.Theta, f.model.decode(f.MAP).theta, f.Accept, nominaltask.Amplitude(p.DeltaMean))
		if e := math.Abs(p.Theta[0] - theta[0]); e > 0.01 {
			t.Errorf("v̂ = %.4f, want %.2f ± 0.01", p.Theta[0], theta[0])
		}
		if e := math.Abs(p.Theta[1] - theta[1]); e > 0.002 {
			t.Errorf("κ̂ = %.4f, want %.3f ± 0.002", p.Theta[1], theta[1])
		}
		if a := nominaltask.Amplitude(p.DeltaMean); a > 0.02 {
			t.Errorf("discrepancy amplitude %.4f, want < 0.02 on nominal data", a)
		}
	}
}
