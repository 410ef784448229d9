package bcpi

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"apic/core"
)

// predict mixes the Gaussian conditionals of u + δ on the grid over
// opt.Draws kept draws, evenly spaced: per draw, with k_* the
// covariance of u(x_*) + δ(x_*) with the observations,
//
//	mean_d = k_*ᵀ K⁻¹ r,   var_d = α² + α_δ² − k_*ᵀ K⁻¹ k_* + σ_u²,
//
// and the mixture's mean and variance. θ̂ is the posterior mean; the
// discrepancy's mean is the corrected mean minus F(x; θ̂)
// (BENCHMARKS.md), its variance the mixture's over the draws of
// mean_d − F(x; θ_d) with var_d.
func (c *Calibrator) predict(ctx context.Context, f *Fit, side []float64) (core.Prediction, error) {
	g := c.Sys.Grid()
	G := g.Size() // values on the grid, all channels
	m := f.model
	opt := c.Opt.withDefaults(m.dims)
	draws := min(opt.Draws, len(f.Chain))
	p := core.Prediction{
		Mean: make([]float64, G), Std: make([]float64, G),
		DeltaMean: make([]float64, G), DeltaStd: make([]float64, G),
		Theta: append([]float64(nil), f.Theta...), ThetaStd: append([]float64(nil), f.ThetaSD...),
	}
	second := make([]float64, G)  // Σ (var_d + mean_d²)/draws
	dFirst := make([]float64, G)  // Σ δ_d/draws
	dSecond := make([]float64, G) // Σ (var_d + δ_d²)/draws
	used := 0
	for k := range draws {
		if err := ctx.Err(); err != nil {
			return core.Prediction{}, err
		}
		x := f.Chain[k*(len(f.Chain)-1)/max(1, draws-1)]
		fa, err := m.factorise(x)
		if err != nil {
			continue // a draw the factorisation refuses is left out
		}
		nom := c.Sys.Nominal(fa.h.theta, side)
		mean, variance := m.conditional(fa, g.States)
		if prior := m.priorMean(fa.h.theta); prior != nil {
			for i := range mean {
				mean[i] += prior[i]
			}
		}
		for i := range G {
			p.Mean[i] += mean[i]
			second[i] += variance[i] + mean[i]*mean[i]
			dl := mean[i] - nom[i]
			dFirst[i] += dl
			dSecond[i] += variance[i] + dl*dl
		}
		used++
	}
	if used == 0 {
		return core.Prediction{}, fmt.Errorf("%s: no kept draw could be factorised", Name)
	}
	p.Nominal = c.Sys.Nominal(p.Theta, side)
	n := float64(used)
	for i := range G {
		p.Mean[i] /= n
		p.Std[i] = math.Sqrt(math.Max(second[i]/n-p.Mean[i]*p.Mean[i], 0))
		p.DeltaMean[i] = p.Mean[i] - p.Nominal[i]
		dm := dFirst[i] / n
		p.DeltaStd[i] = math.Sqrt(math.Max(dSecond[i]/n-dm*dm, 0))
	}
	return p, nil
}

// conditional returns the mean and variance of w + δ + noise of every
// channel at states (layout as grid values) given the observations of
// fa.
func (m *model) conditional(fa *factor, states [][]float64) (mean, variance []float64) {
	n, S, C := len(fa.obs), len(states), m.channels
	cross := mat.NewDense(n, S*C, nil)
	for i, o := range fa.obs {
		for j, s := range states {
			for c := range C {
				v := opCovAll(fa.h.u, o.op, channelIdentity[c], o.state, s)
				if o.data && o.ch == c {
					v += fa.h.delta[c].opCov(identity, identity, o.state, s)
				}
				cross.Set(i, j*C+c, v)
			}
		}
	}
	mean = make([]float64, S*C)
	variance = make([]float64, S*C)
	var meanV mat.VecDense
	meanV.MulVec(cross.T(), fa.alpha)
	var L mat.TriDense
	fa.chol.LTo(&L)
	var w mat.Dense // L⁻¹ cross
	if err := w.Solve(&L, cross); err != nil {
		for j := range mean {
			mean[j], variance[j] = meanV.AtVec(j), math.Inf(1)
		}
		return mean, variance
	}
	for j, s := range states {
		for c := range C {
			col := j*C + c
			prior := fa.h.u[c].opCov(identity, identity, s, s) + fa.h.delta[c].opCov(identity, identity, s, s) + fa.h.noiseVariance[c]
			explained := 0.0
			for i := range n {
				v := w.At(i, col)
				explained += v * v
			}
			mean[col] = meanV.AtVec(col)
			variance[col] = math.Max(prior-explained, 0)
		}
	}
	return mean, variance
}

var _ core.Method = (*Calibrator)(nil)
