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
// and the mixture's mean and variance, the mean of var_d plus the
// spread of mean_d about the mixture's mean (summed that way, not as a
// second moment less the squared mean, which cancels to zero when the
// spread is ten orders below the values). θ̂ is the posterior mean; the
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
	varSum := make([]float64, G) // Σ var_d
	var means, deltas [][]float64
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
		delta := make([]float64, G)
		for i := range G {
			varSum[i] += variance[i]
			delta[i] = mean[i] - nom[i]
		}
		means, deltas = append(means, mean), append(deltas, delta)
	}
	if len(means) == 0 {
		return core.Prediction{}, fmt.Errorf("%s: no kept draw could be factorised", Name)
	}
	p.Nominal = c.Sys.Nominal(p.Theta, side)
	n := float64(len(means))
	for i := range G {
		dm := 0.0
		for k := range means {
			p.Mean[i] += means[k][i] / n
			dm += deltas[k][i] / n
		}
		spread, dSpread := 0.0, 0.0
		for k := range means {
			a, b := means[k][i]-p.Mean[i], deltas[k][i]-dm
			spread += a * a / n
			dSpread += b * b / n
		}
		p.Std[i] = math.Sqrt(varSum[i]/n + spread)
		p.DeltaMean[i] = p.Mean[i] - p.Nominal[i]
		p.DeltaStd[i] = math.Sqrt(varSum[i]/n + dSpread)
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
			prior := fa.h.u[c].opCov(identity, identity, s, s) + fa.h.delta[c].opCov(identity, identity, s, s)
			explained := 0.0
			for i := range n {
				v := w.At(i, col)
				explained += v * v
			}
			mean[col] = meanV.AtVec(col)
			// The noise is independent of the rest: added after the
			// clamp, so the variance stays positive where the latent
			// part cancels to zero (a log-likelihood of NaN otherwise).
			variance[col] = math.Max(prior-explained, 0) + fa.h.noiseVariance[c]
		}
	}
	return mean, variance
}

var _ core.Method = (*Calibrator)(nil)
