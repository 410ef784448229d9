package core

import (
	"math"

	"apic/sims"
)

// profileShapes are the exponents q of the evolution profile that
// Recalibrate tries (0: a flat profile, the spread of earlier versions).
var profileShapes = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}

// profileFloor is the floor of the evolution, relative to the RMS of the
// predicted field, so that values that have not moved keep a non-zero
// spread.
const profileFloor = 1e-2

// evolutionProfile writes to dst the relative spread profile of a
// prediction with mean μ on grid g:
//
//	a_j = |μ_j − μ_{first(j)}| + ε·RMS(μ),  h_j = (a_j / ā)^q
//
// where first(j) is the value of the same channel at the same location
// on the grid's first slice along its first axis (the initial state:
// time comes first in every system's grid), ā the geometric mean of a
// and ε = profileFloor. With noise-free data the error left after
// calibration grows with how far the state has evolved from the initial
// state the model is given (the error of an advected, diffused field
// sits where the field changed), so a spread that is flat over the grid
// is too wide early and too narrow late; h redistributes it and leaves
// the level to the context fit. q = 0 gives h = 1.
func evolutionProfile(dst, mean []float64, g sims.Grid, q float64) {
	if q == 0 {
		for j := range dst {
			dst[j] = 1
		}
		return
	}
	c := len(g.Channels)
	stride := 1 // grid points per slice of the first axis
	if len(g.Shape) > 1 {
		stride = g.Points() / g.Shape[0]
	}
	rms := 0.0
	for _, v := range mean {
		rms += v * v
	}
	floor := profileFloor * math.Sqrt(rms/float64(len(mean)))
	if floor == 0 {
		floor = profileFloor
	}
	for j := range dst {
		p, ch := j/c, j%c
		first := (p%stride)*c + ch
		dst[j] = math.Log(math.Abs(mean[j]-mean[first]) + floor)
	}
	powerOverGeoMean(dst, q)
}

// powerOverGeoMean turns logs, dst_j = log a_j, into (a_j/ā)^q, with ā
// the geometric mean of a: a profile that leaves a band's level to its
// scale.
func powerOverGeoMean(dst []float64, q float64) {
	logMean := 0.0
	for _, v := range dst {
		logMean += v
	}
	logMean /= float64(len(dst))
	for j := range dst {
		dst[j] = math.Exp(q * (dst[j] - logMean))
	}
}
