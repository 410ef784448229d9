package kohgp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"apic/core"
)

// Predict returns the plug-in KOH posterior on the whole grid at the
// fitted θ̂ and hyperparameters. Per channel, with K = UᵀU the context
// covariance, α = K⁻¹ r and k_* = σ_f² R(x_*, X):
//
//	E[δ(x_*)]   = k_*ᵀ α,
//	Var[δ(x_*)] = σ_f² − ‖U⁻ᵀ k_*‖²,
//	mean        = F(x_*; θ̂) + E[δ(x_*)],
//	std² (both) = Var[δ(x_*)] + σ_n² + ν s²,
//
// the discrepancy carrying the observation noise like core.Prediction's
// DeltaStd. The fit's workspace is reused, so Predict must not run
// concurrently with other calls on the same Fit.
func (f *Fit) Predict() core.Prediction {
	o := f.obj
	o.value(f.u) // restore the optimum's factors, α and F(θ̂)
	g := o.sys.Grid()
	G, C := g.Points(), len(g.Channels)
	size := G * C
	p := core.Prediction{
		Mean: make([]float64, size), Std: make([]float64, size),
		DeltaMean: make([]float64, size), DeltaStd: make([]float64, size),
		Nominal:  append([]float64(nil), o.nominal()...),
		Theta:    append([]float64(nil), f.Theta...),
		ThetaStd: append([]float64(nil), f.ThetaStd...),
	}
	for _, ch := range o.chans {
		n := len(ch.y)
		h := ch.hyper
		sf2 := h.Kernel.Std * h.Kernel.Std
		// cross[i, g] = k(x_i, x_g); then overwritten by U⁻ᵀ cross.
		cross := mat.NewDense(n, G, nil)
		raw := cross.RawMatrix()
		alpha := ch.alpha
		mean := make([]float64, G)
		for i, xi := range ch.states {
			row := raw.Data[i*raw.Stride : i*raw.Stride+G]
			for gp, xg := range g.States {
				k := sf2 * corr(xi, xg, h.Kernel.Scales)
				row[gp] = k
				mean[gp] += k * alpha[i]
			}
		}
		blas64.Trsm(blas.Left, blas.Trans, 1, ch.chol, raw)
		explained := make([]float64, G) // ‖U⁻ᵀ k_*‖² per grid point
		for i := range n {
			for gp, v := range raw.Data[i*raw.Stride : i*raw.Stride+G] {
				explained[gp] += v * v
			}
		}
		noise := h.NoiseStd*h.NoiseStd + ch.floor
		for gp := range G {
			sd := math.Sqrt(max(0, sf2-explained[gp]) + noise)
			vi := gp*C + ch.c
			p.DeltaMean[vi] = mean[gp]
			p.DeltaStd[vi] = sd
			p.Mean[vi] = p.Nominal[vi] + mean[gp]
			p.Std[vi] = sd
		}
	}
	return p
}
