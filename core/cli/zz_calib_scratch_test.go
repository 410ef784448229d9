package cli

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"apic/core"
	"apic/sims"
)

func envInt(k string, d int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return d
}

func TestZZScratchTrain(t *testing.T) {
	name := os.Getenv("SYS")
	if name == "" {
		t.Skip()
	}
	sys, _ := sims.Lookup(name)
	cfg := core.DefaultConfig(sys, core.Backbone(os.Getenv("BB")))
	cfg.Arch.Hidden, cfg.Arch.Layers = envInt("H", 32), 1
	cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 8, 8
	cfg.Arch.DecHidden, cfg.Arch.DecLayers = envInt("DH", 32), 1
	cfg.Arch.Heads = 2
	cfg.Train.Batch = envInt("B", 16)
	cfg.Train.Steps1, cfg.Train.Steps2 = envInt("S1", 200), envInt("S2", 200)
	cfg.Train.LR = 3e-3
	cfg.Train.ValEvery = 0
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := time.Now()
	if _, err := m.Train(context.Background(), core.Hooks{}); err != nil {
		t.Fatal(err)
	}
	el := time.Since(st)
	rep, _, err := core.Evaluate(context.Background(), m, core.EvalOptions{Tasks: 30, Seed: 7, Samples: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s trained in %v: theta MAE %.3g recon %.3g delta %.3g", name, el, rep.Metrics[core.KeyThetaMAE].Mean, rep.Metrics[core.KeyReconMAE].Mean, rep.Metrics[core.KeyDeltaMAE].Mean)
}
