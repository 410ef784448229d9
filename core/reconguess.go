package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// reconGuessShare is the share of the context-mean guess's error
// (contextMeanMAE) from which the reconstruction's MAE is flagged: a
// corrected prediction no closer to G than a flat line through the
// context's average. Its bands cannot show this, since bands as wide as
// the errors are still calibrated (a model trained for a few steps
// scores a fine ECE). At 1 rather than θ's ½ (priorGuessShare): at one
// or two context points, or five noisy ones of lv, sound models remove
// little more than half the flat line's error, and a warning on every
// such cell would drown the broken model's. Refined, the shipped models
// stay below it in every cell of eval --grid; in one pass lv's reach it
// at the smallest contexts, where their one-pass answer is that poor.
const reconGuessShare = 1.0

// contextMeanMAE is the mean |c_ch − G| over the target values idx of
// answering, for every target, its channel's mean c_ch over the
// context's observations of it: the error of a prediction that uses the
// context's level and nothing else. NaN where a channel holding a target
// value was never observed in the context.
func contextMeanMAE(task sims.Task, channels int, idx []int) float64 {
	sums, counts := make([]float64, channels), make([]int, channels)
	ctx := task.Context
	for i, vals := range ctx.Values {
		for ch, v := range vals {
			if ch < channels && (i >= len(ctx.Mask) || ch >= len(ctx.Mask[i]) || ctx.Mask[i][ch]) {
				sums[ch] += v
				counts[ch]++
			}
		}
	}
	if len(idx) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, j := range idx {
		ch := j % channels
		if counts[ch] == 0 {
			return math.NaN()
		}
		s += math.Abs(sums[ch]/float64(counts[ch]) - task.Real.True[j])
	}
	return s / float64(len(idx))
}

// reconGuessWarnings flags a reconstruction MAE (mae, the mean over
// realizations) of at least reconGuessShare of guess, the mean
// contextMeanMAE over the same realizations; none where guess is NaN
// or 0.
func reconGuessWarnings(mae, guess float64) []string {
	if !noBetterThanFlat(mae, guess) {
		return nil
	}
	return []string{fmt.Sprintf("the corrected prediction's mean absolute error %.3g is %.0f%% of the %.3g that a flat line at each channel's mean over the context gives: the model predicts G between the observations no better than their average does, whatever its bands' calibration",
		mae, 100*mae/guess, guess)}
}

// noBetterThanFlat reports whether a reconstruction MAE mae is at least
// reconGuessShare of guess, the flat line's (contextMeanMAE); false
// where guess is NaN or 0.
func noBetterThanFlat(mae, guess float64) bool {
	return guess > 0 && mae >= reconGuessShare*guess
}

// NoBetterThanFlatLine reports whether r's corrected prediction misses G
// by as much as a flat line at each channel's context mean does: the
// case its flat-line warning (reconGuessWarnings) flags.
func (r Report) NoBetterThanFlatLine() bool {
	return noBetterThanFlat(r.Metrics[KeyReconMAE].Mean, r.ContextMeanMAE)
}
