package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomJacobian draws an m×n Jacobian with columns of mixed scales, as
// refinement's are (θ logits, latents, prior rows).
func randomJacobian(rng *rand.Rand, m, n int) *mat.Dense {
	j := mat.NewDense(m, n, nil)
	for c := 0; c < n; c++ {
		scale := math.Pow(10, 2*rng.Float64()-1)
		for r := 0; r < m; r++ {
			j.Set(r, c, scale*rng.NormFloat64())
		}
	}
	return j
}

// TestLMStepSolvesDampedNormalEquations: lmStep's δ satisfies
// (JᵀJ + λ diag(JᵀJ) + εI) δ = −Jᵀr to rounding, at several dampings.
func TestLMStepSolvesDampedNormalEquations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for _, n := range []int{1, 5, 36} {
		j := randomJacobian(rng, n+40, n)
		res := make([]float64, n+40)
		for i := range res {
			res[i] = rng.NormFloat64()
		}
		for _, lambda := range []float64{0, 1e-3, 10} {
			d, ok := lmStep(j, res, lambda)
			if !ok {
				t.Fatalf("n %d, λ %g: factorization failed", n, lambda)
			}
			var jtj mat.Dense
			jtj.Mul(j.T(), j)
			var g mat.VecDense
			g.MulVec(j.T(), mat.NewVecDense(len(res), res))
			for i := 0; i < n; i++ {
				lhs, scale := 0.0, math.Abs(g.AtVec(i))
				for q := 0; q < n; q++ {
					a := jtj.At(i, q)
					if q == i {
						a = a*(1+lambda) + 1e-12
					}
					lhs += a * d[q]
					scale += math.Abs(a * d[q])
				}
				if math.Abs(lhs+g.AtVec(i)) > 1e-10*scale {
					t.Errorf("n %d, λ %g, row %d: residual %g of scale %g", n, lambda, i, lhs+g.AtVec(i), scale)
				}
			}
		}
	}
	if _, ok := lmStep(mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1}), []float64{1, 2, 3}, 0); !ok {
		t.Error("a rank-deficient J with the ε ridge: the step should still factor")
	}
}

// TestLaplaceFactorInvertsTheGram: the factor L of laplaceFactor is
// lower triangular with L Lᵀ JᵀJ = I, and a singular JᵀJ gives nil.
func TestLaplaceFactorInvertsTheGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 26))
	for _, n := range []int{1, 4, 20} {
		j := randomJacobian(rng, 2*n+3, n)
		l := laplaceFactor(j)
		if l == nil {
			t.Fatalf("n %d: no factor of a full-rank Gram", n)
		}
		var cov, jtj, prod mat.Dense
		cov.Mul(l, l.T())
		jtj.Mul(j.T(), j)
		prod.Mul(&cov, &jtj)
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				want := 0.0
				if r == c {
					want = 1
				}
				if math.Abs(prod.At(r, c)-want) > 1e-8 {
					t.Fatalf("n %d: (L Lᵀ JᵀJ)[%d,%d] = %g, want %g", n, r, c, prod.At(r, c), want)
				}
				if c > r && l.At(r, c) != 0 {
					t.Fatalf("n %d: L[%d,%d] = %g above the diagonal", n, r, c, l.At(r, c))
				}
			}
		}
	}
	// A coordinate the residuals do not see, and two that they see only
	// together: singular, and singular to rounding.
	for _, j := range []*mat.Dense{
		mat.NewDense(3, 2, []float64{1, 0, 2, 0, 3, 0}),
		mat.NewDense(2, 2, []float64{1, 1, 1, 1}),
	} {
		if l := laplaceFactor(j); l != nil {
			t.Errorf("singular Gram of %v gave a factor, want nil", mat.Formatted(j))
		}
	}
}

// TestGramIsJTJ: gram gives JᵀJ (its upper triangle, all that its
// readers use) for a contiguous Jacobian and for a strided view of one,
// and a released buffer's old values do not leak into the next product.
func TestGramIsJTJ(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	for _, n := range []int{1, 7, 36} {
		big := randomJacobian(rng, n+30, n+3)
		for _, j := range []*mat.Dense{randomJacobian(rng, n+30, n), big.Slice(0, n+30, 1, n+1).(*mat.Dense)} {
			_, release := gram(j) // leave old values in the pool's buffer
			release()
			a, release := gram(j)
			var want mat.Dense
			want.Mul(j.T(), j)
			for r := 0; r < n; r++ {
				for c := r; c < n; c++ {
					got, w := a.Data[r*a.Stride+c], want.At(r, c)
					if math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
						t.Fatalf("n %d: (JᵀJ)[%d, %d] = %v, want %v", n, r, c, got, w)
					}
				}
			}
			release()
		}
	}
}

// whitened returns ‖(J L)ᵀ(J L) − I‖_max: zero when L Lᵀ = (JᵀJ)⁻¹,
// measured without forming JᵀJ, whose rounding would swamp an
// ill-conditioned case.
func whitened(j *mat.Dense, l *mat.TriDense) float64 {
	var jl, g mat.Dense
	jl.Mul(j, l)
	g.Mul(jl.T(), &jl)
	worst := 0.0
	n, _ := g.Dims()
	for i := 0; i < n; i++ {
		for q := 0; q < n; q++ {
			want := 0.0
			if i == q {
				want = 1
			}
			worst = math.Max(worst, math.Abs(g.At(i, q)-want))
		}
	}
	return worst
}

// TestLaplaceFactorNearExactFit: a fit whose data rows, scaled by a
// tiny σ̂, pin some coordinates 10¹⁰ times more tightly than the prior
// rows hold the rest has JᵀJ beyond Cholesky's reach (condition 10²⁰);
// the factor comes from J's QR and still whitens J. A well-conditioned
// J gets the same factor both ways.
func TestLaplaceFactorNearExactFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const m, n, data = 60, 8, 3 // data pins 3 of 8 coordinates
	j := mat.NewDense(m+n, n, nil)
	for r := 0; r < m; r++ {
		for c := 0; c < data; c++ {
			j.Set(r, c, 1e10*rng.NormFloat64())
		}
	}
	for c := 0; c < n; c++ {
		j.Set(m+c, c, 1) // the prior rows
	}
	l := laplaceFactor(j)
	if l == nil {
		t.Fatal("no factor for a near-exact fit")
	}
	if w := whitened(j, l); w > 1e-6 {
		t.Errorf("near-exact fit: (JL)ᵀ(JL) is %g from I", w)
	}
	well := randomJacobian(rng, 50, n)
	chol, qr := laplaceFactor(well), laplaceFactorQR(well)
	for i := 0; i < n; i++ {
		for c := 0; c <= i; c++ {
			if a, b := chol.At(i, c), qr.At(i, c); math.Abs(a-b) > 1e-9*(math.Abs(a)+1e-12) && math.Abs(a-b) > 1e-12 {
				t.Errorf("L[%d][%d]: Cholesky %g, QR %g", i, c, a, b)
			}
		}
	}
}
