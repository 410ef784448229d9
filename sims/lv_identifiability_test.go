package sims

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lvContextCov returns the covariance of the parameters at free that the
// Fisher information of a context gives: the context values are the true
// trajectory at the grid indices idx (both channels), observed to within
// σ, and p = (α, β, η, γ, w_0..w_5) with the parameters at free estimated
// (the others known exactly):
//
//	Cov = σ² (Jᵀ J)⁻¹,  J = ∂y_ctx/∂p_free
//
// J by central differences of the data integrator.
func lvContextCov(t *testing.T, s *lotkaVolterra, p, side []float64, idx []int, free []int, sigma float64) *mat.Dense {
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
	cov.Scale(sigma*sigma, &cov)
	return &cov
}

// lvNominalSpread is the mean over the grid of E|F(x; θ + e) − F(x; θ)|
// for e ~ N(0, Cov) (Cov the top-left 4×4 block of cov), linearised:
// with g = ∂F(x)/∂θ, F(x; θ + e) − F(x; θ) ~ N(0, gᵀ Cov g), whose mean
// absolute value is √(2/π · gᵀ Cov g). It is the F(θ̂) part of the δ
// error (BENCHMARKS.md's δ̂ = ŷ − F(θ̂)) that an unbiased estimator with
// that covariance leaves.
func lvNominalSpread(s *lotkaVolterra, theta, side []float64, cov *mat.Dense) float64 {
	const h = 1e-6
	nom := func(th []float64) []float64 {
		out := make([]float64, s.grid.Size())
		s.data.integrate(1, th, side, nil, out, nil)
		return out
	}
	grad := make([][]float64, 4)
	for k := range grad {
		up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
		up[k] += h
		down[k] -= h
		fu, fd := nom(up), nom(down)
		grad[k] = make([]float64, len(fu))
		for i := range fu {
			grad[k][i] = (fu[i] - fd[i]) / (2 * h)
		}
	}
	var sum float64
	for i := range grad[0] {
		var v float64
		for a := range 4 {
			for b := range 4 {
				v += grad[a][i] * cov.At(a, b) * grad[b][i]
			}
		}
		sum += math.Sqrt(2 / math.Pi * max(v, 0))
	}
	return sum / float64(len(grad[0]))
}

// TestLVForcingIdentifiability measures how well one lv realization's
// context pins α and β, the parameters of the forced prey equation. With
// the forcing known exactly, 30 context times observed to within 0.01
// give α and β to about 0.01. If the forcing's six bump weights are
// unknown too — even with the exact bump shapes and centres given — the
// same context leaves α and β uncertain by more than 0.1: a change of α,
// β is nearly undone by a change of the forcing, and the nominal
// trajectory at such a θ̂ is off by more than twice lv's δ bar of 0.030. A
// model that learns the forcing (APIC's f_ψ, fitted per realization
// through z_δ) therefore cannot recover α and β from the context alone
// much beyond what the population prior and the training anchors give
// (README, Results: lv).
func TestLVForcingIdentifiability(t *testing.T) {
	s := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(5, 7))
	const n, sigma = 40, 0.01
	var known, unknown [2]float64
	var spreadKnown, spreadUnknown float64
	for range n {
		theta, side := s.SampleTheta(rng), s.SampleSide(rng)
		w := LVForcingWeights(theta, side)
		p := append(append([]float64(nil), theta...), w[:]...)
		idx := rng.Perm(s.grid.Points())[:s.TestContext()]
		cov := lvContextCov(t, s, p, side, idx, []int{0, 1, 2, 3}, sigma)
		known[0] += math.Sqrt(cov.At(0, 0)) / n
		known[1] += math.Sqrt(cov.At(1, 1)) / n
		spreadKnown += lvNominalSpread(s, theta, side, cov) / n
		cov = lvContextCov(t, s, p, side, idx, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, sigma)
		unknown[0] += math.Sqrt(cov.At(0, 0)) / n
		unknown[1] += math.Sqrt(cov.At(1, 1)) / n
		spreadUnknown += lvNominalSpread(s, theta, side, cov) / n
	}
	t.Logf("means over %d realizations, context %d, σ = %.2f:", n, s.TestContext(), sigma)
	t.Logf("forcing known:        sd α %.4f, sd β %.4f, E|F(θ̂) − F(θ)| %.4f", known[0], known[1], spreadKnown)
	t.Logf("bump weights unknown: sd α %.4f, sd β %.4f, E|F(θ̂) − F(θ)| %.4f", unknown[0], unknown[1], spreadUnknown)
	for i, name := range []string{"α", "β"} {
		if known[i] > 0.02 {
			t.Errorf("forcing known: sd %s %.4f, want ≤ 0.02", name, known[i])
		}
		if unknown[i] < 0.1 {
			t.Errorf("bump weights unknown: sd %s %.4f, want ≥ 0.1", name, unknown[i])
		}
	}
	if spreadKnown > 0.01 || spreadUnknown < 2*0.030 {
		t.Errorf("E|F(θ̂) − F(θ)| %.4f (forcing known), %.4f (weights unknown); want ≤ 0.01 and ≥ 2 × lv's δ bar 0.030", spreadKnown, spreadUnknown)
	}
}
