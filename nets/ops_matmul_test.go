package nets

import "testing"

func TestMatMulGrad(t *testing.T) {
	rng := newRNG(70)
	for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		ta, tb := tr[0], tr[1]
		a := randSigned(rng, 2, 3, 0, 1) // op(A) is [2, 3] or [3, 2]
		b := randSigned(rng, 3, 3, 0, 1)
		if ta {
			b = randSigned(rng, 2, 4, 0, 1) // op(A) [3, 2] times op(B) [2, 4]
			if tb {
				b = randSigned(rng, 4, 2, 0, 1)
			}
		} else if tb {
			b = randSigned(rng, 4, 3, 0, 1)
		}
		checkGrad(t, "MatMul", func(tp *Tape, in []*Var) *Var {
			return wsum(tp, tp.MatMul(in[0], in[1], ta, tb))
		}, a, b)
	}
	// The same var on both sides: X Xᵀ.
	x := randSigned(rng, 3, 2, 0, 1)
	checkGrad(t, "MatMul/self", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.MatMul(in[0], in[0], false, true))
	}, x)
}

func TestMatMulValues(t *testing.T) {
	tp := NewTape()
	a := tp.Const(FromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6}))
	b := tp.Const(FromSlice(3, 2, []float64{7, 8, 9, 10, 11, 12}))
	assertClose(t, "AB", tp.MatMul(a, b, false, false).Value, FromSlice(2, 2, []float64{58, 64, 139, 154}), 0)
	assertClose(t, "AᵀBᵀ", tp.MatMul(a, b, true, true).Value,
		FromSlice(3, 3, []float64{39, 49, 59, 54, 68, 82, 69, 87, 105}), 0)
}

func TestInferenceTape(t *testing.T) {
	p := NewParam("w", 2, 2)
	copy(p.Value.Data, []float64{1, 2, 3, 4})
	x := FromSlice(1, 2, []float64{1, 1})
	grad := NewTape()
	inf := NewInferenceTape()
	yg := grad.MatMul(grad.Const(x), grad.Param(p), false, false)
	yi := inf.MatMul(inf.Const(x), inf.Param(p), false, false)
	for i := range yg.Value.Data {
		if yg.Value.Data[i] != yi.Value.Data[i] {
			t.Fatalf("inference tape value %v, want %v", yi.Value.Data, yg.Value.Data)
		}
	}
	if yi.NeedsGrad() || len(inf.nodes) != 0 {
		t.Errorf("inference tape recorded %d nodes (needs grad %v)", len(inf.nodes), yi.NeedsGrad())
	}
	inf.Backward(inf.Sum(yi))
	if p.Grad.Data[0] != 0 {
		t.Errorf("inference tape changed a gradient: %v", p.Grad.Data)
	}
}
