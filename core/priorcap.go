package core

import (
	"fmt"

	"apic/sims"
)

// priorShare is the share of its prior's deviation, (hi − lo)/√12, from
// which a θ deviation counts as the prior's: the posterior variance is
// then at least 81% of the prior's (contraction ≤ 0.19), and θ̂ ± 1.96σ
// spans at least a prior width.
const priorShare = 0.9

// NearPrior reports whether a deviation sd of parameter p is nearly its
// prior's own (at least priorShare of it; applyThetaTable caps it
// there): the rule of diagnose's warning and of the explorer's θ rows.
// An interval that wide says little more than that θ lies in its prior
// box, and covers θ from almost any estimate: a coverage that counts it
// is not evidence of calibration.
func NearPrior(p sims.Param, sd float64) bool {
	return sd >= priorShare*priorStd(p)*(1-1e-9)
}

// nearPriorWarning says that n of total realizations gave parameter p
// nearly its prior's deviation; "" when none did.
func nearPriorWarning(p sims.Param, n, total int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s: its std is at least %g of the prior's own (%.3g) in %d of %d realizations: there the model claims to know %s little better than the prior does, however close its estimate, and θ's coverage counts intervals about as wide as the prior box", p.Name, priorShare, priorStd(p), n, total, p.Name)
}

// nearPriorWarnings is nearPriorWarning for every parameter, the
// deviations per parameter in stds.
func nearPriorWarnings(params []sims.Param, stds [][]float64) []string {
	var out []string
	for q, p := range params {
		n := 0
		for _, sd := range stds[q] {
			if NearPrior(p, sd) {
				n++
			}
		}
		if w := nearPriorWarning(p, n, len(stds[q])); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// PriorWide is how many of the diagnosis's realizations gave this
// parameter nearly its prior's deviation (NearPrior): intervals that
// cover θ from almost any estimate, so that a coverage counting them
// says little. The explorer shows it beside the verdict, as diagnose's
// warning does.
func (th ThetaDiagnostic) PriorWide() int {
	p := sims.Param{Name: th.Name, Lo: th.PriorLo, Hi: th.PriorHi}
	n := 0
	for _, sd := range th.Std {
		if NearPrior(p, sd) {
			n++
		}
	}
	return n
}
