package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// rowBlock returns rows g·n..(g+1)·n−1 of t as a tensor sharing t's data.
func rowBlock(t *Tensor, g, n int) *Tensor {
	return &Tensor{Rows: n, Cols: t.Cols, Data: t.Data[g*n*t.Cols : (g+1)*n*t.Cols]}
}

// BatchMatMul multiplies groups independently: a is [groups·Ra, Ca] and b
// is [groups·Rb, Cb], the consecutive row blocks a_g and b_g belong to
// group g, and the result stacks the groups' products,
//
//	Y_g = op(A_g) op(B_g),
//
// where op transposes when the flag is set. With transB, [B·Nq, d] and
// [B·Nk, d] give the attention scores [B·Nq, Nk]. The gradients are those
// of MatMul, group by group.
func (tp *Tape) BatchMatMul(a, b *Var, groups int, transA, transB bool) *Var {
	if groups <= 0 || a.Value.Rows%groups != 0 || b.Value.Rows%groups != 0 {
		panic(fmt.Sprintf("nets: BatchMatMul of a %s, b %s in %d groups", a.Value.Shape(), b.Value.Shape(), groups))
	}
	ra, rb := a.Value.Rows/groups, b.Value.Rows/groups
	m, k := ra, a.Value.Cols
	if transA {
		m, k = k, m
	}
	kb, n := rb, b.Value.Cols
	if transB {
		kb, n = n, kb
	}
	if k != kb {
		panic(fmt.Sprintf("nets: BatchMatMul inner dims %d vs %d (a %s T=%v, b %s T=%v, %d groups)",
			k, kb, a.Value.Shape(), transA, b.Value.Shape(), transB, groups))
	}
	y := tp.Alloc(groups*m, n)
	for g := range groups {
		tp.gemmOn(transA, transB, 1, rowBlock(a.Value, g, ra), rowBlock(b.Value, g, rb), 0, rowBlock(y, g, m))
	}
	return tp.record(y, func(out *Var) {
		for g := range groups {
			dy := rowBlock(out.Grad, g, m)
			ag, bg := rowBlock(a.Value, g, ra), rowBlock(b.Value, g, rb)
			if a.needsGrad {
				da := rowBlock(a.grad(), g, ra)
				if transA {
					gemm(transB, true, 1, bg, dy, 1, da)
				} else {
					gemm(false, !transB, 1, dy, bg, 1, da)
				}
			}
			if b.needsGrad {
				db := rowBlock(b.grad(), g, rb)
				if transB {
					gemm(true, transA, 1, dy, ag, 1, db)
				} else {
					gemm(!transA, false, 1, ag, dy, 1, db)
				}
			}
		}
	}, a, b)
}

// MultiHeadAttention is scaled dot-product attention with Heads heads of
// width Dim/Heads and learned projections:
//
//	Q = q W_q + b_q,  K = k W_k + b_k,  V = v W_v + b_v,
//	head_h = softmax(Q_h K_hᵀ / √(Dim/Heads)) V_h,
//	y = [head_1 … head_H] W_o + b_o.
//
// Attention runs within each batch group only: the queries of realization
// i attend to the keys of realization i.
type MultiHeadAttention struct {
	Q, K, V, O *Linear
	Dim, Heads int
}

// NewMultiHeadAttention returns attention from queries of width dq to keys
// of width dk and values of width dv, with model width dim split into
// heads heads (dim must be a multiple of heads). Its projections are named
// name+".q", ".k", ".v" and ".o".
func NewMultiHeadAttention(name string, dq, dk, dv, dim, heads int, ps *Params, rng *rand.Rand) *MultiHeadAttention {
	if heads <= 0 || dim%heads != 0 {
		panic(fmt.Sprintf("nets: NewMultiHeadAttention %q: dim %d not divisible into %d heads", name, dim, heads))
	}
	return &MultiHeadAttention{
		Q:     NewLinear(name+".q", dq, dim, ps, rng),
		K:     NewLinear(name+".k", dk, dim, ps, rng),
		V:     NewLinear(name+".v", dv, dim, ps, rng),
		O:     NewLinear(name+".o", dim, dim, ps, rng),
		Dim:   dim,
		Heads: heads,
	}
}

