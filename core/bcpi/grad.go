package bcpi

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"apic/sims"
)

// The gradient of the negative log marginal likelihood
// nlml = ½ rᵀK⁻¹r + ½ log|K| + const with respect to x:
//
//	∂nlml/∂x_j = αᵀ ∂r/∂x_j + ½ Σ_ik W_ik ∂K_ik/∂x_j,   W = K⁻¹ − ααᵀ,
//
// from one factorisation and one inverse. The hyperparameters' ∂K are
// analytic (one pass over the pairs of rows accumulates all of them);
// θ enters the operators' coefficients, the initial observations and the
// prior mean (for lv through an RK4 solution), so ∂K/∂x_p and ∂r/∂x_p
// are central differences of the covariance and of the residual, which
// cost a matrix build each and no factorisation.

// thetaStep is the central-difference step in θ's logits.
const thetaStep = 1e-5

// seDerivsScale writes g⁽ⁿ⁾(r) into dst and ℓ ∂g⁽ⁿ⁾/∂ℓ into dl for
// n = 0..len(dst)−1, summed over the images like seDerivs. From
// ∂g/∂ℓ = r² g/ℓ³ and Leibniz's rule,
//
//	ℓ ∂g⁽ⁿ⁾/∂ℓ = (r² g⁽ⁿ⁾ + 2n r g⁽ⁿ⁻¹⁾ + n(n−1) g⁽ⁿ⁻²⁾)/ℓ²,
//
// per image (r is the image's offset).
func seDerivsScale(dst, dl []float64, r, ell, period float64) {
	clear(dst)
	clear(dl)
	images := 0
	if period > 0 {
		images = 2
	}
	var one [maxOrder + 1]float64
	for m := -images; m <= images; m++ {
		ri := r + float64(m)*period
		z := ri / ell
		g := math.Exp(-z * z / 2)
		prev, cur, scale := 0.0, 1.0, 1.0
		for n := range dst {
			one[n] = scale * cur * g
			prev, cur = cur, z*cur-float64(n)*prev
			scale *= -1 / ell
		}
		for n := range dst {
			v := ri * ri * one[n]
			if n >= 1 {
				v += 2 * float64(n) * ri * one[n-1]
			}
			if n >= 2 {
				v += float64(n*(n-1)) * one[n-2]
			}
			dst[n] += one[n]
			dl[n] += v / (ell * ell)
		}
	}
}

// opCovGrad is opCov with its derivatives with respect to the log
// length scales (dl[d]); the derivative with respect to log α is twice
// the value.
func (k seKernel) opCovGrad(a, b []sims.OpTerm, p, q []float64) (v float64, dl [2]float64) {
	var bt, bx, bdt, bdx [maxOrder + 1]float64
	nt, nx := maxOrders(a, b)
	gt, dgt := k.derivs(0, nt, p[0]-q[0], &bt, &bdt)
	gx, dgx := &bx, &bdx
	if len(p) > 1 {
		gx, dgx = k.derivs(1, nx, p[1]-q[1], &bx, &bdx)
	} else {
		bx[0] = 1
	}
	for _, ta := range a {
		for _, tb := range b {
			c := ta.Coef * tb.Coef
			if (tb.T+tb.X)%2 == 1 {
				c = -c
			}
			it, ix := ta.T+tb.T, ta.X+tb.X
			v += c * gt[it] * gx[ix]
			dl[0] += c * dgt[it] * gx[ix]
			dl[1] += c * gt[it] * dgx[ix]
		}
	}
	return k.amp2 * v, [2]float64{k.amp2 * dl[0], k.amp2 * dl[1]}
}

// channelTerms returns the terms of op acting on channel c (in buf).
func channelTerms(buf []sims.OpTerm, op []sims.OpTerm, c int) []sims.OpTerm {
	n := 0
	for _, t := range op {
		if t.Ch == c && n < len(buf) {
			buf[n] = t
			n++
		}
	}
	return buf[:n]
}

// residual returns the observations' values as a vector.
func residual(obs []observation) *mat.VecDense {
	r := mat.NewVecDense(len(obs), nil)
	for i, o := range obs {
		r.SetVec(i, o.value)
	}
	return r
}

