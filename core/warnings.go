package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"apic/sims"
)

// Misspecification alarms: cheap checks, after amortized inference, that
// the observations look like what the model was trained on. The model
// cannot say "I don't know" by itself — an out-of-distribution context
// still yields a confident-looking θ̂ — so these heuristics flag the cases
// where its answer deserves suspicion.
const (
	// boundFrac is how close θ̂ may come to a prior bound, as a share of
	// the prior's width, before it is flagged: g_φ squashes θ̂ into the
	// prior, so data generated outside it piles up at the edges.
	boundFrac = 0.02
	// valueSlack widens the training value range on each side, as a
	// share of its width, before an observed value counts as far outside.
	valueSlack = 0.25
	// rangeDraws is the number of prior draws the training value range
	// is estimated from, with a fixed seed.
	rangeDraws = 256
	rangeSeed  = 0x617069632d726e67
)

// AtPriorBound reports whether θ̂ = th lies within boundFrac of par's
// prior width from one of its bounds, where θ's map flattens: the data
// pin its logit down loosely, and refinement's prior on the logit in its
// logit form pulls θ̂ toward the interior (logitPriorWidth).
func AtPriorBound(par sims.Param, th float64) bool {
	w := par.Hi - par.Lo
	return th <= par.Lo+boundFrac*w || th >= par.Hi-boundFrac*w
}

// Warnings returns the misspecification alarms for a calibration of the
// context ctx (with side information side) whose prediction is p, in a
// fixed order, as sentences for people; nil when nothing looks wrong:
//
//   - a parameter estimate θ̂_i within 2% of the prior width of a bound
//     (whose interval the bounded map squeezes);
//   - a parameter whose deviation is nearly its prior's own (NearPrior:
//     the model claims to know it little better than the prior does);
//   - a parameter without an interval away from its bounds (deviation 0:
//     a cnp's one pass without a recalibrated floor);
//   - the closure at its clip for most samples (Prediction.Clipped);
//   - observations outside the grid's domain;
//   - observed values no real system can take (sims.PhysicalBounder);
//   - observed values far outside the range seen in training (the range
//     over prior draws, widened by a quarter of its width on each side);
//   - a corrected prediction far larger or smaller than the nominal
//     against their ratio over prior draws (sizeWarnings);
//   - fewer (or more) context points than the model's training range
//     (RangeWarnings);
//   - an estimated noise σ̂ above the training range even at the lower
//     end of its 95% interval (noiseWarnings);
//   - a context the prediction does not fit: many observations, or one
//     or two far ones, outside its observation band (misfitWarnings);
//   - a refined band widened to at least twice its own by the fit's
//     move from the one pass (moveWarnings);
//   - a context bunched in a narrow slice of a state dimension, all at
//     one time say (spanWarnings);
//   - a channel without observations (unobservedWarnings);
//   - side information outside its plausible range (sims.SideInfo);
//   - a two-channel initial state whose swap fits the earliest
//     observations far better (lv's --u0 with predator first);
//   - observations at the first time that contradict the initial state
//     the side information fixes (lv's t = 0 row against --u0).
func Warnings(m *Model, ctx sims.Context, side []float64, p Prediction) []string {
	sys := m.Sys
	var out []string
	atBound := make([]bool, len(sys.Params()))
	for i, par := range sys.Params() {
		if i >= len(p.Theta) {
			break
		}
		th := p.Theta[i]
		if !AtPriorBound(par, th) {
			continue
		}
		// θ's map flattens toward the bounds: an estimate there is the
		// least reliable, whether θ is there or the data are unlike
		// the training population's.
		side, bound := "upper", par.Hi
		if th-par.Lo < par.Hi-th {
			side, bound = "lower", par.Lo
		}
		out = append(out, fmt.Sprintf("%s = %.4g lies within 2%% of its prior's width from the %s bound %g: %s may lie that near it, or the data outside what the model was trained on; "+
			"an estimate there is the least reliable and is pulled toward the interior, so its interval, where it has one, reaches the bound (eval's 'θ at a bound' counts how many such intervals hold θ)", par.Name, th, side, bound, par.Name))
		atBound[i] = true
	}
	for i, par := range sys.Params() {
		if i < len(p.ThetaStd) && NearPrior(par, p.ThetaStd[i]) {
			out = append(out, fmt.Sprintf("%s's std %.3g is at least %g of its prior's own (%.3g): the model claims to know %s little better than the prior does, however close its estimate", par.Name, p.ThetaStd[i], priorShare, priorStd(par), par.Name))
		}
		if i < len(p.ThetaStd) && p.ThetaStd[i] == 0 && !atBound[i] {
			out = append(out, fmt.Sprintf("%s has no interval (std 0): the model gives it no spread (a cnp's one pass without a recalibrated floor; apic train --init FILE --steps1 0 --steps2 0 --recalibrate 64 --out FILE fits one)", par.Name))
		}
	}
	if p.Clipped {
		c := m.Closure()
		out = append(out, fmt.Sprintf("the %s closure sits at its clip for most samples (%s): the discrepancy may be larger than the model can represent", c.Name(), c.Doc()))
	}
	out = append(out, observationWarnings(sys, ctx, ": check the data; the model fits them anyway")...)
	out = append(out, sizeWarnings(sys, ctx, p)...)
	out = append(out, m.RangeWarnings(ctx.Len(), math.NaN())...)
	out = append(out, m.noiseWarnings(p, ctx)...)
	out = append(out, m.misfitWarnings(p, ctx)...)
	out = append(out, moveWarnings(p)...)
	out = append(out, spanWarnings(sys.Grid(), ctx)...)
	out = append(out, unobservedWarnings(sys.Grid(), ctx)...)
	out = append(out, sideWarnings(sys.Side(), side)...)
	return append(out, sideOrderWarnings(sys, ctx, side)...)
}

