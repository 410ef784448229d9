package nets_test

import (
	"fmt"
	"math/rand/v2"

	"apic/nets"
)

// An MLP maps a batch of points to outputs; the tape differentiates a
// scalar loss with respect to every parameter, and Adam takes a step.
func ExampleMLP() {
	rng := rand.New(rand.NewPCG(1, 2))
	var ps nets.Params
	mlp := nets.NewMLP("mlp", []int{2, 16, 1}, nets.ActTanh, &ps, rng)
	fmt.Println("parameters:", ps.Count())

	// XOR: four points with two features each.
	x := nets.FromSlice(4, 2, []float64{0, 0, 0, 1, 1, 0, 1, 1})
	y := nets.FromSlice(4, 1, []float64{0, 1, 1, 0})
	opt := nets.NewAdam(0.05)
	var first, last float64
	for step := range 300 {
		ps.ZeroGrad()
		tp := nets.NewTape()
		pred := mlp.Forward(tp, tp.Const(x)) // [4, 1]
		loss := tp.Mean(tp.Square(tp.Sub(pred, tp.Const(y))))
		tp.Backward(loss) // fills ps' gradients
		opt.Step(&ps)
		if step == 0 {
			first = loss.Value.Data[0]
			fmt.Println("prediction shape:", pred.Value.Shape())
		}
		last = loss.Value.Data[0]
	}
	fmt.Printf("loss fell below 1%% of its start: %v\n", last < 0.01*first)
	// Output:
	// parameters: 65
	// prediction shape: [4, 1]
	// loss fell below 1% of its start: true
}
