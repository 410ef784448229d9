package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"apic/core"
)

// axisBound is the range of a number axis's values: its flag's own
// bound (the core.Limit or core.FloatLimit the flag is checked by), so
// that a value a sweep reads without its flag's check, from a cell.json
// (--collect), is held to it as a --vary value is by its cell's
// command. special is a value outside the range that the flag takes
// for a setting of its own (-1: the checkpoint's), where it has one.
type axisBound struct {
	lo, hi  float64
	loOpen  bool // lo itself excluded
	special *float64
	why     string
}

// axisBoundOf is the bound of number axis a, by its flag; ok is false
// for an axis that is no number.
func axisBoundOf(a sweepAxis) (b axisBound, ok bool) {
	minusOne, zero := -1.0, 0.0
	noise := axisBound{lo: 0, hi: core.MaxNoise, why: "the data are of order 1"}
	switch a.name {
	case "context":
		// At most the grid's points less one: the system's, which the
		// cell's eval checks (and --collect against its eval.json).
		return axisBound{lo: 1, hi: math.MaxInt, why: "a context of at least one point"}, true
	case "noise", "train-noise":
		return noise, true
	case "samples":
		return intBound(core.LimitSamples), true
	case "refine":
		return axisBound{lo: -1, hi: float64(core.LimitRefine.Max), why: core.LimitRefine.Why + "; -1: the checkpoint's setting"}, true
	case "z-theta-prior":
		return axisBound{lo: 0, hi: core.MaxZThetaPrior, special: &minusOne, why: "-1: the checkpoint's setting"}, true
	case "theta-prior-scale":
		return axisBound{lo: core.MinThetaPriorScale, hi: core.MaxThetaPriorScale, special: &zero, why: "0: the checkpoint's"}, true
	case "trajectories":
		return intBound(core.LimitTrajectories), true // a system's own is lower: the cell's train checks it
	case "recalibrate":
		return intBound(core.LimitRecalTasks), true
	case "val-tasks":
		return intBound(valTasksLimit), true
	case "heads":
		return axisBound{lo: 1, hi: float64(core.LimitWidth.Max), why: "at most --hidden, which they must divide"}, true
	}
	if l, ok := trainSizeLimits[a.flag]; ok && a.train {
		return intBound(l), true
	}
	if i := slices.IndexFunc(trainFloatFlags, func(f trainFloatFlag) bool { return f.limit.Name == a.flag }); i >= 0 && a.train {
		l := trainFloatFlags[i].limit
		return axisBound{lo: l.Min, hi: l.Max, loOpen: l.MinOpen, why: l.Why}, true
	}
	return axisBound{}, false
}

// intBound is the axis bound of a whole-number flag's limit.
func intBound(l core.Limit) axisBound {
	return axisBound{lo: float64(l.Min), hi: float64(l.Max), why: l.Why}
}

// check refuses x, value v of axis name, outside b, in the words of a
// --vary value's refusal ("context value -1 is below 1").
func (b axisBound) check(name, v string, x float64) error {
	switch {
	case b.special != nil && x == *b.special:
		return nil
	case x < b.lo:
		return fmt.Errorf("%s value %s is below %s%s", name, v, boundNumber(b.lo), b.because())
	case x == b.lo && b.loOpen:
		return fmt.Errorf("%s value %s must be above %s%s", name, v, boundNumber(b.lo), b.because())
	case x > b.hi:
		return fmt.Errorf("%s value %s is above %s, the most its flag takes%s", name, v, boundNumber(b.hi), b.because())
	}
	return nil
}

// because is the bound's reason, as " (…)".
func (b axisBound) because() string {
	if b.why == "" {
		return ""
	}
	return " (" + b.why + ")"
}

// boundNumber writes a bound as its flag's help does: 1000000, 0.5.
func boundNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
