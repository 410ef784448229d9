package kohgp

import "math/rand/v2"

// latinHypercube returns n points in (0, 1)^d. In every dimension each of
// the n strata [k/n, (k+1)/n) holds exactly one point, uniformly placed
// inside it; the strata are paired across dimensions by independent
// random permutations. With few starts this spreads them over the prior
// far more evenly than independent uniform draws.
func latinHypercube(rng *rand.Rand, n, d int) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, d)
	}
	for j := range d {
		perm := rng.Perm(n)
		for i, k := range perm {
			pts[i][j] = (float64(k) + rng.Float64()) / float64(n)
		}
	}
	return pts
}
