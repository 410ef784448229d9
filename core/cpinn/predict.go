package cpinn

import (
	"math"

	"apic/core"
)

// predict collapses the ensemble to core.Prediction: the members' mean
// and variance of û and of δ̂_m = û_m − F(x; θ_m), each variance plus the
// members' mean context misfit; θ̂ and its spread across members; the
// nominal at θ̂.
func (c *Calibrator) predict(f *Fit, side []float64) core.Prediction {
	size := c.Sys.Grid().Size()
	M := float64(len(f.Members))
	P := len(c.Sys.Params())
	pred := core.Prediction{
		Mean: make([]float64, size), Std: make([]float64, size),
		DeltaMean: make([]float64, size), DeltaStd: make([]float64, size),
		Theta: make([]float64, P), ThetaStd: make([]float64, P),
	}
	floor := 0.0
	deltas := make([][]float64, len(f.Members))
	for m, mb := range f.Members {
		floor += mb.Misfit / M
		for i, th := range mb.Theta {
			pred.Theta[i] += th / M
		}
		nom := c.Sys.Nominal(mb.Theta, side)
		deltas[m] = make([]float64, size)
		for i, u := range mb.Mean {
			deltas[m][i] = u - nom[i]
			pred.Mean[i] += u / M
			pred.DeltaMean[i] += deltas[m][i] / M
		}
	}
	for m, mb := range f.Members {
		for i, th := range mb.Theta {
			d := th - pred.Theta[i]
			pred.ThetaStd[i] += d * d / M
		}
		for i, u := range mb.Mean {
			du, dd := u-pred.Mean[i], deltas[m][i]-pred.DeltaMean[i]
			pred.Std[i] += du * du / M
			pred.DeltaStd[i] += dd * dd / M
		}
	}
	for i := range pred.ThetaStd {
		pred.ThetaStd[i] = math.Sqrt(pred.ThetaStd[i])
	}
	for i := range size {
		pred.Std[i] = math.Sqrt(pred.Std[i] + floor)
		pred.DeltaStd[i] = math.Sqrt(pred.DeltaStd[i] + floor)
	}
	pred.Nominal = c.Sys.Nominal(pred.Theta, side)
	return pred
}

var _ core.Method = (*Calibrator)(nil)
