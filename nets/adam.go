package nets

import "math"

// Adam is the Adam optimizer (Kingma & Ba, 2015) with optional global
// gradient-norm clipping and decoupled weight decay (AdamW). At step t,
// with the gradient g (after clipping),
//
//	m ← β1 m + (1−β1) g,   v ← β2 v + (1−β2) g²,
//	θ ← θ − LR (m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε) − LR·WeightDecay·θ.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	// ClipNorm, when positive, rescales the gradients so that their global
	// L2 norm is at most ClipNorm before the moments are updated.
	ClipNorm float64
	// WeightDecay is the decoupled (AdamW) decay rate; 0 disables it.
	WeightDecay float64

	steps int
	state map[*Param]*adamMoments
}

// adamMoments holds the running first and second moments of one parameter.
type adamMoments struct{ m, v []float64 }

// NewAdam returns Adam with learning rate lr, β1 = 0.9, β2 = 0.999,
// ε = 1e-8, no clipping and no weight decay.
func NewAdam(lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Steps returns the number of updates taken.
func (a *Adam) Steps() int { return a.steps }

// Step updates every parameter of ps that has a gradient and returns the
// global gradient norm before clipping. When that norm is not finite the
// parameters and moments are left untouched (one bad batch must not poison
// the model) and the step is not counted; the caller sees the NaN or Inf.
func (a *Adam) Step(ps *Params) (gradNorm float64) {
	gradNorm = ps.GradNorm()
	if math.IsNaN(gradNorm) || math.IsInf(gradNorm, 0) {
		return gradNorm
	}
	scale := 1.0
	if a.ClipNorm > 0 && gradNorm > a.ClipNorm {
		scale = a.ClipNorm / gradNorm
	}
	if a.state == nil {
		a.state = make(map[*Param]*adamMoments)
	}
	a.steps++
	t := float64(a.steps)
	b1, b2 := a.Beta1, a.Beta2
	// Fold the bias corrections into the step size and ε:
	// m̂/(√v̂+ε) = (m/c1) / (√v/√c2 + ε).
	c1 := 1 - math.Pow(b1, t)
	invSqrtC2 := 1 / math.Sqrt(1-math.Pow(b2, t))
	step := a.LR / c1
	decay := 1 - a.LR*a.WeightDecay
	for _, p := range ps.List() {
		if p.Grad == nil {
			continue
		}
		st := a.state[p]
		if st == nil || len(st.m) != p.Value.Len() {
			st = &adamMoments{m: make([]float64, p.Value.Len()), v: make([]float64, p.Value.Len())}
			a.state[p] = st
		}
		theta := p.Value.Data
		g := p.Grad.Data[:len(theta)]
		m, v := st.m[:len(theta)], st.v[:len(theta)]
		for i := range theta {
			gi := g[i] * scale
			mi := b1*m[i] + (1-b1)*gi
			vi := b2*v[i] + (1-b2)*gi*gi
			m[i], v[i] = mi, vi
			theta[i] = theta[i]*decay - step*mi/(math.Sqrt(vi)*invSqrtC2+a.Eps)
		}
	}
	return gradNorm
}
