package nets_test

import (
	"fmt"
	"math"
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

// Backward fills the gradient of a scalar with respect to every input
// that needs one. For L = Σ x·eˣ, ∂L/∂x = eˣ(1 + x).
func ExampleTape_Backward() {
	tp := nets.NewTape()
	x := tp.Input(nets.FromSlice(1, 3, []float64{-1, 0, 2}))
	loss := tp.Sum(tp.Mul(x, tp.Exp(x)))
	tp.Backward(loss)
	for i, xi := range x.Value.Data {
		fmt.Printf("x = %2g: ∂L/∂x = %.6f, eˣ(1 + x) = %.6f\n", xi, x.Grad.Data[i], math.Exp(xi)*(1+xi))
	}
	// Output:
	// x = -1: ∂L/∂x = 0.000000, eˣ(1 + x) = 0.000000
	// x =  0: ∂L/∂x = 1.000000, eˣ(1 + x) = 1.000000
	// x =  2: ∂L/∂x = 22.167168, eˣ(1 + x) = 22.167168
}

// CheckGrad compares the tape's gradients with central differences; every
// op of the package is tested this way.
func ExampleCheckGrad() {
	rng := rand.New(rand.NewPCG(5, 6))
	a := nets.FromSlice(3, 4, make([]float64, 12))
	b := nets.FromSlice(4, 2, make([]float64, 8))
	for _, t := range []*nets.Tensor{a, b} {
		for i := range t.Data {
			t.Data[i] = rng.NormFloat64()
		}
	}
	loss := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return tp.Mean(tp.Tanh(tp.MatMul(in[0], in[1], false, false)))
	}
	fmt.Println("gradients agree:", nets.CheckGrad(loss, []*nets.Tensor{a, b}, 1e-6, 1e-6) == nil)
	// Output:
	// gradients agree: true
}