// Forward attends the queries q [batch·Nq, dq] to the keys k [batch·Nk, dk]
// and values v [batch·Nk, dv] group by group, giving [batch·Nq, Dim].
// Self-attention is Forward(tp, x, x, x, batch).
func (m *MultiHeadAttention) Forward(tp *Tape, q, k, v *Var, batch int) *Var {
	if batch <= 0 || q.Value.Rows%batch != 0 || k.Value.Rows%batch != 0 || k.Value.Rows != v.Value.Rows {
		panic(fmt.Sprintf("nets: MultiHeadAttention q %s, k %s, v %s, batch %d", q.Value.Shape(), k.Value.Shape(), v.Value.Shape(), batch))
	}
	h := m.Heads
	dh := m.Dim / h
	scale := 1 / math.Sqrt(float64(dh))
	if tp.noGrad && !q.needsGrad && !k.needsGrad && !v.needsGrad {
		qp := m.Q.Forward(tp, q).Value
		for i, x := range qp.Data {
			qp.Data[i] = scale * x // as splitHeads scales
		}
		y := attentionInPlace(tp, qp, m.K.Forward(tp, k).Value, m.V.Forward(tp, v).Value, h, batch)
		return m.O.Forward(tp, tp.record(y, nil))
	}
	// The 1/√dh score scale is applied to Q while splitting the heads: Q
	// is smaller than the score matrix when Nk > dh.
	qh := tp.splitHeads(m.Q.Forward(tp, q), h, scale)
	kh := tp.splitHeads(m.K.Forward(tp, k), h, 1)
	vh := tp.splitHeads(m.V.Forward(tp, v), h, 1)
	return m.O.Forward(tp, tp.mergeHeads(tp.AttentionCore(qh, kh, vh, h*batch), h))
}

// splitHeads rearranges x [R, H·dh] into s·x as [H·R, dh], head-major: row
// j·R+r holds columns j·dh..(j+1)·dh−1 of row r. With R = B·N the row
// blocks of N rows are then the (head, batch) groups of BatchMatMul.
func (tp *Tape) splitHeads(x *Var, heads int, s float64) *Var {
	r, c := x.Value.Rows, x.Value.Cols
	dh := c / heads
	y := tp.Alloc(heads*r, dh)
	for j := range heads {
		for i := range r {
			dst := y.Data[(j*r+i)*dh : (j*r+i+1)*dh]
			src := x.Value.Data[i*c+j*dh : i*c+(j+1)*dh]
			for t, v := range src {
				dst[t] = s * v
			}
		}
	}
	return tp.record(y, func(out *Var) {
		gx, g := x.grad().Data, out.Grad.Data
		for j := range heads {
			for i := range r {
				accumulateScaled(gx[i*c+j*dh:i*c+(j+1)*dh], s, g[(j*r+i)*dh:(j*r+i+1)*dh])
			}
		}
	}, x)
}

// mergeHeads is the inverse of splitHeads (with s = 1): [H·R, dh] back to
// [R, H·dh].
func (tp *Tape) mergeHeads(x *Var, heads int) *Var {
	dh := x.Value.Cols
	r := x.Value.Rows / heads
	c := heads * dh
	y := tp.Alloc(r, c)
	for j := range heads {
		for i := range r {
			copy(y.Data[i*c+j*dh:i*c+(j+1)*dh], x.Value.Data[(j*r+i)*dh:(j*r+i+1)*dh])
		}
	}
	return tp.record(y, func(out *Var) {
		gx, g := x.grad().Data, out.Grad.Data
		for j := range heads {
			for i := range r {
				accumulate(gx[(j*r+i)*dh:(j*r+i+1)*dh], g[i*c+j*dh:i*c+(j+1)*dh])
			}
		}
	}, x)
}
