package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// exactPosteriorECE scores the exact Bayesian posterior of a linear-
// Gaussian model, the best band any method can give, with the ECE of
// BENCHMARKS.md: per realization (then averaged over realizations, the
// protocol's reading) and pooled over all realizations' targets (the
// reliability curve's reading).
//
// The truth is G(x) = Σ_k β_k φ_k(x) on x ∈ [0, 1], β_k ~ N(0, 1/k²),
// φ_k(x) = cos((k−1)πx) (smooth functions, larger modes weaker); n noisy
// context points y = G + ε, ε ~ N(0, σ²), at random x; m targets on a
// grid. The posterior of β is N(m_β, S) with
//
//	S = (ΦᵀΦ/σ² + Λ⁻¹)⁻¹,  m_β = S Φᵀ y / σ²,
//
// and the function band at x is N(φ(x)ᵀ m_β, φ(x)ᵀ S φ(x)): exactly
// calibrated by construction.
func exactPosteriorECE(modes, n, m, reps int, sigma float64, seed uint64) (perRealization, pooled float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	phi := func(x float64, k int) float64 { return math.Cos(float64(k) * math.Pi * x) }
	prior := func(k int) float64 { return 1 / float64((k+1)*(k+1)) }
	var sumECE float64
	var allMu, allSd, allTruth []float64
	for range reps {
		beta := make([]float64, modes)
		for k := range beta {
			beta[k] = rng.NormFloat64() * math.Sqrt(prior(k))
		}
		truth := func(x float64) float64 {
			g := 0.0
			for k, b := range beta {
				g += b * phi(x, k)
			}
			return g
		}
		design := mat.NewDense(n, modes, nil)
		y := mat.NewVecDense(n, nil)
		for i := range n {
			x := rng.Float64()
			for k := range modes {
				design.Set(i, k, phi(x, k))
			}
			y.SetVec(i, truth(x)+sigma*rng.NormFloat64())
		}
		var prec mat.SymDense
		prec.SymOuterK(1/(sigma*sigma), design.T())
		for k := range modes {
			prec.SetSym(k, k, prec.At(k, k)+1/prior(k))
		}
		var chol mat.Cholesky
		if !chol.Factorize(&prec) {
			panic("posterior precision not positive definite")
		}
		var cov mat.SymDense
		if err := chol.InverseTo(&cov); err != nil {
			panic(err)
		}
		var rhs, mean mat.VecDense
		rhs.MulVec(design.T(), y)
		rhs.ScaleVec(1/(sigma*sigma), &rhs)
		mean.MulVec(&cov, &rhs)
		mu, sd, tr := make([]float64, m), make([]float64, m), make([]float64, m)
		idx := make([]int, m)
		f := mat.NewVecDense(modes, nil)
		for j := range m {
			x := (float64(j) + 0.5) / float64(m)
			for k := range modes {
				f.SetVec(k, phi(x, k))
			}
			mu[j] = mat.Dot(f, &mean)
			sd[j] = math.Sqrt(mat.Inner(f, &cov, f))
			tr[j] = truth(x)
			idx[j] = j
		}
		sumECE += ECE(mu, sd, tr, idx)
		allMu, allSd, allTruth = append(allMu, mu...), append(allSd, sd...), append(allTruth, tr...)
	}
	all := make([]int, len(allMu))
	for i := range all {
		all[i] = i
	}
	return sumECE / float64(reps), ECE(allMu, allSd, allTruth, all)
}

// TestExactPosteriorECEFloor shows why a per-realization ECE cannot be
// driven to zero by any honest band when the remaining error is smooth:
// the exact posterior's pooled ECE is near 0 (it is calibrated), but
// within one realization its errors at the targets move together, so the
// share covered at each level is near 0 or 1 and the per-realization ECE
// stays high. With a single mode the standardized error is the same at
// every target and the expected ECE is (1/9) Σ_p 2p(1 − p) ≈ 0.367;
// the floor falls as the error spreads over more independent modes.
//
//	go test ./core -run TestExactPosteriorECEFloor -v
func TestExactPosteriorECEFloor(t *testing.T) {
	oneMode := 0.0
	for _, p := range eceLevels {
		oneMode += 2 * p * (1 - p)
	}
	oneMode /= float64(len(eceLevels))
	t.Logf("one mode, analytic: per-realization ECE %.3f", oneMode)
	t.Logf("%6s %6s %6s %20s %12s", "modes", "n", "σ", "per-realization ECE", "pooled ECE")
	for _, c := range []struct {
		modes, n int
		sigma    float64
		atLeast  float64 // the per-realization ECE the case must reach
	}{{1, 30, 0.1, 0.3}, {2, 30, 0.1, 0.15}, {4, 30, 0.1, 0.1}, {8, 30, 0.1, 0.05}, {8, 30, 0.01, 0.05}, {8, 5, 0.1, 0.05}} {
		per, pooled := exactPosteriorECE(c.modes, c.n, 100, 400, c.sigma, 7)
		t.Logf("%6d %6d %6g %20.3f %12.3f", c.modes, c.n, c.sigma, per, pooled)
		if pooled > 0.03 {
			t.Errorf("%d modes, n %d, σ %g: exact posterior's pooled ECE %.3f, want ≤ 0.03 (it is calibrated)", c.modes, c.n, c.sigma, pooled)
		}
		if per < c.atLeast {
			t.Errorf("%d modes, n %d, σ %g: exact posterior's per-realization ECE %.3f, want ≥ %g (smooth errors move together)", c.modes, c.n, c.sigma, per, c.atLeast)
		}
		if c.modes == 1 && math.Abs(per-oneMode) > 0.03 {
			t.Errorf("one mode: per-realization ECE %.3f, want the analytic %.3f ± 0.03", per, oneMode)
		}
	}
}

// TestPooledECEOfOneModeRealizations: realizations whose error is one
// draw a·1 with a ~ N(0, 1), scored with the calibrated band s = 1, have
// per-realization ECE near the one-mode floor but pooled ECE near 0.
func TestPooledECEOfOneModeRealizations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	const reps, m = 2000, 50
	per := make([]TaskMetrics, reps)
	meanECE := 0.0
	idx := make([]int, m)
	for j := range idx {
		idx[j] = j
	}
	for r := range per {
		a := rng.NormFloat64()
		mu, sd, y := make([]float64, m), make([]float64, m), make([]float64, m)
		for j := range y {
			sd[j], y[j] = 1, a
		}
		meanECE += ECE(mu, sd, y, idx) / reps
		c := coveredCounts(mu, sd, y, idx)
		per[r] = TaskMetrics{ReconCovered: c, DeltaCovered: c, Targets: m}
	}
	got := poolECE(per)
	if got.Recon > 0.02 || got.Delta > 0.02 {
		t.Errorf("pooled ECE %+v of a calibrated band, want ≤ 0.02", got)
	}
	if meanECE < 0.33 || meanECE > 0.40 {
		t.Errorf("per-realization ECE %.3f, want the one-mode floor ≈ 0.367", meanECE)
	}
	if p := poolECE(nil); !math.IsNaN(p.Recon) {
		t.Errorf("pooled ECE without realizations %v, want NaN", p.Recon)
	}
}
