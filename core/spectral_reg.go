package core

import (
	"math"

	"apic/nets"
)

// spectralPenalty is the spectral-norm penalty of one weight matrix W,
//
//	R(W) = (σ_max(W) − 1)₊²,   ∂R/∂W = 2(σ_max − 1)₊ u vᵀ,
//
// with σ_max, u, v the leading singular triple found by power iteration.
// It keeps the discrepancy network's gain bounded so that it cannot
// dominate the physics contribution.
type spectralPenalty struct {
	u, v  []float64
	sigma float64
}

const spectralIters = 30

func (s *spectralPenalty) Forward(in []*nets.Tensor) *nets.Tensor {
	w := in[0]
	s.v = make([]float64, w.Cols)
	for j := range s.v {
		s.v[j] = 1 / math.Sqrt(float64(w.Cols))
	}
	s.u = make([]float64, w.Rows)
	for it := 0; it < spectralIters; it++ {
		// u = W v / ‖W v‖, v = Wᵀ u / ‖Wᵀ u‖
		for i := range s.u {
			row := w.Row(i)
			acc := 0.0
			for j, vj := range s.v {
				acc += row[j] * vj
			}
			s.u[i] = acc
		}
		normalize(s.u)
		clear(s.v)
		for i, ui := range s.u {
			row := w.Row(i)
			for j := range s.v {
				s.v[j] += row[j] * ui
			}
		}
		s.sigma = normalize(s.v)
	}
	excess := math.Max(0, s.sigma-1)
	return nets.Scalar(excess * excess)
}

func (s *spectralPenalty) Backward(in []*nets.Tensor, _, outGrad *nets.Tensor, grads []*nets.Tensor) {
	if grads[0] == nil {
		return
	}
	scale := outGrad.Data[0] * 2 * math.Max(0, s.sigma-1)
	if scale == 0 {
		return
	}
	g := grads[0]
	for i, ui := range s.u {
		row := g.Row(i)
		for j, vj := range s.v {
			row[j] += scale * ui * vj
		}
	}
}

// normalize scales x to unit length and returns its former norm.
func normalize(x []float64) float64 {
	n := 0.0
	for _, v := range x {
		n += v * v
	}
	n = math.Sqrt(n)
	if n == 0 {
		return 0
	}
	for i := range x {
		x[i] /= n
	}
	return n
}
