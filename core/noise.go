package core

import "math/rand/v2"

// noise draws the standard normals of a batch: its latent samples, the
// spread of its θ hints and its Laplace samples. Training draws a whole
// batch from one stream. A prediction gives each realization a stream
// of its own, seeded by the call's seed and the realization's place in
// the call, so that what a realization draws does not depend on the
// other realizations of its batch, on how a call groups and splits them,
// or on the number of cores that run the pieces.
type noise struct {
	one *rand.Rand   // the batch's stream, or nil
	per []*rand.Rand // per[b] is realization b's stream (when one is nil)
}

// streamNoise draws a batch from rng in order; a nil rng gives nil
// noise, which draws nothing (latent means, no hint spread).
func streamNoise(rng *rand.Rand) *noise {
	if rng == nil {
		return nil
	}
	return &noise{one: rng}
}

// realizationNoise returns the streams first, …, first+n−1 of a
// prediction with the given seed.
func realizationNoise(seed uint64, first, n int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		// The index, spread by splitmix's constant, in the second half
		// of the PCG state: distinct states for distinct realizations.
		out[i] = rand.New(rand.NewPCG(seed, 0x617069632d707264+uint64(first+i)*0x9e3779b97f4a7c15))
	}
	return out
}

// normal draws one standard normal for realization b.
func (n *noise) normal(b int) float64 {
	if n.one != nil {
		return n.one.NormFloat64()
	}
	return n.per[b].NormFloat64()
}
