package bcpi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"apic/core/internal/nominaltask"
	"apic/sims"
)

// TestSEDerivsScale checks ℓ ∂g⁽ⁿ⁾/∂ℓ against central differences in
// log ℓ, with and without the periodic images.
func TestSEDerivsScale(t *testing.T) {
	for _, period := range []float64{0, 1} {
		for _, r := range []float64{-0.37, 0.05, 0.4} {
			ell := 0.15
			var g, dl, gp, gm, scratch [maxOrder + 1]float64
			seDerivsScale(g[:], dl[:], r, ell, period)
			h := 1e-5
			seDerivsScale(gp[:], scratch[:], r, ell*math.Exp(h), period)
			seDerivsScale(gm[:], scratch[:], r, ell*math.Exp(-h), period)
			var plain [maxOrder + 1]float64
			seDerivs(plain[:], r, ell, period)
			for n := range g {
				want := (gp[n] - gm[n]) / (2 * h)
				if math.Abs(dl[n]-want) > 1e-5*(1+math.Abs(want)) || math.Abs(g[n]-plain[n]) > 1e-9*(1+math.Abs(plain[n])) {
					t.Errorf("period %g, r %g, n %d: ℓ∂g/∂ℓ %g, want %g; g %g, want %g", period, r, n, dl[n], want, g[n], plain[n])
				}
			}
		}
	}
}

// gradModel is a small BCPI model of sys on nominal data.
func gradModel(t *testing.T, name string, theta, side []float64, n, collocation int) *model {
	t.Helper()
	sys, task := nominaltask.New(t, name, theta, side, n)
	c, err := New(sys, Options{Collocation: collocation, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.newModel(task.Context, side)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNegLogPostGrad checks the analytic gradient of the negative log
// posterior against central differences on every system, at a point
// with length scales and amplitudes away from their prior means.
func TestNegLogPostGrad(t *testing.T) {
	advSide := mustLookup(t, "advdiff").SampleSide(rand.New(rand.NewPCG(1, 1)))
	for _, tc := range []struct {
		name        string
		theta, side []float64
		n, col      int
	}{
		{"spring", []float64{4.1}, nil, 20, 20},
		{"lv", []float64{1.1, 0.8, 1.2, 0.9}, []float64{1.2, 0.9}, 15, 15},
		{"advdiff", []float64{1.1, 0.02}, advSide, 40, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := gradModel(t, tc.name, tc.theta, tc.side, tc.n, tc.col)
			rng := rand.New(rand.NewPCG(3, 3))
			x := make([]float64, m.size())
			for p := range m.nTheta() {
				x[p] = rng.NormFloat64()
			}
			for i, mu := range m.priorMu {
				x[m.nTheta()+i] = mu + 0.3*rng.NormFloat64()
			}
			got := make([]float64, len(x))
			v := m.negLogPostGrad(got, x)
			if math.IsInf(v, 0) {
				t.Fatal("no finite posterior at the test point")
			}
			want := fd.Gradient(nil, m.negLogPost, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
			for i := range x {
				if math.Abs(got[i]-want[i]) > 1e-4*(1+math.Abs(want[i])) {
					t.Errorf("∂/∂x_%d = %g, central difference %g", i, got[i], want[i])
				}
			}
		})
	}
}

func mustLookup(t *testing.T, name string) sims.System {
	t.Helper()
	sys, err := sims.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestCachedCovariance: the memoised derivatives give the covariance
// the direct evaluation gives, on every system.
func TestCachedCovariance(t *testing.T) {
	advSide := mustLookup(t, "advdiff").SampleSide(rand.New(rand.NewPCG(1, 1)))
	for _, tc := range []struct {
		name        string
		theta, side []float64
	}{
		{"spring", []float64{4.1}, nil},
		{"lv", []float64{1.1, 0.8, 1.2, 0.9}, []float64{1.2, 0.9}},
		{"advdiff", []float64{1.1, 0.02}, advSide},
	} {
		m := gradModel(t, tc.name, tc.theta, tc.side, 20, 20)
		x := make([]float64, m.size())
		copy(x[m.nTheta():], m.priorMu)
		h := m.decode(x)
		obs := m.observations(h.theta)
		cached := m.covariance(h, obs)
		for c := range h.u {
			h.u[c].caches, h.delta[c].caches = nil, nil
		}
		direct := m.covariance(h, obs)
		for i := range len(obs) {
			for j := range len(obs) {
				a, b := cached.At(i, j), direct.At(i, j)
				if math.Abs(a-b) > 1e-12*(1+math.Abs(b)) {
					t.Fatalf("%s: K[%d,%d] cached %g, direct %g", tc.name, i, j, a, b)
				}
			}
		}
	}
}
