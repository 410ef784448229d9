package core

import (
	"fmt"

	"apic/sims"
)

// atPriorCap reports whether a deviation sd of parameter p is its
// prior's own, (hi − lo)/√12, the cap applyThetaTable puts on it. An
// interval that wide (θ̂ ± 1.96σ spans 1.13 prior widths) says little
// more than that θ lies in its prior box, and covers θ from almost any
// estimate: a coverage that counts it is not evidence of calibration.
func atPriorCap(p sims.Param, sd float64) bool {
	return sd >= priorStd(p)*(1-1e-9)
}

// priorCapWarning says that n of total realizations gave parameter p its
// prior's deviation; "" when none did.
func priorCapWarning(p sims.Param, n, total int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s: the deviation is the prior's own (%.3g, the cap) in %d of %d realizations: there the model claims to know %s no better than the prior does, however close its estimate, and θ's coverage counts intervals about as wide as the prior box", p.Name, priorStd(p), n, total, p.Name)
}

// priorCapWarnings is priorCapWarning for every parameter, the deviations
// per parameter in stds.
func priorCapWarnings(params []sims.Param, stds [][]float64) []string {
	var out []string
	for q, p := range params {
		n := 0
		for _, sd := range stds[q] {
			if atPriorCap(p, sd) {
				n++
			}
		}
		if w := priorCapWarning(p, n, len(stds[q])); w != "" {
			out = append(out, w)
		}
	}
	return out
}
