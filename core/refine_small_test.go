package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// closeRel reports whether got and want agree to tol relative to the
// largest magnitude in want, and else the first index where they do not.
func closeRel(got, want []float64, tol float64) (int, bool) {
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*scale {
			return i, false
		}
	}
	return -1, true
}

// TestSmallSolvesMatchGonum: the hand-written solves with a Cholesky
// factor agree with gonum's Dpotrs and Dtrsm on random SPD systems of
// refinement's sizes, on contiguous and strided factors, and with zeros
// in the right-hand sides.
func TestSmallSolvesMatchGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	for _, n := range []int{1, 2, 5, 17, 36, 64} {
		for _, ld := range []int{n, n + 3} {
			j := randomJacobian(rng, n+10, n)
			a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: ld, Data: make([]float64, n*ld)}
			blas64.Syrk(blas.Trans, 1, j.RawMatrix(), 0, a)
			u, ok := lapack64.Potrf(a)
			if !ok {
				t.Fatalf("n %d: Dpotrf failed on an SPD matrix", n)
			}
			// UᵀU x = b.
			b := make([]float64, n)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			b[0] = 0
			x := append([]float64(nil), b...)
			potrsUpper(u.Data, u.Stride, n, x)
			want := append([]float64(nil), b...)
			lapack64.Potrs(u, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: want})
			if i, ok := closeRel(x, want, 1e-9); !ok {
				t.Fatalf("n %d, stride %d: UᵀU x = b, x[%d] = %v, gonum %v", n, ld, i, x[i], want[i])
			}
			// X U = B for a few rows, one of them zero.
			const rows = 7
			xs := make([]float64, rows*n)
			for i := n; i < len(xs); i++ {
				xs[i] = rng.NormFloat64()
			}
			ws := append([]float64(nil), xs...)
			inv := make([]float64, n)
			for c := range inv {
				inv[c] = 1 / u.Data[c*u.Stride+c]
			}
			trsmRightUpper(u.Data, u.Stride, n, inv, xs, rows)
			blas64.Trsm(blas.Right, blas.NoTrans, 1, u, blas64.General{Rows: rows, Cols: n, Stride: n, Data: ws})
			for r := range rows {
				if i, ok := closeRel(xs[r*n:(r+1)*n], ws[r*n:(r+1)*n], 1e-9); !ok {
					t.Fatalf("n %d, stride %d: X U = B, X[%d, %d] = %v, gonum %v", n, ld, r, i, xs[r*n+i], ws[r*n+i])
				}
			}
		}
	}
}

// TestRejectDampingLowersError: the damping floor after a rejected
// Levenberg–Marquardt step (lmRejectDamping) ends refinement with a
// reconstruction error no higher (0.1 %), over 60 seeded realizations per
// shipped checkpoint, than the plain ×4 rule, and lower where steps are
// rejected most (spring's ReLU decoder, the anp decoders: 0.9–5 %).
func TestRejectDampingLowersError(t *testing.T) {
	for _, c := range []struct {
		sys   string
		bb    Backbone
		bound float64 // the floor's error over the ×4 rule's, at most
	}{
		{"spring", CNP, 0.97}, {"spring", LNP, 1.001}, {"spring", ANP, 0.985},
		{"lv", CNP, 1.001}, {"lv", LNP, 1.001}, {"lv", ANP, 0.995},
		{"advdiff", LNP, 1.001}, {"advdiff", ANP, 0.97},
	} {
		m, _ := shippedModel(t, c.sys, c.bb, 1)
		recon := func(floor float64) float64 {
			defer func(old float64) { lmRejectDamping = old }(lmRejectDamping)
			lmRejectDamping = floor
			rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 60, Seed: 11, Samples: 8, Refine: -1})
			if err != nil {
				t.Fatal(err)
			}
			return rep.Metrics["recon_mae"].Mean
		}
		plain, floored := recon(0), recon(lmRejectDamping)
		if floored > c.bound*plain {
			t.Errorf("%s/%s: recon MAE %.4g with the damping floor, %.4g without (want at most %.3f×)", c.sys, c.bb, floored, plain, c.bound)
		}
	}
}
