package checkpoints_test

import (
	"context"
	"testing"

	"apic/checkpoints"
	"apic/core"
)

// TestSparseRefinedBands: at five context points, below the 15 spring
// was trained on, a refined fit can match every point and be wrong
// between them. spring's refined bands then widen by how far the fit
// moved (core/disagree.go); without that, spring/cnp's mean recon LL
// there was −34 and its δ LL −92 on these 100 realizations, from a few
// whose bands were far narrower than their errors. With it each spring
// file's mean recon LL is at least −5 and δ LL at least −10, clean and
// at σ = 0.05.
func TestSparseRefinedBands(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates three shipped files at two conditions")
	}
	for _, b := range []string{"cnp", "lnp", "anp"} {
		data, _ := checkpoints.Lookup("spring", b)
		m, _, err := core.DecodeCheckpoint(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, noise := range []float64{0, 0.05} {
			rep, _, err := core.Evaluate(context.Background(), m, core.EvalOptions{Tasks: 100, Context: 5, Noise: noise, Seed: 13, Refine: -1})
			if err != nil {
				t.Fatal(err)
			}
			ll, dll := rep.Metrics[core.KeyReconLL].Mean, rep.Metrics[core.KeyDeltaLL].Mean
			t.Logf("spring/%s at 5 points, σ %g: recon LL %.2f, δ LL %.2f", b, noise, ll, dll)
			if !(ll >= -5) || !(dll >= -10) {
				t.Errorf("spring/%s at 5 points, σ %g: recon LL %.2f and δ LL %.2f, want at least −5 and −10", b, noise, ll, dll)
			}
		}
	}
}
