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

// TestRefinementCarriesWarnings: a parameter whose refined θ̂ passes the
// prior-centre test while the θ̂ refinement started from fails it is
// flagged with both MAEs; one that fails or passes both, or has no
// unrefined MAE (no refinement), is not.
func TestRefinementCarriesWarnings(t *testing.T) {
	omega := sims.Param{Name: "omega", Lo: 3, Hi: 8} // centre guess: MAE 1.25, flagged from 0.625
	params := []sims.Param{omega}
	ws := refinementCarriesWarnings(params, []float64{0.1}, []float64{1.3})
	if len(ws) != 1 || !strings.Contains(ws[0], "omega: refinement starts from the network's θ̂, whose mean absolute error 1.3 is 104% of the 1.25 that answering the prior's centre 5.5 every time gives, and brings it to 0.1") {
		t.Errorf("refined 0.1, unrefined 1.3: %q", ws)
	}
	for _, tc := range []struct {
		refined   float64
		unrefined []float64
	}{
		{0.1, []float64{0.5}},        // the network alone is good enough
		{0.9, []float64{1.3}},        // refinement does not rescue it either: priorGuessWarnings says so
		{0.1, nil},                   // no refinement
		{0.1, []float64{math.NaN()}}, // none scored
	} {
		if ws := refinementCarriesWarnings(params, []float64{tc.refined}, tc.unrefined); len(ws) != 0 {
			t.Errorf("refined %v, unrefined %v: %q, want none", tc.refined, tc.unrefined, ws)
		}
	}
}

// TestSummariseWarnsWhenRefinementCarriesTheta: Summarise averages the
// unrefined θ̂'s errors over the realizations scored and warns from
// them; a failed realization is left out, and a method without them
// (one pass, a baseline) gets no such warning.
func TestSummariseWarnsWhenRefinementCarriesTheta(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	scored := func(ae, unrefined float64) TaskMetrics {
		tm := TaskMetrics{Values: map[string]float64{}, ThetaAE: []float64{ae}, ThetaErr: []float64{ae}}
		if !math.IsNaN(unrefined) {
			tm.UnrefinedThetaAE = []float64{unrefined}
		}
		return tm
	}
	per := []TaskMetrics{scored(0.1, 1.5), scored(0.2, 0.9), {Failed: "the model diverged"}}
	if ws := strings.Join(Summarise(sys, per).Warnings, "\n"); !strings.Contains(ws, "whose mean absolute error 1.2 is 96% of the 1.25") {
		t.Errorf("warnings %q lack the unrefined θ̂'s", ws)
	}
	per = []TaskMetrics{scored(0.1, 1.5), scored(0.2, math.NaN())}
	if ws := strings.Join(Summarise(sys, per).Warnings, "\n"); strings.Contains(ws, "refinement starts from") {
		t.Errorf("a realization without an unrefined θ̂: %q", ws)
	}
}

// TestRefinedPredictionRecordsUnrefinedTheta: a refined prediction
// records the θ̂ its refinement started from, the one-pass network's
// (a CNP's, without hints, is the one pass's θ̂ exactly); a one-pass
// prediction records none.
func TestRefinedPredictionRecordsUnrefinedTheta(t *testing.T) {
	m := tinyModel(t, "spring", CNP, func(c *Config) { c.Arch.ThetaHint = false })
	perturb(m, 5, 0.05)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 3, 0, 7))
	one, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 1, Seed: 1, Refine: 0})
	if err != nil {
		t.Fatal(err)
	}
	refined, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 1, Seed: 1, Refine: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if one[i].UnrefinedTheta != nil {
			t.Errorf("one pass %d: UnrefinedTheta %v, want nil", i, one[i].UnrefinedTheta)
		}
		u := refined[i].UnrefinedTheta
		if len(u) != 1 || math.Abs(u[0]-one[i].Theta[0]) > 1e-9*one[i].Theta[0] {
			t.Errorf("refined %d: UnrefinedTheta %v, want the one pass's θ̂ %v", i, u, one[i].Theta)
		}
	}
}
