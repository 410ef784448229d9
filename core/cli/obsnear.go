package cli

import (
	"math"
	"strconv"
	"strings"

	"apic/sims"
)

// Two off-grid observations whose states differ by float noise, 1 and
// 1.0000000000000002, are one state written twice with other rounding:
// the model cannot tell them apart (it reads states at far coarser
// precision), and counted twice they would weigh that state double. The
// tolerance is the one that puts a state on a grid point (gridTol of
// the domain's width, per coordinate), so that a pair is one state on
// and off the grid alike.

// offGridRow is an off-grid observation's state and its file line.
type offGridRow struct {
	state []float64
	line  int
}

// offGridStates finds, among the off-grid states read so far, one
// within the grid's tolerance (loc.tol) of a new one in every coordinate. States are kept in cells
// of side tol, so that a look visits the 3^d cells around the new one.
type offGridStates struct {
	loc   gridLocator // its tol and near
	cells map[string][]offGridRow
}

func newOffGridStates(loc gridLocator) *offGridStates {
	return &offGridStates{loc: loc, cells: map[string][]offGridRow{}}
}

// cellOf is the cell of state, moved by shift (each −1, 0 or +1).
func (s *offGridStates) cellOf(state []float64, shift []int) string {
	var b strings.Builder
	for d, v := range state {
		k := int64(math.Floor(v / s.loc.tol[d]))
		if shift != nil {
			k += int64(shift[d])
		}
		b.WriteString(strconv.FormatInt(k, 36))
		b.WriteByte(',')
	}
	return b.String()
}

// near returns an earlier row whose state is within the grid's
// tolerance of state in every coordinate.
func (s *offGridStates) near(state []float64) (offGridRow, bool) {
	shift := make([]int, len(state))
	for i := range shift {
		shift[i] = -1
	}
	for {
		for _, r := range s.cells[s.cellOf(state, shift)] {
			if s.loc.near(r.state, state) {
				return r, true
			}
		}
		if !nextShift(shift) {
			return offGridRow{}, false
		}
	}
}

// add records the state of an off-grid row at line.
func (s *offGridStates) add(state []float64, line int) {
	key := s.cellOf(state, nil)
	s.cells[key] = append(s.cells[key], offGridRow{state: state, line: line})
}

// nextShift steps shift through {−1, 0, 1}^d like an odometer; false
// once every combination has been visited.
func nextShift(shift []int) bool {
	for d := range shift {
		if shift[d] < 1 {
			shift[d]++
			return true
		}
		shift[d] = -1
	}
	return false
}

// describeExact formats a state as describeState does, but with every
// digit its float64 needs (strconv's shortest form): two states that
// differ in their last digits read apart.
func describeExact(g sims.Grid, state []float64) string {
	parts := make([]string, len(state))
	for d, v := range state {
		name := "s" + strconv.Itoa(d)
		if d < len(g.StateNames) {
			name = g.StateNames[d]
		}
		parts[d] = name + " = " + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}
