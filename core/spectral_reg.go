package core

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
)

// spectralPenalty is the spectral-norm penalty of one weight matrix W,
//
//	R(W) = (σ_max(W) − 1)₊²,   ∂R/∂W = 2(σ_max − 1)₊ u vᵀ,
//
// with σ_max, u, v the leading singular triple (an exact SVD).
// It keeps the discrepancy network's gain bounded so that it cannot
// dominate the physics contribution.
type spectralPenalty struct {
	u, v  []float64
	sigma float64
}

func (s *spectralPenalty) Forward(in []*nets.Tensor) *nets.Tensor {
	w := in[0]
	// An exact thin SVD: power iteration converges too slowly when the
	// top two singular values are close, as they often are at init.
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(w.Rows, w.Cols, w.Data), mat.SVDThin) {
		panic("core: spectral penalty: SVD did not converge")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s.sigma, s.u, s.v = svd.Values(nil)[0], mat.Col(nil, 0, &u), mat.Col(nil, 0, &v)
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
