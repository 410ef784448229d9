package sims

// matchedFeatures writes physics-informed encoder features for one
// observed value y given the nominal simulator's values F_j at the same
// state for a fixed design of candidate parameters θ_j:
//
//	dst[j]     = y · F_j         (correlation: its set mean is a matched filter)
//	dst[J + j] = (y − F_j)²      (its set mean is the candidate's squared error)
//
// Averaged over a context set by the encoder, these are a likelihood
// profile of the nominal simulator over the candidate design, from which
// the network reads θ far more easily than from raw (x, y) pairs. dst has
// length 2·len(cand).
func matchedFeatures(dst []float64, y float64, cand []float64) {
	j0 := len(cand)
	for j, f := range cand {
		dst[j] = y * f
		d := y - f
		dst[j0+j] = d * d
	}
}
