package nets

import (
	"fmt"
	"math"
)

// log2Pi is log(2π).
var log2Pi = math.Log(2 * math.Pi)

// GaussianLogProb returns the element-wise Gaussian log-density
//
//	log N(y; μ, e^s) = −½ (log 2π + s + (y − μ)² e^−s),
//
// where s = logVar. y, mu and logVar have the same shape; y is usually a
// Const. The gradients are
//
//	dμ = (y − μ) e^−s,  dy = −dμ,  ds = −½ (1 − (y − μ)² e^−s).
func (tp *Tape) GaussianLogProb(y, mu, logVar *Var) *Var {
	if !y.Value.SameShape(mu.Value) || !y.Value.SameShape(logVar.Value) {
		panic(fmt.Sprintf("nets: GaussianLogProb shapes y %s, mu %s, logVar %s",
			y.Value.Shape(), mu.Value.Shape(), logVar.Value.Shape()))
	}
	yd, md, sd := y.Value.Data, mu.Value.Data, logVar.Value.Data
	n := len(yd)
	md, sd = md[:n], sd[:n]
	out := tp.like(y.Value)
	od := out.Data[:n]
	for i, yv := range yd {
		r := yv - md[i]
		od[i] = -0.5 * (log2Pi + sd[i] + r*r*math.Exp(-sd[i]))
	}
	return tp.record(out, func(o *Var) {
		g := o.Grad.Data[:n]
		var gy, gm, gs []float64
		if y.needsGrad {
			gy = y.grad().Data[:n]
		}
		if mu.needsGrad {
			gm = mu.grad().Data[:n]
		}
		if logVar.needsGrad {
			gs = logVar.grad().Data[:n]
		}
		for i, yv := range yd {
			iv := math.Exp(-sd[i])
			r := yv - md[i]
			dm := g[i] * r * iv
			if gm != nil {
				gm[i] += dm
			}
			if gy != nil {
				gy[i] -= dm
			}
			if gs != nil {
				gs[i] -= 0.5 * g[i] * (1 - r*r*iv)
			}
		}
	}, y, mu, logVar)
}

// KLStdNormal returns, for each row of the [R, C] vars mu and logVar, the
// divergence of the diagonal Gaussian from the standard normal, giving
// [R, 1]:
//
//	KL(N(μ, diag e^s) ‖ N(0, I)) = ½ Σ_j (e^{s_j} + μ_j² − 1 − s_j),
//
// with dμ_j = dKL·μ_j and ds_j = ½ dKL (e^{s_j} − 1).
func (tp *Tape) KLStdNormal(mu, logVar *Var) *Var {
	if !mu.Value.SameShape(logVar.Value) {
		panic(fmt.Sprintf("nets: KLStdNormal shapes mu %s, logVar %s", mu.Value.Shape(), logVar.Value.Shape()))
	}
	r, c := mu.Value.Rows, mu.Value.Cols
	md, sd := mu.Value.Data, logVar.Value.Data
	y := tp.Alloc(r, 1)
	for i := range r {
		t := 0.0
		for j := i * c; j < (i+1)*c; j++ {
			t += math.Exp(sd[j]) + md[j]*md[j] - 1 - sd[j]
		}
		y.Data[i] = 0.5 * t
	}
	return tp.record(y, func(out *Var) {
		g := out.Grad.Data
		if mu.needsGrad {
			gm := mu.grad().Data
			for i := range r {
				for j := i * c; j < (i+1)*c; j++ {
					gm[j] += g[i] * md[j]
				}
			}
		}
		if logVar.needsGrad {
			gs := logVar.grad().Data
			for i := range r {
				for j := i * c; j < (i+1)*c; j++ {
					gs[j] += 0.5 * g[i] * math.Expm1(sd[j])
				}
			}
		}
	}, mu, logVar)
}

// Softmax returns the softmax of each row of a:
//
//	y_ij = e^{a_ij − m_i} / Σ_k e^{a_ik − m_i},  m_i = max_k a_ik,
//
// (the shift by the row maximum prevents overflow) with the gradient
// dA_ij = y_ij (dY_ij − Σ_k dY_ik y_ik).
func (tp *Tape) Softmax(a *Var) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	y := tp.like(a.Value)
	copy(y.Data, a.Value.Data)
	softmaxRows(y)
	return tp.record(y, func(out *Var) {
		ga := a.grad().Data
		for i := range r {
			g := out.Grad.Data[i*c : (i+1)*c]
			yr := y.Data[i*c : (i+1)*c]
			gr := ga[i*c : (i+1)*c]
			dot := 0.0
			for j, v := range g {
				dot += v * yr[j]
			}
			for j, v := range g {
				gr[j] += yr[j] * (v - dot)
			}
		}
	}, a)
}
