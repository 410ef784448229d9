package core

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"apic/sims"
)

func TestScratchLearn(t *testing.T) {
	name := os.Getenv("SYS")
	b := Backbone(os.Getenv("BB"))
	s1, _ := strconv.Atoi(os.Getenv("S1"))
	s2, _ := strconv.Atoi(os.Getenv("S2"))
	lr, _ := strconv.ParseFloat(os.Getenv("LR"), 64)
	sys, _ := sims.Lookup(name)
	cfg := DefaultConfig(sys, b)
	cfg.Arch.Hidden, _ = strconv.Atoi(os.Getenv("H")); cfg.Arch.Layers, _ = strconv.Atoi(os.Getenv("L")); cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 8, 8
	cfg.Arch.DecHidden, cfg.Arch.DecLayers, cfg.Arch.Heads = 32, 1, 2
	cfg.Train.Batch, cfg.Train.ValEvery = 16, 0
	cfg.Train.Steps1, cfg.Train.Steps2 = s1, s2
	cfg.Train.LR = lr
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ev := func() string {
		rep, _, err := Evaluate(context.Background(), m, EvalOptions{Tasks: 30, Seed: 7, Samples: 8})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("theta %.3g recon %.3g ll %.3g", rep.Metrics[KeyThetaMAE].Mean, rep.Metrics[KeyReconMAE].Mean, rep.Metrics[KeyReconLL].Mean)
	}
	t.Log("before", ev())
	st := time.Now()
	_, err = m.Train(context.Background(), Hooks{ProgressEvery: 50, Progress: func(p Progress) { t.Logf("%d %d %.4g", p.Stage, p.Step, p.Losses.Total) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("after", time.Since(st), ev())
}
