package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// TestStage2GradientMatchesFiniteDifferences checks the whole stage 2
// objective's backward pass (encoders, θ map with lv's θ hints, f_ψ,
// the RK4 closure, the KL and L_θ terms) against central differences on
// a sample of weights, with the latent noise fixed by reseeding.
func TestStage2GradientMatchesFiniteDifferences(t *testing.T) {
	for _, system := range []string{"lv", "spring"} {
		m := tinyModel(t, system, LNP, func(cfg *Config) {
			cfg.Arch.Hidden, cfg.Arch.DecHidden = 8, 8
			cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 3, 3
			cfg.Train.Batch = 3
		})
		perturb(m, 5, 0.05)
		s := newSampler(m.Sys, m.Config.Train)
		real, err := s.batch(3, 12, false)
		if err != nil {
			t.Fatal(err)
		}
		nominal, err := s.batch(3, 12, true)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			l, _ := m.stage2Loss(nets.NewTape(), real, nominal, rand.New(rand.NewPCG(1, 2)))
			return l.Value.Data[0]
		}
		tp := nets.NewTape()
		l, _ := m.stage2Loss(tp, real, nominal, rand.New(rand.NewPCG(1, 2)))
		m.Params.ZeroGrad()
		tp.Backward(l)
		rng := rand.New(rand.NewPCG(6, 7))
		checked := 0
		for _, p := range m.Params.List() {
			for range 2 {
				i := rng.IntN(len(p.Value.Data))
				const h = 1e-6
				v := p.Value.Data[i]
				p.Value.Data[i] = v + h
				up := loss()
				p.Value.Data[i] = v - h
				down := loss()
				p.Value.Data[i] = v
				fd, an := (up-down)/(2*h), p.Grad.Data[i]
				if math.Abs(fd-an) > 1e-5+1e-4*math.Abs(fd) {
					t.Errorf("%s: ∂L/∂%s[%d] = %.8g, finite differences %.8g", system, p.Name, i, an, fd)
				}
				checked++
			}
		}
		if checked < 20 {
			t.Errorf("%s: only %d weights checked", system, checked)
		}
	}
}
