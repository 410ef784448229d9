package nets

import (
	"fmt"
	"math"
	"testing"
)

func TestBatchMatMulGrad(t *testing.T) {
	rng := newRNG(60)
	const groups = 3
	for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		ta, tb := tr[0], tr[1]
		// Per group op(A_g) is [2, 3] and op(B_g) is [3, 4].
		ar, ac := 2, 3
		if ta {
			ar, ac = ac, ar
		}
		br, bc := 3, 4
		if tb {
			br, bc = bc, br
		}
		a := randSigned(rng, groups*ar, ac, 0, 1)
		b := randSigned(rng, groups*br, bc, 0, 1)
		checkGrad(t, "BatchMatMul", func(tp *Tape, in []*Var) *Var {
			return wsum(tp, tp.BatchMatMul(in[0], in[1], groups, ta, tb))
		}, a, b)

		// Each group's block equals the plain product of its blocks.
		tp := NewTape()
		y := tp.BatchMatMul(tp.Const(a), tp.Const(b), groups, ta, tb).Value
		for g := range groups {
			want := tp.MatMul(tp.Const(rowBlock(a, g, ar)), tp.Const(rowBlock(b, g, br)), ta, tb).Value
			assertClose(t, "BatchMatMul block", rowBlock(y, g, 2), want, 1e-14)
		}
	}
}

// naiveAttention computes one group's multi-head attention output directly
// from the definitions, row by row.
func naiveAttention(m *MultiHeadAttention, q, k, v *Tensor) *Tensor {
	tp := NewTape()
	Q := m.Q.Forward(tp, tp.Const(q)).Value
	K := m.K.Forward(tp, tp.Const(k)).Value
	V := m.V.Forward(tp, tp.Const(v)).Value
	dh := m.Dim / m.Heads
	cat := NewTensor(q.Rows, m.Dim)
	for h := range m.Heads {
		for i := range q.Rows {
			w := make([]float64, k.Rows)
			mx := math.Inf(-1)
			for j := range k.Rows {
				s := 0.0
				for d := h * dh; d < (h+1)*dh; d++ {
					s += Q.At(i, d) * K.At(j, d)
				}
				w[j] = s / math.Sqrt(float64(dh))
				mx = max(mx, w[j])
			}
			z := 0.0
			for j := range w {
				w[j] = math.Exp(w[j] - mx)
				z += w[j]
			}
			for d := h * dh; d < (h+1)*dh; d++ {
				s := 0.0
				for j := range w {
					s += w[j] / z * V.At(j, d)
				}
				cat.Set(i, d, s)
			}
		}
	}
	return m.O.Forward(tp, tp.Const(cat)).Value
}

func newTestAttention(dq, dk, dv int) (*MultiHeadAttention, *Params) {
	rng := newRNG(61)
	var ps Params
	m := NewMultiHeadAttention("att", dq, dk, dv, 4, 2, &ps, rng)
	for _, p := range ps.List() {
		if p.Value.Rows == 1 { // nonzero biases
			for i := range p.Value.Data {
				p.Value.Data[i] = 0.2 * (rng.Float64() - 0.5)
			}
		}
	}
	return m, &ps
}

func TestAttentionMatchesNaive(t *testing.T) {
	const batch, nq, nk = 2, 3, 4
	m, _ := newTestAttention(3, 2, 5)
	rng := newRNG(62)
	q := randSigned(rng, batch*nq, 3, 0, 1)
	k := randSigned(rng, batch*nk, 2, 0, 1)
	v := randSigned(rng, batch*nk, 5, 0, 1)
	tp := NewTape()
	y := m.Forward(tp, tp.Const(q), tp.Const(k), tp.Const(v), batch).Value
	if y.Rows != batch*nq || y.Cols != 4 {
		t.Fatalf("output %s", y.Shape())
	}
	for g := range batch {
		want := naiveAttention(m, rowBlock(q, g, nq), rowBlock(k, g, nk), rowBlock(v, g, nk))
		assertClose(t, "attention group", rowBlock(y, g, nq), want, 1e-13)
	}
}

func TestAttentionGrad(t *testing.T) {
	const batch, nq, nk = 2, 3, 4
	rng := newRNG(63)

	// Cross-attention: queries of width 3 to keys of width 2, values of
	// width 5.
	m, ps := newTestAttention(3, 2, 5)
	q := randSigned(rng, batch*nq, 3, 0, 1)
	k := randSigned(rng, batch*nk, 2, 0, 1)
	v := randSigned(rng, batch*nk, 5, 0, 1)
	checkGrad(t, "cross-attention/inputs", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, m.Forward(tp, in[0], in[1], in[2], batch))
	}, q, k, v)
	checkParamGrads(t, "cross-attention/params", ps, func(tp *Tape) *Var {
		return wsum(tp, m.Forward(tp, tp.Const(q), tp.Const(k), tp.Const(v), batch))
	})

	// Self-attention: the same var as queries, keys and values.
	s, sps := newTestAttention(3, 3, 3)
	x := randSigned(rng, batch*nk, 3, 0, 1)
	checkGrad(t, "self-attention/input", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, s.Forward(tp, in[0], in[0], in[0], batch))
	}, x)
	checkParamGrads(t, "self-attention/params", sps, func(tp *Tape) *Var {
		x := tp.Const(x)
		return wsum(tp, s.Forward(tp, x, x, x, batch))
	})
}

