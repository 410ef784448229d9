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
		if !(sv[0] > 0) {
			t.Fatalf("basis %d: f is zero (singular values %.3g)", basis, sv)
		}
		rel := sv[j] / sv[0]
		if basis > 0 && !(rel <= 1e-12) || basis == 0 && !(rel >= 1e-6) {
			t.Errorf("basis %d: singular values %.3g (σ_%d/σ_1 = %.3g)", basis, sv, j+1, rel)
		}
	}
}

// TestBasisSpectralCoversTrunk: the spectral regulariser reaches the
// basis functions too, since f = b·φᵀ would otherwise let training move
// gain from the penalised branch onto the trunk.
func TestBasisSpectralCoversTrunk(t *testing.T) {
	m := tinyModel(t, "lv", LNP, func(c *Config) { c.Arch.Basis, c.Train.Reg = 3, RegSpectral })
	for _, l := range m.trunk.Layers {
		for i := range l.W.Value.Data {
			l.W.Value.Data[i] *= 5 // σ_max > 1, so the penalty is active
		}
	}
	tp := nets.NewTape()
	pen := m.deltaPenalty(tp, forwardOut{}, nil)
	m.Params.ZeroGrad()
	tp.Backward(pen)
	for _, l := range m.trunk.Layers {
		if maxAbs(l.W.Grad.Data) == 0 {
			t.Errorf("%s gets no gradient from the spectral penalty %v", l.W.Name, pen.Value.Data[0])
		}
	}
}

// TestBasisFormatVersion: a basis model's file declares format version 2,
// so that programs from before the basis decoder refuse it ("newer than
// this program's") instead of misreading it; other files stay at 1.
func TestBasisFormatVersion(t *testing.T) {
	for basis, want := range map[int]string{0: "1", 4: "2"} {
		m := tinyModel(t, "lv", LNP, func(c *Config) { c.Arch.Basis = basis })
		f, err := nets.DecodeSafetensors(encodeModel(t, m, Info{}, nets.F32))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Metadata["format_version"]; got != want {
			t.Errorf("basis %d: format_version %q, want %q", basis, got, want)
		}
	}
}
