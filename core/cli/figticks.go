package cli

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks places an axis's labelled ticks at the multiples of the
// smallest round step (1, 2 or 5 × 10^k) that gives at most seven labels, so that zero
// is labelled whenever the axis spans it (gonum's default ticker can
// label 1.6, 0.4 and −0.8, and a discrepancy near zero is then hard to
// read), with unlabelled ticks halfway between.
type niceTicks struct {
	// stepLo and stepHi, where stepHi > stepLo, are the range whose step
	// labels the axis, in place of the axis's own: a sweep's numeric
	// axis, a little wider than its values to hold the points drawn
	// beside them, is labelled as its values' range would be, at its ends
	// (roundValueAxis).
	stepLo, stepHi float64
	// bounded says the axis's metric takes no value above top (a
	// coverage's 1): no tick is placed above it, so that the band a
	// legend's raise adds there (makeRoomForLegend) is left blank, where
	// labels at the axis's step read as coverages of 1.2.
	bounded bool
	top     float64
}

// boundedTicks are niceTicks for a metric that takes no value above top.
func boundedTicks(top float64) niceTicks { return niceTicks{bounded: true, top: top} }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := tickStep(lo, hi)
	if t.stepHi > t.stepLo {
		step = tickStep(t.stepLo, t.stepHi)
	}
	format := tickFormat(step, math.Max(math.Abs(lo), math.Abs(hi)))
	if t.bounded {
		hi = math.Min(hi, t.top)
	}
	var ticks []plot.Tick
	// The ends roundRange gives are multiples of step up to rounding
	// (3 × 0.2 = 0.6000000000000001): they keep their ticks and labels.
	for k := math.Ceil(lo/step*2 - 1e-9); k <= math.Floor(hi/step*2+1e-9); k++ {
		v := k * step / 2
		if math.Abs(v) < step*1e-9 {
			v = 0 // not -0 or 1e-17
		}
		t := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			t.Label = format(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// tickStep is the smallest round step whose multiples in [lo, hi] are
// at most seven, or a coarser one of which lo and hi are both multiples
// and that still labels three: a prior U(0.5, 1.5) is then labelled 0.5,
// 1.0 and 1.5 at its ends, where the step 0.2 labelled 0.6 to 1.4 and
// roundRange widened the axis to 0.4 and 1.6, past the prior.
func tickStep(lo, hi float64) float64 {
	labels := func(step float64) float64 { return math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1 }
	step := roundStep((hi - lo) / 7)
	for labels(step) > 7 {
		step = roundStep(step * 1.5) // the next round step
	}
	for s := step; labels(s) >= 3; s = roundStep(s * 1.5) {
		if multipleOf(lo, s) && multipleOf(hi, s) {
			return s
		}
	}
	return step
}

// multipleOf is whether v is a multiple of step, up to rounding (3 × 0.2
// is 0.6000000000000001).
func multipleOf(v, step float64) bool {
	return math.Abs(v/step-math.Round(v/step)) < 1e-9
}

// roundStep is the smallest of 1, 2 and 5 × 10^k at least x (x > 0).
func roundStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// tickFormat prints labels at multiples of step on an axis reaching
// magnitude big: as many decimals as the step needs, or, beyond a
// million or for a step below 1e-4, in exponent form with as many
// significant digits as the step needs at big's magnitude (at least
// three), so that neighbours always differ: a sweep's metric from
// 0.02747 to 0.02763 has its labels 5e-5 apart, 0.0275, 0.02755 and
// 0.0276, which three digits made 0.0275, 0.0276 and 0.0276.
func tickFormat(step, big float64) func(float64) string {
	if big >= 1e6 || step < 1e-4 {
		digits := int(math.Floor(math.Log10(big)+1e-9)) - int(math.Floor(math.Log10(step)+1e-9)) + 1
		digits = max(3, min(digits, 17))
		return func(v float64) string { return strconv.FormatFloat(v, 'g', digits, 64) }
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	return func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
}

// rankTicks label an SBC panel's rank axis, from 0 to end (the draws
// plus one, where the last bar ends), at integers: at the multiples of
// the smallest divisor of end that gives at most seven labels (0, 11,
// 22, 33 for 32 draws), so that the axis ends at its last bar and at a
// label, where niceTicks, labelling 0 to 30, had it rounded on to 40;
// failing a divisor that labels three, at the multiples of a round step
// (tickStep) up to half a step short of end, and at end.
type rankTicks struct{ end int }

// Ticks implements plot.Ticker.
func (t rankTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, tk := range rankTickMarks(t.end) {
		if tk.Value >= lo && tk.Value <= hi {
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// rankTickMarks are rankTicks' ticks from 0 to end, unlabelled ones
// halfway between labels an even step apart; none for an end below 1.
func rankTickMarks(end int) []plot.Tick {
	if end < 1 {
		return nil
	}
	label := func(v int) plot.Tick { return plot.Tick{Value: float64(v), Label: strconv.Itoa(v)} }
	var ticks []plot.Tick
	if step := rankStep(end); step > 0 {
		for v := 0; v <= end; v += step {
			ticks = append(ticks, label(v))
			if step%2 == 0 && v < end {
				ticks = append(ticks, plot.Tick{Value: float64(v + step/2)})
			}
		}
		return ticks
	}
	step := max(1, int(math.Round(tickStep(0, float64(end)))))
	for v := 0; 2*v < 2*end-step; v += step {
		ticks = append(ticks, label(v))
	}
	return append(ticks, label(end))
}

// rankStep is the smallest divisor of end (end ≥ 1) whose multiples up
// to end are at most seven and at least three; 0 if none is.
func rankStep(end int) int {
	for d := 1; 2*d <= end; d++ {
		if end%d == 0 && end/d <= 6 {
			return d
		}
	}
	return 0
}