// nlmlGrad writes ∂nlml/∂x into grad at the factor f of x.
func (m *model) nlmlGrad(grad, x []float64, f *factor) error {
	n := len(f.obs)
	var inv mat.SymDense
	if err := f.chol.InverseTo(&inv); err != nil {
		return err
	}
	W := mat.NewSymDense(n, nil)
	for i := range n {
		ai := f.alpha.AtVec(i)
		for j := i; j < n; j++ {
			W.SetSym(i, j, inv.At(i, j)-ai*f.alpha.AtVec(j))
		}
	}
	clear(grad)
	m.hyperGrad(grad, f, W)
	return m.thetaGrad(grad, x, f, W)
}

// hyperGrad adds ½ Σ W_ik ∂K_ik/∂x_j for every hyperparameter j.
func (m *model) hyperGrad(grad []float64, f *factor, W *mat.SymDense) {
	P, D, C := m.nTheta(), m.dims, m.channels
	var ab, bb [8]sims.OpTerm
	for i, oi := range f.obs {
		for j := i; j < len(f.obs); j++ {
			oj := f.obs[j]
			w := 0.5 * W.At(i, j)
			if j != i {
				w *= 2
			}
			scale := 1.0
			if i == j && !oi.data {
				scale = 1 + m.jitter
			}
			w *= scale
			for c := range C {
				a, b := oi.op, oj.op
				if C > 1 {
					a, b = channelTerms(ab[:], oi.op, c), channelTerms(bb[:], oj.op, c)
					if len(a) == 0 || len(b) == 0 {
						continue
					}
				}
				o := P + c*m.perChannel()
				v, dl := f.h.u[c].opCovGrad(a, b, oi.state, oj.state)
				grad[o] += w * 2 * v
				for d := range D {
					grad[o+1+d] += w * dl[d]
				}
			}
			if oi.data && oj.data && oi.ch == oj.ch {
				c := oi.ch
				o := P + c*m.perChannel() + 1 + D
				v, dl := f.h.delta[c].opCovGrad(identity, identity, oi.state, oj.state)
				grad[o] += w * 2 * v
				for d := range D {
					grad[o+1+d] += w * dl[d]
				}
				if i == j {
					grad[o+1+D] += w * 2 * f.h.noiseVariance[c]
				}
			}
		}
	}
}

// thetaGrad adds αᵀ ∂r/∂x_p + ½ Σ W_ik ∂K_ik/∂x_p for θ's logits by
// central differences of the covariance and the residual.
func (m *model) thetaGrad(grad, x []float64, f *factor, W *mat.SymDense) error {
	n := len(f.obs)
	xs := append([]float64(nil), x...)
	for p := range m.nTheta() {
		var Ks [2]*mat.SymDense
		var rs [2]*mat.VecDense
		for s, sign := range []float64{1, -1} {
			xs[p] = x[p] + sign*thetaStep
			h := m.decode(xs)
			obs := m.observations(h.theta)
			Ks[s], rs[s] = m.covariance(h, obs), residual(obs)
		}
		xs[p] = x[p]
		g := 0.0
		w, kp, km := W.RawSymmetric(), Ks[0].RawSymmetric(), Ks[1].RawSymmetric()
		for i := range n {
			g += f.alpha.AtVec(i) * (rs[0].AtVec(i) - rs[1].AtVec(i))
			wi, pi, mi := w.Data[i*w.Stride:], kp.Data[i*kp.Stride:], km.Data[i*km.Stride:]
			g += 0.5 * wi[i] * (pi[i] - mi[i])
			for j := i + 1; j < n; j++ {
				g += wi[j] * (pi[j] - mi[j])
			}
		}
		grad[p] += g / (2 * thetaStep)
	}
	return nil
}

// negLogPostGrad returns negLogPost at x and writes its gradient into
// grad (NaN where K cannot be factorised, as the value is +Inf).
func (m *model) negLogPostGrad(grad, x []float64) float64 {
	v, f := m.negLogPostFactor(x)
	m.gradAt(grad, x, f)
	return v
}

// gradAt writes the gradient of negLogPost at x into grad from x's
// factor f (NaN everywhere when f is nil or cannot be inverted).
func (m *model) gradAt(grad, x []float64, f *factor) {
	if f == nil || m.nlmlGrad(grad, x, f) != nil {
		for i := range grad {
			grad[i] = math.NaN()
		}
		return
	}
	for p := range m.nTheta() {
		grad[p] -= 1 - 2*sigmoid(x[p]) // −∂/∂x log σ(x)(1 − σ(x))
	}
	for i, mu := range m.priorMu {
		grad[m.nTheta()+i] += (x[m.nTheta()+i] - mu) / (priorStd * priorStd)
	}
}
