package core

import (
	"context"
	"math"
	"testing"

	"apic/sims"
)

// An estimate within 2% of the prior's width of a bound gets a deviation
// whose 95% interval reaches the bound; one away from the bounds, or
// without a deviation, keeps its own.
func TestReachBound(t *testing.T) {
	par := sims.Param{Name: "v", Lo: 0.3, Hi: 2}
	z := CentralZ(0.95)
	cases := []struct{ th, sd, want float64 }{
		{1.99, 0.001, 0.01 / z}, // at the upper bound: reaches it
		{0.31, 0.001, 0.01 / z}, // at the lower bound
		{1.99, 0.02, 0.02},      // already reaches it
		{1.0, 0.001, 0.001},     // inside
		{1.99, 0, 0},            // no interval
		{2.5, 0.001, 0.001},     // beyond the bound: no distance to reach
		{1.99, math.NaN(), math.NaN()},
	}
	for _, c := range cases {
		got := reachBound(par, c.th, c.sd)
		if !(math.Abs(got-c.want) < 1e-15 || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("θ̂ %g, sd %g: %g, want %g", c.th, c.sd, got, c.want)
		}
	}
}

// On advdiff/lnp's test realizations every refined θ interval at a
// prior bound holds the true θ: without reachBound 4 of 11 did (the
// estimates sit about two deviations inside the truth, toward the
// interior), and the intervals elsewhere are unchanged.
func TestBoundIntervalsCoverOnAdvdiff(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates a shipped advdiff file")
	}
	m, _ := shippedModel(t, "advdiff", LNP, 1)
	rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 200, Seed: 1, Refine: -1})
	if err != nil {
		t.Fatal(err)
	}
	b := rep.ThetaAtBound
	t.Logf("θ at a bound: %d estimates, %d covered", b.AtBound, b.Covered)
	if b.AtBound < 5 || b.Covered != b.AtBound {
		t.Errorf("%d of %d intervals at a bound hold θ, want all of at least 5", b.Covered, b.AtBound)
	}
}
