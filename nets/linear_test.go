package nets

import (
	"math"
	"testing"
)

// checkParamGrads compares the tape gradients of loss with respect to every
// parameter in ps with central finite differences, like CheckGrad does for
// inputs.
func checkParamGrads(t *testing.T, name string, ps *Params, loss func(tp *Tape) *Var) {
	t.Helper()
	ps.ZeroGrad()
	tp := NewTape()
	tp.Backward(loss(tp))
	eval := func() float64 { return loss(NewTape()).Value.Data[0] }
	for _, p := range ps.List() {
		for j := range p.Value.Data {
			orig := p.Value.Data[j]
			p.Value.Data[j] = orig + gcEps
			fp := eval()
			p.Value.Data[j] = orig - gcEps
			fm := eval()
			p.Value.Data[j] = orig
			num := (fp - fm) / (2 * gcEps)
			ana := p.Grad.Data[j]
			if math.IsNaN(ana) || math.Abs(ana-num) > gcTol*math.Max(1, math.Abs(num)) {
				t.Errorf("%s: %s[%d]: analytic %.10g, numeric %.10g", name, p.Name, j, ana, num)
				return
			}
		}
	}
}

func TestLinearGrad(t *testing.T) {
	rng := newRNG(40)
	x := randSigned(rng, 5, 3, 0, 1)
	w := randSigned(rng, 3, 4, 0, 1)
	b := randSigned(rng, 1, 4, 0, 1)
	checkGrad(t, "affine", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.affine(in[0], in[1], in[2]))
	}, x, w, b)

	var ps Params
	l := NewLinear("lin", 3, 4, &ps, rng)
	copy(l.B.Value.Data, b.Data) // a nonzero bias
	checkParamGrads(t, "Linear", &ps, func(tp *Tape) *Var {
		return wsum(tp, tp.Tanh(l.Forward(tp, tp.Const(x))))
	})
}

func TestLinearForward(t *testing.T) {
	rng := newRNG(41)
	var ps Params
	l := NewLinear("enc", 3, 2, &ps, rng)
	if ps.Get("enc.W") != l.W || ps.Get("enc.b") != l.B || ps.Count() != 3*2+2 {
		t.Fatalf("params %v", ps.Names())
	}
	if l.W.Value.Rows != 3 || l.W.Value.Cols != 2 || l.B.Value.Rows != 1 || l.B.Value.Cols != 2 {
		t.Fatalf("W %s, b %s", l.W.Value.Shape(), l.B.Value.Shape())
	}
	bound := math.Sqrt(6.0 / 5)
	for _, v := range l.W.Value.Data {
		if v == 0 || math.Abs(v) > bound {
			t.Fatalf("Glorot weight %g outside (0, %g]", v, bound)
		}
	}
	for _, v := range l.B.Value.Data {
		if v != 0 {
			t.Fatalf("bias not zero: %v", l.B.Value.Data)
		}
	}
	l.B.Value.Data[0], l.B.Value.Data[1] = 0.5, -1
	x := randSigned(rng, 4, 3, 0, 1)
	tp := NewTape()
	got := l.Forward(tp, tp.Const(x)).Value
	want := tp.Add(tp.MatMul(tp.Const(x), tp.Const(l.W.Value), false, false), tp.Const(l.B.Value)).Value
	assertClose(t, "Linear", got, want, 1e-14)
}