// TrainingRange is the range of conditions a model saw in training:
// the context sizes of its batches and the largest context noise σ;
// and the context sizes its spread was recalibrated at, CalibratedLo to
// CalibratedHi (0 to 0 without a table over conditions): outside the
// training sizes but within those, the intervals were fitted for the
// size, though the estimates they surround are rougher.
type TrainingRange struct {
	ContextLo, ContextHi       int
	NoiseHi                    float64
	CalibratedLo, CalibratedHi int
}

// TrainingRange returns the conditions m was trained on: the context
// sizes Train.ContextMin–ContextMax (else the system's TrainContext) and
// the largest noise, Train.NoiseMax of a noise-aware model, else
// Train.Noise. Every "outside the training range" check reads it here.
func (m *Model) TrainingRange() TrainingRange {
	t := m.Config.Train
	lo, hi := t.contextRange(m.Sys)
	r := TrainingRange{ContextLo: lo, ContextHi: hi, NoiseHi: math.Max(t.Noise, t.NoiseMax)}
	r.CalibratedLo, r.CalibratedHi = m.calibratedContexts()
	return r
}

// calibratedContexts is the range of context sizes that both spreads of
// m (refined and one pass, where it has both) were recalibrated at, or
// 0, 0 where either has no table over conditions.
func (m *Model) calibratedContexts() (lo, hi int) {
	in := m.Config.Infer
	lo, hi = contextSpan(in.SpreadFit.Conditions)
	if in.OnePass == nil {
		return lo, hi
	}
	olo, ohi := contextSpan(in.OnePass.Conditions)
	if olo == 0 || lo == 0 {
		return 0, 0
	}
	return max(lo, olo), min(hi, ohi)
}

// contextSpan is the smallest and largest context size of a condition
// table, 0, 0 for none.
func contextSpan(cs []ConditionScale) (lo, hi int) {
	for _, c := range cs {
		if lo == 0 || c.Context < lo {
			lo = c.Context
		}
		hi = max(hi, c.Context)
	}
	return lo, hi
}

