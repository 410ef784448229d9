package nets

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMLPGrad(t *testing.T) {
	for _, act := range []Activation{ActReLU, ActTanh, ActSoftplus, ActSigmoid, ActIdentity, ActSiLU} {
		rng := newRNG(50)
		var ps Params
		m := NewMLP("mlp", []int{3, 5, 4, 2}, act, &ps, rng)
		randomBiases(m, rng)
		x := randSigned(rng, 6, 3, 0, 1)
		checkParamGrads(t, "MLP/"+string(act), &ps, func(tp *Tape) *Var {
			return wsum(tp, m.Forward(tp, tp.Const(x)))
		})
		checkGrad(t, "MLP/input/"+string(act), func(tp *Tape, in []*Var) *Var {
			return wsum(tp, m.Forward(tp, in[0]))
		}, x)
	}
}

func TestMLPStructure(t *testing.T) {
	var ps Params
	m := NewMLP("enc", []int{3, 8, 6, 2}, ActTanh, &ps, newRNG(51))
	if m.In() != 3 || m.Out() != 2 || len(m.Layers) != 3 || m.Last() != m.Layers[2] {
		t.Fatalf("In %d Out %d layers %d", m.In(), m.Out(), len(m.Layers))
	}
	want := []string{"enc.0.W", "enc.0.b", "enc.1.W", "enc.1.b", "enc.2.W", "enc.2.b"}
	if got := ps.Names(); !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	x := randSigned(newRNG(52), 4, 3, 0, 1)
	tp := NewTape()
	h := m.ForwardHidden(tp, tp.Const(x))
	if h.Value.Rows != 4 || h.Value.Cols != 6 {
		t.Fatalf("hidden %s", h.Value.Shape())
	}
	// Forward = Last(ForwardHidden), and mean pooling commutes with the
	// affine last layer.
	assertClose(t, "Forward", m.Forward(tp, tp.Const(x)).Value, m.Last().Forward(tp, h).Value, 0)
	pooledLast := m.Last().Forward(tp, tp.MeanRows(h)).Value
	assertClose(t, "mean before last", pooledLast, tp.MeanRows(m.Forward(tp, tp.Const(x))).Value, 1e-14)
}

func TestParseActivation(t *testing.T) {
	for _, s := range []string{"relu", "tanh", "softplus", "sigmoid", "identity", "silu"} {
		if a, err := ParseActivation(s); err != nil || string(a) != s {
			t.Errorf("ParseActivation(%q) = %q, %v", s, a, err)
		}
	}
	if _, err := ParseActivation("gelu"); err == nil {
		t.Error("ParseActivation(gelu) gave no error")
	}
}

// TestCompositeGrad checks a miniature latent neural process end to end: a
// per-point MLP encoder mean-pooled per realization into the mean and
// log-variance of a latent, a decoder fed the latent mean repeated over
// tiled query points, a Gaussian likelihood and the KL to the prior.
func TestCompositeGrad(t *testing.T) {
	const batch, nCtx, nTgt, zDim = 2, 3, 2, 2
	rng := newRNG(53)
	var ps Params
	enc := NewMLP("enc", []int{2, 5, 2 * zDim}, ActTanh, &ps, rng)
	dec := NewMLP("dec", []int{zDim + 1, 4, 2}, ActSoftplus, &ps, rng)
	ctx := randSigned(rng, batch*nCtx, 2, 0, 1)
	query := randSigned(rng, nTgt, 1, 0, 1)
	yTgt := randSigned(rng, batch*nTgt, 1, 0, 1)
	loss := func(tp *Tape, ctx *Var) *Var {
		h := tp.SegmentMean(enc.ForwardHidden(tp, ctx), nCtx)
		stats := enc.Last().Forward(tp, h)
		mu, logVar := tp.SliceCols(stats, 0, zDim), tp.SliceCols(stats, zDim, 2*zDim)
		in := tp.ConcatCols(tp.RepeatRows(mu, nTgt), tp.TileRows(tp.Const(query), batch))
		out := dec.Forward(tp, in)
		lp := tp.GaussianLogProb(tp.Const(yTgt), tp.SliceCols(out, 0, 1), tp.SliceCols(out, 1, 2))
		return tp.Add(tp.Neg(tp.Mean(lp)), tp.Scale(tp.Mean(tp.KLStdNormal(mu, logVar)), 0.5))
	}
	checkParamGrads(t, "composite", &ps, func(tp *Tape) *Var { return loss(tp, tp.Const(ctx)) })
	checkGrad(t, "composite/input", func(tp *Tape, in []*Var) *Var { return loss(tp, in[0]) }, ctx)
}

// randomBiases sets every bias of m to a small seeded value, so that the
// tests do not rest on the zero initial biases.
func randomBiases(m *MLP, rng *rand.Rand) {
	for _, l := range m.Layers {
		for i := range l.B.Value.Data {
			l.B.Value.Data[i] = 0.1 * (rng.Float64() - 0.5)
		}
	}
}
