package core

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"apic/sims"
)

// A two-entry initial state given in the wrong order (lv's --u0 with
// predator before prey) is an easy slip that nothing else catches: both
// values lie in the training range, and the calibration fits the data
// anyway, badly, with only a large noise σ̂ to show for it. The
// earliest observations tell the two orders apart: the trajectories
// from one start near them, those from the other do not.

const (
	// swapWindow is the share of the time domain, from its start, whose
	// observations (at most swapMost of the earliest) are compared;
	// later, the truth's forcing, which the nominal trajectories lack,
	// moves the data away from either order's.
	swapWindow = 0.1
	swapMost   = 5
	// swapRatio is how many times nearer the swapped order's nearest
	// trajectory must lie to the earliest observations (RMS) than the
	// given order's before the given order is called swapped, and
	// swapFloor the largest noise σ lv trains on, which sets how far
	// the given order's must lie at least (swapFloorFor), so that noise
	// is not taken for a swap. TestSwappedSideWarningsOnDraws checks
	// both on prior draws.
	//
	// swapRatio is read off the distribution of that ratio on
	// simulate's realizations, noise 0 to swapFloor, 10 to 100
	// observations, u0 in the right order and swapped: on the right
	// order past the floor it stays under 2.5 but for two realizations
	// in 1000, whose truth drifts onto the swapped order's trajectories
	// within two early rows (3.8 and more: no ratio short of 9 spares
	// them), so 3 keeps a margin above the rest and catches more
	// swaps than 4. `go test ./core -run TestSwapRatesOnSimulateSeeds
	// -v -args -swapseeds 1000` prints the rates at 2 to 4 over seeds
	// 0..999; at 3: 6 false alarms in 18008 data sets with early
	// observations (0.03%; 5 at 4), and 1424 misses (18%; 26% at 4) in
	// the 7908 whose prey and predator differ by a third of their
	// range or more. Entries nearer each other than the noise and the
	// truth's forcing are missed at any ratio.
	swapRatio = 3
	swapFloor = 0.1
	// swapDraws is how many θ the trajectories compared are run at.
	swapDraws = 128
)

// sideOrderWarnings are the warnings on side information against the
// observations that fix it: a swapped initial state
// (swappedSideWarnings) and observations at the first time that
// contradict it (initialWarnings). Where the state is called swapped
// and those observations, which contradict the order given, agree with
// its swap, the swap explains them: one warning says both, in place of
// one more per channel.
func sideOrderWarnings(sys sims.System, ctx sims.Context, side []float64) []string {
	swap, initial := swappedSideWarnings(sys, ctx, side), initialWarnings(sys, ctx, side)
	if len(swap) == 0 || len(initial) == 0 || len(initialWarnings(sys, ctx, []float64{side[1], side[0]})) > 0 {
		return append(swap, initial...)
	}
	g := sys.Grid()
	return []string{fmt.Sprintf("%s; the observations at %s = %g match the swapped order too", swap[0], stateName(g, 0), g.Lo[0])}
}

// swappedSideWarnings flags side information that is a two-channel
// initial state whose swap fits the earliest observations far better
// than the order given: it names both orders and which entry is which
// channel, and changes nothing.
func swappedSideWarnings(sys sims.System, ctx sims.Context, side []float64) []string {
	si, g := sys.Side(), sys.Grid()
	if !swapApplies(sys, side) {
		return nil
	}
	early := earliestObservations(g, ctx)
	if len(early) == 0 {
		return nil
	}
	swapped := []float64{side[1], side[0]}
	given, other := nearestTrajectory(g, ctx, early, nominalFamily(sys, side)), nearestTrajectory(g, ctx, early, nominalFamily(sys, swapped))
	if !looksSwapped(given, other, observedValues(ctx, early), swapRatio) {
		return nil
	}
	last := ctx.States[early[len(early)-1]][0]
	order := func(u []float64) string {
		return fmt.Sprintf("%s %s = %.4g, %s %s = %.4g", g.Channels[0], si.Labels[0], u[0], g.Channels[1], si.Labels[1], u[1])
	}
	which := fmt.Sprintf("the %d earliest observations (%s ≤ %.4g) lie", len(early), stateName(g, 0), last)
	if len(early) == 1 {
		which = fmt.Sprintf("the earliest observation (%s = %.4g) lies", stateName(g, 0), last)
	}
	return []string{fmt.Sprintf("%s = %.4g,%.4g looks swapped: %s %.2g (RMS) from the nearest nominal trajectory from the order given (%s), "+
		"but %.2g from one from the swapped order (%s): check that %s gives %s first (%s,%s)",
		si.Name, side[0], side[1], which, given, order(side), other, order(swapped), si.Name, g.Channels[0], si.Labels[0], si.Labels[1])}
}

// looksSwapped is the rule on the RMS distances of n early observed
// values from the given order's nearest trajectory and the swapped
// order's: the given order's beyond what noise explains, and ratio
// (swapRatio; tests try others) times the swapped order's.
func looksSwapped(given, other float64, n int, ratio float64) bool {
	return given > swapFloorFor(n) && other*ratio < given
}

// swapChi2 are the 99.9% quantiles of the χ² distribution with 1 and
// 2 degrees of freedom, from the standard tables: one for each count of
// early values below swapFewValues.
var swapChi2 = []float64{10.828, 13.816}

