package core

import (
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// A deviation from 0.9 of the prior's own, (hi − lo)/√12, up is flagged;
// one below is not, and eval's summary counts the realizations flagged.
func TestNearPriorWarnings(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	p := sys.Params()[0]
	cap := priorStd(p)
	if !NearPrior(p, cap) || !NearPrior(p, 0.9*cap) || NearPrior(p, 0.89*cap) || NearPrior(p, 0) {
		t.Errorf("NearPrior(%g): %v, (0.9×): %v, (0.89×): %v, (0): %v", cap, NearPrior(p, cap), NearPrior(p, 0.9*cap), NearPrior(p, 0.89*cap), NearPrior(p, 0))
	}
	per := []TaskMetrics{
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{cap}},
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{0.1}},
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{0.95 * cap}},
	}
	rep := Summarise(sys, per)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "omega: its std is at least 0.9 of the prior's own") || !strings.Contains(rep.Warnings[0], "in 2 of 3 realizations") {
		t.Errorf("warnings %q, want one counting 2 of 3", rep.Warnings)
	}
	per[0].ThetaStd[0], per[2].ThetaStd[0] = 0.1, 0.1
	if rep := Summarise(sys, per); len(rep.Warnings) != 0 {
		t.Errorf("no deviation at the cap, warnings %q", rep.Warnings)
	}
}

// PriorWide counts the realizations whose σ is nearly the prior's own,
// by the rule of diagnose's warning: from 0.9 of (hi − lo)/√12 up,
// NaN and 0 (a point estimate) not.
func TestThetaDiagnosticPriorWide(t *testing.T) {
	prior := (8.0 - 3.0) / math.Sqrt(12)
	th := ThetaDiagnostic{Name: "omega", PriorLo: 3, PriorHi: 8,
		Std: JSONFloats{prior, 0.9 * prior, 0.89 * prior, 0.01, 0, math.NaN()}}
	if got := th.PriorWide(); got != 2 {
		t.Fatalf("PriorWide = %d, want 2 (σ = prior's and 0.9 of it)", got)
	}
}
