package kohgp

import (
	"context"
	"testing"
	"time"

	"apic/core"
	"apic/sims"
)

func TestScratchExplore(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		sys, _ := sims.Lookup(name)
		tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		k := New(sys, Options{})
		for i, task := range tasks {
			st := time.Now()
			f, err := k.Fit(context.Background(), task.Context, task.Real.Side)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(st)
			p := f.Predict()
			m := core.Score(sys, task, p)
			t.Logf("%s %d: %v evals %d grads %d  θ %v (true %v) std %v  nlml %.2f starts %v  hyp %+v  recon %.4f δ %.4f θ %.4f ll %.3f ece %.3f",
				name, i, el.Round(time.Millisecond), f.Evaluations, f.Gradients, f.Theta, task.Real.Theta, f.ThetaStd, f.NLML, f.StartNLML, f.Hyper,
				m.Values[core.KeyReconMAE], m.Values[core.KeyDeltaMAE], m.Values[core.KeyThetaMAE], m.Values[core.KeyReconLL], m.Values[core.KeyReconECE])
		}
	}
}
