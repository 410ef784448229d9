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

// outlierZ is how many observation-band deviations from the prediction
// make a single observation worth naming on its own: one in 10²³ for a
// calibrated Gaussian band, so a typo, a wrong unit or a glitch.
const outlierZ = 10

// misfitWarnings compares the context itself with the prediction's
// observation band (mean ± z·ObservationStd, the function band with σ̂
// added), read at each observation (interpolated between grid points
// as refinement reads it): when many observations lie beyond misfitZ
// deviations, the model does not fit the data it was given, whatever
// its σ̂ says, and its intervals are too narrow for them; when only a
// few do but lie beyond outlierZ, they are named, since one stray value
// can pull the whole fit, θ̂ included.
func (m *Model) misfitWarnings(p Prediction, ctx sims.Context) []string {
	g := m.Sys.Grid()
	ones := make([]float64, len(g.Channels))
	for c := range ones {
		ones[c] = 1
	}
	terms, err := m.contextTerms(ctx, ones)
	if err != nil {
		return nil // outside the domain: observationWarnings says so
	}
	// Term k's observation, in contextTerms' order, written out only for
	// the one a warning names.
	label := func(k int) string {
		for i, st := range ctx.States {
			for c, name := range g.Channels {
				if c < len(ctx.Mask[i]) && ctx.Mask[i][c] {
					if k == 0 {
						return fmt.Sprintf("%s = %.4g at %s", name, ctx.Values[i][c], stateText(g, st))
					}
					k--
				}
			}
		}
		return "?"
	}
	return misfitText(p, terms, label)
}

// misfitText is misfitWarnings on the context's terms, label(k)
// describing term k ("y = 50 at t = 2.01").
func misfitText(p Prediction, terms []obsTerm, label func(k int) string) []string {
	osd := p.ObservationStd()
	if len(p.NoiseStd) == 0 || len(p.Mean) != len(osd) {
		return nil
	}
	n, far, outliers, worst, worstAt := 0, 0, 0, 0.0, -1
	for k, t := range terms {
		mean, sd, ok := 0.0, 0.0, true
		for e, i := range t.idx {
			ok = ok && i < len(p.Mean)
			if ok {
				mean += t.w[e] * p.Mean[i]
				sd += t.w[e] * osd[i]
			}
		}
		if !ok || !(sd > 0) {
			continue
		}
		n++
		z := math.Abs(t.y-mean) / sd
		if z > misfitZ {
			far++
		}
		if z > outlierZ {
			outliers++
		}
		if z > worst || math.IsNaN(z) {
			worst, worstAt = z, k
		}
	}
	if far >= misfitLeast && float64(far) >= misfitShare*float64(n) {
		return []string{fmt.Sprintf("%d of %d observations lie more than %d deviations of the observation band from the prediction (up to %.3g): the model does not fit these data, and its intervals are too narrow for them",
			far, n, misfitZ, worst)}
	}
	if outliers == 0 {
		return nil
	}
	const why = "one stray value can pull the whole fit, θ̂ included; check it, and calibrate without it to compare"
	if outliers == 1 {
		return []string{fmt.Sprintf("the observation %s lies %.3g deviations of the observation band from the prediction: %s", label(worstAt), worst, why)}
	}
	return []string{fmt.Sprintf("%d observations lie more than %d deviations of the observation band from the prediction (the farthest, %s, %.3g): %s",
		outliers, outlierZ, label(worstAt), worst, why)}
}
