package sims

import (
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// BenchmarkLVRK4 times one forward and backward pass of the model's
// Lotka–Volterra integrator (B = 64, 99 grid intervals, LVModelSubsteps
// sub-steps each) with gradients into θ and the forcing.
func BenchmarkLVRK4(b *testing.B) {
	const batch = 64
	rng := rand.New(rand.NewPCG(40, 41))
	theta, u0 := lvBatch(rng, batch)
	op := NewLVRK4(LVModelSubsteps)
	forcing := slvUniform(rng, batch, op.ForcingLen(), 0, 0.2)
	outGrad := slvUniform(rng, batch, 200, -1, 1)
	gth := nets.NewTensor(batch, 4)
	gf := nets.NewTensor(batch, op.ForcingLen())
	inputs := []*nets.Tensor{theta, u0, forcing}
	grads := []*nets.Tensor{gth, nil, gf}
	b.ReportAllocs()
	for b.Loop() {
		op := NewLVRK4(LVModelSubsteps)
		out := op.Forward(inputs)
		op.Backward(inputs, out, outGrad, grads)
	}
}
