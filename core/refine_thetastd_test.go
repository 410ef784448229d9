package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
)

// TestRefinerThetaStd: the delta-method deviation of θ under the Laplace
// approximation agrees with the deviation of θ(a) over samples a ~ N(a*,
// L Lᵀ) when the covariance is small, for every parameter of lv (so that
// off-diagonal factors matter).
func TestRefinerThetaStd(t *testing.T) {
	m := tinyModel(t, "lv", CNP, nil)
	P := len(m.Sys.Params())
	n := P + 2
	r := &refiner{m: m, a0: nets.NewTensor(1, P)}
	v := []float64{0.3, -1.2, 2.0, 0.0, 0.5, -0.5}
	chol := mat.NewTriDense(n, mat.Lower, nil)
	rng := rand.New(rand.NewPCG(2, 5))
	for i := range n {
		for j := 0; j <= i; j++ {
			chol.SetTri(i, j, 0.002*rng.NormFloat64())
		}
		chol.SetTri(i, i, 0.003+0.001*float64(i))
	}
	got := r.thetaStd(v, chol)
	const draws = 200000
	sum, sum2 := make([]float64, P), make([]float64, P)
	eps := make([]float64, n)
	for range draws {
		for i := range eps {
			eps[i] = rng.NormFloat64()
		}
		for p := range P {
			a := v[p]
			for q := 0; q <= p; q++ {
				a += chol.At(p, q) * eps[q]
			}
			s := 1 / (1 + math.Exp(-a))
			th := math.Exp(m.logLo.Data[p] + s*m.logSpan.Data[p])
			sum[p] += th
			sum2[p] += th * th
		}
	}
	for p := range P {
		mean := sum[p] / draws
		sd := math.Sqrt(sum2[p]/draws - mean*mean)
		if math.Abs(got[p]-sd) > 0.02*sd {
			t.Errorf("θ_%d: delta method %.6g, samples %.6g", p, got[p], sd)
		}
	}
}

// TestRefinedCNPThetaStd: a refined CNP prediction, which draws one
// sample, reports a positive, finite θ deviation (the Laplace one) rather
// than zero; its one-pass prediction, deterministic, reports zero.
func TestRefinedCNPThetaStd(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	perturb(m, 4, 0.02)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 3, 0, 6))
	for _, refine := range []int{0, 2} {
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 8, Seed: 1, Refine: refine})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range preds {
			sd := p.ThetaStd[0]
			if refine == 0 && sd != 0 || refine > 0 && !(sd > 0 && sd < math.Inf(1)) {
				t.Errorf("refine %d, realization %d: θ std %v", refine, i, sd)
			}
		}
	}
}

// TestRefinedThetaStdIgnoresSamples: a refined prediction's θ deviation
// is the Laplace covariance's, the same whatever the number of latent
// samples drawn, so that θ scales fitted at one sample count hold at
// another; the reconstruction's spread still comes from the samples.
func TestRefinedThetaStdIgnoresSamples(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	perturb(m, 4, 0.02)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 3, 0, 12))
	var ref []Prediction
	for _, k := range []int{1, 4, 32} {
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: k, Seed: 1, Refine: 2})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = preds
			continue
		}
		for i, p := range preds {
			for q, sd := range p.ThetaStd {
				if want := ref[i].ThetaStd[q]; !(sd > 0) || math.Abs(sd-want) > 1e-12*want {
					t.Errorf("%d samples, realization %d, θ_%d: std %.12g, with one sample %.12g", k, i, q, sd, want)
				}
			}
		}
	}
}
