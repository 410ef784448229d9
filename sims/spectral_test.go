package sims

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// adWeightedSum returns the scalar Σ W ⊙ y for a fixed W the shape of y.
func adWeightedSum(tp *nets.Tape, y *nets.Var, w *nets.Tensor) *nets.Var {
	return tp.Apply(adDot{w}, y)
}

// adDot is L = Σ W ⊙ y, dL/dy = W (a test-only fused op, so the tests
// depend on no nets ops beyond the tape).
type adDot struct{ w *nets.Tensor }

func (d adDot) Forward(in []*nets.Tensor) *nets.Tensor {
	if !in[0].SameShape(d.w) {
		panic("adDot: shape mismatch")
	}
	var s float64
	for i, v := range in[0].Data {
		s += d.w.Data[i] * v
	}
	return nets.Scalar(s)
}

func (d adDot) Backward(_ []*nets.Tensor, _, og *nets.Tensor, g []*nets.Tensor) {
	if g[0] != nil {
		g[0].AddScaled(og.Data[0], d.w)
	}
}

func adUniform(rng *rand.Rand, rows, cols int, lo, hi float64) *nets.Tensor {
	t := nets.NewTensor(rows, cols)
	for i := range t.Data {
		t.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

// adBatch draws B rows of (θ, u0) from the advdiff priors.
func adBatch(rng *rand.Rand, b int) (theta, side *nets.Tensor) {
	sys := newAdvDiff()
	theta = nets.NewTensor(b, 2)
	side = nets.NewTensor(b, advdiffNX)
	for i := range b {
		copy(theta.Row(i), sys.SampleTheta(rng))
		copy(side.Row(i), sys.SampleSide(rng))
	}
	return theta, side
}

// TestSpectralGrad checks the hand-derived adjoint of the spectral op
// with respect to all inputs (v, κ, c and every u0 entry) by finite
// differences. A rough (uniform random) u0 and small κ keep the high
// modes, the Nyquist mode included, alive so that every term of the
// adjoint matters.
func TestSpectralGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	theta, _ := adBatch(rng, 2)
	theta.Data[1], theta.Data[3] = 0.002, 0.004
	side := adUniform(rng, 2, advdiffNX, 0, 1)
	c := adUniform(rng, 2, 1, 0.2, 1.5)
	w := adUniform(rng, 2, advdiffNT*advdiffNX, -1, 1)
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return adWeightedSum(tp, SpectralSolve(tp, in[0], in[1], in[2]), w)
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, c, side}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// TestSpectralGradNominalOp checks that gradients reach θ through
// NominalOp (c constant zero, u0 constant).
func TestSpectralGradNominalOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sys := newAdvDiff()
	theta, side := adBatch(rng, 2)
	w := adUniform(rng, 2, advdiffNT*advdiffNX, -1, 1)
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return adWeightedSum(tp, sys.NominalOp(tp, in[0], side), w)
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// TestSpectralGradClosure checks the reaction closure with respect to θ
// and f. θ also feeds NominalOp in the same loss, so the check covers
// gradients accumulating from two ops.
func TestSpectralGradClosure(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sys := newAdvDiff()
	theta, side := adBatch(rng, 2)
	fv := adUniform(rng, 2, 1, -2, 2)
	w1 := adUniform(rng, 2, advdiffNT*advdiffNX, -1, 1)
	w2 := adUniform(rng, 2, advdiffNT*advdiffNX, -1, 1)
	cl := sys.Closure()
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		a := adWeightedSum(tp, cl.Apply(tp, in[0], side, in[1]), w1)
		b := adWeightedSum(tp, sys.NominalOp(tp, in[0], side), w2)
		// a + b through a [1, 2]·[2, 1] product.
		ab := tp.Apply(adConcat{}, a, b)
		return tp.MatMul(ab, tp.Const(nets.FromSlice(2, 1, []float64{1, 1})), false, false)
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, fv}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// adConcat joins two 1×1 vars into a [1, 2] row.
type adConcat struct{}

func (adConcat) Forward(in []*nets.Tensor) *nets.Tensor {
	return nets.FromSlice(1, 2, []float64{in[0].Data[0], in[1].Data[0]})
}

func (adConcat) Backward(_ []*nets.Tensor, _, og *nets.Tensor, g []*nets.Tensor) {
	for i := range 2 {
		if g[i] != nil {
			g[i].Data[0] += og.Data[i]
		}
	}
}

// TestSpectralBatchMatchesRows checks that a batch large enough to be
// split across goroutines gives, bit for bit, the per-row forward results
// and gradients.
func TestSpectralBatchMatchesRows(t *testing.T) {
	const b = 13
	rng := rand.New(rand.NewPCG(7, 8))
	theta, side := adBatch(rng, b)
	c := adUniform(rng, b, 1, 0, 1)
	og := adUniform(rng, b, advdiffNT*advdiffNX, -1, 1)

	run := func(theta, c, side, og *nets.Tensor) (out *nets.Tensor, grads []*nets.Tensor) {
		op := &spectralOp{s: advdiffSolver}
		in := []*nets.Tensor{theta, c, side}
		out = op.Forward(in)
		grads = []*nets.Tensor{nets.NewTensor(theta.Rows, 2), nets.NewTensor(c.Rows, 1), nets.NewTensor(side.Rows, side.Cols)}
		op.Backward(in, out, og, grads)
		return out, grads
	}
	row := func(x *nets.Tensor, i int) *nets.Tensor {
		return nets.FromSlice(1, x.Cols, append([]float64(nil), x.Row(i)...))
	}
	out, grads := run(theta, c, side, og)
	for i := range b {
		o1, g1 := run(row(theta, i), row(c, i), row(side, i), row(og, i))
		for j, v := range o1.Data {
			if out.Row(i)[j] != v {
				t.Fatalf("row %d: forward differs at %d", i, j)
			}
		}
		for k := range grads {
			for j, v := range g1[k].Data {
				if grads[k].Row(i)[j] != v {
					t.Fatalf("row %d: gradient of input %d differs at %d", i, k, j)
				}
			}
		}
	}
}

// TestSpectralBackwardAccumulates checks that Backward adds into existing
// gradients and leaves nil ones alone.
func TestSpectralBackwardAccumulates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	theta, side := adBatch(rng, 2)
	c := adUniform(rng, 2, 1, 0, 1)
	og := adUniform(rng, 2, advdiffNT*advdiffNX, -1, 1)
	op := &spectralOp{s: advdiffSolver}
	in := []*nets.Tensor{theta, c, side}
	out := op.Forward(in)
	fresh := nets.NewTensor(2, 2)
	op.Backward(in, out, og, []*nets.Tensor{fresh, nil, nil})
	acc := nets.NewTensor(2, 2)
	for i := range acc.Data {
		acc.Data[i] = 1
	}
	op.Backward(in, out, og, []*nets.Tensor{acc, nil, nil})
	for i := range acc.Data {
		if math.Abs(acc.Data[i]-(1+fresh.Data[i])) > 1e-9*math.Max(1, math.Abs(fresh.Data[i])) {
			t.Fatalf("gradient %d: got %g, want 1 + %g", i, acc.Data[i], fresh.Data[i])
		}
	}
}
