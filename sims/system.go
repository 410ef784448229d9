// Package sims holds the benchmark physical systems of ../shared/BENCHMARKS.md:
// their priors, grids, side information, nominal and true processes, and the
// differentiable forward models the APIC model trains through. Only this
// package knows physics; everything else works through the System interface.
//
// Adding a system is one new file implementing System plus one Register
// call in its init function.
package sims

import (
	"math/rand/v2"

	"apic/nets"
)

// Param is one physical parameter with its uniform prior U(Lo, Hi).
type Param struct {
	Name   string
	Lo, Hi float64
	// Symbol is the parameter's usual symbol for displays ("ω"); empty
	// uses Name.
	Symbol string
}

// Grid is the fixed set of states at which a system is observed.
//
// States[g] is the state vector of grid point g (time for ODEs, (t, x) for
// the PDE). Observed values on the grid are stored point-major:
// value of channel c at grid point g is at index g*len(Channels)+c.
type Grid struct {
	StateNames []string    // e.g. ["t"] or ["t", "x"]
	Channels   []string    // e.g. ["y"] or ["prey", "predator"]
	States     [][]float64 // len = number of grid points
	Lo, Hi     []float64   // bounds of the state domain, per state dimension
	// Shape gives the grid's natural array shape when it is a product grid
	// (e.g. [64, 64] for (t, x)); nil for a one-dimensional grid.
	Shape []int
	// Periodic marks the state dimensions on which the domain wraps
	// around (Hi is the same point as Lo); nil when none does.
	Periodic []bool
	// Aliases are other names an observation file's header may give
	// the grid's columns ("time" for t); nil for none. HeaderColumns
	// reads them.
	Aliases []ColumnAlias
}

// IsPeriodic reports whether state dimension d wraps around.
func (g Grid) IsPeriodic(d int) bool { return d < len(g.Periodic) && g.Periodic[d] }

// Points is the number of grid points.
func (g Grid) Points() int { return len(g.States) }

// Size is the number of observed values on the grid: Points × Channels.
func (g Grid) Size() int { return len(g.States) * len(g.Channels) }

// SideInfo describes the known side information (initial conditions) a
// system's simulator needs. Len is 0 when there is none.
type SideInfo struct {
	Name string // e.g. "u0"
	Len  int
	// Labels names each entry (e.g. ["x0", "y0"]) when Len is small; nil
	// for fields.
	Labels []string
	// Meaning says what the values are, for the messages that ask for
	// them ("prey and predator at t = 0").
	Meaning string
	// Lo, Hi bound each entry's plausible range (for warnings).
	Lo, Hi float64
	// Positive marks side information that must be > 0 (populations,
	// whose logarithms the model reads); other values are refused.
	Positive bool
}

// Realization is one draw of a system: parameters, side information and
// the nominal and true processes on the grid (layout as in Grid).
type Realization struct {
	Theta   []float64
	Side    []float64
	Nominal []float64
	True    []float64
}

// Discrepancy returns True − Nominal, the ground-truth discrepancy in
// observation space.
func (r Realization) Discrepancy() []float64 {
	d := make([]float64, len(r.True))
	for i := range d {
		d[i] = r.True[i] - r.Nominal[i]
	}
	return d
}

// System is a benchmark physical system.
type System interface {
	// Name is the short identifier used on the command line ("spring").
	Name() string
	// Title is a human-readable name ("Damped spring").
	Title() string
	// Formulas states, in one to three lines of plain text, the nominal
	// simulator F, the true process G and their discrepancy δ = G − F:
	// what simulate shows a reader who has not read docs/benchmarks.md.
	Formulas() []string
	// Params lists the physical parameters θ and their priors.
	Params() []Param
	// Grid returns the observation grid. The returned value must not be
	// modified.
	Grid() Grid
	// Side describes the side information; Len 0 means none.
	Side() SideInfo
	// TrainContext is the inclusive range of context sizes drawn in
	// training; TestContext is the default test context size.
	TrainContext() (lo, hi int)
	TestContext() int

	// SampleTheta draws θ from the prior; SampleSide draws side information.
	SampleTheta(rng *rand.Rand) []float64
	SampleSide(rng *rand.Rand) []float64
	// Nominal and True evaluate F and G on the grid (layout as in Grid).
	Nominal(theta, side []float64) []float64
	True(theta, side []float64) []float64
	// Valid reports whether a true trajectory is acceptable (systems may
	// reject and redraw, as BENCHMARKS.md specifies for lv).
	Valid(trueValues []float64) bool

	// NominalOp is the differentiable nominal simulator for a batch:
	// theta [B, P] (needs grad), side [B, S] constant → [B, Grid.Size()].
	NominalOp(tp *nets.Tape, theta *nets.Var, side *nets.Tensor) *nets.Var
	// Closure is the system's native (physics-guided) discrepancy form.
	Closure() Closure
	// EncodeContext writes the per-point input of the set encoders for one
	// realization's context into dst, which has shape
	// [len(ctx.States), FeatureLen()]. Observations may lie anywhere inside
	// the domain, not only on grid points. Systems may add
	// physics-informed features computed from the side information.
	EncodeContext(dst *nets.Tensor, ctx Context, side []float64)
	FeatureLen() int
	// QueryFeatures maps a state at which the discrepancy network is
	// evaluated to its input features (e.g. normalised time).
	QueryFeatures(dst, state []float64)
	QueryFeatureLen() int
}

// Closure is a physics-guided way of combining a learned discrepancy
// network f_ψ with the simulator. The model evaluates f_ψ at the closure's
// query states (the same for every realization), producing
// [B*Q, Outputs()] values with rows realization-major, and the closure
// turns θ̂ and those values into the corrected prediction on the grid.
type Closure interface {
	// Name identifies the form ("envelope", "forcing", "reaction").
	Name() string
	// Doc is one line on what f_ψ predicts.
	Doc() string
	// Queries are the Q states at which f_ψ is evaluated. Q may be 1 with
	// an empty state for a state-independent closure.
	Queries() [][]float64
	// Outputs is the number of values f_ψ produces per query.
	Outputs() int
	// Apply returns the corrected prediction [B, Grid.Size()] from
	// theta [B, P], side [B, S] and f [B*Q, Outputs()].
	Apply(tp *nets.Tape, theta *nets.Var, side *nets.Tensor, f *nets.Var) *nets.Var
	// Clipped reports, for diagnostics, whether f's values for one
	// realization lie at a clip of the closure (e.g. a reaction rate at
	// its maximum). f has Q*Outputs values.
	Clipped(f []float64) bool
}
