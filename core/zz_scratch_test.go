package core

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"apic/sims"
)

func envi(k string) int { v, _ := strconv.Atoi(os.Getenv(k)); return v }

func TestScratchLearn(t *testing.T) {
	name := os.Getenv("SYS")
	b := Backbone(os.Getenv("BB"))
	lr, _ := strconv.ParseFloat(os.Getenv("LR"), 64)
	sys, _ := sims.Lookup(name)
	for seed := uint64(1); seed <= uint64(envi("NS")); seed++ {
		cfg := DefaultConfig(sys, b)
		cfg.Arch.Hidden, cfg.Arch.Layers, cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = envi("H"), envi("L"), envi("LAT"), envi("LAT")
		cfg.Arch.DecHidden, cfg.Arch.DecLayers, cfg.Arch.Heads = 32, 1, 2
		cfg.Train.Batch, cfg.Train.ValEvery = envi("B"), 0
		cfg.Train.Steps1, cfg.Train.Steps2 = envi("S1"), envi("S2")
		cfg.Train.Trajectories = envi("TR")
		cfg.Train.LR = lr
		cfg.Train.Seed = seed
		m, err := NewModel(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ev := func() (float64, float64) {
			rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 30, Seed: 7, Samples: 8})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("  per param %v", rep.ThetaPerParam)
			return rep.Metrics[KeyThetaMAE].Mean, rep.Metrics[KeyReconMAE].Mean
		}
		th0, r0 := ev()
		st := time.Now()
		_, err = m.Train(context.Background(), Hooks{ProgressEvery: 50, Progress: func(p Progress) {
			if os.Getenv("PV") != "" {
				t.Logf("  %d %d %.4g", p.Stage, p.Step, p.Losses.Total)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(st)
		th1, r1 := ev()
		t.Logf("seed %d %v: theta %.3g -> %.3g (%.2f)  recon %.3g -> %.3g (%.2f)", seed, el.Round(time.Millisecond), th0, th1, th1/th0, r0, r1, r1/r0)
	}
}
