package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// TestTruncatedNormalStaysInBox checks the hint's draw: inside [lo, hi]
// for any law (far outside, wide, degenerate), mu + sd·e for a law well
// inside, and the truncated law's mean over many draws.
func TestTruncatedNormalStaysInBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for _, c := range []struct{ mu, sd float64 }{
		{0.5, 0.01}, {3, 5}, {-40, 0.1}, {40, 0.1}, {1e6, 1}, {0.5, 1e9}, {0.2, 0}, {2, math.Inf(1)}, {0.9, 30},
	} {
		for range 2000 {
			e := rng.NormFloat64() * 3
			if s := truncatedNormal(c.mu, c.sd, e, 0, 1); !(s >= 0 && s <= 1) {
				t.Fatalf("truncatedNormal(%g, %g, e=%g) = %g, outside [0, 1]", c.mu, c.sd, e, s)
			}
		}
	}
	for _, e := range []float64{-3, -1, 0, 0.5, 2.5} {
		if got, want := truncatedNormal(0.5, 0.01, e, 0, 1), 0.5+0.01*e; math.Abs(got-want) > 1e-9 {
			t.Errorf("a law well inside the box: e=%g gives %g, want mu + sd·e = %g", e, got, want)
		}
	}
	if got := truncatedNormal(40, 0.1, 0, 0, 1); got != 1 {
		t.Errorf("a narrow law far above the box gives %g, want its upper bound 1", got)
	}
	if got := truncatedNormal(-40, 0.1, 0, 0, 1); got != 0 {
		t.Errorf("a narrow law far below the box gives %g, want its lower bound 0", got)
	}
	// N(1.2, 0.5²) truncated to [0, 1]: mean μ − σ (φ(b) − φ(a))/(Φ(b) − Φ(a)).
	mu, sd := 1.2, 0.5
	a, b := (0-mu)/sd, (1-mu)/sd
	pdf := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	want := mu - sd*(pdf(b)-pdf(a))/(stdNormalCDF(b)-stdNormalCDF(a))
	const n = 200000
	sum := 0.0
	for range n {
		sum += truncatedNormal(mu, sd, rng.NormFloat64(), 0, 1)
	}
	if got := sum / n; math.Abs(got-want) > 0.005 {
		t.Errorf("mean of N(1.2, 0.5²) truncated to [0, 1] over %d draws = %.4f, want %.4f", n, got, want)
	}
}

// TestHintedThetaStaysInPrior: a hint far outside the prior with a wide
// deviation (a regression on a handful of context points) once drew θ
// in the thousands, where lv's RK4 overflows; every sample must now lie
// in the prior, and the one-sample path must take the hint cut to it.
func TestHintedThetaStaysInPrior(t *testing.T) {
	m := tinyModel(t, "lv", LNP, func(c *Config) { c.Arch.ThetaHint = true })
	tasks := testTasks(t, m.Sys, 2, 5, 3)
	ctxs, sides := contextsOf(tasks)
	bt, err := NewBatch(m.Sys, ctxs, sides, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bt.HintMask == nil {
		t.Fatal("lv gives no hints")
	}
	for i, v := range bt.HintMask.Data {
		if v != 0 {
			bt.Hint.Data[i], bt.HintSD.Data[i] = 3, 5 // θ = lo·(hi/lo)³ at the mean
		}
	}
	params := m.Sys.Params()
	check := func(what string, theta *nets.Tensor) {
		t.Helper()
		for r := 0; r < theta.Rows; r++ {
			for p, v := range theta.Row(r) {
				if !(v >= params[p].Lo*(1-1e-12) && v <= params[p].Hi*(1+1e-12)) {
					t.Fatalf("%s: sample %d %s = %g, outside the prior [%g, %g]", what, r, params[p].Name, v, params[p].Lo, params[p].Hi)
				}
			}
		}
	}
	const k = 64
	o := m.forward(bt.inferenceTape(nil), bt, k, &noise{per: realizationNoise(1, 0, bt.B)})
	check("64 samples", o.theta.Value)
	o = m.forward(bt.inferenceTape(nil), bt, 1, nil)
	check("one sample", o.theta.Value)
	for r := 0; r < o.theta.Value.Rows; r++ {
		for p, v := range bt.HintMask.Row(r) {
			if v != 0 && math.Abs(o.theta.Value.At(r, p)-params[p].Hi) > 1e-9 {
				t.Errorf("one sample: hinted %s = %g, want the hint cut to the prior's upper bound %g", params[p].Name, o.theta.Value.At(r, p), params[p].Hi)
			}
		}
	}
}

// TestRefineRejectsDivergingFit: refinement's objective counts a
// candidate whose prediction overflows anywhere on the grid as
// infinitely bad, even where its residuals at the context are small.
func TestRefineRejectsDivergingFit(t *testing.T) {
	res := []float64{0.1, -0.2}
	if got := fitCost(res, []float64{1, 2, 3}); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("fitCost of a finite fit = %g, want 0.05", got)
	}
	for _, pred := range [][]float64{{1, math.Inf(1)}, {math.NaN(), 1}} {
		if got := fitCost(res, pred); !math.IsInf(got, 1) {
			t.Errorf("fitCost with prediction %v = %g, want +Inf", pred, got)
		}
	}
	if got := fitCost([]float64{math.NaN()}, []float64{1}); !math.IsInf(got, 1) {
		t.Errorf("fitCost with a NaN residual = %g, want +Inf", got)
	}
}
