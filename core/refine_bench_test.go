package core

import (
	"context"
	"testing"
)

// BenchmarkCalibrate is APIC's single-realization calibration latency
// with the shipped checkpoints, per system and backbone: one context of
// the test size, 32 latent samples, the whole pipeline. onepass is the
// amortized prediction (refine 0); refined adds the checkpoint's
// refinement steps (the default calibration); refined-fd is refined with
// the forward-difference Jacobians the exact ones replaced, for a side
// by side comparison. cpu-ns/op is the process's CPU time per call (all
// threads), steadier than the wall time on a shared machine.
func BenchmarkCalibrate(b *testing.B) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, bb := range Backbones {
			m, tasks := shippedModel(b, sys, bb, 1)
			for _, mode := range []string{"onepass", "refined", "refined-fd"} {
				b.Run(sys+"/"+string(bb)+"/"+mode, func(b *testing.B) {
					defer func(old bool) { refineFD = old }(refineFD)
					refineFD = mode == "refined-fd"
					refine := -1
					if mode == "onepass" {
						refine = 0
					}
					a := &APIC{Model: m, Opt: PredictOptions{Samples: 32, Seed: 1, Refine: refine}}
					ctx := context.Background()
					cpu0, ok := processCPU()
					for b.Loop() {
						if _, err := a.Calibrate(ctx, tasks[0].Context, tasks[0].Real.Side); err != nil {
							b.Fatal(err)
						}
					}
					if cpu1, ok1 := processCPU(); ok && ok1 {
						b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
					}
				})
			}
		}
	}
}