// swapFewValues is the fewest observed early values that the bare
// swapFloor judges. Fewer, the swapped order's swapDraws trajectories
// match them by chance (one early prey value within 0.001 of the swapped
// order's nearest, 0.11 from the right order's, on a correct u0), so
// the given order's must lie farther than noise of σ = swapFloor puts n
// values with chance 0.001 (RMS σ·√(χ²₀.₉₉₉(n)/n): 3.3σ for one value).
const swapFewValues = 3

// swapFloorFor is how far (RMS) n observed early values must lie from
// the given order's nearest trajectory before it can be called swapped.
func swapFloorFor(n int) float64 {
	switch {
	case n < 1:
		return math.Inf(1)
	case n < swapFewValues:
		return swapFloor * math.Sqrt(swapChi2[n-1]/float64(n))
	}
	return swapFloor
}

// observedValues counts the observed channel values of ctx's rows
// early.
func observedValues(ctx sims.Context, early []int) int {
	n := 0
	for _, i := range early {
		for c := range min(2, len(ctx.Mask[i])) {
			if ctx.Mask[i][c] {
				n++
			}
		}
	}
	return n
}

// swapApplies reports whether side is a system's initial state of two
// channels, entry by entry (the nominal trajectory starts at side
// whatever θ), on a grid of time alone, with the two entries distinct.
func swapApplies(sys sims.System, side []float64) bool {
	si, g := sys.Side(), sys.Grid()
	if si.Len != 2 || len(side) != 2 || len(si.Labels) != 2 || len(g.Channels) != 2 || len(g.StateNames) != 1 || g.Points() == 0 || side[0] == side[1] {
		return false
	}
	if g.States[0][0] != g.Lo[0] {
		return false
	}
	for _, th := range swapThetas(sys.Params())[:2] {
		f := sys.Nominal(th, side)
		if len(f) != g.Size() {
			return false
		}
		for c := range 2 {
			if math.Abs(f[c]-side[c]) > 1e-9*max(1, math.Abs(side[c])) {
				return false
			}
		}
	}
	return true
}

// earliestObservations are the indices into ctx of its earliest
// observations, at most swapMost, within swapWindow of the time
// domain's start, in time order.
func earliestObservations(g sims.Grid, ctx sims.Context) []int {
	end := g.Lo[0] + swapWindow*(g.Hi[0]-g.Lo[0])
	var early []int
	for i, st := range ctx.States {
		if len(st) > 0 && st[0] <= end {
			early = append(early, i)
		}
	}
	slices.SortStableFunc(early, func(a, b int) int { return cmp.Compare(ctx.States[a][0], ctx.States[b][0]) })
	return early[:min(len(early), swapMost)]
}

// nominalFamily are the nominal trajectories from side at the θ of
// swapThetas.
func nominalFamily(sys sims.System, side []float64) [][]float64 {
	thetas := swapThetas(sys.Params())
	family := make([][]float64, len(thetas))
	for k, th := range thetas {
		family[k] = sys.Nominal(th, side)
	}
	return family
}

// nearestTrajectory is the least RMS distance, over the trajectories of
// family, between the early observations of ctx and a trajectory,
// interpolated linearly in time between g's points.
func nearestTrajectory(g sims.Grid, ctx sims.Context, early []int, family [][]float64) float64 {
	best := math.Inf(1)
	for _, f := range family {
		sum, n := 0.0, 0
		for _, i := range early {
			for c := range 2 {
				if c < len(ctx.Mask[i]) && ctx.Mask[i][c] {
					d := ctx.Values[i][c] - interpolateInTime(g, f, ctx.States[i][0], c)
					sum, n = sum+d*d, n+1
				}
			}
		}
		if n > 0 {
			best = math.Min(best, math.Sqrt(sum/float64(n)))
		}
	}
	return best
}

// swapThetas are the parameter vectors the trajectories are run at:
// swapDraws points of a Halton sequence spread over the prior's box,
// the same every call (no randomness in a warning).
func swapThetas(params []sims.Param) [][]float64 {
	out := make([][]float64, swapDraws)
	for k := range out {
		th := make([]float64, len(params))
		for i, p := range params {
			th[i] = p.Lo + halton(k+1, haltonBases[i%len(haltonBases)])*(p.Hi-p.Lo)
		}
		out[k] = th
	}
	return out
}

// haltonBases are the first primes, one base per parameter.
var haltonBases = []int{2, 3, 5, 7, 11, 13, 17, 19}

// halton is the k-th element of the van der Corput sequence in base b,
// in (0, 1).
func halton(k, b int) float64 {
	v, f := 0.0, 1.0
	for ; k > 0; k /= b {
		f /= float64(b)
		v += f * float64(k%b)
	}
	return v
}

// interpolateInTime is channel c of the grid values f (point-major) at
// time t, linearly between the grid points around it; g's points are
// times in increasing order.
func interpolateInTime(g sims.Grid, f []float64, t float64, c int) float64 {
	nc, n := len(g.Channels), g.Points()
	k := 0
	for k+1 < n-1 && g.States[k+1][0] <= t {
		k++
	}
	if n == 1 {
		return f[c]
	}
	t0, t1 := g.States[k][0], g.States[k+1][0]
	w := math.Min(1, math.Max(0, (t-t0)/(t1-t0)))
	return (1-w)*f[k*nc+c] + w*f[(k+1)*nc+c]
}
