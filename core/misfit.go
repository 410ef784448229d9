package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// misfitZ is how many observation-band deviations from the prediction
// make a context observation an outlier: a calibrated Gaussian band
// leaves one in 1.7 million beyond 5σ, and the in-sample residuals of
// a noise-free spring context, heavier-tailed, few enough.
const misfitZ = 5

// misfitShare and misfitLeast are how large a share of the context, and
// how many observations at least, must lie beyond misfitZ before the
// fit is called bad: never one or two stray points.
const (
	misfitShare = 0.1
	misfitLeast = 3
)

// misfitWarnings compares the context itself with the prediction's
// observation band (mean ± z·ObservationStd, the function band with σ̂
// added): when many observations lie beyond misfitZ deviations, the
// model does not fit the data it was given, whatever its σ̂ says, and
// its intervals are too narrow for them. Only observations on grid
// points are compared (the prediction lives on the grid).
func misfitWarnings(p Prediction, ctx sims.Context) []string {
	osd := p.ObservationStd()
	channels := len(p.NoiseStd)
	if channels == 0 || len(p.Mean) != len(osd) {
		return nil
	}
	n, far, worst := 0, 0, 0.0
	for i, g := range ctx.GridIndex {
		for c, v := range ctx.Values[i] {
			k := g*channels + c
			if g < 0 || c >= channels || !ctx.Mask[i][c] || k >= len(p.Mean) || !(osd[k] > 0) {
				continue
			}
			n++
			z := math.Abs(v-p.Mean[k]) / osd[k]
			if z > misfitZ {
				far++
			}
			worst = max(worst, z)
		}
	}
	if far < misfitLeast || float64(far) < misfitShare*float64(n) {
		return nil
	}
	return []string{fmt.Sprintf("%d of %d observations lie more than %d deviations of the observation band from the prediction (up to %.3g): the model does not fit these data, and its intervals are too narrow for them",
		far, n, misfitZ, worst)}
}
