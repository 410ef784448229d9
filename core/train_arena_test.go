package core

import (
	"context"
	"testing"

	"apic/nets"
)

// TestTrainingArenaMatchesHeap: training steps whose tapes reuse one
// arena give the weights that fresh heap tensors give, bit for bit, on
// every system, backbone and regulariser. A value that outlived its
// step and was overwritten by the next would show here.
func TestTrainingArenaMatchesHeap(t *testing.T) {
	cases := []struct {
		system string
		b      Backbone
		reg    Regularizer
	}{
		{"spring", CNP, RegSpread}, {"spring", LNP, RegOrthogonal}, {"spring", ANP, RegSpectral},
		{"lv", CNP, RegGradPen}, {"lv", LNP, RegSpread}, {"lv", ANP, RegL1},
		{"advdiff", CNP, RegSpread}, {"advdiff", LNP, RegSpread}, {"advdiff", ANP, RegOrthogonal},
	}
	for _, c := range cases {
		t.Run(c.system+"/"+string(c.b)+"/"+string(c.reg), func(t *testing.T) {
			edit := func(cfg *Config) {
				cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.Batch = 2, 3, 4
				cfg.Train.Reg = c.reg
			}
			onArena := tinyModel(t, c.system, c.b, edit)
			onHeap := tinyModel(t, c.system, c.b, edit)
			if _, err := onArena.Train(context.Background(), Hooks{}); err != nil {
				t.Fatal(err)
			}
			defer func(f func(*nets.Arena) *nets.Tape) { newStepTape = f }(newStepTape)
			newStepTape = func(*nets.Arena) *nets.Tape { return nets.NewTape() }
			if _, err := onHeap.Train(context.Background(), Hooks{}); err != nil {
				t.Fatal(err)
			}
			if name := sameWeights(onArena, onHeap.Params.Snapshot()); name != "" {
				t.Errorf("%s differs between arena and heap training", name)
			}
		})
	}
}
