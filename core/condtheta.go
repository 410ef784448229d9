package core

import (
	"cmp"
	"math"
	"slices"

	"apic/sims"
)

// cellSample is one condition cell's validation realizations as
// RecalibrateConditions predicted them: raw, before any table scale
// or prior weight.
type cellSample struct {
	tasks []sims.Task
	preds []Prediction
	// reads holds the table cells each prediction reads and their
	// weights (cellWeights at its context and σ̂): they depend only on
	// the cells' positions, which the fit leaves alone.
	reads [][]cellWeight
}

// thetaAsRead is the j-th prediction of d with θ as predictions report
// it from the table cells: applyThetaTable at the cells it reads, on
// copies of its θ and deviations.
func (d cellSample) thetaAsRead(cells []ConditionScale, j int, params []sims.Param) Prediction {
	p := d.preds[j]
	p.Theta, p.ThetaStd = slices.Clone(p.Theta), slices.Clone(p.ThetaStd)
	_, _, scale, rho, _ := cellRead(cells, d.reads[j])
	applyThetaTable(params, &p, scale, rho)
	return p
}

// thetaScaleSweeps bounds how many times fitThetaScalesAsRead revisits
// every cell; the scales usually settle within a few sweeps.
const thetaScaleSweeps = 50

// noiseAxisGap is the least ratio of two cells' median σ̂ for σ̂ to tell
// their conditions apart. Below it (at one or two points σ̂ is the
// learned noise at every noise level) the cells share one θ scale and
// prior weight, fitted on their realizations together: apart, the
// interpolation between nearly equal σ̂ would make their fits
// ill-posed.
const noiseAxisGap = 1.5

// fitThetaScalesAsRead refits each cell's θ scale so that θ's intervals
// cover the share level of the cell's validation parameters as
// predictions read them: a prediction does not take its cell's scale
// but interpolates the table at its own σ̂ (cellWeights). Fitting each
// cell on its own realizations at one scale assumes every one of them
// reads that cell alone. At noise 0 that is far off: σ̂ there measures
// the model's misfit, spread over decades, and the realizations with
// the largest misfit (the largest θ errors) read part of the noisier
// cell's smaller scale, so the intervals undercover (on advdiff/cnp at
// 128 points, 0.84–0.88 of θ with cells fitted alone at 0.965:
// `apic eval --system advdiff --backbone cnp --context 128 --tasks 200
// --seed 11` to 14, on the tables before this fit).
//
// A realization's log scale is Σ_k w_k log s_k, linear in the log scale
// s_G of the group G of cells that share one (noiseAxisGap), so, the
// other cells held, the share covered is a step function of log s_G and
// the smallest log s_G reaching level is an order statistic of the
// parameters' thresholds
//
//	log s_G ≥ (log(|θ̂' − θ| / 1.96 σ') − Σ_{k∉G} w_k log s_k) / Σ_{k∈G} w_k,
//
// where θ̂' and σ' carry the interpolated prior weight (shrinkTheta).
// Sweeps over the groups settle the coupled fits (the scales are order
// statistics, so they stop moving, or the sweeps stop at
// thetaScaleSweeps). Scales stay within
// [1/64, 4096], as thetaScaleAt's. It fills data's reads.
func fitThetaScalesAsRead(cells []ConditionScale, data []cellSample, params []sims.Param, level float64) {
	for i := range data {
		data[i].reads = make([][]cellWeight, len(data[i].preds))
		for j, p := range data[i].preds {
			data[i].reads[j] = cellWeights(cells, cells[i].Context, contextNoiseStd(p.NoiseStd))
		}
	}
	groups := noiseGroups(cells)
	for _, g := range groups {
		if len(g) > 1 {
			poolPriorWeight(cells, g, data, params)
		}
	}
	for range thetaScaleSweeps {
		moved := false
		for _, g := range groups {
			s, ok := thetaScaleAsRead(cells, g, data, params, level)
			if !ok || s == cells[g[0]].Theta {
				continue
			}
			moved = true
			for _, i := range g {
				cells[i].Theta = s
			}
		}
		if !moved {
			return
		}
	}
}

