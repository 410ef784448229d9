package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// priorGuessShare is the share of the prior-centre guess's error
// (priorGuessMAE) from which a parameter's θ MAE is flagged: estimates
// that remove less than half the error of ignoring the data. The
// coverage of θ's intervals cannot show this, since intervals as poor
// as the estimates can still be calibrated.
const priorGuessShare = 0.5

// priorGuessMAE is the mean |θ − c| of answering the centre c of p's
// uniform prior for every realization, θ drawn from that prior: a
// quarter of its width, the least error of any answer that ignores the
// data.
func priorGuessMAE(p sims.Param) float64 { return (p.Hi - p.Lo) / 4 }

// priorGuessWarnings flags each parameter whose θ MAE (maes, in the
// order of params; NaN where none was scored) is at least
// priorGuessShare of priorGuessMAE.
func priorGuessWarnings(params []sims.Param, maes []float64) []string {
	var out []string
	for q, p := range params {
		if q >= len(maes) || math.IsNaN(maes[q]) {
			continue
		}
		guess := priorGuessMAE(p)
		if !(guess > 0) || maes[q] < priorGuessShare*guess {
			continue
		}
		out = append(out, fmt.Sprintf("%s: θ̂'s mean absolute error %.3g is %.0f%% of the %.3g that answering the prior's centre %g every time gives: the estimates say little more about %s than the prior does, whatever their intervals' coverage",
			p.Name, maes[q], 100*maes[q]/guess, guess, (p.Lo+p.Hi)/2, p.Name))
	}
	return out
}

// refinementCarriesWarnings flags each parameter whose refined θ̂ passes
// priorGuessWarnings's test (maes, its MAE) while the θ̂ refinement
// started from, the network's own one pass (unrefined, its MAE; nil
// when there was no refinement), fails it: the refinement's fit to the
// context, not the trained network, is doing the calibration. Such a
// network gives poor one-pass answers, and its refinement starts far off
// and leans on a prior centred there, which a context less kind than
// the benchmark's may not overcome.
func refinementCarriesWarnings(params []sims.Param, maes, unrefined []float64) []string {
	var out []string
	for q, p := range params {
		if q >= len(maes) || q >= len(unrefined) || math.IsNaN(maes[q]) || math.IsNaN(unrefined[q]) {
			continue
		}
		guess := priorGuessMAE(p)
		if !(guess > 0) || maes[q] >= priorGuessShare*guess || unrefined[q] < priorGuessShare*guess {
			continue
		}
		out = append(out, fmt.Sprintf("%s: refinement starts from the network's θ̂, whose mean absolute error %.3g is %.0f%% of the %.3g that answering the prior's centre %g every time gives, and brings it to %.3g: the refinement, not the network, is calibrating %s (--refine 0 evaluates the network's one pass)",
			p.Name, unrefined[q], 100*unrefined[q]/guess, guess, (p.Lo+p.Hi)/2, maes[q], p.Name))
	}
	return out
}
