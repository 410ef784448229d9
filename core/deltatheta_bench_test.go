package core

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

// BenchmarkNominalJacobians is the one-pass δ band's θ term's cost per
// call (deltatheta.go): F's Jacobian at θ̂ by P + 1 solves of the model's
// nominal simulator, for one realization and for a batch of
// jacobianBatch (ns/op is per batch).
func BenchmarkNominalJacobians(b *testing.B) {
	for _, sys := range sims.All() {
		for _, n := range []int{1, jacobianBatch} {
			rng := rand.New(rand.NewPCG(1, 2))
			thetas, sides := make([][]float64, n), make([][]float64, n)
			for i := range n {
				thetas[i], sides[i] = sys.SampleTheta(rng), sys.SampleSide(rng)
			}
			b.Run(fmt.Sprintf("%s/batch%d", sys.Name(), n), func(b *testing.B) {
				for b.Loop() {
					nominalJacobians(sys, thetas, sides)
				}
			})
		}
	}
}
