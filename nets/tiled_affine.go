package nets

import "fmt"

// TiledAffine is the affine layer y = x W + b applied to R·Q rows whose
// input is the concatenation [x_q | x_r | x_f] of a per-query part x_q
// [Q, Kq] shared by every group, a per-group part x_r [R, Kr] shared by
// the Q rows of its group, and an optional full part x_f [R·Q, Kf]
// (nil for none); row i·Q + j of y is
//
//	y_{iQ+j} = x_q[j] W_q + x_r[i] W_r + x_f[iQ+j] W_f + b
//
// with W = [W_q; W_r; W_f] split by rows. It equals affine on the tiled
// concatenation (a decoder evaluating Q states for R latent samples) but
// multiplies x_q and x_r once instead of R·Q times. The gradients, with
// G = dY viewed as [R, Q, Out],
//
//	dW_q = x_qᵀ Σ_i G_i,   dW_r = x_rᵀ (Σ_j G_{·j}),   dW_f = x_fᵀ dY,
//	dx_q = (Σ_i G_i) W_qᵀ, dx_r = (Σ_j G_{·j}) W_rᵀ,  dx_f = dY W_fᵀ,
//	db = Σ_rows dY.
//
// x_f may also have Q rows, one per query shared by every group (the
// latent samples of one realization see the same attention): it is then
// part of the per-query product, with dW_f = x_fᵀ Σ_i G_i and dx_f =
// (Σ_i G_i) W_fᵀ.
func (tp *Tape) TiledAffine(xq, xr, xf, w, b *Var) *Var {
	q, kq := xq.Value.Rows, xq.Value.Cols
	r, kr := xr.Value.Rows, xr.Value.Cols
	kf, sharedF := 0, false
	if xf != nil {
		kf = xf.Value.Cols
		sharedF = xf.Value.Rows == q
		if xf.Value.Rows != r*q && !sharedF {
			panic(fmt.Sprintf("nets: TiledAffine x_f %s, want %d or %d rows", xf.Value.Shape(), r*q, q))
		}
	}
	out := w.Value.Cols
	if w.Value.Rows != kq+kr+kf || b.Value.Rows != 1 || b.Value.Cols != out {
		panic(fmt.Sprintf("nets: TiledAffine x_q %s, x_r %s, %d full columns, W %s, b %s", xq.Value.Shape(), xr.Value.Shape(), kf, w.Value.Shape(), b.Value.Shape()))
	}
	wq, wr, wf := rowRange(w.Value, 0, kq), rowRange(w.Value, kq, kr), rowRange(w.Value, kq+kr, kf)
	perQuery, perGroup := tiledParts(tp, xq.Value, xr.Value, w.Value, b.Value)
	if kf > 0 && sharedF {
		tp.gemmOn(false, false, 1, xf.Value, wf, 1, perQuery)
	}
	y := tp.Alloc(r*q, out)
	addTiled(y, 0, perQuery, perGroup)
	if kf > 0 && !sharedF {
		tp.gemmOn(false, false, 1, xf.Value, wf, 1, y)
	}
	inputs := []*Var{xq, xr, w, b}
	if xf != nil {
		inputs = append(inputs, xf)
	}
	return tp.record(y, func(o *Var) {
		g := o.Grad
		sumQ, sumR := tiledSums(tp, g, r, q)
		if w.needsGrad {
			gw := w.grad()
			if kq > 0 {
				gemm(true, false, 1, xq.Value, sumQ, 1, rowRange(gw, 0, kq))
			}
			if kr > 0 {
				gemm(true, false, 1, xr.Value, sumR, 1, rowRange(gw, kq, kr))
			}
			if kf > 0 {
				gemm(true, false, 1, xf.Value, sharedOr(sharedF, sumQ, g), 1, rowRange(gw, kq+kr, kf))
			}
		}
		if xq.needsGrad && kq > 0 {
			gemm(false, true, 1, sumQ, wq, 1, xq.grad())
		}
		if xr.needsGrad && kr > 0 {
			gemm(false, true, 1, sumR, wr, 1, xr.grad())
		}
		if xf != nil && xf.needsGrad && kf > 0 {
			gemm(false, true, 1, sharedOr(sharedF, sumQ, g), wf, 1, xf.grad())
		}
		if b.needsGrad {
			sumRowsOn(tp.procs(), b.grad().Data, sumR.Data, r, out)
		}
	}, inputs...)
}

