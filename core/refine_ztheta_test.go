package core

import (
	"math"
	"strings"
	"testing"

	"apic/nets"
	"apic/sims"
)

// TestCollapseAroundCenter: with a center, the mean, nominal and θ̂ are
// the center's and the variance is the mean squared deviation from it.
func TestCollapseAroundCenter(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	gc, P := m.Sys.Grid().Size(), len(m.Sys.Params())
	pred, nom, theta := nets.NewTensor(2, gc), nets.NewTensor(2, gc), nets.NewTensor(2, P)
	for g := range gc {
		pred.Set(0, g, 1)
		pred.Set(1, g, 3)
	}
	c := &center{pred: nets.NewTensor(1, gc), nom: nets.NewTensor(1, gc), theta: nets.NewTensor(1, P)}
	for g := range gc {
		c.pred.Set(0, g, 1.5)
		c.nom.Set(0, g, 0.25)
	}
	c.theta.Set(0, 0, 0.7)
	p := m.collapseAround(1, 2, pred, nom, theta, nets.NewTensor(2, 1), [][]float64{make([]float64, gc)}, c, 0)[0]
	// E[(y − 1.5)²] over {1, 3} = (0.25 + 2.25)/2.
	if p.Mean[3] != 1.5 || p.Nominal[3] != 0.25 || p.DeltaMean[3] != 1.25 || p.Theta[0] != 0.7 {
		t.Errorf("mean %v nominal %v δ %v θ %v", p.Mean[3], p.Nominal[3], p.DeltaMean[3], p.Theta[0])
	}
	if want := math.Sqrt(1.25); math.Abs(p.Std[3]-want) > 1e-12 {
		t.Errorf("std %v, want %v", p.Std[3], want)
	}
}

// TestRefineZTheta: refining z_θ too gives finite predictions whose fit
// to the context is at least as close as with z_θ fixed (more freedom,
// same data), and the point prediction is the refined fit.
func TestRefineZTheta(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 4, 40, 12)
	ctxs, sides := contextsOf(tasks)
	rms := func(prior float64) float64 {
		m := tinyModel(t, "spring", LNP, func(c *Config) { c.Infer.ZThetaPrior = prior })
		perturb(m, 9, 0.05)
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 4, Seed: 1, Refine: 6})
		if err != nil {
			t.Fatal(err)
		}
		s, n := 0.0, 0
		for i, p := range preds {
			if !allFinite(p.Mean) || !allFinite(p.Std) {
				t.Fatalf("prior %g: non-finite prediction", prior)
			}
			for k, gi := range ctxs[i].GridIndex {
				d := p.Mean[gi] - ctxs[i].Values[k][0]
				s += d * d
				n++
			}
		}
		return math.Sqrt(s / float64(n))
	}
	fixed, free := rms(0), rms(30)
	t.Logf("context RMS: z_θ fixed %.5f, refined %.5f", fixed, free)
	if free > 1.05*fixed {
		t.Errorf("context RMS with z_θ refined %v, fixed %v: want no worse", free, fixed)
	}
}

func TestConfigRejectsBadZThetaPrior(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		cfg := m.Config
		cfg.Infer.ZThetaPrior = v
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "z_θ") {
			t.Errorf("z_θ prior %v: %v", v, err)
		}
	}
}

// TestRecalibratePicksZThetaPrior: the tuned factor is one of the
// candidates.
func TestRecalibratePicksZThetaPrior(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Infer.Refine = 2 })
	perturb(m, 4, 0.02)
	if err := m.Recalibrate(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, c := range zThetaPriors {
		ok = ok || m.Config.Infer.ZThetaPrior == c
	}
	if !ok {
		t.Errorf("z_θ prior %v is not a candidate %v", m.Config.Infer.ZThetaPrior, zThetaPriors)
	}
}
