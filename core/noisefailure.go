package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A realization evaluated at an observation noise beyond what the model
// was trained on can make its fit fail: the network then reads contexts
// unlike any it saw, and its outputs overflow or run away (eval
// --noise 1000). "The model diverged" would read as a fault of the
// weights; the condition is what to change, so the reason says it.

// divergedSuffix and divergedPrefix are the words ErrDiverged and
// Runaway give a failed prediction, dropped where failureAtNoise says
// what happened instead.
const (
	divergedSuffix = " (the model diverged)"
	divergedPrefix = "the model diverged: "
)

// failureAtNoise is reason, why a realization's fit failed, worded for
// an evaluation at observation noise σ = noise: where that is beyond
// m's training range (TrainingRange.NoiseHi, with RangeWarnings'
// tolerance), it says so first and names the range; elsewhere (and for
// noise NaN, unknown) reason is returned as it is.
func (m *Model) failureAtNoise(reason string, noise float64) string {
	hi := m.TrainingRange().NoiseHi
	if !(noise > hi*(1+1e-9)) {
		return reason
	}
	what := strings.TrimPrefix(strings.TrimSuffix(reason, divergedSuffix), divergedPrefix)
	if hi == 0 {
		return fmt.Sprintf("the fit failed at noise σ = %g, where the model was trained on noise-free contexts only: %s", noise, what)
	}
	return fmt.Sprintf("the fit failed at noise σ = %g, %s times the top of the model's training range (σ ≤ %g): %s", noise, timesText(noise/hi), hi, what)
}

// timesText is the ratio r for "r times": whole from 100 up (10000, not
// 1e+04), two significant digits below (1.5, 20).
func timesText(r float64) string {
	if r >= 100 {
		return strconv.FormatFloat(math.Round(r), 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', 2, 64)
}