// Calibrated reports whether context size n lies within the sizes the
// spread was recalibrated at.
func (r TrainingRange) Calibrated(n int) bool {
	return r.CalibratedLo > 0 && n >= r.CalibratedLo && n <= r.CalibratedHi
}

// RangeWarnings are the warnings for predicting from contexts of
// contextSize points with observation noise σ = noise (NaN: unknown, as
// for a user's data) outside m's TrainingRange, as sentences for people;
// nil inside it. Outside the training sizes the estimates are rougher
// (below: the model never saw so little information) or extrapolated
// (above); the intervals are calibrated there only where recalibration
// fitted them at that size (TrainingRange.Calibrated). eval, compare,
// calibrate and the explorer all show these.
func (m *Model) RangeWarnings(contextSize int, noise float64) []string {
	r := m.TrainingRange()
	var out []string
	switch {
	case contextSize < r.ContextLo && r.Calibrated(contextSize):
		out = append(out, fmt.Sprintf("only %s; the model was trained on %d to %d: its intervals were recalibrated for contexts down to %d, but θ and the discrepancy are rougher than inside the range", Count(contextSize, "context point"), r.ContextLo, r.ContextHi, r.CalibratedLo))
	case contextSize < r.ContextLo:
		out = append(out, fmt.Sprintf("only %s; the model was trained on %d to %d, so θ and the discrepancy are less certain than it reports", Count(contextSize, "context point"), r.ContextLo, r.ContextHi))
	case contextSize > r.ContextHi && r.Calibrated(contextSize):
		out = append(out, fmt.Sprintf("%d context points, more than the %d to %d the model was trained on: its intervals were recalibrated for contexts up to %d, but its estimates are an extrapolation", contextSize, r.ContextLo, r.ContextHi, r.CalibratedHi))
	case contextSize > r.ContextHi:
		out = append(out, fmt.Sprintf("%d context points, more than the %d to %d the model was trained on: its uncertainty is an extrapolation", contextSize, r.ContextLo, r.ContextHi))
	}
	if noise > r.NoiseHi*(1+1e-9) {
		seen := fmt.Sprintf("at most σ = %g", r.NoiseHi)
		if r.NoiseHi == 0 {
			seen = "noise-free contexts only"
		}
		out = append(out, fmt.Sprintf("noise σ = %g is more than the model was trained on (%s): its intervals do not account for the extra noise", noise, seen))
	}
	return out
}

// noiseWarnings warns, per channel, where the context's estimated noise
// σ̂ is above the model's training range even at the lower end of its
// 95% interval (NoiseInterval): a user's data do not say their noise
// level, so RangeWarnings cannot, and intervals fitted on noise up to
// the range's top are then too narrow. A model trained on noise-free
// contexts only gets none: its σ̂ on clean data is its own misfit, above
// 0 however clean the data.
func (m *Model) noiseWarnings(p Prediction, ctx sims.Context) []string {
	r := m.TrainingRange()
	if r.NoiseHi == 0 {
		return nil
	}
	lo, hi := NoiseInterval(p, ctx)
	channels := m.Sys.Grid().Channels
	var out []string
	for ch, l := range lo {
		if !(l > r.NoiseHi*(1+1e-9)) || ch >= len(channels) {
			continue
		}
		// σ̂ holds the model's misfit with the noise: a poorly trained
		// model raises it on clean data, so the warning names both causes.
		out = append(out, fmt.Sprintf("the %s noise σ̂ = %.3g (95%% interval [%.3g, %.3g]) is more than the model was trained on (at most σ = %g): the data are noisier than that, or the model fits them poorly (σ̂ counts its misfit too); its intervals do not account for the excess", channels[ch], p.NoiseStd[ch], l, hi[ch], r.NoiseHi))
	}
	return out
}

