package core

import (
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// TestPriorGuessWarnings: a θ MAE of at least half what answering the
// prior's centre gives (a quarter of its width) is flagged with both
// numbers; a smaller one, or none scored, is not.
func TestPriorGuessWarnings(t *testing.T) {
	omega := sims.Param{Name: "omega", Lo: 3, Hi: 8} // centre guess: MAE 1.25
	ws := priorGuessWarnings([]sims.Param{omega}, []float64{1.23})
	if len(ws) != 1 || !strings.Contains(ws[0], "omega: θ̂'s mean absolute error 1.23 is 98% of the 1.25 that answering the prior's centre 5.5 every time gives") {
		t.Errorf("θ MAE 1.23 on U(3, 8): %q", ws)
	}
	for _, mae := range []float64{0.6, 0.01, math.NaN()} {
		if ws := priorGuessWarnings([]sims.Param{omega}, []float64{mae}); len(ws) != 0 {
			t.Errorf("θ MAE %v on U(3, 8): %q, want none", mae, ws)
		}
	}
}

// TestSummariseWarnsAtPriorGuessError: Summarise, which eval, compare
// and train's validation share, warns where a parameter's estimates
// are about as far from θ as the prior's centre is: the 5+5-step spring
// model's θ MAE 1.1 covered θ in 95% of realizations without a word.
func TestSummariseWarnsAtPriorGuessError(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	per := []TaskMetrics{{Values: map[string]float64{}, ThetaAE: []float64{1.5}, ThetaErr: []float64{1.5}}, {Values: map[string]float64{}, ThetaAE: []float64{0.7}, ThetaErr: []float64{-0.7}}}
	rep := Summarise(sys, per)
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.HasPrefix(w, "omega: θ̂'s mean absolute error 1.1 is 88% of the 1.25")
	}
	if !found {
		t.Errorf("Summarise's warnings %q lack the prior-centre comparison", rep.Warnings)
	}
}

// TestThetaMAEs: diagnose's per-parameter MAE, the input of its
// prior-centre warning, is the mean |θ̂ − θ|; NaN with no realization.
func TestThetaMAEs(t *testing.T) {
	got := thetaMAEs([]ThetaDiagnostic{{Truth: JSONFloats{5, 6}, Estimate: JSONFloats{6, 4}}, {}})
	if len(got) != 2 || got[0] != 1.5 || !math.IsNaN(got[1]) {
		t.Errorf("thetaMAEs %v, want [1.5 NaN]", got)
	}
}
