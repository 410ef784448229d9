package nets

import (
	"math"
	"testing"
)

// TestTrainingTapeMatchesHeap: gradients on a training tape whose arena
// holds NaNs left by an earlier use equal those of a heap tape, for a
// graph where one value feeds a mean and two products (the first
// gradient to reach it writes its storage, the others add), through
// ReLU, SiLU and the tiled layer.
func TestTrainingTapeMatchesHeap(t *testing.T) {
	rng := newRNG(7)
	x := randSigned(rng, 6, 3, 0.1, 1)
	xr := randSigned(rng, 2, 2, 0.1, 1)
	w1, b1 := randSigned(rng, 3, 5, 0.1, 1), randSigned(rng, 1, 5, 0.1, 1)
	w2, b2 := randSigned(rng, 5, 4, 0.1, 1), randSigned(rng, 1, 4, 0.1, 1)
	w3, b3 := randSigned(rng, 5, 4, 0.1, 1), randSigned(rng, 1, 4, 0.1, 1)
	wt, bt := randSigned(rng, 5, 4, 0.1, 1), randSigned(rng, 1, 4, 0.1, 1)
	f := func(tp *Tape, in []*Var) *Var {
		h := tp.SiLU(tp.affine(in[0], in[1], in[2]))
		a := tp.ReLU(tp.affine(h, in[3], in[4]))
		b := tp.Tanh(tp.affine(h, in[5], in[6]))
		q := tp.Exp(tp.Scale(in[0], 0.5))                    // 6 queries
		tiled := tp.TiledAffine(q, in[7], nil, in[8], in[9]) // 2 groups × 6
		seg := tp.SegmentMean(h, 2)                          // recorded last: the first to reach h
		return tp.Add(tp.Add(tp.Add(wsum(tp, a), wsum(tp, b)), wsum(tp, tiled)), wsum(tp, seg))
	}
	inputs := []*Tensor{x, w1, b1, w2, b2, w3, b3, xr, wt, bt}
	grads := func(tp *Tape) []*Tensor {
		vars := make([]*Var, len(inputs))
		for i, in := range inputs {
			vars[i] = tp.Input(in)
		}
		tp.Backward(f(tp, vars))
		out := make([]*Tensor, len(vars))
		for i, v := range vars {
			out[i] = v.Grad.Clone()
		}
		return out
	}
	want := grads(NewTape())
	var a Arena
	for range 2 { // the second pass reuses the first's storage
		dirty := a.allocDirty(1 << 12)
		for i := range dirty {
			dirty[i] = math.NaN()
		}
		a.Reset()
		for i, g := range grads(NewTrainingTape(&a)) {
			assertClose(t, "input "+string(rune('0'+i)), g, want[i], 0)
		}
		a.Reset()
	}
}
