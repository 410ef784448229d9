package cpinn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/core/internal/nominaltask"
	"apic/sims"
)

// TestRecoversSpringOmega fits one member to 30 points of sin(ωt) on a
// small budget (1000 steps; ω = 5.5 gave 5.4995 too): ω is recovered and
// the discrepancy is near zero.
func TestRecoversSpringOmega(t *testing.T) {
	sys, task := nominaltask.New(t, "spring", []float64{3.2}, nil, 30)
	c, err := New(sys, Options{Members: 1, Steps: 1000, LearningRate: 5e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Calibrate(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("θ̂ %.4f ± %.4f, δ amplitude %.4f", p.Theta[0], p.ThetaStd[0], nominaltask.Amplitude(p.DeltaMean))
	if e := math.Abs(p.Theta[0] - 3.2); e > 0.05 {
		t.Errorf("θ̂ = %.4f, want 3.2 ± 0.05", p.Theta[0])
	}
	if a := nominaltask.Amplitude(p.DeltaMean); a > 0.1 {
		t.Errorf("discrepancy amplitude %.4f, want < 0.1 on nominal data", a)
	}
}

// TestRejectsBadInput names what is wrong instead of training on it.
func TestRejectsBadInput(t *testing.T) {
	sys, task := nominaltask.New(t, "lv", []float64{1, 1, 1, 1}, []float64{1, 1}, 10)
	c, err := New(sys, Options{Members: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Calibrate(context.Background(), task.Context, []float64{1}); err == nil || !strings.Contains(err.Error(), "1 side values, want 2") {
		t.Errorf("short side: %v", err)
	}
	bad := task.Context
	bad.Values = append([][]float64{{math.NaN(), 1}}, bad.Values[1:]...)
	if _, err := c.Calibrate(context.Background(), bad, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "observation 0, channel prey is NaN") {
		t.Errorf("NaN value: %v", err)
	}
	if _, err := c.Calibrate(context.Background(), sims.Context{}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "empty context") {
		t.Errorf("empty context: %v", err)
	}
}

// TestStopsWhenCancelled returns the context's error without training.
func TestStopsWhenCancelled(t *testing.T) {
	sys, task := nominaltask.New(t, "spring", []float64{4}, nil, 10)
	c, _ := New(sys, Options{Members: 3, Steps: 100000})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Calibrate(ctx, task.Context, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestRecoversLVTheta fits one member to 30 points of a nominal
// Lotka–Volterra trajectory on a small budget (1500 steps, 40 collocation
// times): θ is recovered and the discrepancy is small. (α and β, whose
// equation holds the correction, converge last: 2500 steps at the full
// 100 collocation times gave errors ≤ 0.008.)
func TestRecoversLVTheta(t *testing.T) {
	theta := []float64{1.1, 0.8, 1.2, 0.9}
	sys, task := nominaltask.New(t, "lv", theta, []float64{1.2, 0.9}, 30)
	c, _ := New(sys, Options{Members: 1, Steps: 1500, LearningRate: 8e-3, Collocation: 40, Seed: 1})
	p, err := c.Calibrate(context.Background(), task.Context, task.Real.Side)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("θ̂ %.4f, δ amplitude %.4f", p.Theta, nominaltask.Amplitude(p.DeltaMean))
	for i, th := range theta {
		if e := math.Abs(p.Theta[i] - th); e > 0.05 {
			t.Errorf("θ̂_%d = %.4f, want %.2f ± 0.05", i, p.Theta[i], th)
		}
	}
	if a := nominaltask.Amplitude(p.DeltaMean); a > 0.1 {
		t.Errorf("discrepancy amplitude %.4f, want < 0.1 on nominal data", a)
	}
}

// TestAdvDiffTrains runs a short advdiff fit (two space-time directions
// in the jet, a periodic input): the loss falls, θ stays in its box and
// the prediction is finite.
func TestAdvDiffTrains(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	r := sims.Draw(sys, rng)
	task, err := sims.NewSplit(sys, rng).Task(sys, r, r.Nominal, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64
	c, _ := New(sys, Options{Members: 1, Steps: 60, LearningRate: 5e-3, Collocation: 32, Seed: 2,
		TraceEvery: 59, Trace: func(_, step int, loss, _ float64, _ []float64) {
			if step == 0 {
				first = loss
			}
			last = loss
		}})
	p, err := c.Calibrate(context.Background(), task.Context, r.Side)
	if err != nil {
		t.Fatal(err)
	}
	if !(last < first) {
		t.Errorf("loss %g → %g, want it to fall", first, last)
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

// TestRecoversAdvDiffTheta fits one member to 256 points of a nominal
// advection–diffusion field (three bumps moving 1.1 periods) on a small
// budget: v and κ are recovered and the discrepancy is small. This is
// the case the residual's scale (sims.advdiffResidualScale) is for:
// unscaled, v fell to about 0.7.
func TestRecoversAdvDiffTheta(t *testing.T) {
	if testing.Short() {
		t.Skip("a 25-second fit")
	}
	theta := []float64{1.1, 0.03}
	sys, _ := sims.Lookup("advdiff")
	side := sys.SampleSide(rand.New(rand.NewPCG(5, 5)))
	sys, task := nominaltask.New(t, "advdiff", theta, side, 256)
	c, _ := New(sys, Options{Members: 1, Steps: 2500, LearningRate: 6e-3, Seed: 1})
	p, err := c.Calibrate(context.Background(), task.Context, side)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("θ̂ %.4f, δ amplitude %.4f", p.Theta, nominaltask.Amplitude(p.DeltaMean))
	for i, tol := range []float64{0.12, 0.01} {
		if e := math.Abs(p.Theta[i] - theta[i]); e > tol {
			t.Errorf("θ̂_%d = %.4f, want %.2f ± %g", i, p.Theta[i], theta[i], tol)
		}
	}
	if a := nominaltask.Amplitude(p.DeltaMean); a > 0.15 {
		t.Errorf("discrepancy amplitude %.4f, want < 0.15 on nominal data", a)
	}
}
