package bcpi

import (
	"math"
	"testing"

	"apic/sims"
)

// TestSEDerivativesMatchFiniteDifferences checks g⁽ⁿ⁾ by the Hermite
// rule against central differences of g⁽ⁿ⁻¹⁾, plain and periodic.
func TestSEDerivativesMatchFiniteDifferences(t *testing.T) {
	const h = 1e-5
	for _, period := range []float64{0, 1} {
		for n := 1; n <= 4; n++ {
			for _, r := range []float64{-0.37, 0.05, 0.21, 0.48} {
				const ell = 0.17
				num := (seDeriv(n-1, r+h, ell, period) - seDeriv(n-1, r-h, ell, period)) / (2 * h)
				got := seDeriv(n, r, ell, period)
				if math.Abs(got-num) > 1e-6*max(1, math.Abs(num)) {
					t.Errorf("period %g, n %d, r %g: %g, numeric %g", period, n, r, got, num)
				}
			}
		}
	}
	// The shared-exponential table agrees with the one-order form.
	var tab [5]float64
	seDerivs(tab[:], 0.21, 0.17, 1)
	for n, v := range tab {
		if w := seDeriv(n, 0.21, 0.17, 1); math.Abs(v-w) > 1e-9*max(1, math.Abs(w)) {
			t.Errorf("seDerivs order %d: %g, seDeriv %g", n, v, w)
		}
	}
	if got := seDeriv(0, 0.3, 0.2, 1); math.Abs(got-seDeriv(0, -0.7, 0.2, 1)) > 1e-12 {
		t.Errorf("periodic g is not periodic: g(0.3) = %g, g(−0.7) = %g", got, seDeriv(0, -0.7, 0.2, 1))
	}
}

// mixed returns ∂p^{at,ax} ∂q^{bt,bx} k(p, q) for the plain product
// kernel by nested central differences, the reference for opCov.
func mixed(k seKernel, p, q []float64, order [4]int) float64 {
	const h = 1e-3
	for i, o := range order {
		if o > 0 {
			order[i]--
			pp, pm := append([]float64(nil), p...), append([]float64(nil), p...)
			qp, qm := append([]float64(nil), q...), append([]float64(nil), q...)
			switch i {
			case 0, 1:
				pp[i] += h
				pm[i] -= h
				return (mixed(k, pp, q, order) - mixed(k, pm, q, order)) / (2 * h)
			default:
				qp[i-2] += h
				qm[i-2] -= h
				return (mixed(k, p, qp, order) - mixed(k, p, qm, order)) / (2 * h)
			}
		}
	}
	return k.opCov(identity, identity, p, q)
}

// TestOperatorBlocksMatchFiniteDifferences checks every block of the
// joint covariance the systems' operators produce (K_uu, K_uf, K_fu,
// K_ff, and the derivative observations of spring's initial slope)
// against finite differences of the kernel.
func TestOperatorBlocksMatchFiniteDifferences(t *testing.T) {
	for _, period := range []float64{0, 1} {
		k := seKernel{amp2: 0.7, scales: []float64{0.45, 0.3}, period: []float64{0, period}}
		p, q := []float64{0.31, 0.12}, []float64{0.55, 0.83}
		spring := []sims.OpTerm{{Coef: 1, T: 2}, {Coef: 2.5}}
		advdiff := []sims.OpTerm{{Coef: 1, T: 1}, {Coef: 0.8, X: 1}, {Coef: -0.05, X: 2}}
		slope := []sims.OpTerm{{Coef: 1, T: 1}}
		ops := map[string][]sims.OpTerm{"identity": identity, "spring": spring, "advdiff": advdiff, "slope": slope}
		for an, a := range ops {
			for bn, b := range ops {
				want := 0.0
				for _, ta := range a {
					for _, tb := range b {
						want += ta.Coef * tb.Coef * mixed(k, p, q, [4]int{ta.T, ta.X, tb.T, tb.X})
					}
				}
				got := k.opCov(a, b, p, q)
				if math.Abs(got-want) > 2e-4*max(1, math.Abs(want)) {
					t.Errorf("period %g, Cov(%s u(p), %s u(q)) = %g, finite differences %g", period, an, bn, got, want)
				}
			}
		}
	}
}
