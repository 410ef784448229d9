package cli

import (
	"slices"
	"testing"
)

// TestEveryNumberAxisBounded: every number axis of a sweep has its
// flag's bound, which --collect holds a cell.json's value to as --vary
// holds a value given on the command line; a new axis without one
// would let a hand-edited value through.
func TestEveryNumberAxisBounded(t *testing.T) {
	for _, a := range slices.Concat(evalAxes, trainAxes) {
		_, ok := axisBoundOf(a)
		if number := a.kind == "int" || a.kind == "float"; ok != number {
			t.Errorf("axis %s (%s): bound %v", a.name, a.kind, ok)
		}
	}
}
