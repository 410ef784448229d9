package kohgp

import (
	"math"

	"apic/sims"
)

// Hyper are one channel's GP hyperparameters.
type Hyper struct {
	Kernel   RBF
	NoiseStd float64 // σ_n
}

// layout maps the unconstrained optimisation vector u to θ and the
// hyperparameters. θ stays inside its prior box through a scaled
// logistic, positive quantities are logs:
//
//	θ_p = lo_p + (hi_p − lo_p) σ(u_p),    p = 0..P−1,  σ(u) = 1/(1 + e^−u)
//	per channel c, from o = P + c(D+2):
//	σ_f,c = exp u_o,   ℓ_c,d = exp u_{o+1+d},   σ_n,c = exp u_{o+1+D}
type layout struct {
	lo, hi         []float64
	dims, channels int
}

func newLayout(params []sims.Param, dims, channels int) layout {
	l := layout{dims: dims, channels: channels}
	for _, p := range params {
		l.lo = append(l.lo, p.Lo)
		l.hi = append(l.hi, p.Hi)
	}
	return l
}

// nTheta is P, the number of physical parameters.
func (l layout) nTheta() int { return len(l.lo) }

// size is the length of u.
func (l layout) size() int { return len(l.lo) + l.channels*(l.dims+2) }

// off is the index of channel c's log σ_f in u.
func (l layout) off(c int) int { return len(l.lo) + c*(l.dims+2) }

// theta writes θ(u) into dst.
func (l layout) theta(dst, u []float64) {
	for p := range l.lo {
		dst[p] = l.lo[p] + (l.hi[p]-l.lo[p])*sigmoid(u[p])
	}
}

// thetaJac writes dθ_p/du_p = (hi_p − lo_p) σ(u_p)(1 − σ(u_p)) into dst.
func (l layout) thetaJac(dst, u []float64) {
	for p := range l.lo {
		s := sigmoid(u[p])
		dst[p] = (l.hi[p] - l.lo[p]) * s * (1 - s)
	}
}

// thetaU returns u_p = logit((θ_p − lo_p)/(hi_p − lo_p)) for a θ strictly
// inside the box.
func (l layout) thetaU(p int, theta float64) float64 {
	q := (theta - l.lo[p]) / (l.hi[p] - l.lo[p])
	return math.Log(q / (1 - q))
}

// hyper reads channel c's hyperparameters from u.
func (l layout) hyper(u []float64, c int) Hyper {
	o := l.off(c)
	h := Hyper{Kernel: RBF{Std: math.Exp(u[o]), Scales: make([]float64, l.dims)}, NoiseStd: math.Exp(u[o+1+l.dims])}
	for d := range h.Kernel.Scales {
		h.Kernel.Scales[d] = math.Exp(u[o+1+d])
	}
	return h
}

// sigmoid is the logistic function, stable for large |u|.
func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}
