package core_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// A model is built for a system and backbone, trained briefly, and used
// for amortized inference on a new realization: one forward pass gives
// the predictive distribution on the whole grid and the calibrated θ.
func Example() {
	sys, err := sims.Lookup("spring")
	if err != nil {
		panic(err)
	}
	cfg := core.DefaultConfig(sys, core.LNP)
	// A tiny budget for the example; the defaults are the paper's.
	cfg.Arch.Hidden, cfg.Arch.DecHidden = 32, 32
	cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.Batch = 5, 5, 8
	m, err := core.NewModel(cfg)
	if err != nil {
		panic(err)
	}
	res, err := m.Train(context.Background(), core.Hooks{})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", res.Steps1, res.Steps2)

	// A test realization observed at 30 noisy points.
	rng := rand.New(rand.NewPCG(1, 2))
	r := sims.Draw(sys, rng)
	task, err := sims.NewTask(sys, r, 30, 0.05, rng)
	if err != nil {
		panic(err)
	}
	preds, err := m.Predict([]sims.Context{task.Context}, [][]float64{r.Side}, 16, 1)
	if err != nil {
		panic(err)
	}
	p := preds[0]
	fmt.Println("grid values:", len(p.Mean), len(p.Std))
	fmt.Println("parameters:", len(p.Theta), sys.Params()[0].Name)
	// Output:
	// steps: 5 5
	// grid values: 100 100
	// parameters: 1 omega
}

// Checkpoints keep the weights and the configuration.
func ExampleDecodeCheckpoint() {
	sys, _ := sims.Lookup("lv")
	m, err := core.NewModel(core.DefaultConfig(sys, core.CNP))
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := core.EncodeCheckpoint(&buf, m, core.Info{Steps1: 100}, nets.F32); err != nil {
		panic(err)
	}
	loaded, info, err := core.DecodeCheckpoint(buf.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(loaded.Config.Arch.System, loaded.Config.Arch.Backbone, info.Steps1, loaded.Params.Count() == m.Params.Count())
	// Output: lv cnp 100 true
}

// A θ interval shape narrows the inner intervals of a heavy-tailed
// posterior while keeping its 95% interval: here the 50% half-width is
// a quarter of the 95% one (a Gaussian's is 0.344 of it).
func ExampleThetaShape_HalfWidth() {
	shape := make(core.ThetaShape, len(core.ThetaShapeLevels))
	for i, l := range core.ThetaShapeLevels {
		shape[i] = l / 2 // ratio 0.25 at level 0.5
	}
	const sd = 0.1
	fmt.Printf("50%%: ±%.4f (Gaussian ±%.4f)\n", shape.HalfWidth(sd, 0.5), core.ThetaShape(nil).HalfWidth(sd, 0.5))
	fmt.Printf("95%%: ±%.4f (Gaussian ±%.4f)\n", shape.HalfWidth(sd, 0.95), core.ThetaShape(nil).HalfWidth(sd, 0.95))
	fmt.Printf("level of a 0.049 error: %.3f\n", shape.Level(sd, 0.049))
	// Output:
	// 50%: ±0.0490 (Gaussian ±0.0674)
	// 95%: ±0.1960 (Gaussian ±0.1960)
	// level of a 0.049 error: 0.500
}