// tiledSums returns Σ_i G_i [Q, Out] and Σ_j G_{·j} [R, Out] of the
// gradient g [R·Q, Out], each summed in row order, group by group so
// that a group's rows are still in cache for the second sum.
func tiledSums(tp *Tape, g *Tensor, r, q int) (sumQ, sumR *Tensor) {
	out := g.Cols
	sumQ, sumR = tp.Alloc(q, out), tp.Alloc(r, out)
	for i := range r { // group i's rows, read from memory once
		sumRows(sumR.Row(i), g.Data[i*q*out:], q, out, false)
		for j := range q {
			accumulate(sumQ.Row(j), g.Row(i*q+j))
		}
	}
	return sumQ, sumR
}

// sharedOr returns perQuery when x_f is shared by every group, full
// otherwise: the gradient x_f's product sees.
func sharedOr(shared bool, perQuery, full *Tensor) *Tensor {
	if shared {
		return perQuery
	}
	return full
}

// tiledParts returns the shared products of a tiled affine layer,
// x_q W_q [Q, Out] and x_r W_r + b [R, Out], W split by rows as in
// TiledAffine.
func tiledParts(tp *Tape, xq, xr, w, b *Tensor) (perQuery, perGroup *Tensor) {
	perQuery, perGroup = tp.allocFull(xq.Rows, w.Cols), tp.allocFull(xr.Rows, w.Cols)
	tiledPartsInto(tp, perQuery, perGroup, xq, xr, w, b)
	return perQuery, perGroup
}

// tiledPartsInto is tiledParts writing every value of perQuery [Q, Out]
// and perGroup [R, Out] (their contents on entry are arbitrary).
func tiledPartsInto(tp *Tape, perQuery, perGroup, xq, xr, w, b *Tensor) {
	kq, kr := xq.Cols, xr.Cols
	if kq == 0 {
		clear(perQuery.Data)
	} else {
		tp.gemmOn(false, false, 1, xq, rowRange(w, 0, kq), 0, perQuery) // β = 0
	}
	for i := range xr.Rows { // every row gets the bias
		copy(perGroup.Row(i), b.Data)
	}
	if kr > 0 {
		tp.gemmOn(false, false, 1, xr, rowRange(w, kq, kr), 1, perGroup)
	}
}

// addTiled sets dst's rows, rows lo, lo+1, … of the tiled layout (row
// i·Q + j of group i and query j), to perQuery[j] + perGroup[i].
func addTiled(dst *Tensor, lo int, perQuery, perGroup *Tensor) {
	q := perQuery.Rows
	for k := range dst.Rows {
		addInto(dst.Row(k), perQuery.Row((lo+k)%q), perGroup.Row((lo+k)/q))
	}
}

// siluTiled is addTiled followed by SiLU on every value of dst, in one
// pass: the same values.
func siluTiled(dst *Tensor, lo int, perQuery, perGroup *Tensor) {
	q := perQuery.Rows
	for k := range dst.Rows {
		siluBiasInto(dst.Row(k), perQuery.Row((lo+k)%q), perGroup.Row((lo+k)/q))
	}
}

// ForwardTiled is Forward for inputs in the tiled layout of TiledAffine
// (x_f may be nil, or have Q rows shared by every group): the first
// layer multiplies the shared parts once, the rest run on the R·Q rows.
func (m *MLP) ForwardTiled(tp *Tape, xq, xr, xf *Var) *Var {
	if tp.noGrad && !xq.needsGrad && !xr.needsGrad && (xf == nil || !xf.needsGrad) {
		var f *Tensor
		if xf != nil {
			f = xf.Value
		}
		return tp.Const(m.inferTiled(tp, xq.Value, xr.Value, f))
	}
	l := m.Layers[0]
	x := tp.TiledAffine(xq, xr, xf, tp.Param(l.W), tp.Param(l.B))
	if len(m.Layers) == 1 {
		return x
	}
	x = tp.activateFresh(m.Act, x)
	for _, l := range m.Layers[1 : len(m.Layers)-1] {
		x = tp.activateFresh(m.Act, l.Forward(tp, x))
	}
	return m.Last().Forward(tp, x)
}

// rowRange is the view of rows [lo, lo+n) of t (no copy).
func rowRange(t *Tensor, lo, n int) *Tensor {
	return FromSlice(n, t.Cols, t.Data[lo*t.Cols:(lo+n)*t.Cols])
}
