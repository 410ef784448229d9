package core

import (
	"context"
	"testing"
)

// TestNoiseFloorLetsExactFitsShrink: advdiff without noise is fitted
// near exactly on some realizations, and their bands must shrink with
// the fit. With the floor at 10⁻⁸ of the learned noise variance the
// shipped cnp's reconstruction ECE at its headline condition was 0.058
// (the floor's band, several times the error, on those realizations);
// below it, it is about 0.03.
func TestNoiseFloorLetsExactFitsShrink(t *testing.T) {
	m, _ := shippedModel(t, "advdiff", CNP, 1)
	rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 200, Seed: 1, Samples: 1, Refine: -1})
	if err != nil {
		t.Fatal(err)
	}
	if ece := rep.Metrics[KeyReconECE].Mean; ece > 0.045 {
		t.Errorf("advdiff/cnp recon ECE %.4f at context 256 without noise, want ≤ 0.045", ece)
	}
}
