package nets

import (
	"math"
	"testing"
)

func TestProbGrad(t *testing.T) {
	rng := newRNG(30)
	y := randSigned(rng, 3, 2, 0, 2)
	mu := randSigned(rng, 3, 2, 0, 2)
	lv := randSigned(rng, 3, 2, 0, 1.5)
	checkGrad(t, "GaussianLogProb", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.GaussianLogProb(in[0], in[1], in[2]))
	}, y, mu, lv)
	checkGrad(t, "GaussianLogProb/const-y", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.GaussianLogProb(tp.Const(y), in[0], in[1]))
	}, mu, lv)
	checkGrad(t, "KLStdNormal", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.KLStdNormal(in[0], in[1]))
	}, mu, lv)
	checkGrad(t, "Softmax", func(tp *Tape, in []*Var) *Var { return wsum(tp, tp.Softmax(in[0])) }, randSigned(rng, 3, 5, 0, 3))
}

func TestProbValues(t *testing.T) {
	tp := NewTape()
	zero := tp.Const(NewTensor(2, 3))
	kl := tp.KLStdNormal(zero, zero).Value
	assertClose(t, "KL(N(0,1)||N(0,1))", kl, NewTensor(2, 1), 0)

	// KL of N(μ, σ²) in one dimension: ½(σ² + μ² − 1 − log σ²).
	mu, s2 := 0.7, 2.5
	kl = tp.KLStdNormal(tp.Const(Scalar(mu)), tp.Const(Scalar(math.Log(s2)))).Value
	assertClose(t, "KL 1-D", kl, Scalar(0.5*(s2+mu*mu-1-math.Log(s2))), 1e-15)

	// At the mean with unit variance the log-density is −½ log 2π; with
	// variance σ² at one standard deviation away it is
	// −½(log 2π + log σ² + 1).
	y := FromSlice(1, 2, []float64{0.3, 0.3 + 2})
	m := FromSlice(1, 2, []float64{0.3, 0.3})
	lv := FromSlice(1, 2, []float64{0, math.Log(4)})
	lp := tp.GaussianLogProb(tp.Const(y), tp.Const(m), tp.Const(lv)).Value
	want := FromSlice(1, 2, []float64{-0.5 * math.Log(2*math.Pi), -0.5 * (math.Log(2*math.Pi) + math.Log(4) + 1)})
	assertClose(t, "GaussianLogProb", lp, want, 1e-15)
}

func TestSoftmaxRows(t *testing.T) {
	tp := NewTape()
	// Huge logits must not overflow; a row of equal logits is uniform.
	x := tp.Const(FromSlice(3, 3, []float64{1000, 999, 998, 2, 2, 2, -1e4, 0, -1e4}))
	y := tp.Softmax(x).Value
	if !y.AllFinite() {
		t.Fatalf("softmax not finite: %v", y.Data)
	}
	for i := range 3 {
		s := 0.0
		for _, v := range y.Row(i) {
			s += v
		}
		if math.Abs(s-1) > 1e-15 {
			t.Errorf("row %d sums to %g", i, s)
		}
	}
	e := math.Exp(-1.0)
	d := 1 + e + e*e
	assertClose(t, "softmax", y, FromSlice(3, 3, []float64{1 / d, e / d, e * e / d, 1. / 3, 1. / 3, 1. / 3, 0, 1, 0}), 1e-15)
}
