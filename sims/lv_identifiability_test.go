package sims

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lvParamSD returns the standard deviations of α and β that the Fisher
// information of a context gives: the context values are the true
// trajectory at the grid indices idx (both channels), observed to within
// σ, and p = (α, β, η, γ, w_0..w_5) with the parameters at free estimated
// (the others known exactly):
//
//	Cov = σ² (Jᵀ J)⁻¹,  J = ∂y_ctx/∂p_free
//
// J by central differences of the data integrator.
func lvParamSD(t *testing.T, s *lotkaVolterra, p, side []float64, idx []int, free []int, sigma float64) (sdAlpha, sdBeta float64) {
	t.Helper()
	times := s.data.stageTimes()
	traj := func(p []float64) []float64 {
		out := make([]float64, s.grid.Size())
		s.data.integrate(1, p[:4], side, LVBumpForcing(p[4:], times), out, nil)
		return out
	}
	j := mat.NewDense(2*len(idx), len(free), nil)
	for c, k := range free {
		const h = 1e-5
		up, down := append([]float64(nil), p...), append([]float64(nil), p...)
		up[k] += h
		down[k] -= h
		tu, td := traj(up), traj(down)
		for i, g := range idx {
			for ch := range 2 {
				j.Set(2*i+ch, c, (tu[2*g+ch]-td[2*g+ch])/(2*h))
			}
		}
	}
	var info, cov mat.Dense
	info.Mul(j.T(), j)
	if err := cov.Inverse(&info); err != nil {
		t.Fatalf("Fisher information not invertible: %v", err)
	}
	return sigma * math.Sqrt(cov.At(0, 0)), sigma * math.Sqrt(cov.At(1, 1))
}

// TestLVForcingIdentifiability measures how well one lv realization's
// context pins α and β, the parameters of the forced prey equation. With
// the forcing known exactly, 30 context times observed to within 0.01
// give α and β to about 0.01. If the forcing's six bump weights are
// unknown too — even with the exact bump shapes and centres given — the
// same context leaves α and β uncertain by more than 0.1: a change of α,
// β is nearly undone by a change of the forcing. A model that learns the
// forcing (APIC's f_ψ, fitted per realization through z_δ) therefore
// cannot recover α and β from the context alone much beyond what the
// population prior and the training anchors give (README, Results: lv).
func TestLVForcingIdentifiability(t *testing.T) {
	s := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(5, 7))
	const n, sigma = 40, 0.01
	var known, unknown [2]float64
	for range n {
		theta, side := s.SampleTheta(rng), s.SampleSide(rng)
		w := LVForcingWeights(theta, side)
		p := append(append([]float64(nil), theta...), w[:]...)
		idx := rng.Perm(s.grid.Points())[:s.TestContext()]
		a, b := lvParamSD(t, s, p, side, idx, []int{0, 1, 2, 3}, sigma)
		known[0] += a / n
		known[1] += b / n
		a, b = lvParamSD(t, s, p, side, idx, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, sigma)
		unknown[0] += a / n
		unknown[1] += b / n
	}
	t.Logf("mean sd over %d realizations, context %d, σ = %.2f: forcing known: α %.4f, β %.4f; bump weights unknown: α %.4f, β %.4f",
		n, s.TestContext(), sigma, known[0], known[1], unknown[0], unknown[1])
	for i, name := range []string{"α", "β"} {
		if known[i] > 0.02 {
			t.Errorf("forcing known: sd %s %.4f, want ≤ 0.02", name, known[i])
		}
		if unknown[i] < 0.1 {
			t.Errorf("bump weights unknown: sd %s %.4f, want ≥ 0.1", name, unknown[i])
		}
	}
}
