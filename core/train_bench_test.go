package core

import (
	"context"
	"testing"

	"apic/sims"
)

// BenchmarkTrainSpringPaper times stage-2 training steps of the spring
// LNP at the paper's sizes, the model ../shared/peer/torch_spring.py
// trains (the CLI's `--hidden 128 --layers 1 --latent 1 --dec-hidden 128
// --form multiplicative --noise 0 --batch 64`).
func BenchmarkTrainSpringPaper(b *testing.B) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig(sys, LNP)
	cfg.Arch.Hidden, cfg.Arch.Layers, cfg.Arch.DecHidden = 128, 1, 128
	cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 1, 1
	cfg.Arch.Form = Multiplicative
	cfg.Train.Noise, cfg.Train.NoiseMax = 0, 0
	cfg.Train.Batch, cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.ValEvery = 64, 0, 50, 0
	m, err := NewModel(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Train(context.Background(), Hooks{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*cfg.Train.Steps2)/b.Elapsed().Seconds(), "steps/s")
}
