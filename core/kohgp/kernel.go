package kohgp

import "math"

// RBF is the anisotropic squared-exponential (ARD) kernel of the
// discrepancy GP,
//
//	k(x, x') = σ_f² exp(−½ Σ_d (x_d − x'_d)² / ℓ_d²),
//
// whose derivatives with respect to the log hyperparameters are
//
//	∂k/∂log σ_f = 2 k,   ∂k/∂log ℓ_d = k · (x_d − x'_d)² / ℓ_d².
type RBF struct {
	Std    float64   // σ_f, the signal standard deviation
	Scales []float64 // ℓ_d, one lengthscale per state dimension
}

// At evaluates k(x, y).
func (k RBF) At(x, y []float64) float64 {
	return k.Std * k.Std * corr(x, y, k.Scales)
}

// corr is the unit-amplitude kernel exp(−½ Σ_d (x_d − y_d)² / ℓ_d²).
func corr(x, y, scales []float64) float64 {
	s := 0.0
	for d, l := range scales {
		u := (x[d] - y[d]) / l
		s += u * u
	}
	return math.Exp(-0.5 * s)
}

// sqDists returns, per state dimension d, the n×n row-major matrix of
// squared differences (x_i,d − x_j,d)² of the points xs. They do not
// depend on the hyperparameters, so the objective computes them once.
func sqDists(xs [][]float64) [][]float64 {
	n := len(xs)
	if n == 0 {
		return nil
	}
	out := make([][]float64, len(xs[0]))
	for d := range out {
		m := make([]float64, n*n)
		for i := range n {
			for j := range n {
				u := xs[i][d] - xs[j][d]
				m[i*n+j] = u * u
			}
		}
		out[d] = m
	}
	return out
}

// corrUpper fills the upper triangle (diagonal included) of the n×n
// row-major matrix dst with R_ij = exp(−½ Σ_d D_d,ij / ℓ_d²) from the
// squared distances of sqDists. The lower triangle is left untouched.
func corrUpper(dst []float64, n int, dists [][]float64, scales []float64) {
	var inv [8]float64 // 1/ℓ_d², on the stack for the usual 1 or 2 dims
	w := inv[:0]
	if len(scales) > len(inv) {
		w = make([]float64, 0, len(scales))
	}
	for _, l := range scales {
		w = append(w, 1/(l*l))
	}
	for i := range n {
		dst[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			s := 0.0
			for d, dd := range dists {
				s += dd[i*n+j] * w[d]
			}
			dst[i*n+j] = math.Exp(-0.5 * s)
		}
	}
}
