package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
)

// gappedMatrix is a rows×cols matrix with a dominant rank-one part
// scale·a bᵀ plus small noise, so that σ_max stands clear of σ_2 and
// leading singular value is well separated.
func gappedMatrix(rows, cols int, scale float64, seed uint64) *nets.Tensor {
	rng := rand.New(rand.NewPCG(seed, 5))
	a, b := make([]float64, rows), make([]float64, cols)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for j := range b {
		b[j] = rng.NormFloat64()
	}
	normalize(a)
	normalize(b)
	w := nets.NewTensor(rows, cols)
	for i := range rows {
		for j := range cols {
			w.Set(i, j, scale*a[i]*b[j]+0.1*rng.NormFloat64())
		}
	}
	return w
}

func sigmaMax(w *nets.Tensor) float64 {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(w.Rows, w.Cols, w.Data), mat.SVDNone) {
		panic("svd failed")
	}
	return svd.Values(nil)[0]
}

func TestSpectralPenaltyValue(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		scale      float64
	}{{4, 3, 2.5}, {3, 6, 4}, {5, 5, 0.5}} {
		w := gappedMatrix(c.rows, c.cols, c.scale, uint64(c.rows*10+c.cols))
		s := sigmaMax(w)
		got := (&spectralPenalty{}).Forward([]*nets.Tensor{w}).Data[0]
		want := math.Pow(math.Max(0, s-1), 2)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%dx%d scale %v: penalty %v, want (σ_max−1)₊² = %v (σ_max %v)", c.rows, c.cols, c.scale, got, want, s)
		}
	}
}

func TestSpectralPenaltyGrad(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		scale      float64
	}{{4, 3, 2.5}, {3, 6, 4}} {
		w := gappedMatrix(c.rows, c.cols, c.scale, uint64(c.rows*10+c.cols))
		if s := sigmaMax(w); s <= 1.2 {
			t.Fatalf("test matrix has σ_max %v, want > 1", s)
		}
		f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
			return tp.Apply(&spectralPenalty{}, in[0])
		}
		if err := nets.CheckGrad(f, []*nets.Tensor{w}, 1e-6, 1e-6); err != nil {
			t.Errorf("%dx%d: %v", c.rows, c.cols, err)
		}
	}
}

// orthogonal returns a random n×n orthogonal matrix (Q of a Gaussian
// matrix's QR factorisation).
func orthogonal(n int, rng *rand.Rand) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// TestSpectralPenaltySmallGap uses a matrix whose two largest singular
// values are close, σ₂/σ₁ = 0.97, as is common for Glorot-initialised
// layers such as f_ψ's: the penalty must still be (σ_max − 1)₊² of the
// true σ_max, and its gradient must match finite differences.
func TestSpectralPenaltySmallGap(t *testing.T) {
	const rows, cols = 18, 16
	rng := rand.New(rand.NewPCG(3, 4))
	sv := []float64{2, 1.94, 1.5, 1.2, 0.9, 0.7, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1, 0.08, 0.05, 0.02, 0.01}
	d := mat.NewDense(rows, cols, nil)
	for i, s := range sv {
		d.Set(i, i, s)
	}
	var w0, w1 mat.Dense
	w0.Mul(orthogonal(rows, rng), d)
	w1.Mul(&w0, orthogonal(cols, rng).T())
	w := nets.FromSlice(rows, cols, w1.RawMatrix().Data)
	if s := sigmaMax(w); math.Abs(s-2) > 1e-12 {
		t.Fatalf("constructed σ_max %v, want 2", s)
	}
	got := (&spectralPenalty{}).Forward([]*nets.Tensor{w}).Data[0]
	if want := 1.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("penalty %v, want (σ_max−1)² = %v", got, want)
	}
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return tp.Apply(&spectralPenalty{}, in[0])
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{w}, 1e-6, 1e-5); err != nil {
		t.Error(err)
	}
}

// TestSpectralPenaltyInactive: a contraction costs nothing and gets no
// gradient.
func TestSpectralPenaltyInactive(t *testing.T) {
	w := gappedMatrix(4, 4, 0.4, 1)
	if s := sigmaMax(w); s >= 1 {
		t.Fatalf("test matrix has σ_max %v, want < 1", s)
	}
	tp := nets.NewTape()
	in := tp.Input(w)
	out := tp.Apply(&spectralPenalty{}, in)
	if out.Value.Data[0] != 0 {
		t.Errorf("penalty of a contraction = %v, want 0", out.Value.Data[0])
	}
	tp.Backward(out)
	if in.Grad != nil {
		for _, g := range in.Grad.Data {
			if g != 0 {
				t.Fatalf("gradient of an inactive penalty has %v, want 0", g)
			}
		}
	}
}

// normalize scales x to unit length.
func normalize(x []float64) {
	n := 0.0
	for _, v := range x {
		n += v * v
	}
	n = math.Sqrt(n)
	for i := range x {
		x[i] /= n
	}
}