// TestAttentionGroupsIsolated checks that no information crosses batch
// groups and that attention does not depend on the order of the keys.
func TestAttentionGroupsIsolated(t *testing.T) {
	const batch, nq, nk = 2, 2, 3
	m, _ := newTestAttention(3, 3, 3)
	rng := newRNG(64)
	q := randSigned(rng, batch*nq, 3, 0, 1)
	kv := randSigned(rng, batch*nk, 3, 0, 1)
	run := func(kv *Tensor) *Tensor {
		tp := NewTape()
		c := tp.Const(kv)
		return m.Forward(tp, tp.Const(q), c, c, batch).Value
	}
	base := run(kv)

	changed := kv.Clone()
	for i := nk * 3; i < len(changed.Data); i++ { // group 1 only
		changed.Data[i] += 1
	}
	y := run(changed)
	assertClose(t, "group 0 unaffected", rowBlock(y, 0, nq), rowBlock(base, 0, nq), 0)
	if math.Abs(y.At(nq, 0)-base.At(nq, 0)) < 1e-6 {
		t.Error("group 1 output did not change with its keys")
	}

	permuted := kv.Clone()
	copy(permuted.Row(0), kv.Row(2))
	copy(permuted.Row(2), kv.Row(0))
	assertClose(t, "key order", run(permuted), base, 1e-14)
}

// TestAttentionInferenceInPlace: on an inference tape MultiHeadAttention
// reads the heads in place (attentionInPlace) and gives the values of
// the heads copied apart and back bit for bit, for several heads,
// batches and sizes that make the products small (gonum) and large (the
// kernel).
func TestAttentionInferenceInPlace(t *testing.T) {
	rng := newRNG(64)
	for _, s := range []struct{ heads, dim, batch, nq, nk int }{
		{1, 4, 1, 1, 3}, {2, 8, 3, 5, 7}, {4, 64, 1, 30, 30}, {4, 64, 2, 12, 30}, {4, 64, 1, 1, 30},
	} {
		ps := &Params{}
		m := NewMultiHeadAttention("a", s.dim, s.dim, s.dim, s.dim, s.heads, ps, rng)
		q := randSigned(rng, s.batch*s.nq, s.dim, 0, 1)
		k := randSigned(rng, s.batch*s.nk, s.dim, 0, 1)
		v := randSigned(rng, s.batch*s.nk, s.dim, 0, 1)
		// The reference: the heads copied apart and back, on an inference
		// tape (whose projections run on the row kernel, unlike a
		// training tape's).
		ref := NewInferenceTape()
		scale := 1 / math.Sqrt(float64(s.dim/s.heads))
		qh := ref.splitHeads(m.Q.Forward(ref, ref.Const(q)), s.heads, scale)
		kh := ref.splitHeads(m.K.Forward(ref, ref.Const(k)), s.heads, 1)
		vh := ref.splitHeads(m.V.Forward(ref, ref.Const(v)), s.heads, 1)
		want := m.O.Forward(ref, ref.mergeHeads(ref.AttentionCore(qh, kh, vh, s.heads*s.batch), s.heads)).Value
		// Also with the queries in blocks of a few rows, as long
		// contexts take them.
		for _, budget := range []int{attentionScoreBudget, 2 * s.nk} {
			defer func(old int) { attentionScoreBudget = old }(attentionScoreBudget)
			attentionScoreBudget = budget
			inf := NewInferenceTape()
			got := m.Forward(inf, inf.Const(q), inf.Const(k), inf.Const(v), s.batch)
			assertClose(t, fmt.Sprintf("attention %+v, budget %d", s, budget), got.Value, want, 0)
			if len(inf.nodes) != 0 {
				t.Errorf("%+v: the inference tape recorded %d nodes", s, len(inf.nodes))
			}
		}
	}
}

// TestAttentionStopsWhenDone: an inference tape whose done channel is
// closed runs no attention block, and returns.
func TestAttentionStopsWhenDone(t *testing.T) {
	rng := newRNG(65)
	q := randSigned(rng, 40, 8, 0, 1)
	k := randSigned(rng, 40, 8, 0, 1)
	done := make(chan struct{})
	close(done)
	ran := 0
	forGroupsUntil(done, 1, 10, 0, func(int, []float64) { ran++ })
	if ran != 0 {
		t.Errorf("%d groups ran after done", ran)
	}
	tp := NewInferenceTape()
	tp.SetDone(done)
	attentionInPlace(tp, q, k, k, 2, 1) // must not panic or hang
	ran = 0
	forGroupsUntil(nil, 1, 10, 0, func(int, []float64) { ran++ })
	if ran != 10 {
		t.Errorf("without done, %d of 10 groups ran", ran)
	}
}
