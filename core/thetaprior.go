package core

import (
	"math"

	"apic/sims"
)

// thetaPriorWeight fits, on validation realizations, the weight ρ of the
// prior mean μ in θ̂' = (1 − ρ) θ̂ + ρ μ that minimises the squared error
// of θ̂' over every parameter (each in units of its prior box's width w):
//
//	ρ = 1 − Σ (θ̂ − μ)(θ − μ)/w² / Σ (θ̂ − μ)²/w²,  clipped to [0, 1].
//
// Where θ̂ carries the data's information ρ is near 0; where a context is
// too sparse for θ̂ to beat the prior mean (lv at two points) it nears 1.
// A weight below minPriorWeight is taken as 0: so small a fitted weight
// is the validation set's chance, not the prior's information (lv/anp's
// 0.008 at its headline condition made its test θ MAE 3% worse).
func thetaPriorWeight(params []sims.Param, tasks []sims.Task, preds []Prediction) float64 {
	num, den := 0.0, 0.0
	for i, task := range tasks {
		for q, th := range task.Real.Theta {
			est := preds[i].Theta[q]
			if math.IsNaN(est) {
				continue
			}
			mu, w := priorMean(params[q]), params[q].Hi-params[q].Lo
			num += (est - mu) * (th - mu) / (w * w)
			den += (est - mu) * (est - mu) / (w * w)
		}
	}
	if den == 0 {
		return 0
	}
	if rho := 1 - num/den; rho >= minPriorWeight {
		return math.Min(1, rho)
	}
	return 0
}

// minPriorWeight is the least prior weight thetaPriorWeight keeps.
const minPriorWeight = 0.05

// withPriorWeight returns copies of preds with θ moved toward the prior
// (shrinkTheta); preds are unchanged.
func withPriorWeight(params []sims.Param, preds []Prediction, rho float64) []Prediction {
	out := make([]Prediction, len(preds))
	for i, p := range preds {
		p.Theta, p.ThetaStd = append([]float64(nil), p.Theta...), append([]float64(nil), p.ThetaStd...)
		shrinkTheta(params, &p, rho)
		out[i] = p
	}
	return out
}

// shrinkTheta moves p's θ a share rho toward the prior mean and widens
// its deviations by the prior's share in quadrature,
//
//	θ̂' = (1 − ρ) θ̂ + ρ μ,  σ' = √(σ² + (ρ σ_prior)²),
//
// so that a scale fitted afterwards has a deviation to scale even where
// refinement's σ is near 0. rho 0 leaves p as it is.
func shrinkTheta(params []sims.Param, p *Prediction, rho float64) {
	if rho <= 0 {
		return
	}
	for q := range p.Theta {
		p.Theta[q] = (1-rho)*p.Theta[q] + rho*priorMean(params[q])
		if q < len(p.ThetaStd) {
			ps := rho * priorStd(params[q])
			p.ThetaStd[q] = math.Hypot(p.ThetaStd[q], ps)
		}
	}
}

// priorMean is the mean of a parameter's uniform prior.
func priorMean(p sims.Param) float64 { return (p.Lo + p.Hi) / 2 }
