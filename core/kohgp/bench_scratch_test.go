package kohgp

import (
	"context"
	"testing"

	"apic/core"
	"apic/sims"
)

func benchSys(b *testing.B, name string) {
	sys, _ := sims.Lookup(name)
	tasks, _ := core.TestTasks(sys, core.EvalOptions{Tasks: 1, Seed: 1})
	k := New(sys, Options{})
	for b.Loop() {
		if _, err := k.Fit(context.Background(), tasks[0].Context, tasks[0].Real.Side); err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkScratchSpring(b *testing.B)  { benchSys(b, "spring") }
func BenchmarkScratchAdvdiff(b *testing.B) { benchSys(b, "advdiff") }
