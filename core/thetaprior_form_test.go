package core

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestThetaPriorFormAtBounds checks what the θ form of the logits'
// prior is for: on the shipped spring cnp at the headline condition, the
// logit form pulls the estimates at a prior bound toward the interior,
// so that most of their intervals miss θ, and the θ form, which widens
// the prior where θ's map flattens, leaves them covered as the rest are,
// with a lower θ error overall.
func TestThetaPriorFormAtBounds(t *testing.T) {
	withoutReachBound(t)
	m, _ := shippedModel(t, "spring", CNP, 1)
	opt := EvalOptions{Tasks: 200, Seed: 1, Samples: 1, Refine: -1}
	logit, theta := evalWithThetaPrior(t, m, opt, ThetaPriorLogit, 0), evalWithThetaPrior(t, m, opt, ThetaPriorTheta, 0)
	checkFreedAtBounds(t, boundsCase{"logit form", "θ form", 5, 0.5, 0.6}, logit, theta)
}

// boundsCase is what checkFreedAtBounds asks of two evaluations, held
// and freed: both have at least minAt estimates at a bound, at most
// maxHeld of the held one's intervals there hold θ, at least 90% of the
// freed one's do, and the freed one's θ MAE is at most maxMAE of the
// held one's.
type boundsCase struct {
	held, freed     string
	minAt           int
	maxHeld, maxMAE float64
}

// checkFreedAtBounds checks c on held and freed, evaluations whose θ
// prior holds the estimates at a bound toward the interior and one that
// frees them.
//
// The evaluations must be made without reachBound (withoutReachBound),
// whose intervals reach the bound whatever the pull.
func checkFreedAtBounds(t *testing.T, c boundsCase, held, freed Report) {
	t.Helper()
	hb, fb := held.ThetaAtBound, freed.ThetaAtBound
	if hb.AtBound < c.minAt || fb.AtBound < c.minAt {
		t.Fatalf("too few estimates at a bound to compare: %s %+v, %s %+v", c.held, hb, c.freed, fb)
	}
	if coveredShare(hb) > c.maxHeld {
		t.Errorf("%s: %d of %d intervals at a bound hold θ; the pull toward the interior that the %s removes is gone", c.held, hb.Covered, hb.AtBound, c.freed)
	}
	if coveredShare(fb) < 0.9 {
		t.Errorf("%s: only %d of %d intervals at a bound hold θ, want ≥ 90%%", c.freed, fb.Covered, fb.AtBound)
	}
	if hm, fm := held.Metrics[KeyThetaMAE].Mean, freed.Metrics[KeyThetaMAE].Mean; fm > c.maxMAE*hm {
		t.Errorf("θ MAE: %s %.6f, %s %.6f; want the %s's at most %g of it", c.freed, fm, c.held, hm, c.freed, c.maxMAE)
	}
}

// withoutReachBound turns reachBound off for the rest of the test.
func withoutReachBound(t *testing.T) {
	old := thetaReachBound
	thetaReachBound = false
	t.Cleanup(func() { thetaReachBound = old })
}

// evalWithThetaPrior evaluates m with refinement's θ prior in the form
// named and widened by scale (0: unset), the settings left so.
func evalWithThetaPrior(t *testing.T, m *Model, opt EvalOptions, form string, scale float64) Report {
	t.Helper()
	m.Config.Infer.ThetaPrior, m.Config.Infer.ThetaPriorScale = form, scale
	rep, _, err := Evaluate(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// coveredShare is the share of the estimates at a bound whose interval
// holds θ (b.AtBound > 0).
func coveredShare(b BoundCoverage) float64 { return float64(b.Covered) / float64(b.AtBound) }

// TestLogitPriorWidth checks the widths: the logit form's is σ_a
// everywhere; the θ form's is σ_a at the centre, grows as 1/(4s(1 − s))
// toward a bound (the flattening of θ's map), and is capped.
func TestLogitPriorWidth(t *testing.T) {
	for _, s0 := range []float64{1e-12, 0.01, 0.5, 0.9} {
		if got := logitPriorWidth(ThetaPriorLogit, s0); got != refineSigmaA {
			t.Errorf("logit form at s₀ = %g: width %g, want %g", s0, got, refineSigmaA)
		}
		if got := logitPriorWidth("", s0); got != refineSigmaA {
			t.Errorf("a file without a form at s₀ = %g: width %g, want the logit form's %g", s0, got, refineSigmaA)
		}
	}
	for _, c := range []struct{ s0, want float64 }{
		{0.5, refineSigmaA}, {0.1, refineSigmaA / 0.36}, {0.9, refineSigmaA / 0.36}, {1e-12, maxLogitPriorWidth},
	} {
		if got := logitPriorWidth(ThetaPriorTheta, c.s0); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("θ form at s₀ = %g: width %g, want %g", c.s0, got, c.want)
		}
	}
}

// TestThetaPriorValidated refuses a stored form that is not one.
func TestThetaPriorValidated(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	cfg := m.Config
	cfg.Infer.ThetaPrior = "flat"
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), `θ prior "flat": the forms are logit and theta`) {
		t.Fatalf("a config with θ prior \"flat\": err %v", err)
	}
}

// TestRecalibrateThetaPriorPicksTheta: on spring's validation
// realizations the θ form scores clearly lower, and recalibration picks it.
func TestRecalibrateThetaPriorPicksTheta(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	m.Config.Infer.ThetaPrior = ""
	if err := m.RecalibrateThetaPrior(context.Background(), 64); err != nil {
		t.Fatal(err)
	}
	if got := m.Config.Infer.ThetaPrior; got != ThetaPriorTheta {
		t.Errorf("picked %q, want %q", got, ThetaPriorTheta)
	}
}
