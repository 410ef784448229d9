package core

import (
	"context"
	"math"
	"slices"

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

// refineLinearSamples evaluates the Laplace samples by the decoder's
// linearization at the mode (linearSamples) where exact Jacobians are
// available, instead of decoding each: k decodes (lv: k RK4 solves with
// the forcing network) were most of a refined calibration's time. The
// shipped files' spreads are fitted with these samples (a spread that
// reads their variance, SpreadContext, sees the linearized one); the raw
// spread (eval --raw-spread) is the linearized Laplace predictive.
var refineLinearSamples = true

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

// fpsiGroupInput returns f_ψ's per-realization input rows for the
// realizations rows (row i of v and s belongs to realization rows[i]),
// laid out as decode's: [z_θ | z_δ | s | side features].
func (r *refiner) fpsiGroupInput(rows []int, v, s *nets.Tensor) *nets.Tensor {
	P := r.a0.Cols
	lT, lD := r.zT.Cols, r.n-P-r.nT
	sideLen := 0
	if r.m.sideFeat != nil {
		sideLen = r.m.sideFeat.SideFeatureLen()
	}
	x := r.tensor(len(rows), lT+lD+P+sideLen)
	for i, b := range rows {
		row, vb := x.Row(i), v.Row(i)
		if r.nT > 0 {
			copy(row[:lT], vb[P:P+r.nT])
		} else {
			copy(row[:lT], r.zT.Row(b))
		}
		copy(row[lT:lT+lD], vb[P+r.nT:])
		copy(row[lT+lD:lT+lD+P], s.Row(i))
		if sideLen > 0 {
			r.m.sideFeat.SideFeatures(row[lT+lD+P:], r.side.Row(b))
		}
	}
	return x
}

// linearization is the decoder's first-order expansion at v: per
// realization the residual Jacobian and f_ψ's df [n·Q·O] and θ's dθ
// [n·P] along v's coordinates, with f [Q·O]. (The prediction's
// derivatives along v go into the Jacobian and are not kept.)
type linearization struct {
	js         []*mat.Dense
	df, dtheta [][]float64
	f          *nets.Tensor // [B·Q, O]
	pred       *nets.Tensor // [B, G] the prediction at v
}

// adopt copies realization b's part of o into l (both at the same size).
func (l *linearization) adopt(o *linearization, b int) {
	l.js[b], l.df[b], l.dtheta[b] = o.js[b], o.df[b], o.dtheta[b]
	copy(l.pred.Row(b), o.pred.Row(b))
	qo := l.f.Len() / l.pred.Rows
	copy(l.f.Data[b*qo:(b+1)*qo], o.f.Data[b*qo:(b+1)*qo])
}

// linearize returns the decoder's linearization at v for the
// realizations rows (nil: all; the others' parts stay empty), with J =
// ∂residuals/∂v (rows in residuals' order), exactly.
func (r *refiner) linearize(tc sims.TangentClosure, v *nets.Tensor, rows []int) *linearization {
	if rows == nil {
		rows = make([]int, r.b)
		for b := range rows {
			rows[b] = b
		}
	}
	P := r.a0.Cols
	lT, lD := r.zT.Cols, r.n-P-r.nT
	xq := r.m.queryFeats
	q := xq.Rows
	vs := r.tensor(len(rows), r.n)
	var att *nets.Tensor
	if r.att != nil {
		att = r.tensor(len(rows)*q, r.att.Cols)
	}
	for i, b := range rows {
		copy(vs.Row(i), v.Row(b))
		if att != nil {
			copy(att.Data[i*q*att.Cols:(i+1)*q*att.Cols], r.att.Data[b*q*att.Cols:(b+1)*q*att.Cols])
		}
	}
	theta, s := r.thetaOf(vs)
	f, g := r.m.fpsi.TiledInputGradIn(r.arena, xq, r.fpsiGroupInput(rows, vs, s), att, xq.Cols, lT+lD+P, r.procs)
	outs := f.Cols
	qo := q * outs
	lin := &linearization{
		js: make([]*mat.Dense, r.b), df: make([][]float64, r.b),
		dtheta: make([][]float64, r.b), f: r.tensor(r.b*q, outs), pred: r.tensor(r.b, r.m.Sys.Grid().Size()),
	}
	tca, at := tc.(sims.TangentAtClosure)
	if at {
		r.buildTangentAt(rows)
	}
	// The realizations' directions, taken from the arena here: the
	// workers below must not share it.
	dthetas, dfs := r.tensor(len(rows), r.n*P), r.tensor(len(rows), r.n*qo)
	forEachOn(r.procs, len(rows), func(i int) {
		b := rows[i]
		// Directions: a_p moves s_p and θ_p, z_θ and z_δ only f_ψ's input.
		dtheta, df := dthetas.Row(i), dfs.Row(i)
		for j := range r.n {
			col, chain := 0, 1.0 // f_ψ input column (from z_θ's first) and ds/dv_j
			switch {
			case j < P:
				sv := s.At(i, j)
				chain = sv * (1 - sv)
				col = lT + lD + j
				dtheta[j*P+j] = theta.At(i, j) * r.m.logSpan.Data[j] * chain
			case j < P+r.nT:
				col = j - P
			default:
				col = lT + j - P - r.nT
			}
			for qi := range q {
				for o := range outs {
					df[j*qo+qi*outs+o] = chain * g[o].At(i*q+qi, col)
				}
			}
		}
		fb := f.Data[i*qo : (i+1)*qo]
		copy(lin.f.Data[b*qo:(b+1)*qo], fb)
		buf := tangentBuffers.Get(r.n * lin.pred.Cols)
		var pred, dpred []float64
		var pos [][]int
		if at {
			// The Jacobian reads the derivatives at the context's grid
			// values only.
			pred, dpred = tca.ApplyTangentAt(buf, theta.Row(i), r.side.Row(b), fb, r.n, dtheta, df, r.tanAt[b])
			pos = r.tanPos[b]
		} else {
			pred, dpred = tc.ApplyTangent(buf, theta.Row(i), r.side.Row(b), fb, r.n, dtheta, df)
		}
		copy(lin.pred.Row(b), pred)
		lin.js[b] = r.residualJacobian(b, v.Row(b), dpred, pos)
		tangentBuffers.Put(buf)
		lin.df[b], lin.dtheta[b] = df, dtheta
	})
	return lin
}

// linearSamples evaluates the Laplace samples (rows b·k … b·k+k−1 of
// samples belong to realization b, whose mode is v's row b) by the
// decoder's linearization at the mode,
//
//	ŷ(v_s) ≈ ŷ(v*) + ∂ŷ/∂v (v_s − v*),   f(v_s) ≈ f(v*) + ∂f/∂v (v_s − v*),
//
// the linearized Laplace predictive: exact Gaussian moments of the
// Gauss–Newton posterior that refinement fits, without a decode per
// sample. The closure's tangent along the k displacements gives ∂ŷ/∂v
// (v_s − v*) in one pass (advdiff: three fields, not 34 of 4096 values
// each). θ(v_s) is exact.
func (r *refiner) linearSamples(tc sims.TangentClosure, lin *linearization, v, samples *nets.Tensor, k int) (sp, theta, f *nets.Tensor) {
	P := r.a0.Cols
	g := lin.pred.Cols
	qo := lin.f.Len() / r.b
	sp, f = r.tensor(r.b*k, g), r.tensor(r.b*k*qo/lin.f.Cols, lin.f.Cols)
	theta, _ = r.thetaOf(samples)
	modeTheta, _ := r.thetaOf(v)
	dths, dfs := r.tensor(r.b, k*P), r.tensor(r.b, k*qo)
	forEachOn(r.procs, r.b, func(b int) {
		dth, df := dths.Row(b), dfs.Row(b)
		for s := range k {
			row := samples.Row(b*k + s)
			ts, fs := dth[s*P:(s+1)*P], df[s*qo:(s+1)*qo]
			for j := range r.n {
				d := row[j] - v.At(b, j)
				if d == 0 {
					continue
				}
				for i, x := range lin.dtheta[b][j*P : (j+1)*P] {
					ts[i] += d * x
				}
				for i, x := range lin.df[b][j*qo : (j+1)*qo] {
					fs[i] += d * x
				}
			}
		}
		fb := lin.f.Data[b*qo : (b+1)*qo]
		buf := tangentBuffers.Get(k * g)
		defer tangentBuffers.Put(buf)
		_, dpred := tc.ApplyTangent(buf, modeTheta.Row(b), r.side.Row(b), fb, k, dth, df)
		for s := range k {
			y := sp.Row(b*k + s)
			for i, d := range dpred[s*g : (s+1)*g] {
				y[i] = lin.pred.At(b, i) + d
			}
			out := f.Data[(b*k+s)*qo : (b*k+s+1)*qo]
			for i, x := range df[s*qo : (s+1)*qo] {
				out[i] = fb[i] + x
			}
		}
	})
	return sp, theta, f
}

// buildTangentAt sets, once, tanAt and tanPos of the realizations rows:
// the grid values their context terms read, in ascending order, and
// where each term's values are among them.
func (r *refiner) buildTangentAt(rows []int) {
	if r.tanAt == nil {
		r.tanAt, r.tanPos = make([][]int, r.b), make([][][]int, r.b)
	}
	for _, b := range rows {
		if r.tanPos[b] != nil {
			continue
		}
		var at []int
		for _, t := range r.terms[b] {
			at = append(at, t.idx...)
		}
		slices.Sort(at)
		at = slices.Compact(at)
		pos := make([][]int, len(r.terms[b]))
		for i, t := range r.terms[b] {
			pos[i] = make([]int, len(t.idx))
			for e, k := range t.idx {
				pos[i][e], _ = slices.BinarySearch(at, k)
			}
		}
		r.tanAt[b], r.tanPos[b] = at, pos
	}
}

// residualJacobian assembles realization b's residual Jacobian from the
// prediction's derivatives dpred [n·G] (direction j = coordinate j of v)
// and the priors' own, in residuals' row order. With pos (not nil)
// dpred holds each direction's derivatives at some grid values only, and
// pos[i] says where term i's are.
func (r *refiner) residualJacobian(b int, v, dpred []float64, pos [][]int) *mat.Dense {
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
	j := newJacobian(len(r.terms[b])+len(hinted)+r.n, r.n)
	for i, t := range r.terms[b] {
		row := j.RawRowView(i)
		idx := t.idx // into the grid, or into the tangent's times (pos)
		if pos != nil {
			idx = pos[i]
		}
		for c := range r.n {
			d := dpred[c*g : (c+1)*g]
			y := 0.0
			for e, k := range idx {
				y += t.w[e] * d[k]
			}
			row[c] = y / t.sigma
		}
	}
	i := len(r.terms[b])
	for p := range P {
		j.Set(i, p, 1/r.sigmaA.At(b, p))
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

// refineTol stops a realization's refinement once an accepted step
// lowers its cost by less than this fraction (0 runs every step): the
// cost falls by 80–90 % in the first step and by under 1 % from the
// third on, and stopping there moved no metric of eval --tasks 200 on
// any shipped checkpoint by more than 2 % (lv's uncertainty grid kept
// every target it met). Forward differences (fitDifferences) run every
// step, as before.
var refineTol = 1e-2

// fitExact refines v for up to steps Levenberg–Marquardt iterations with
// exact Jacobians. Each iteration linearizes the decoder at the
// candidates (linearize: their prediction and Jacobian in one pass), so
// an accepted step's Jacobian is ready for the next, a rejected step
// keeps the current one, and the fit ends with the Jacobian and
// linearization at v that the Laplace approximation needs.
func (r *refiner) fitExact(ctx context.Context, tc sims.TangentClosure, v *nets.Tensor, steps int) (*refineFit, error) {
	lin := r.linearize(tc, v, nil)
	start := r.startPreds(lin.pred)
	res, cost, lambda := r.lmInit(v, lin.pred)
	done := make([]bool, r.b)
	for it := 0; it < steps; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cand := r.lmCandidates(v, lin.js, res, lambda, done)
		var rows []int
		for b, d := range done {
			if !d {
				rows = append(rows, b)
			}
		}
		cl := r.linearize(tc, cand, rows)
		active := false
		for _, b := range rows {
			rc := r.residuals(b, cand.Row(b), cl.pred.Row(b))
			if c := fitCost(rc, cl.pred.Row(b)); c < cost[b] {
				done[b] = cost[b]-c < refineTol*cost[b]
				copy(v.Row(b), cand.Row(b))
				res[b], cost[b] = rc, c
				releaseJacobian(lin.js[b])
				lin.adopt(cl, b)
				lambda[b] = lmAccepted(lambda[b])
			} else {
				releaseJacobian(cl.js[b])
				lambda[b] = lmRejected(lambda[b])
			}
			active = active || !done[b]
		}
		if !active {
			break
		}
	}
	return &refineFit{pred: lin.pred, res: res, js: lin.js, lin: lin, start: start}, nil
}
