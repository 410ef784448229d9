package nets

import "testing"

// benchLayer times forward+backward (including zeroing the gradients) of
// sum(relu(x W + b)) for a batch of 64 rows.
func benchLayer(b *testing.B, in, out int) {
	rng := newRNG(100)
	var ps Params
	l := NewLinear("l", in, out, &ps, rng)
	x := randSigned(rng, 64, in, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		ps.ZeroGrad()
		tp := NewTape()
		tp.Backward(tp.Sum(tp.ReLU(l.Forward(tp, tp.Const(x)))))
	}
}

func BenchmarkMLPLayer4096x512(b *testing.B) { benchLayer(b, 4096, 512) }

func BenchmarkMLPLayer256x256(b *testing.B) { benchLayer(b, 256, 256) }

// BenchmarkSetEncoder times forward+backward of a deep-sets encoder: 64
// realizations × 300 points × 3 features through a per-point MLP
// 3→256→256 (ReLU), mean-pooled per realization, then Linear 256→256.
func BenchmarkSetEncoder(b *testing.B) {
	const batch, points = 64, 300
	rng := newRNG(101)
	var ps Params
	enc := NewMLP("enc", []int{3, 256, 256, 256}, ActReLU, &ps, rng)
	x := randSigned(rng, batch*points, 3, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		ps.ZeroGrad()
		tp := NewTape()
		h := tp.SegmentMean(enc.ForwardHidden(tp, tp.Const(x)), points)
		tp.Backward(tp.Sum(enc.Last().Forward(tp, h)))
	}
}

// BenchmarkAdamStep300k times one Adam step (with clipping) over about
// 300k parameters.
func BenchmarkAdamStep300k(b *testing.B) {
	rng := newRNG(102)
	var ps Params
	NewMLP("m", []int{256, 512, 256, 128, 64}, ActReLU, &ps, rng)
	for _, p := range ps.List() {
		for i := range p.Grad.Data {
			p.Grad.Data[i] = rng.NormFloat64()
		}
	}
	opt := NewAdam(1e-3)
	opt.ClipNorm = 1
	b.ReportMetric(float64(ps.Count()), "params")
	b.ReportAllocs()
	for b.Loop() {
		opt.Step(&ps)
	}
}

// BenchmarkSelfAttention times forward+backward of the anp encoder's
// self-attention at its training size: 32 realizations × 57 points, width
// 64, 4 heads.
func BenchmarkSelfAttention(b *testing.B) {
	const batch, points, dim = 32, 57, 64
	rng := newRNG(103)
	var ps Params
	att := NewMultiHeadAttention("att", dim, dim, dim, dim, 4, &ps, rng)
	x := randSigned(rng, batch*points, dim, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		ps.ZeroGrad()
		tp := NewTape()
		h := tp.Input(x)
		tp.Backward(tp.Sum(att.Forward(tp, h, h, h, batch)))
	}
}

// BenchmarkSigmoid evaluates SiLU, x·σ(x), on a hidden layer's worth of
// pre-activations of both signs (100 rows × 256), as f_ψ's forward pass
// and its input gradient do: one value at a time, and by siluInto in
// each vector form this CPU has.
func BenchmarkSigmoid(b *testing.B) {
	rng := newRNG(7)
	x := make([]float64, 100*256)
	for i := range x {
		x[i] = 2 * rng.NormFloat64()
	}
	d := make([]float64, len(x))
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				d[i] = v * sigmoid(v)
			}
		}
	})
	eachExpForm(func(name string) {
		b.Run("siluInto/"+name, func(b *testing.B) {
			for b.Loop() {
				siluInto(d, x)
			}
		})
	})
}
