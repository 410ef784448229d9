package core

import (
	"context"

	"apic/sims"
)

// The operating conditions a user reaches with the explorer's sliders:
// the context sizes and noise levels over which the predictive spread is
// calibrated (recalibrate.go) and evaluated (apic eval --grid,
// docs/uncertainty.md).

// ConditionNoises are the context noise levels σ of the condition grid:
// the explorer's noise slider runs from 0 to 0.1.
var ConditionNoises = []float64{0, 0.01, 0.05, 0.1}

// SmallContexts are the context sizes below every system's training
// range at which the intervals must widen toward the prior rather than
// collapse (evaluated at noise 0).
var SmallContexts = []int{1, 2}

// ConditionContexts returns the context sizes of the condition grid of a
// system: for advdiff's 4160-point field {32, 128, 256, 1024}, for the
// ODE systems {5, 10, 30, 60}.
func ConditionContexts(sys sims.System) []int {
	if sys.Grid().Points() > 1000 {
		return []int{32, 128, 256, 1024}
	}
	return []int{5, 10, 30, 60}
}

// Condition is one operating point: a context size and a noise level.
type Condition struct {
	Context int     `json:"context"`
	Noise   float64 `json:"noise"`
}

// ConditionGrid returns the conditions of a system's calibration grid:
// every context size of ConditionContexts at every noise level of
// ConditionNoises, then the SmallContexts at noise 0 when small is set.
func ConditionGrid(sys sims.System, small bool) []Condition {
	return GridOf(ConditionContexts(sys), ConditionNoises, small)
}

// GridOf is the product of contexts and noises, then SmallContexts at
// noise 0 when small is set.
func GridOf(contexts []int, noises []float64, small bool) []Condition {
	var out []Condition
	for _, c := range contexts {
		for _, s := range noises {
			out = append(out, Condition{c, s})
		}
	}
	if small {
		for _, c := range SmallContexts {
			out = append(out, Condition{c, 0})
		}
	}
	return out
}

// GridCell is the evaluation of one condition: its report, or the error
// that stopped it (a failed cell does not stop the grid).
type GridCell struct {
	Condition
	Report *Report `json:"report,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// EvaluateGrid runs Evaluate at each condition with the options of base
// (its Context and Noise replaced). Only a cancelled ctx stops it; any
// other error is recorded in its cell.
func EvaluateGrid(ctx context.Context, m *Model, base EvalOptions, conds []Condition) ([]GridCell, error) {
	cells := make([]GridCell, len(conds))
	for i, c := range conds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opt := base
		opt.Context, opt.Noise = c.Context, c.Noise
		cells[i].Condition = c
		rep, _, err := Evaluate(ctx, m, opt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			cells[i].Error = err.Error()
			continue
		}
		cells[i].Report = &rep
	}
	return cells, nil
}
