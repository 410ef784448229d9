package core

import (
	"fmt"
	"math"
	"os"
	"testing"

	"apic/nets"
	"apic/sims"
)

func TestZZSigma(t *testing.T) {
	path := os.Getenv("DIAG_CKPT")
	if path == "" {
		t.Skip()
	}
	m, _, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := TestTasks(m.Sys, EvalOptions{Tasks: 16, Seed: 1})
	ctxs := make([]sims.Context, len(tasks))
	sides := make([][]float64, len(tasks))
	for i, tk := range tasks {
		ctxs[i], sides[i] = tk.Context, tk.Real.Side
	}
	bt, err := NewBatch(m.Sys, ctxs, sides, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp := nets.NewInferenceTape()
	feats, summary := tp.Const(bt.Feats), m.batchSummary(tp, bt)
	for name, e := range map[string]encoded{"phys": m.phys.forward(tp, feats, summary, bt.B, bt.N), "disc": m.disc.forward(tp, feats, summary, bt.B, bt.N)} {
		L := e.logVar.Value.Cols
		sig := make([]float64, L)
		mu := make([]float64, L)
		for b := 0; b < bt.B; b++ {
			for j := 0; j < L; j++ {
				sig[j] += math.Exp(0.5*e.logVar.Value.At(b, j)) / float64(bt.B)
				mu[j] += math.Abs(e.mu.Value.At(b, j)) / float64(bt.B)
			}
		}
		fmt.Printf("%s σ: %.3f\n   |μ|: %.3f\n", name, sig, mu)
	}
}
