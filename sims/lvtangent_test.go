package sims

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLVTangentStepVector: the vector step gives the scalar step's
// tangents bit for bit, for direction counts around the vector width.
func TestLVTangentStepVector(t *testing.T) {
	if lvTangentFast == nil {
		t.Skip("no vector step on this CPU")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	const m = 9
	for n := 1; n <= 13; n++ {
		dth, dd := make([]float64, 4*n), make([]float64, n*m)
		for i := range dth {
			dth[i] = rng.NormFloat64()
		}
		for i := range dd {
			dd[i] = rng.NormFloat64()
		}
		l := newLVDirections(n, dth, dd) // dd read as stage-major [m·n]
		c := newLVStageCoefs(0.05)
		c.setStages(1.1, 0.7, 0.9, 1.3, [4]float64{1, 1.1, 1.05, 1.2}, [4]float64{0.8, 0.75, 0.77, 0.7})
		tx, ty := make([]float64, n), make([]float64, n)
		for j := range n {
			tx[j], ty[j] = rng.NormFloat64(), rng.NormFloat64()
		}
		wx, wy := append([]float64(nil), tx...), append([]float64(nil), ty...)
		lvTangentStep(tx, ty, &l, 3, c)
		fast := lvTangentFast
		lvTangentFast = nil
		lvTangentStep(wx, wy, &l, 3, c)
		lvTangentFast = fast
		for j := range n {
			if math.Float64bits(tx[j]) != math.Float64bits(wx[j]) || math.Float64bits(ty[j]) != math.Float64bits(wy[j]) {
				t.Fatalf("n=%d, direction %d: vector (%v, %v), scalar (%v, %v)", n, j, tx[j], ty[j], wx[j], wy[j])
			}
		}
	}
}
