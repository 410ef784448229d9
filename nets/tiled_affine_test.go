package nets

import (
	"math"
	"testing"
)

// tileConcat builds the R·Q-row input [x_q[j] | x_r[i] | x_f[iQ+j]] that
// TiledAffine stands for.
func tileConcat(tp *Tape, xq, xr, xf *Var) *Var {
	parts := []*Var{tp.TileRows(xq, xr.Value.Rows), tp.RepeatRows(xr, xq.Value.Rows)}
	if xf != nil {
		parts = append(parts, xf)
	}
	return tp.ConcatCols(parts...)
}

func TestTiledAffineMatchesAffine(t *testing.T) {
	rng := newRNG(70)
	for _, withFull := range []bool{false, true} {
		q, r, kq, kr, kf, out := 5, 3, 2, 4, 0, 6
		if withFull {
			kf = 3
		}
		xq, xr := randSigned(rng, q, kq, 0, 1), randSigned(rng, r, kr, 0, 1)
		w, b := randSigned(rng, kq+kr+kf, out, 0, 1), randSigned(rng, 1, out, 0, 1)
		tp := NewTape()
		var xf *Var
		if withFull {
			xf = tp.Const(randSigned(rng, r*q, kf, 0, 1))
		}
		got := tp.TiledAffine(tp.Const(xq), tp.Const(xr), xf, tp.Const(w), tp.Const(b)).Value
		want := tp.affine(tileConcat(tp, tp.Const(xq), tp.Const(xr), xf), tp.Const(w), tp.Const(b)).Value
		assertClose(t, "TiledAffine", got, want, 1e-13)
	}
}

func TestTiledAffineGrad(t *testing.T) {
	rng := newRNG(71)
	q, r, kq, kr, kf, out := 4, 3, 2, 3, 2, 5
	xq, xr, xf := randSigned(rng, q, kq, 0, 1), randSigned(rng, r, kr, 0, 1), randSigned(rng, r*q, kf, 0, 1)
	w, b := randSigned(rng, kq+kr+kf, out, 0, 1), randSigned(rng, 1, out, 0, 1)
	checkGrad(t, "TiledAffine", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.Tanh(tp.TiledAffine(in[0], in[1], in[2], in[3], in[4])))
	}, xq, xr, xf, w, b)
	w2 := randSigned(rng, kq+kr, out, 0, 1)
	checkGrad(t, "TiledAffine/no-full", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.Tanh(tp.TiledAffine(in[0], in[1], nil, in[2], in[3])))
	}, xq, xr, w2, b)
}

// TestMLPForwardTiled: the tiled forward equals the plain forward on the
// tiled input, on a gradient tape and on an inference tape (where the
// activations run in place), and its parameter gradients are right.
func TestMLPForwardTiled(t *testing.T) {
	for _, act := range []Activation{ActReLU, ActSiLU, ActTanh} {
		rng := newRNG(72)
		var ps Params
		m := NewMLP("m", []int{5, 6, 6, 2}, act, &ps, rng)
		randomBiases(m, rng)
		xq, xr, xf := randSigned(rng, 4, 2, 0, 1), randSigned(rng, 3, 2, 0, 1), randSigned(rng, 12, 1, 0, 1)
		for _, tp := range []*Tape{NewTape(), NewInferenceTape()} {
			got := m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), tp.Const(xf)).Value
			want := m.Forward(tp, tileConcat(tp, tp.Const(xq), tp.Const(xr), tp.Const(xf))).Value
			assertClose(t, "ForwardTiled/"+string(act), got, want, 1e-13)
		}
		checkParamGrads(t, "ForwardTiled/"+string(act), &ps, func(tp *Tape) *Var {
			return wsum(tp, m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), tp.Const(xf)))
		})
	}
}

