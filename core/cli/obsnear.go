package cli

import (
	"math"
	"strconv"
	"strings"

	"apic/sims"
)

// Two observations whose states differ by float noise, 1 and
// 1.0000000000000002, are one state written twice with other rounding:
// the model cannot tell them apart (it reads states at far coarser
// precision), and counted twice they would weigh that state double. The
// tolerance is the one that puts a state on a grid point (gridTol of
// the domain's width, per coordinate), so that a pair is one state on
// and off the grid alike. The states compared are the ones written, not
// the grid points they snap to: a state just within the tolerance of a
// grid point and one just beyond it are one state, though only the
// first is put on the grid. A state that wraps (advdiff's x within the
// tolerance of 1, read as 0) is kept both as written and wrapped, so
// that it meets its neighbours on either side of the wrap.

// writtenRow is an observation's state in one of its forms (as written,
// or wrapped), the state as written, for messages, and its file line.
type writtenRow struct {
	state, written []float64
	line           int
}

// writtenStates finds, among the states read so far, one within the
// grid's tolerance (loc.tol) of a new one in every coordinate. States
// are kept in cells of side tol, so that a look visits the 3^d cells
// around the new one.
type writtenStates struct {
	loc   gridLocator // its tol and near
	cells map[string][]writtenRow
}

func newWrittenStates(loc gridLocator) *writtenStates {
	return &writtenStates{loc: loc, cells: map[string][]writtenRow{}}
}

// cellOf is the cell of state, moved by shift (each −1, 0 or +1).
func (s *writtenStates) cellOf(state []float64, shift []int) string {
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
func (s *writtenStates) near(state []float64) (writtenRow, bool) {
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
			return writtenRow{}, false
		}
	}
}

// add records state, a form of the state written at line.
func (s *writtenStates) add(state, written []float64, line int) {
	key := s.cellOf(state, nil)
	s.cells[key] = append(s.cells[key], writtenRow{state: state, written: written, line: line})
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
