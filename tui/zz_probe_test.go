package tui

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"apic/core"
	"apic/sims"
)

func TestProbe(t *testing.T) {
	for _, name := range sims.Names() {
		sys, _ := sims.Lookup(name)
		for _, b := range core.Backbones {
			cfg := core.DefaultConfig(sys, b)
			m, err := core.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			r := sims.Draw(sys, rng)
			sp := sims.NewSplit(sys, rng)
			task, _ := sp.Task(sys, r, r.True, sys.TestContext(), 0)
			st := time.Now()
			var p []core.Prediction
			for i := 0; i < 5; i++ {
				p, err = m.Predict([]sims.Context{task.Context}, [][]float64{r.Side}, 16, 1)
			}
			dt := time.Since(st) / 5
			_ = p
			cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.ValEvery = 5, 5, 0
			m.Config = cfg
			st = time.Now()
			_, err = m.Train(context.Background(), core.Hooks{})
			t.Logf("%s %s params=%d predict16=%v train10=%v err=%v", name, b, m.Params.Count(), dt, time.Since(st), err)
		}
	}
}
