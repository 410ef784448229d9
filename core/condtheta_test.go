package core

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"apic/sims"
)

// asReadCoverage is the share of a cell's θ intervals that cover θ when
// each prediction reads the table at its own σ̂, as predictions do.
func asReadCoverage(cells []ConditionScale, d cellSample, params []sims.Param) float64 {
	in, all := 0, 0
	for j, task := range d.tasks {
		p := d.preds[j]
		_, _, s, rho, _ := cellAt(cells, task.Context.Len(), contextNoiseStd(p.NoiseStd))
		for q, th := range task.Real.Theta {
			sd := math.Min(s*math.Hypot(p.ThetaStd[q], rho*priorStd(params[q])), priorStd(params[q]))
			est := (1-rho)*p.Theta[q] + rho*priorMean(params[q])
			if math.Abs(est-th) <= 1.96*sd {
				in++
			}
			all++
		}
	}
	return float64(in) / float64(all)
}

// misfitCells builds a row of two cells, as at noise 0 and 0.01: in the
// first, σ̂ (and refinement's θ deviation, proportional to it) spreads
// over two decades and θ's error grows faster than σ̂ (model misfit:
// the realizations the model fits worst are off the most, in units of
// their deviation); in the second, the error is 1.5 deviations, as
// with noise.
func misfitCells(rng *rand.Rand, n int) ([]ConditionScale, []cellSample) {
	cells := []ConditionScale{{Context: 10, Noise: 0, Recon: 1, Delta: 1}, {Context: 10, Noise: 0.01, Recon: 1, Delta: 1}}
	data := make([]cellSample, 2)
	for i := range cells {
		var sig []float64
		for range n {
			s := 0.01 * (0.5 + rng.Float64())
			err := 1.5 * s * rng.NormFloat64()
			if i == 0 {
				s = math.Pow(10, -4+2*rng.Float64())
				err = s * (s / 1e-3) * rng.NormFloat64()
			}
			mask := make([][]bool, 10)
			for k := range mask {
				mask[k] = []bool{true}
			}
			task := sims.Task{Real: sims.Realization{Theta: []float64{0.5}}, Context: sims.Context{Mask: mask}}
			data[i].tasks = append(data[i].tasks, task)
			data[i].preds = append(data[i].preds, Prediction{Theta: []float64{0.5 + err}, ThetaStd: []float64{s}, NoiseStd: []float64{s}})
			sig = append(sig, s)
		}
		slices.Sort(sig)
		cells[i].NoiseStd = sig[n/2]
		cells[i].Theta = thetaScaleAt(data[i].tasks, data[i].preds, 0.95)
	}
	return cells, data
}

func TestThetaScalesAsReadCoverTheirCells(t *testing.T) {
	params := []sims.Param{{Name: "a", Lo: 0, Hi: 1}}
	cells, data := misfitCells(rand.New(rand.NewPCG(7, 1)), 400)
	if got := asReadCoverage(cells, data[0], params); got > 0.9 {
		t.Fatalf("cells fitted alone cover %.3f at noise 0 as read; the case should show the undercoverage", got)
	}
	fitThetaScalesAsRead(cells, data, params, 0.95)
	for i := range cells {
		got := asReadCoverage(cells, data[i], params)
		if got < 0.95 || got > 0.95+3.0/400 {
			t.Errorf("cell %d covers %.4f as read after the fit, want 0.95 to %.4f", i, got, 0.95+3.0/400)
		}
	}
	// Fresh draws of the same cells: the fit holds out of sample.
	_, fresh := misfitCells(rand.New(rand.NewPCG(8, 1)), 2000)
	for i := range cells {
		if got := asReadCoverage(cells, fresh[i], params); math.Abs(got-0.95) > 0.02 {
			t.Errorf("cell %d covers %.3f of fresh realizations, want 0.95 ± 0.02", i, got)
		}
	}
}

func TestNoiseGroupsJoinCellsSigmaCannotTellApart(t *testing.T) {
	cells := []ConditionScale{
		{Context: 1, NoiseStd: 0.0571}, {Context: 1, NoiseStd: 0.057}, {Context: 1, NoiseStd: 0.06}, {Context: 1, NoiseStd: 0.2},
		{Context: 5, NoiseStd: 0.001}, {Context: 5, NoiseStd: 0.01},
	}
	got := noiseGroups(cells)
	want := [][]int{{1, 0, 2}, {3}, {4}, {5}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for k := range want {
		if !slices.Equal(got[k], want[k]) {
			t.Errorf("groups %v, want %v", got, want)
		}
	}
}

// boundCells is one cell of n realizations, a tenth of them estimated
// within boundFrac of the prior's lower bound, with the truth between
// the estimate and the bound and a deviation far below the error (the
// bounded map's slope there is nearly 0); the rest interior, with
// errors of 1.5 deviations.
func boundCells(rng *rand.Rand, n int) ([]ConditionScale, []cellSample) {
	cells := []ConditionScale{{Context: 10, Noise: 0, NoiseStd: 0.01, Recon: 1, Delta: 1, Theta: 1}}
	data := make([]cellSample, 1)
	mask := make([][]bool, 10)
	for k := range mask {
		mask[k] = []bool{true}
	}
	for i := range n {
		th, est, s := 0.5, 0.0, 0.01
		if i%10 == 0 {
			th, est, s = 0.004*rng.Float64(), 0.006, 1e-4
		} else {
			est = th + 1.5*s*rng.NormFloat64()
		}
		data[0].tasks = append(data[0].tasks, sims.Task{Real: sims.Realization{Theta: []float64{th}}, Context: sims.Context{Mask: mask}})
		data[0].preds = append(data[0].preds, Prediction{Theta: []float64{est}, ThetaStd: []float64{s}, NoiseStd: []float64{0.01}})
	}
	return cells, data
}

// tableCoverage is the share of the cells' θ intervals that cover θ as
// predictions take them from the table (applyThetaTable: the cells'
// scale and prior weight, the prior's cap, reachBound).
func tableCoverage(cells []ConditionScale, data []cellSample, params []sims.Param) float64 {
	in, all := 0, 0
	for i := range data {
		for j, task := range data[i].tasks {
			p := data[i].thetaAsRead(cells, j, params)
			for q, th := range task.Real.Theta {
				if math.Abs(p.Theta[q]-th) <= 1.96*p.ThetaStd[q] {
					in++
				}
				all++
			}
		}
	}
	return float64(in) / float64(all)
}

// The θ scale fit counts the estimates whose intervals reach a prior
// bound, and hold the truth there at any scale, as covered, rather than
// widening every interval to cover them too: the cell then covers its
// level, where counting their errors made it cover every parameter.
func TestThetaScalesAsReadCountIntervalsAtABound(t *testing.T) {
	params := []sims.Param{{Name: "a", Lo: 0, Hi: 1}}
	cells, data := boundCells(rand.New(rand.NewPCG(3, 1)), 400)
	fitThetaScalesAsRead(cells, data, params, 0.95)
	if got := tableCoverage(cells, data, params); got < 0.95 || got > 0.95+3.0/400 {
		t.Errorf("the cell covers %.4f with its fitted scale %.3g, want 0.95 to %.4f", got, cells[0].Theta, 0.95+3.0/400)
	}
}
