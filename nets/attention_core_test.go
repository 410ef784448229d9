package nets

import (
	"runtime"
	"testing"
)

// TestAttentionCoreMatchesUnfused: the fused core equals softmax of the
// batched scores times the values, and so do its gradients.
func TestAttentionCoreMatchesUnfused(t *testing.T) {
	rng := newRNG(71)
	const groups, nq, nk, d, dv = 5, 3, 7, 4, 2
	q := randSigned(rng, groups*nq, d, 0, 1)
	k := randSigned(rng, groups*nk, d, 0, 1)
	v := randSigned(rng, groups*nk, dv, 0, 1)
	w := randSigned(rng, groups*nq, dv, 0, 1)
	run := func(fused bool) (y *Tensor, grads []*Tensor) {
		tp := NewTape()
		in := []*Var{tp.Input(q), tp.Input(k), tp.Input(v)}
		var out *Var
		if fused {
			out = tp.AttentionCore(in[0], in[1], in[2], groups)
		} else {
			p := tp.Softmax(tp.BatchMatMul(in[0], in[1], groups, false, true))
			out = tp.BatchMatMul(p, in[2], groups, false, false)
		}
		tp.Backward(tp.Sum(tp.Mul(out, tp.Const(w))))
		for _, x := range in {
			grads = append(grads, x.Grad)
		}
		return out.Value, grads
	}
	yf, gf := run(true)
	yu, gu := run(false)
	assertClose(t, "AttentionCore value", yf, yu, 1e-14)
	for i, name := range []string{"dq", "dk", "dv"} {
		assertClose(t, "AttentionCore "+name, gf[i], gu[i], 1e-13)
	}
}

// TestAttentionCoreGrad checks the fused core's adjoint against finite
// differences.
func TestAttentionCoreGrad(t *testing.T) {
	rng := newRNG(72)
	const groups, nq, nk, d, dv = 3, 2, 5, 3, 2
	checkGrad(t, "AttentionCore", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.AttentionCore(in[0], in[1], in[2], groups))
	}, randSigned(rng, groups*nq, d, 0, 1), randSigned(rng, groups*nk, d, 0, 1), randSigned(rng, groups*nk, dv, 0, 1))
}

// TestAttentionCoreInference: an inference tape gives the same values and
// keeps nothing for a backward pass.
func TestAttentionCoreInference(t *testing.T) {
	rng := newRNG(73)
	const groups, n, d = 4, 6, 3
	q, k, v := randSigned(rng, groups*n, d, 0, 1), randSigned(rng, groups*n, d, 0, 1), randSigned(rng, groups*n, d, 0, 1)
	train := NewTape()
	want := train.AttentionCore(train.Input(q), train.Input(k), train.Input(v), groups).Value
	inf := NewInferenceTape()
	got := inf.AttentionCore(inf.Const(q), inf.Const(k), inf.Const(v), groups)
	assertClose(t, "inference AttentionCore", got.Value, want, 0)
	if got.needsGrad || len(inf.nodes) != 0 {
		t.Errorf("inference tape recorded a backward pass (needsGrad %v, %d nodes)", got.needsGrad, len(inf.nodes))
	}
	// An input that needs a gradient gets one, on either tape.
	grads := make([]*Tensor, 2)
	for i, tp := range []*Tape{NewTape(), NewInferenceTape()} {
		in := tp.Input(q)
		tp.Backward(tp.Sum(tp.AttentionCore(in, tp.Const(k), tp.Const(v), groups)))
		grads[i] = in.Grad
	}
	if grads[1] == nil {
		t.Fatal("inference tape: no gradient for an Input")
	}
	assertClose(t, "inference-tape gradient", grads[1], grads[0], 0)
}

// TestAttentionCoreBackwardTwicePanics: a second backward pass would read
// probabilities already returned to the pool; it panics instead.
func TestAttentionCoreBackwardTwicePanics(t *testing.T) {
	rng := newRNG(74)
	tp := NewTape()
	q := tp.Input(randSigned(rng, 4, 2, 0, 1))
	y := tp.Sum(tp.AttentionCore(q, q, q, 2))
	tp.Backward(y)
	defer func() {
		if recover() == nil {
			t.Error("second backward pass did not panic")
		}
	}()
	tp.Backward(y)
}

// TestBufferPoolReuses: a returned slice comes back for a request that
// fits, the smallest that fits, and the pool keeps at most
// maxFreeBuffers.
func TestBufferPoolReuses(t *testing.T) {
	var bp bufferPool
	a, b := bp.get(100), bp.get(10)
	bp.put(a)
	bp.put(b)
	if got := bp.get(8); &got[:1][0] != &b[:1][0] || len(got) != 8 {
		t.Errorf("get(8) did not reuse the 10-slice")
	}
	if got := bp.get(50); &got[:1][0] != &a[:1][0] {
		t.Errorf("get(50) did not reuse the 100-slice")
	}
	for i := range 2 * maxFreeBuffers {
		bp.put(make([]float64, i+1))
	}
	if len(bp.free) != maxFreeBuffers {
		t.Errorf("pool keeps %d slices, want %d", len(bp.free), maxFreeBuffers)
	}
	for _, f := range bp.free {
		if cap(f) <= maxFreeBuffers {
			t.Errorf("pool kept a small slice (cap %d) over larger ones", cap(f))
		}
	}
}

// TestAttentionProcs: a small attention keeps to the tape's workers (one
// for a single small prediction), a large one uses every core.
func TestAttentionProcs(t *testing.T) {
	tp := NewInferenceTape()
	tp.SetWorkers(1)
	if got := attentionProcs(tp, parallelAttention-1); got != 1 {
		t.Errorf("small attention on a one-worker tape: %d goroutines, want 1", got)
	}
	if got, want := attentionProcs(tp, parallelAttention), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("large attention: %d goroutines, want GOMAXPROCS %d", got, want)
	}
	tp.SetWorkers(0)
	if got, want := attentionProcs(tp, 1), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("small attention on an unlimited tape: %d goroutines, want %d", got, want)
	}
}
