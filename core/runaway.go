package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// DivergedFactor (a million) is how many times the largest magnitude in
// a realization's data (its context values, its side information, or
// 1) a prediction, its spread, its discrepancy, its nominal or its
// noise σ̂ may reach before the prediction counts as diverged: no
// simulator here comes near it for θ in its prior, so only a network
// far outside its training data gets there (spring's y = 50 against ±1
// in training gave 1e30; eval at noise σ = 5, a recon MAE of 1e14).
// Such values are finite, so Problem alone would score them.
const DivergedFactor = 1e6

// Runaway says why p has run away from the data it was given, ctx and
// side: the first of its values beyond DivergedFactor times their
// largest magnitude, with that magnitude; "" when none is.
func (p Prediction) Runaway(ctx sims.Context, side []float64) string {
	scale := 1.0
	for _, row := range ctx.Values {
		scale = max(scale, maxAbs(row))
	}
	scale = max(scale, maxAbs(side))
	for _, s := range []struct {
		name   string
		values []float64
	}{{"prediction", p.Mean}, {"prediction std", p.Std}, {"discrepancy", p.DeltaMean},
		{"discrepancy std", p.DeltaStd}, {"nominal", p.Nominal}, {"noise σ̂", p.NoiseStd}} {
		for _, v := range s.values {
			if math.Abs(v) > DivergedFactor*scale {
				return fmt.Sprintf(divergedPrefix+"its %s reaches %.3g, over a million times the largest magnitude in the data %.3g", s.name, v, scale)
			}
		}
	}
	return ""
}

// maxAbs is the largest magnitude in v, NaN left out (0 for none).
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if !math.IsNaN(x) {
			m = max(m, math.Abs(x))
		}
	}
	return m
}

// problemIn is Problem, then Runaway against task t's context and side
// information: why p cannot be scored.
func (p Prediction) problemIn(t sims.Task) string {
	if why := p.Problem(); why != "" {
		return why
	}
	return p.Runaway(t.Context, t.Real.Side)
}
