package sims

import (
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// BenchmarkSpectral times one training step's use of the spectral op:
// B = 64 realizations, 64 × 64 output each, forward then backward. The
// "theta" case is the training path (gradients to θ and the reaction rate
// only, u0 constant); "all" also returns the u0 gradient.
func BenchmarkSpectral(b *testing.B) {
	const batch = 64
	rng := rand.New(rand.NewPCG(1, 1))
	theta, side := adBatch(rng, batch)
	c := adUniform(rng, batch, 1, 0.3, 1)
	og := adUniform(rng, batch, advdiffNT*advdiffNX, -1, 1)
	in := []*nets.Tensor{theta, c, side}
	gTheta, gC, gU0 := nets.NewTensor(batch, 2), nets.NewTensor(batch, 1), nets.NewTensor(batch, advdiffNX)

	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op := &spectralOp{s: advdiffSolver}
			op.Forward(in)
		}
	})
	b.Run("theta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op := &spectralOp{s: advdiffSolver}
			out := op.Forward(in)
			op.Backward(in, out, og, []*nets.Tensor{gTheta, gC, nil})
		}
	})
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op := &spectralOp{s: advdiffSolver}
			out := op.Forward(in)
			op.Backward(in, out, og, []*nets.Tensor{gTheta, gC, gU0})
		}
	})
}
