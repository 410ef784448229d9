package core

import (
	"strings"
	"testing"

	"apic/sims"
)

// A deviation at the prior's own, (hi − lo)/√12, is flagged; one just
// below it is not, and eval's summary counts the realizations flagged.
func TestPriorCapWarnings(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	p := sys.Params()[0]
	cap := priorStd(p)
	if !atPriorCap(p, cap) || atPriorCap(p, 0.999*cap) || atPriorCap(p, 0) {
		t.Errorf("atPriorCap(%g): %v, (0.999×): %v, (0): %v", cap, atPriorCap(p, cap), atPriorCap(p, 0.999*cap), atPriorCap(p, 0))
	}
	per := []TaskMetrics{
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{cap}},
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{0.1}},
		{ThetaAE: []float64{0.01}, ThetaErr: []float64{0.01}, ThetaStd: []float64{cap}},
	}
	rep := Summarise(sys, per)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "in 2 of 3 realizations") {
		t.Errorf("warnings %q, want one counting 2 of 3", rep.Warnings)
	}
	per[0].ThetaStd[0], per[2].ThetaStd[0] = 0.1, 0.1
	if rep := Summarise(sys, per); len(rep.Warnings) != 0 {
		t.Errorf("no deviation at the cap, warnings %q", rep.Warnings)
	}
}
