package sims

import (
	"fmt"
	"math/rand/v2"
)

// Context is a set of observations of one realization.
//
// States[i] is the state of observation i (len = number of state
// dimensions), Values[i] its observed values (one per channel) and
// Mask[i][c] whether channel c was observed (unobserved values are 0).
// GridIndex[i] is the grid point the observation sits on, or -1 for an
// off-grid observation.
type Context struct {
	States    [][]float64
	Values    [][]float64
	Mask      [][]bool
	GridIndex []int
}

// Len is the number of observations.
func (c Context) Len() int { return len(c.States) }

// Task is a realization split into a context set and target grid points.
type Task struct {
	Real    Realization
	Context Context
	// Targets are the grid points not in the context.
	Targets []int
	// Observed holds a noisy observation of every grid value, drawn as
	// the context's are (the values plus noise·ε of the split): at the
	// targets, held-out observations of the same realization, which
	// score the observation band. nil for a task built by hand.
	Observed []float64
}

// Draw samples a realization: θ from the prior, side information, and both
// processes on the grid. Draws whose true trajectory the system rejects
// are redrawn, as BENCHMARKS.md specifies.
func Draw(sys System, rng *rand.Rand) Realization {
	for {
		theta := sys.SampleTheta(rng)
		side := sys.SampleSide(rng)
		tr := sys.True(theta, side)
		if !sys.Valid(tr) {
			continue
		}
		return Realization{Theta: theta, Side: side, Nominal: sys.Nominal(theta, side), True: tr}
	}
}

// Split is the random part of a context/target split: a permutation of the
// grid points (the first n form the context) and one standard-normal draw
// per observed value (scaled by the noise level). Keeping it fixed while
// n or the noise level changes grows the context along the same ordering
// with the same noise pattern.
type Split struct {
	Perm []int     // permutation of grid points
	Eps  []float64 // standard-normal draws, layout as Grid values
}

// NewSplit draws a split for sys: first the permutation, then the noise.
func NewSplit(sys System, rng *rand.Rand) Split {
	g := sys.Grid()
	eps := make([]float64, g.Size())
	perm := rng.Perm(g.Points())
	for i := range eps {
		eps[i] = rng.NormFloat64()
	}
	return Split{Perm: perm, Eps: eps}
}

// Task builds the task with the first n points of the permutation as
// context, their values taken from values (the realization's True or
// Nominal) plus noise·ε. It returns an error if n is out of range.
func (s Split) Task(sys System, r Realization, values []float64, n int, noise float64) (Task, error) {
	g := sys.Grid()
	if n < 1 || n > g.Points() {
		return Task{}, fmt.Errorf("context size %d outside 1..%d", n, g.Points())
	}
	c := len(g.Channels)
	ctx := Context{
		States:    make([][]float64, n),
		Values:    make([][]float64, n),
		Mask:      make([][]bool, n),
		GridIndex: make([]int, n),
	}
	for i, p := range s.Perm[:n] {
		ctx.States[i] = g.States[p]
		ctx.Values[i] = make([]float64, c)
		ctx.Mask[i] = make([]bool, c)
		ctx.GridIndex[i] = p
		for ch := 0; ch < c; ch++ {
			ctx.Values[i][ch] = values[p*c+ch] + noise*s.Eps[p*c+ch]
			ctx.Mask[i][ch] = true
		}
	}
	targets := append([]int(nil), s.Perm[n:]...)
	observed := make([]float64, len(values))
	for i, v := range values {
		observed[i] = v + noise*s.Eps[i]
	}
	return Task{Real: r, Context: ctx, Targets: targets, Observed: observed}, nil
}

// NewTask draws a split and returns the task on the true process.
func NewTask(sys System, r Realization, n int, noise float64, rng *rand.Rand) (Task, error) {
	return NewSplit(sys, rng).Task(sys, r, r.True, n, noise)
}
