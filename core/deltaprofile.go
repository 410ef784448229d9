package core

import (
	"math"

	"apic/sims"
)

// deltaProfileShapes are the exponents q of the discrepancy's time
// profile that recalibration tries (0: a flat profile, the δ band of
// earlier versions).
var deltaProfileShapes = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5}

// deltaProfileECECost is the most validation δ ECE a time profile may
// cost against the flat band: the profile is chosen by likelihood, and
// where the band's tails are already right (advdiff, LL above 8) the
// likeliest profile can buy a small LL gain with a large shift of the
// inner intervals' coverage.
const deltaProfileECECost = 0.01

// deltaProfileTolerance is how much validation δ LL a steeper time
// profile must gain to be preferred to a flatter one: a profile that
// gains less is the validation set's chance.
const deltaProfileTolerance = 0.05

// deltaTimeProfile writes to dst the relative profile of δ's deviation
// over grid g's values:
//
//	τ_j = (k_j + 1)/n,  h_j = (τ_j / τ̄)^q
//
// where k_j is the index of value j's slice along the grid's first axis
// (time comes first in every system's grid), n the number of slices and
// τ̄ the geometric mean of τ over the values, so that h leaves the
// band's level to its scale. δ's error is mostly F(x; θ̂) − F(x; θ),
// and a trajectory integrated with a slightly wrong θ drifts from the
// true one as time passes: with a flat band, the shipped lv/cnp's
// refined δ errors at context 30 are 0.31 deviations (root mean square)
// in the first tenth of the time span and 5.1 in the last (go test
// ./core -run TestDeltaTimeProfileEvensErrors -v). The reconstruction's
// band keeps its own profile (profile.go), fitted to the data. q = 0
// gives h = 1.
func deltaTimeProfile(dst []float64, g sims.Grid, q float64) {
	if q == 0 {
		for j := range dst {
			dst[j] = 1
		}
		return
	}
	c := len(g.Channels)
	slices := g.Points()
	if len(g.Shape) > 1 {
		slices = g.Shape[0]
	}
	perSlice := g.Points() / slices
	for j := range dst {
		k := (j / c) / perSlice
		dst[j] = math.Log(float64(k+1) / float64(slices))
	}
	powerOverGeoMean(dst, q)
}

// deltaProfileFor returns the time profile of δ's deviation for fit s
// on grid g, nil when it is flat.
func deltaProfileFor(g sims.Grid, s SpreadFit) []float64 {
	if s.DeltaProfile == 0 {
		return nil
	}
	h := make([]float64, g.Size())
	deltaTimeProfile(h, g, s.DeltaProfile)
	return h
}

// tuneDeltaProfile picks the exponent of δ's time profile for
// predictions whose δ deviations are flat (preds, with their tasks and
// true discrepancies): for each exponent of deltaProfileShapes, δ's
// scale is the ECE's (bestScale, as the spread's own), and
// pickDeltaProfile keeps one by the mean δ LL at that scale and the
// ECE. The level stays the ECE's; the profile decides where along time
// the spread goes, which is what the likelihood, pulled down by the
// errors far outside the band, judges.
func tuneDeltaProfile(sys sims.System, tasks []sims.Task, preds []Prediction, deltas [][]float64) float64 {
	g := sys.Grid()
	h := make([]float64, g.Size())
	lls := make([]float64, len(deltaProfileShapes))
	eces := make([]float64, len(deltaProfileShapes))
	for i, q := range deltaProfileShapes {
		deltaTimeProfile(h, g, q)
		sd := make([][]float64, len(preds))
		for t, p := range preds {
			sd[t] = make([]float64, len(p.DeltaStd))
			for j, v := range p.DeltaStd {
				sd[t][j] = h[j] * v
			}
		}
		get := func(t int) ([]float64, []float64, []float64) { return preds[t].DeltaMean, sd[t], deltas[t] }
		s, e := bestScale(tasks, sys, get)
		lls[i], eces[i] = meanScaledLL(tasks, sys, get, s), e
	}
	return pickDeltaProfile(lls, eces)
}

// pickDeltaProfile returns the exponent of deltaProfileShapes (the first
// is flat) with validation δ LLs lls and ECEs eces that tuneDeltaProfile
// keeps: among the exponents whose ECE is at most deltaProfileECECost
// above the flat band's, the flattest whose LL is within
// deltaProfileTolerance of their best. NaNs are never kept; 0 when
// nothing else is.
func pickDeltaProfile(lls, eces []float64) float64 {
	eligible := func(i int) bool {
		return !math.IsNaN(lls[i]) && (i == 0 || eces[i] <= eces[0]+deltaProfileECECost)
	}
	best := math.Inf(-1)
	for i, ll := range lls {
		if eligible(i) {
			best = math.Max(best, ll)
		}
	}
	for i, ll := range lls {
		if eligible(i) && ll >= best-deltaProfileTolerance {
			return deltaProfileShapes[i]
		}
	}
	return 0
}

// meanScaledLL is the mean over tasks of the Gaussian LL of the truth
// under N(μ, (s·σ)²) at the task's targets (NaN tasks left out).
func meanScaledLL(tasks []sims.Task, sys sims.System, get func(int) (mu, sd, truth []float64), s float64) float64 {
	sum, n := 0.0, 0
	for t, task := range tasks {
		mu, sd, truth := get(t)
		scaled := make([]float64, len(sd))
		for j, v := range sd {
			scaled[j] = s * v
		}
		if ll := GaussianLL(mu, scaled, truth, targetValues(sys, task.Targets)); !math.IsNaN(ll) {
			sum += ll
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
