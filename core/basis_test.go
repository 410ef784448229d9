package core

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
)

// TestBasisDecoderRank: with Arch.Basis = J, the corrections f_ψ gives
// different realizations all lie in one J-dimensional space of functions
// of the query state, so the [realizations, queries] matrix of f has rank
// J; the usual f_ψ's do not.
func TestBasisDecoderRank(t *testing.T) {
	const j, n = 3, 12
	for _, basis := range []int{j, 0} {
		m := tinyModel(t, "lv", LNP, func(c *Config) { c.Arch.Basis = basis })
		perturb(m, 4, 0.2)
		tasks := testTasks(t, m.Sys, n, 0, 9)
		ctxs, sides := contextsOf(tasks)
		bt, err := NewBatch(m.Sys, ctxs, sides, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := m.forward(nets.NewTape(), bt, 1, nil)
		q := len(m.Closure().Queries())
		if o.f.Value.Rows != n*q || o.f.Value.Cols != 1 {
			t.Fatalf("basis %d: f is %d×%d, want %d×1", basis, o.f.Value.Rows, o.f.Value.Cols, n*q)
		}
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(n, q, o.f.Value.Data), mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		// The (J+1)-th singular value relative to the first: round-off
		// for the basis decoder; smooth corrections make it small but far
		// above round-off for the usual one.
		sv := svd.Values(nil)
		rel := sv[j] / sv[0]
		if basis > 0 && rel > 1e-12 || basis == 0 && rel < 1e-6 {
			t.Errorf("basis %d: singular values %.3g (σ_%d/σ_1 = %.3g)", basis, sv, j+1, rel)
		}
	}
}