// DataWarnings returns the alarms of Warnings that look at the
// observations and side information alone (domain, physical bounds,
// training value range, side information range, observations at t = 0
// against the initial state the side information fixes), for when there is no
// prediction to look at: the model failed on them.
func DataWarnings(sys sims.System, ctx sims.Context, side []float64) []string {
	out := observationWarnings(sys, ctx, "")
	out = append(out, sideWarnings(sys.Side(), side)...)
	return append(out, sideOrderWarnings(sys, ctx, side)...)
}

// observationWarnings are the alarms on the observed states and values:
// outside the domain, physically impossible (each ending in
// physicalTail), far outside the training range.
func observationWarnings(sys sims.System, ctx sims.Context, physicalTail string) []string {
	var out []string
	if n := outsideDomain(sys.Grid(), ctx); n > 0 {
		out = append(out, fmt.Sprintf("%d of %d observations lie outside the domain %s", n, ctx.Len(), domainText(sys.Grid())))
	}
	out = append(out, physicalWarnings(sys, ctx, physicalTail)...)
	return append(out, valueWarnings(sys, ctx)...)
}

// minSpan is the share of the domain along each state dimension that a
// context of spanLeast or more observations should cover before its
// span is not called narrow: thirty observations within a microsecond
// of one time gave lv's α at its prior bound with a tiny σ̂.
const (
	minSpan   = 0.05
	spanLeast = 3
)

// spanWarnings flags a context of spanLeast or more observations that
// covers less than minSpan of the domain along some state dimension
// (all at one time, say): it says little about how the system evolves
// there, and the estimates lean on the prior and the model's training.
func spanWarnings(g sims.Grid, ctx sims.Context) []string {
	if ctx.Len() < spanLeast {
		return nil
	}
	var out []string
	for d := range g.Lo {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, st := range ctx.States {
			if d < len(st) {
				lo, hi = math.Min(lo, st[d]), math.Max(hi, st[d])
			}
		}
		w := g.Hi[d] - g.Lo[d]
		if !(w > 0) || hi-lo >= minSpan*w {
			continue
		}
		out = append(out, fmt.Sprintf("the %d observations span only %s ∈ [%.6g, %.6g] of its domain [%g, %g]: they say little about the rest, and the estimates lean on the prior",
			ctx.Len(), stateName(g, d), lo, hi, g.Lo[d], g.Hi[d]))
	}
	return out
}

// unobservedWarnings flags each channel without a single observation
// (lv's predator left out of the file): the model was trained on
// contexts that observe every channel, so its prediction there, and
// that channel's band, come from the other channels and the model
// alone, uncalibrated.
func unobservedWarnings(g sims.Grid, ctx sims.Context) []string {
	if len(g.Channels) < 2 || ctx.Len() == 0 {
		return nil
	}
	var out []string
	for c, name := range g.Channels {
		seen := false
		for _, m := range ctx.Mask {
			seen = seen || c < len(m) && m[c]
		}
		if !seen {
			out = append(out, fmt.Sprintf("no %s observations: the %s prediction and its band come from the other channels and the model alone, which trained with every channel observed; they are not calibrated", name, name))
		}
	}
	return out
}

// initialFrac is how far, as a share of the channel's training value
// range, an observation at the first time may lie from the state the
// side information fixes there before it is flagged (observation noise
// stays well inside).
const initialFrac = 0.1

