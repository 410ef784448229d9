package sims_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"apic/nets"
	"apic/sims"
)

// A system is looked up by name; Draw samples θ from its prior and
// evaluates the nominal simulator F and the true process G on the grid,
// whose difference is the discrepancy δ = G − F.
func Example() {
	sys, err := sims.Lookup("spring")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := sims.Draw(sys, rand.New(rand.NewPCG(1, 2)))
	p := sys.Params()[0]
	fmt.Printf("%s: θ inside its prior U(%g, %g): %v\n", sys.Title(), p.Lo, p.Hi, r.Theta[0] >= p.Lo && r.Theta[0] <= p.Hi)
	fmt.Println("grid points:", sys.Grid().Points())
	d := r.Discrepancy()
	last := len(d) - 1
	fmt.Printf("δ = G − F at the last point: %v\n", d[last] == r.True[last]-r.Nominal[last])
	// Output:
	// Damped spring: θ inside its prior U(3, 8): true
	// grid points: 100
	// δ = G − F at the last point: true
}

// NewTask splits a realization into the context the model reads and the
// grid points it is scored on.
func ExampleNewTask() {
	sys, err := sims.Lookup("lv")
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(3, 4))
	task, err := sims.NewTask(sys, sims.Draw(sys, rng), 30, 0.01, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("context points:", task.Context.Len())
	fmt.Println("target points:", len(task.Targets))
	fmt.Println("channels per point:", len(task.Context.Values[0]))
	// Output:
	// context points: 30
	// target points: 70
	// channels per point: 2
}

// SpectralSolve is differentiable in every input. A constant initial
// field is neither advected nor diffused, only decays by the reaction,
// u(t, x) = e^{−ct}, so at t = 1 the value is e^{−c} and its derivative
// in c is −e^{−c}.
func ExampleSpectralSolve() {
	const c = 0.5
	tp := nets.NewTape()
	theta := tp.Const(nets.FromSlice(1, 2, []float64{0.7, 0.01}))
	rate := tp.Input(nets.FromSlice(1, 1, []float64{c}))
	ones := make([]float64, 64)
	for i := range ones {
		ones[i] = 1
	}
	u := sims.SpectralSolve(tp, theta, rate, tp.Const(nets.FromSlice(1, 64, ones)))
	tp.Backward(tp.Mean(u)) // d mean(u)/dc = mean over t of −t e^{−ct}

	final := u.Value.Data[63*64] // t = 1, x = 0
	fmt.Printf("u(1, 0) = %.6f, e^{-c} = %.6f\n", final, math.Exp(-c))
	var want float64 // the mean of −t e^{−ct} over the 64 times t_n = n/63
	for n := range 64 {
		t := float64(n) / 63
		want -= t * math.Exp(-c*t) / 64
	}
	fmt.Printf("d mean(u)/dc matches: %v\n", math.Abs(rate.Grad.Data[0]-want) < 1e-9)
	// Output:
	// u(1, 0) = 0.606531, e^{-c} = 0.606531
	// d mean(u)/dc matches: true
}

// LVRK4 integrates Lotka–Volterra on the lv grid. Unforced, the system
// conserves V = η x − γ ln x + β y − α ln y, which the fourth-order
// scheme keeps to within 1e-7 of its start over the whole grid.
func ExampleNewLVRK4() {
	theta := []float64{1.0, 1.1, 0.9, 0.8} // α, β, η, γ
	op := sims.NewLVRK4(sims.LVModelSubsteps)
	tp := nets.NewInferenceTape()
	xy := tp.Apply(op,
		tp.Const(nets.FromSlice(1, 4, theta)),
		tp.Const(nets.FromSlice(1, 2, []float64{1.0, 0.5})),
	).Value.Data // prey, predator at each of 100 grid points

	invariant := func(x, y float64) float64 {
		return theta[2]*x - theta[3]*math.Log(x) + theta[1]*y - theta[0]*math.Log(y)
	}
	v0 := invariant(xy[0], xy[1])
	var drift float64
	for g := 1; g < len(xy)/2; g++ {
		drift = max(drift, math.Abs(invariant(xy[2*g], xy[2*g+1])-v0)/math.Abs(v0))
	}
	fmt.Println("grid points:", len(xy)/2)
	fmt.Printf("relative drift of V below 1e-7: %v\n", drift < 1e-7)
	// Output:
	// grid points: 100
	// relative drift of V below 1e-7: true
}
