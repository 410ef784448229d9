package core

import (
	"testing"

	"apic/sims"
)

// TestBoundCoverageCounts counts estimates within 2% of the prior's
// width of a bound, and of those the covered ones.
func TestBoundCoverageCounts(t *testing.T) {
	par := sims.Param{Name: "omega", Lo: 3, Hi: 8}
	var b BoundCoverage
	b.add(par, 5.5, true)   // interior
	b.add(par, 3.05, false) // within 0.1 of the lower bound
	b.add(par, 7.95, true)  // within 0.1 of the upper bound
	b.add(par, 3.2, false)  // interior, missed
	if want := (BoundCoverage{Estimates: 4, AtBound: 2, Covered: 1}); b != want {
		t.Errorf("got %+v, want %+v", b, want)
	}
}
