package nets

import "testing"

// TestSumRowsVectorSelected: on a CPU with AVX2, sumRows takes the
// assembly path, so that TestSumRows checks it rather than the loop.
func TestSumRowsVectorSelected(t *testing.T) {
	if hasAVX2FMA && sumRowsFast == nil {
		t.Fatal("AVX2 present but sumRows has no vector path")
	}
	if !hasAVX2FMA {
		t.Skip("no AVX2: sumRows runs the portable loop")
	}
}
