package core

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
	"apic/sims"
)

// Exact refinement Jacobians. The residuals depend on v = (a, z_θ, z_δ)
// through f_ψ's input (z_θ, z_δ, s = sigmoid(a)) and through θ(a) in the
// closure. f_ψ has one output per query (every native closure), so one
// reverse pass through it gives ∂f_q/∂(z, s) at every query at once
// (nets.MLP.TiledInputGrad), and the closure's tangent
// (sims.TangentClosure: lv's tangent-linear RK4, spring's envelope,
// advdiff's spectral solver) carries those directions and dθ to the grid
// in one more pass. Forward differences decoded v plus each of its n
// coordinates, n+1 passes through f_ψ and the closure; this costs about
// three, and it is exact rather than accurate to the difference step.

// refineFD makes refinement build its Jacobians by forward differences
// even where exact ones are available: the method the exact Jacobians
// replaced, kept for the tests and benchmarks that compare the two.
var refineFD = false

// tangentClosure returns the model's closure when refinement can build
// exact Jacobians through it: a closure with a tangent, and f_ψ evaluated
// per query (not the basis form, whose f is a product of two networks).
func (r *refiner) tangentClosure() (sims.TangentClosure, bool) {
	if refineFD || r.m.trunk != nil {
		return nil, false
	}
	tc, ok := r.m.closure.(sims.TangentClosure)
	return tc, ok
}

// fpsiGroupInput returns f_ψ's per-realization input rows for v, laid
// out as decode's: [z_θ | z_δ | s | side features].
func (r *refiner) fpsiGroupInput(v, s *nets.Tensor) *nets.Tensor {
	P := r.a0.Cols
	lT, lD := r.zT.Cols, r.n-P-r.nT
	sideLen := 0
	if r.m.sideFeat != nil {
		sideLen = r.m.sideFeat.SideFeatureLen()
	}
	x := nets.NewTensor(v.Rows, lT+lD+P+sideLen)
	for b := range v.Rows {
		row, vb := x.Row(b), v.Row(b)
		if r.nT > 0 {
			copy(row[:lT], vb[P:P+r.nT])
		} else {
			copy(row[:lT], r.zT.Row(b))
		}
		copy(row[lT:lT+lD], vb[P+r.nT:])
		copy(row[lT+lD:lT+lD+P], s.Row(b))
		if sideLen > 0 {
			r.m.sideFeat.SideFeatures(row[lT+lD+P:], r.side.Row(b))
		}
	}
	return x
}

// jacobiansAt returns, per realization, J = ∂residuals/∂v at v, whose
// residuals are res: exact where the closure allows (exactJacobians),
// else by forward differences (jacobians).
func (r *refiner) jacobiansAt(v *nets.Tensor, res [][]float64) []*mat.Dense {
	if tc, ok := r.tangentClosure(); ok {
		return r.exactJacobians(tc, v)
	}
	return r.jacobians(v, res)
}

// exactJacobians returns, per realization, J = ∂residuals/∂v at v
// (rows in residuals' order), exactly.
func (r *refiner) exactJacobians(tc sims.TangentClosure, v *nets.Tensor) []*mat.Dense {
	P := r.a0.Cols
	lT, lD := r.zT.Cols, r.n-P-r.nT
	theta, s := r.thetaOf(v)
	xq := r.m.queryFeats
	f, g := r.m.fpsi.TiledInputGrad(xq, r.fpsiGroupInput(v, s), r.att, xq.Cols, lT+lD+P, r.procs)
	q, outs := xq.Rows, f.Cols
	qo := q * outs
	js := make([]*mat.Dense, r.b)
	forEachOn(r.procs, r.b, func(b int) {
		// Directions: a_p moves s_p and θ_p, z_θ and z_δ only f_ψ's input.
		dtheta, df := make([]float64, r.n*P), make([]float64, r.n*qo)
		for j := range r.n {
			col, chain := 0, 1.0 // f_ψ input column (from z_θ's first) and ds/dv_j
			switch {
			case j < P:
				sv := s.At(b, j)
				chain = sv * (1 - sv)
				col = lT + lD + j
				dtheta[j*P+j] = theta.At(b, j) * r.m.logSpan.Data[j] * chain
			case j < P+r.nT:
				col = j - P
			default:
				col = lT + j - P - r.nT
			}
			for qi := range q {
				for o := range outs {
					df[j*qo+qi*outs+o] = chain * g[o].At(b*q+qi, col)
				}
			}
		}
		_, dpred := tc.ApplyTangent(theta.Row(b), r.side.Row(b), f.Data[b*qo:(b+1)*qo], r.n, dtheta, df)
		js[b] = r.residualJacobian(b, v.Row(b), dpred)
	})
	return js
}

// residualJacobian assembles realization b's residual Jacobian from the
// prediction's derivatives dpred [n·G] (direction j = coordinate j of v)
// and the priors' own, in residuals' row order.
func (r *refiner) residualJacobian(b int, v, dpred []float64) *mat.Dense {
	P := r.a0.Cols
	g := len(dpred) / r.n
	var hinted []int
	if r.hint != nil {
		for p := range P {
			if r.hintMask.At(b, p) != 0 {
				hinted = append(hinted, p)
			}
		}
	}
	j := mat.NewDense(len(r.terms[b])+len(hinted)+r.n, r.n, nil)
	for i, t := range r.terms[b] {
		row := j.RawRowView(i)
		for c := range r.n {
			d := dpred[c*g : (c+1)*g]
			y := 0.0
			for e, k := range t.idx {
				y += t.w[e] * d[k]
			}
			row[c] = y / t.sigma
		}
	}
	i := len(r.terms[b])
	for p := range P {
		j.Set(i, p, 1/refineSigmaA)
		i++
	}
	for _, p := range hinted {
		sv := 1 / (1 + math.Exp(-v[p]))
		j.Set(i, p, sv*(1-sv)/r.hintSD.At(b, p))
		i++
	}
	for c := range r.nT {
		j.Set(i, P+c, 1/r.zTSig.At(b, c))
		i++
	}
	for c := range r.n - P - r.nT {
		j.Set(i, P+r.nT+c, 1/r.zSig.At(b, c))
		i++
	}
	return j
}
