package core

import "apic/sims"

// BoundCoverage counts, over θ estimates that come with a deviation, those
// pressed against a prior bound (AtPriorBound) and how many of those
// estimates' 95% intervals θ̂ ± 1.96 σ_θ hold the true value. The bounded
// map θ = lo + (hi − lo)·sigmoid(a) flattens at the bounds, so an
// estimate there is the least reliable; they are rare, and the pooled
// θ cover95 hides how they fare.
type BoundCoverage struct {
	Estimates int `json:"estimates"` // θ estimates with a deviation
	AtBound   int `json:"at_bound"`  // of which at a prior bound
	Covered   int `json:"covered"`   // of those at a bound, inside their interval
}

// merge adds o's counts to b's.
func (b *BoundCoverage) merge(o BoundCoverage) {
	b.Estimates += o.Estimates
	b.AtBound += o.AtBound
	b.Covered += o.Covered
}

// add counts one estimate th of par with a deviation, covered or not.
func (b *BoundCoverage) add(par sims.Param, th float64, covered bool) {
	b.Estimates++
	if !AtPriorBound(par, th) {
		return
	}
	b.AtBound++
	if covered {
		b.Covered++
	}
}
