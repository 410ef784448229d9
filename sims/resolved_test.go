package sims

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLVCheckResolved: every prior draw is resolved (its invariant
// drifts by less than 1e-9), populations of a few tens still are, and
// hundreds are refused with a message naming u0; so is a population
// driven to zero.
func TestLVCheckResolved(t *testing.T) {
	lv := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for range 500 {
		th, u0 := lv.SampleTheta(rng), lv.SampleSide(rng)
		worst = math.Max(worst, lvInvariantDrift(th, u0, lv.Nominal(th, u0)))
		if err := lv.CheckResolved(th, u0); err != nil {
			t.Fatalf("prior draw θ %v, u0 %v: %v", th, u0, err)
		}
	}
	if worst > 1e-9 {
		t.Errorf("prior draws: invariant drift up to %g, want ≤ 1e-9", worst)
	}
	one := []float64{1, 1, 1, 1}
	if err := lv.CheckResolved(one, []float64{20, 20}); err != nil {
		t.Errorf("u0 = (20, 20): %v", err)
	}
	for _, u0 := range [][]float64{{100, 100}, {1000, 1000}, {500, 1}} {
		err := lv.CheckResolved(one, u0)
		if err == nil || !strings.Contains(err.Error(), "does not resolve") {
			t.Errorf("u0 = %v: %v, want a refusal", u0, err)
		}
	}
	if d := lvInvariantDrift(one, []float64{1, 1}, []float64{1, 1, 0, 1}); !math.IsInf(d, 1) {
		t.Errorf("a population at zero: drift %v, want +Inf", d)
	}
	if err := lv.CheckResolved(one[:3], []float64{1, 1}); err == nil {
		t.Error("three parameters were accepted")
	}
}