// initialWarnings flags observations at the grid's first time that
// contradict the side information, where that fixes the state there (an
// initial condition: lv's u0 = (x0, y0), advdiff's u0(x)), which is known
// when the nominal and true processes agree at that time for two
// different θ. Only observations on grid points are compared.
func initialWarnings(sys sims.System, ctx sims.Context, side []float64) []string {
	g := sys.Grid()
	if len(side) == 0 || len(g.Lo) == 0 || len(side) != sys.Side().Len {
		return nil
	}
	params := sys.Params()
	thA, thB := make([]float64, len(params)), make([]float64, len(params))
	for i, p := range params {
		thA[i], thB[i] = p.Lo+0.25*(p.Hi-p.Lo), p.Lo+0.75*(p.Hi-p.Lo)
	}
	ref := sys.Nominal(thA, side)
	runs := [][]float64{sys.Nominal(thB, side), sys.True(thA, side), sys.True(thB, side)}
	nc := len(g.Channels)
	first := func(gi int) bool { return gi >= 0 && gi < g.Points() && g.States[gi][0] == g.Lo[0] }
	for gi := range g.Points() {
		if !first(gi) {
			continue
		}
		for c := range nc {
			v := ref[gi*nc+c]
			for _, r := range runs {
				if len(r) != len(ref) || math.Abs(r[gi*nc+c]-v) > 1e-9*max(1, math.Abs(v)) {
					return nil // θ moves the first time's state: no initial condition
				}
			}
		}
	}
	lo, hi := TrainingValueRange(sys)
	var out []string
	for c, name := range g.Channels {
		tol := initialFrac * (hi[c] - lo[c])
		off, observed, worst := 0, 0, -1
		for i, gi := range ctx.GridIndex {
			if !first(gi) || c >= len(ctx.Mask[i]) || !ctx.Mask[i][c] {
				continue
			}
			observed++
			if !(math.Abs(ctx.Values[i][c]-ref[gi*nc+c]) <= tol) {
				off++
				if worst < 0 || math.Abs(ctx.Values[i][c]-ref[gi*nc+c]) > math.Abs(ctx.Values[worst][c]-ref[ctx.GridIndex[worst]*nc+c]) {
					worst = i
				}
			}
		}
		if off > 0 {
			st := ctx.States[worst]
			out = append(out, fmt.Sprintf("%d of %d %s observations at %s = %g contradict the side information %s, which fixes the state there (e.g. %s = %.4g at %s, where %s gives %.4g): check %s and the data",
				off, observed, name, stateName(g, 0), g.Lo[0], sys.Side().Name, name, ctx.Values[worst][c], stateText(g, st), sys.Side().Name, ref[ctx.GridIndex[worst]*nc+c], sys.Side().Name))
		}
	}
	return out
}

// stateName is the name of state dimension d ("t").
func stateName(g sims.Grid, d int) string {
	if d < len(g.StateNames) {
		return g.StateNames[d]
	}
	return fmt.Sprintf("s%d", d)
}

// outsideDomain counts observations with a state outside [Lo, Hi].
func outsideDomain(g sims.Grid, ctx sims.Context) int {
	n := 0
	for _, st := range ctx.States {
		for d, v := range st {
			if d < len(g.Lo) && d < len(g.Hi) && !(v >= g.Lo[d] && v <= g.Hi[d]) {
				n++
				break
			}
		}
	}
	return n
}

// domainText describes the domain as "t ∈ [0, 4], x ∈ [0, 1]".
func domainText(g sims.Grid) string {
	var parts []string
	for d, name := range g.StateNames {
		if d < len(g.Lo) && d < len(g.Hi) {
			parts = append(parts, fmt.Sprintf("%s ∈ [%g, %g]", name, g.Lo[d], g.Hi[d]))
		}
	}
	return strings.Join(parts, ", ")
}

// valueWarnings flags, per channel, observed values far outside the
// training value range.
func valueWarnings(sys sims.System, ctx sims.Context) []string {
	lo, hi := TrainingValueRange(sys)
	g := sys.Grid()
	var out []string
	for c, name := range g.Channels {
		w := hi[c] - lo[c]
		far, observed, worst := outsideRange(ctx, c, lo[c]-valueSlack*w, hi[c]+valueSlack*w)
		if far == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%d of %d %s observations lie far outside the range seen in training [%.3g, %.3g] (e.g. %s = %.4g at %s)",
			far, observed, name, lo[c], hi[c], name, ctx.Values[worst][c], stateText(g, ctx.States[worst])))
	}
	return out
}

