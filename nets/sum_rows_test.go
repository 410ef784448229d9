package nets

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumRows checks sumRows against the row-by-row accumulation it
// replaces, bit for bit, over widths on both sides of the 16-column
// chunks, with negative values, signed zeros and NaNs of both signs.
func TestSumRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	negNaN := math.Float64frombits(math.Float64bits(math.NaN()) | 1<<63)
	special := []float64{0, math.Copysign(0, -1), math.NaN(), negNaN, -1e-300, 1e300}
	for _, relu := range []bool{false, true} {
		for _, cols := range []int{1, 3, 15, 16, 17, 32, 47, 64, 70} {
			for _, rows := range []int{0, 1, 2, 7, 30} {
				ld := cols + rng.IntN(3)
				src := make([]float64, max(1, rows*ld))
				for i := range src {
					src[i] = rng.NormFloat64()
					if rng.IntN(10) == 0 {
						src[i] = special[rng.IntN(len(special))]
					}
				}
				want := make([]float64, cols)
				for i := range want {
					want[i] = rng.NormFloat64()
				}
				got := append([]float64(nil), want...)
				for r := range rows {
					row := src[r*ld : r*ld+cols]
					if relu {
						accumulateReLU(want, row)
					} else {
						accumulate(want, row)
					}
				}
				sumRows(got, src, rows, ld, relu)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) &&
						!(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
						t.Fatalf("relu=%v cols=%d rows=%d: column %d = %v, want %v", relu, cols, rows, i, got[i], want[i])
					}
				}
			}
		}
	}
}
