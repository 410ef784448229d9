package core

import (
	"math"
	"slices"
	"strings"
	"testing"

	"apic/sims"
)

// TestThetaPriorScaleAtBounds: on advdiff without noise (its headline
// condition) the θ form of width 1 still holds θ̂ at a bound about two
// deviations inside it, and most of those intervals miss; widened 30
// times, the intervals at a bound hold θ and θ̂ is closer overall.
func TestThetaPriorScaleAtBounds(t *testing.T) {
	withoutReachBound(t)
	m, _ := shippedModel(t, "advdiff", LNP, 1)
	opt := EvalOptions{Tasks: 300, Seed: 1, Samples: 1, Refine: -1}
	narrow, wide := evalWithThetaPrior(t, m, opt, ThetaPriorTheta, 1), evalWithThetaPrior(t, m, opt, ThetaPriorTheta, 30)
	checkFreedAtBounds(t, boundsCase{"×1", "×30 prior", 8, 0.6, 0.75}, narrow, wide)
	if wide.ThetaPriorScale != 30 || narrow.ThetaPriorScale != 1 {
		t.Errorf("reports name scales %g and %g, want 1 and 30", narrow.ThetaPriorScale, wide.ThetaPriorScale)
	}
}

// TestThetaPriorScaleWidens: the factor multiplies refinement's prior
// width on every logit, the θ form's cap included; unset is 1.
func TestThetaPriorScaleWidens(t *testing.T) {
	m, tasks := shippedModel(t, "advdiff", CNP, 2)
	ctxs := []sims.Context{tasks[0].Context, tasks[1].Context}
	sides := [][]float64{tasks[0].Real.Side, tasks[1].Real.Side}
	widths := func(k float64) []float64 {
		m.Config.Infer.ThetaPrior, m.Config.Infer.ThetaPriorScale = ThetaPriorTheta, k
		bt, err := NewBatch(m.Sys, ctxs, sides, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := m.newRefiner(bt)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(r.sigmaA.Data)
	}
	unset, wide := widths(0), widths(30)
	for i := range unset {
		if math.Abs(wide[i]-30*unset[i]) > 1e-9*wide[i] {
			t.Errorf("logit %d: width %g at ×30, %g unset; want 30 times", i, wide[i], unset[i])
		}
	}
}

// TestThetaPriorScaleValidated refuses a stored factor outside its bounds.
func TestThetaPriorScaleValidated(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	for _, k := range []float64{-1, 0.001, 2000, math.NaN(), math.Inf(1)} {
		cfg := m.Config
		cfg.Infer.ThetaPriorScale = k
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "θ prior scale") || !strings.Contains(err.Error(), "[0.01, 1000]") {
			t.Errorf("a config with θ prior scale %v: err %v", k, err)
		}
	}
	for _, k := range []float64{0, 0.01, 30, 1000} {
		cfg := m.Config
		cfg.Infer.ThetaPriorScale = k
		if err := cfg.Validate(); err != nil {
			t.Errorf("θ prior scale %v refused: %v", k, err)
		}
	}
	if got := (Infer{}).ThetaPriorWidthScale(); got != 1 {
		t.Errorf("unset scale reads %g, want 1", got)
	}
	if got := (Infer{ThetaPrior: ThetaPriorTheta, ThetaPriorScale: 30}).ThetaPriorWords(); got != "theta ×30" {
		t.Errorf("words %q", got)
	}
	if got := (Infer{ThetaPriorScale: 1}).ThetaPriorWords(); got != "logit" {
		t.Errorf("words %q", got)
	}
}