// outsideRange counts channel c's observed values outside [a, b] (NaN
// included) among all observed, and gives the index of the farthest
// (-1 when none is outside).
func outsideRange(ctx sims.Context, c int, a, b float64) (outside, observed, worst int) {
	worst = -1
	worstDist := 0.0
	for i := range ctx.States {
		if c >= len(ctx.Mask[i]) || !ctx.Mask[i][c] {
			continue
		}
		observed++
		dist := max(a-ctx.Values[i][c], ctx.Values[i][c]-b)
		if !(dist <= 0) { // NaN counts as outside
			outside++
			if worst < 0 || dist > worstDist || math.IsNaN(dist) {
				worst, worstDist = i, dist
			}
		}
	}
	return outside, observed, worst
}

// physicalWarnings flags observed values outside the channels' physical
// bounds, for systems that declare them; tail ends each sentence.
func physicalWarnings(sys sims.System, ctx sims.Context, tail string) []string {
	pb, ok := sys.(sims.PhysicalBounder)
	if !ok {
		return nil
	}
	lo, hi := pb.ChannelBounds()
	g := sys.Grid()
	var out []string
	for c, name := range g.Channels {
		bad, observed, worst := outsideRange(ctx, c, lo[c], hi[c])
		if bad > 0 {
			out = append(out, fmt.Sprintf("%d of %d %s observations are physically impossible, %s (e.g. %s = %.4g at %s)%s",
				bad, observed, name, boundsText(lo[c], hi[c]), name, ctx.Values[worst][c], stateText(g, ctx.States[worst]), tail))
		}
	}
	return out
}

// boundsText says where values outside [lo, hi] lie: "below 0" for
// populations, bounded on one side only, rather than "outside [0, +Inf]".
func boundsText(lo, hi float64) string {
	switch {
	case math.IsInf(hi, 1) && !math.IsInf(lo, -1):
		return fmt.Sprintf("below %g", lo)
	case math.IsInf(lo, -1) && !math.IsInf(hi, 1):
		return fmt.Sprintf("above %g", hi)
	}
	return fmt.Sprintf("outside [%g, %g]", lo, hi)
}

// stateText formats a state as "t = 1.5, x = 0.25".
func stateText(g sims.Grid, st []float64) string {
	parts := make([]string, len(st))
	for d, v := range st {
		parts[d] = fmt.Sprintf("%s = %.4g", stateName(g, d), v)
	}
	return strings.Join(parts, ", ")
}

// sideWarnings flags side information outside the system's plausible
// range: labelled entries one by one, a field as a count.
func sideWarnings(si sims.SideInfo, side []float64) []string {
	if si.Len == 0 || !(si.Lo < si.Hi) {
		return nil
	}
	var out []string
	outside := 0
	for i, v := range side {
		if v >= si.Lo && v <= si.Hi {
			continue
		}
		outside++
		if si.Labels != nil && i < len(si.Labels) {
			out = append(out, fmt.Sprintf("%s %s = %.4g is outside the range seen in training [%g, %g]", si.Name, si.Labels[i], v, si.Lo, si.Hi))
		}
	}
	if si.Labels == nil && outside > 0 {
		out = append(out, fmt.Sprintf("%d of %d %s values are outside the range seen in training [%g, %g]", outside, len(side), si.Name, si.Lo, si.Hi))
	}
	return out
}

// valueRange is a per-channel range of values.
type valueRange struct{ lo, hi []float64 }

// trainingRanges are a system's per-channel ranges over prior draws: of
// the values (nominal and true processes) and of the size ratio
// ‖G‖/‖F‖ (sizeRatios).
type trainingRanges struct{ values, ratio valueRange }

var (
	valueRangeMu    sync.Mutex
	valueRangeCache = map[string]trainingRanges{}
)

// TrainingValueRange estimates, per channel, the range of values the
// model sees in training: the minimum and maximum over the nominal and
// true processes of a fixed set of prior draws (the same set every call;
// the result is cached per system name). Callers must not modify the
// returned slices.
func TrainingValueRange(sys sims.System) (lo, hi []float64) {
	r := priorRanges(sys)
	return r.values.lo, r.values.hi
}