// noiseGroups partitions the cells into groups of one context size
// whose median σ̂ are chained within noiseAxisGap of each other.
func noiseGroups(cells []ConditionScale) [][]int {
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cells[a].Context - cells[b].Context; c != 0 {
			return c
		}
		return cmp.Compare(cells[a].NoiseStd, cells[b].NoiseStd)
	})
	var groups [][]int
	for k, i := range order {
		if k > 0 {
			prev := cells[order[k-1]]
			if prev.Context == cells[i].Context && cells[i].NoiseStd <= noiseAxisGap*prev.NoiseStd {
				groups[len(groups)-1] = append(groups[len(groups)-1], i)
				continue
			}
		}
		groups = append(groups, []int{i})
	}
	return groups
}

// poolPriorWeight gives the cells of group g one prior weight, fitted on
// their realizations together (thetaPriorWeight).
func poolPriorWeight(cells []ConditionScale, g []int, data []cellSample, params []sims.Param) {
	var tasks []sims.Task
	var preds []Prediction
	for _, i := range g {
		tasks, preds = append(tasks, data[i].tasks...), append(preds, data[i].preds...)
	}
	rho := thetaPriorWeight(params, tasks, preds)
	for _, i := range g {
		cells[i].ThetaPrior = rho
	}
}

// thetaScaleAsRead is one group's step of fitThetaScalesAsRead; ok is
// false when no parameter of the group depends on its scale.
func thetaScaleAsRead(cells []ConditionScale, g []int, data []cellSample, params []sims.Param, level float64) (float64, bool) {
	var thresholds []float64 // log s_G at which a parameter is covered
	fixed, total := 0, 0     // parameters covered whatever s_G, all parameters
	for _, i := range g {
		for j, task := range data[i].tasks {
			p := data[i].preds[j]
			rho, rest, wg := readCells(cells, g, data[i].reads[j])
			for q, th := range task.Real.Theta {
				if q >= len(p.ThetaStd) || math.IsNaN(p.Theta[q]) || p.ThetaStd[q] <= 0 {
					continue
				}
				total++
				mu, ps := priorMean(params[q]), priorStd(params[q])
				sd := math.Hypot(p.ThetaStd[q], rho*ps)
				est := (1-rho)*p.Theta[q] + rho*mu
				e := math.Abs(est - th)
				switch {
				case reachesTruth(params[q], est, e):
					fixed++
				case e > 1.96*ps: // beyond the prior's interval, the cap
				case wg < 1e-9:
					if e <= 1.96*sd*math.Exp(rest) {
						fixed++
					}
				default:
					thresholds = append(thresholds, (math.Log(e/(1.96*sd))-rest)/wg)
				}
			}
		}
	}
	if len(thresholds) == 0 {
		return 0, false
	}
	slices.Sort(thresholds)
	need := int(math.Ceil(level*float64(total))) - fixed
	k := max(0, min(len(thresholds)-1, need-1))
	// A hair above the threshold, so that rounding in the reading
	// (exp of a weighted sum of logarithms) keeps that parameter in.
	return math.Max(1.0/64, math.Min(4096, math.Exp(thresholds[k]+1e-9))), true
}

// reachesTruth reports whether the interval of an estimate est of par
// covers a truth e away from it at any scale: reachBound widens the
// interval of an estimate at a prior bound to reach that bound, the
// nearer one, so it holds every truth within that distance, whatever
// the table's scale. Fitting the scale on them as well would widen every
// other interval for estimates that are covered already (advdiff's θ
// covered 0.993 of the test parameters in two cells of its grids).
func reachesTruth(par sims.Param, est, e float64) bool {
	if !thetaReachBound || !AtPriorBound(par, est) {
		return false
	}
	return e <= max(0, min(est-par.Lo, par.Hi-est))
}

// readCells is what a prediction reading the table's cells with weights
// ws takes from it: its prior weight ρ, the part of its log θ scale from
// cells outside group g, and the weight of g's cells.
func readCells(cells []ConditionScale, g []int, ws []cellWeight) (rho, rest, wg float64) {
	for _, w := range ws {
		rho += w.w * cells[w.cell].ThetaPrior
		if slices.Contains(g, w.cell) {
			wg += w.w
		} else {
			rest += w.w * math.Log(cells[w.cell].Theta)
		}
	}
	return rho, rest, wg
}