// TestInferenceActivationsMatch: the in-place activations of an inference
// tape give the recorded activations' values, NaN included.
func TestInferenceActivationsMatch(t *testing.T) {
	rng := newRNG(73)
	for _, act := range []Activation{ActReLU, ActSiLU, ActTanh, ActIdentity} {
		x := randSigned(rng, 7, 5, 0, 3)
		x.Data[3] = math.NaN()
		want := NewTape().Activate(act, NewTape().Const(x.Clone())).Value
		got := NewInferenceTape().activateFresh(act, NewInferenceTape().Const(x.Clone())).Value
		for i := range want.Data {
			if w, g := want.Data[i], got.Data[i]; !(w == g || (w != w && g != g)) {
				t.Fatalf("%s: value %d = %v, want %v", act, i, g, w)
			}
		}
	}
}

// TestInferTiledBlocks: the blocked inference path equals the recorded
// one across block boundaries, with and without a full part, for MLPs of
// one to three layers.
func TestInferTiledBlocks(t *testing.T) {
	defer func(n int) { inferRows = n }(inferRows)
	inferRows = 5
	for _, act := range []Activation{ActSiLU, ActReLU, ActTanh} {
		for _, sizes := range [][]int{{5, 3}, {5, 6, 2}, {5, 7, 6, 3}} {
			for _, withFull := range []bool{false, true} {
				rng := newRNG(74)
				var ps Params
				kf := 0
				if withFull {
					kf = 1
				}
				in := append([]int{2 + 2 + kf}, sizes[1:]...)
				m := NewMLP("m", in, act, &ps, rng)
				randomBiases(m, rng)
				xq, xr := randSigned(rng, 4, 2, 0, 1), randSigned(rng, 3, 2, 0, 1)
				var xf *Tensor
				if withFull {
					xf = randSigned(rng, 12, 1, 0, 1)
				}
				tp := NewTape()
				var xfv *Var
				if xf != nil {
					xfv = tp.Const(xf)
				}
				want := m.Forward(tp, tileConcat(tp, tp.Const(xq), tp.Const(xr), xfv)).Value
				got := m.inferTiled(NewInferenceTape(), xq, xr, xf)
				assertClose(t, "inferTiled/"+string(act), got, want, 1e-12)
			}
		}
	}
}

// TestTiledAffineSharedFull: an x_f of Q rows, shared by every group,
// gives the values and gradients of the same x_f repeated for each
// group, on a gradient tape and in the MLP's tape-free inference.
func TestTiledAffineSharedFull(t *testing.T) {
	rng := newRNG(74)
	q, r, kq, kr, kf, out := 4, 3, 2, 3, 2, 5
	xq, xr, xf := randSigned(rng, q, kq, 0, 1), randSigned(rng, r, kr, 0, 1), randSigned(rng, q, kf, 0, 1)
	w, b := randSigned(rng, kq+kr+kf, out, 0, 1), randSigned(rng, 1, out, 0, 1)
	tp := NewTape()
	repeated := tp.TileRows(tp.Const(xf), r)
	got := tp.TiledAffine(tp.Const(xq), tp.Const(xr), tp.Const(xf), tp.Const(w), tp.Const(b)).Value
	want := tp.TiledAffine(tp.Const(xq), tp.Const(xr), repeated, tp.Const(w), tp.Const(b)).Value
	assertClose(t, "TiledAffine/shared", got, want, 1e-13)
	checkGrad(t, "TiledAffine/shared", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.Tanh(tp.TiledAffine(in[0], in[1], in[2], in[3], in[4])))
	}, xq, xr, xf, w, b)

	var ps Params
	m := NewMLP("m", []int{kq + kr + kf, 6, 6, 2}, ActSiLU, &ps, rng)
	randomBiases(m, rng)
	for _, tp := range []*Tape{NewTape(), NewInferenceTape()} {
		got := m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), tp.Const(xf)).Value
		want := m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), tp.TileRows(tp.Const(xf), r)).Value
		assertClose(t, "ForwardTiled/shared", got, want, 1e-13)
	}
}
