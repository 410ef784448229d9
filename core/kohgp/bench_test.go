package kohgp

import (
	"context"
	"testing"

	"apic/core"
	"apic/sims"
)

// benchmarkKOHGP fits (and predicts) the first test realization of a
// system at its default context size: the per-realization cost of the
// baseline in 'apic compare'.
func benchmarkKOHGP(b *testing.B, system string) {
	sys, err := sims.Lookup(system)
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	k := New(sys, Options{})
	ctx := context.Background()
	var evals int
	for b.Loop() {
		f, err := k.Fit(ctx, tasks[0].Context, tasks[0].Real.Side)
		if err != nil {
			b.Fatal(err)
		}
		f.Predict()
		evals = f.Evaluations
	}
	b.ReportMetric(float64(evals), "evals/op")
}

func BenchmarkKOHGPSpring(b *testing.B)  { benchmarkKOHGP(b, "spring") }
func BenchmarkKOHGPLV(b *testing.B)      { benchmarkKOHGP(b, "lv") }
func BenchmarkKOHGPAdvdiff(b *testing.B) { benchmarkKOHGP(b, "advdiff") }