// TrainingSizeRatio is, per channel, the range over the same prior draws
// of the true process's size against the nominal's, ‖G‖/‖F‖ over the
// grid (sizeRatios).
func TrainingSizeRatio(sys sims.System) (lo, hi []float64) {
	r := priorRanges(sys)
	return r.ratio.lo, r.ratio.hi
}

// priorRanges computes (once per system name) the ranges of
// TrainingValueRange and TrainingSizeRatio.
func priorRanges(sys sims.System) trainingRanges {
	valueRangeMu.Lock()
	defer valueRangeMu.Unlock()
	if r, ok := valueRangeCache[sys.Name()]; ok {
		return r
	}
	nc := len(sys.Grid().Channels)
	vals, ratio := emptyRange(nc), emptyRange(nc)
	rng := rand.New(rand.NewPCG(rangeSeed, 0))
	for range rangeDraws {
		r := sims.Draw(sys, rng)
		vals.include(r.Nominal, nc)
		vals.include(r.True, nc)
		ratio.include(sizeRatios(r.True, r.Nominal, nc), nc)
	}
	vals.openIfEmpty()
	ratio.openIfEmpty()
	out := trainingRanges{values: vals, ratio: ratio}
	valueRangeCache[sys.Name()] = out
	return out
}

// emptyRange is a range of nc channels holding no value yet.
func emptyRange(nc int) valueRange {
	r := valueRange{lo: make([]float64, nc), hi: make([]float64, nc)}
	for c := range r.lo {
		r.lo[c], r.hi[c] = math.Inf(1), math.Inf(-1)
	}
	return r
}

// include widens r to the finite values of a grid-major vector of nc
// channels.
func (r valueRange) include(vals []float64, nc int) {
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		c := i % nc
		r.lo[c], r.hi[c] = min(r.lo[c], v), max(r.hi[c], v)
	}
}

// openIfEmpty makes a channel with no finite value unbounded: flag
// nothing there.
func (r valueRange) openIfEmpty() {
	for c := range r.lo {
		if r.lo[c] > r.hi[c] {
			r.lo[c], r.hi[c] = math.Inf(-1), math.Inf(1)
		}
	}
}

// SaneFactor is how far beyond the training data's magnitude an input
// value may lie before it is refused outright rather than warned about:
// the same rule on every system, derived from its simulator. A value a
// thousand times larger than anything the model was trained on is a
// wrong unit, a wrong column or a typo (1e308), and the model's answer
// on it is meaningless (it diverges, or returns θ with no spread and
// plots with 300-digit axes).
const SaneFactor = 1000

// SaneValueBound is, per channel of sys, the largest |value| an
// observation may have: SaneFactor times the largest magnitude in the
// training value range (TrainingValueRange). +Inf where the range says
// nothing (no finite training value, or only zeros).
func SaneValueBound(sys sims.System) []float64 {
	lo, hi := TrainingValueRange(sys)
	bound := make([]float64, len(lo))
	for c := range bound {
		scale := max(math.Abs(lo[c]), math.Abs(hi[c]))
		bound[c] = math.Inf(1)
		if scale > 0 && !math.IsInf(scale, 0) {
			bound[c] = SaneFactor * scale
		}
	}
	return bound
}

// SaneParamBound is the largest |θ| parameter p may be given (simulate
// --theta), by the rule of SaneValueBound: SaneFactor times the largest
// magnitude of its prior; +Inf where the prior is no interval.
func SaneParamBound(p sims.Param) float64 {
	return SaneSideBound(sims.SideInfo{Lo: p.Lo, Hi: p.Hi})
}

// SaneSideBound is the largest |value| side information may have, by
// the rule of SaneValueBound: SaneFactor times the largest magnitude of
// its plausible range; +Inf where the system declares no range.
func SaneSideBound(si sims.SideInfo) float64 {
	scale := max(math.Abs(si.Lo), math.Abs(si.Hi))
	if !(si.Lo < si.Hi) || scale == 0 || math.IsInf(scale, 0) {
		return math.Inf(1)
	}
	return SaneFactor * scale
}
