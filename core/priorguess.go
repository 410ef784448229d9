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

// noBetterThanPrior reports whether a θ MAE of mae for p is at least
// priorGuessShare of priorGuessMAE (false for a prior of no width).
func noBetterThanPrior(p sims.Param, mae float64) bool {
	guess := priorGuessMAE(p)
	return guess > 0 && mae >= priorGuessShare*guess
}

// shareOfPriorGuess words mae against p's prior-centre guess: "1.3 is
// 104% of the 1.25 that answering the prior's centre 5.5 every time
// gives".
func shareOfPriorGuess(p sims.Param, mae float64) string {
	guess := priorGuessMAE(p)
	return fmt.Sprintf("%.3g is %.0f%% of the %.3g that answering the prior's centre %g every time gives", mae, 100*mae/guess, guess, (p.Lo+p.Hi)/2)
}

// priorGuessWarnings flags each parameter whose θ MAE (maes, in the
// order of params; NaN where none was scored) is at least
// priorGuessShare of priorGuessMAE.
func priorGuessWarnings(params []sims.Param, maes []float64) []string {
	var out []string
	for q, p := range params {
		if q >= len(maes) || math.IsNaN(maes[q]) {
			continue
		}
		if !noBetterThanPrior(p, maes[q]) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: θ̂'s mean absolute error %s: the estimates say little more about %s than the prior does, whatever their intervals' coverage",
			p.Name, shareOfPriorGuess(p, maes[q]), p.Name))
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
		if noBetterThanPrior(p, maes[q]) || !noBetterThanPrior(p, unrefined[q]) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: refinement starts from the network's θ̂, whose mean absolute error %s, and brings it to %.3g: the refinement, not the network, is calibrating %s (--refine 0 evaluates the network's one pass)",
			p.Name, shareOfPriorGuess(p, unrefined[q]), maes[q], p.Name))
	}
	return out
}
