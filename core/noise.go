package core

import (
	"math"
	"math/rand/v2"
)

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

// truncatedNormal maps a standard normal draw e to a draw of N(mu, sd²)
// truncated to [lo, hi], by the inverse CDF: e's quantile Φ(e) is placed
// at the same quantile of the truncated law, so the map is monotone in e
// and, for a law well inside [lo, hi], gives mu + sd·e. A law whose mass
// in [lo, hi] is below what float64 resolves gives the bound nearer mu,
// where that mass lies.
func truncatedNormal(mu, sd, e, lo, hi float64) float64 {
	if !(sd > 0) || math.IsInf(sd, 0) {
		return min(max(mu, lo), hi)
	}
	a, b := (lo-mu)/sd, (hi-mu)/sd
	// Φ is accurate in the lower tail only (1 − Φ loses the digits of
	// an upper tail), so a window above the mean is mirrored below it.
	flip := a > 0
	if flip {
		a, b, e = -b, -a, -e
	}
	pa, pb := stdNormalCDF(a), stdNormalCDF(b)
	var x float64
	if pb-pa < 1e-12 {
		// Both bounds lie deep below the mean (after the mirror): the
		// mass sits at the upper one, the bound nearer the mean.
		x = b
	} else {
		u := pa + stdNormalCDF(e)*(pb-pa)
		x = math.Sqrt2 * math.Erfinv(2*u-1)
	}
	x = min(max(x, a), b) // Erfinv's rounding near the tails
	if flip {
		x = -x
	}
	return min(max(mu+sd*x, lo), hi)
}

// stdNormalCDF is Φ(x), accurate in the lower tail.
func stdNormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
