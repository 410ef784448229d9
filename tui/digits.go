package tui

import "github.com/charmbracelet/x/ansi"

// The significant digits numbers take in the room they have: the
// sidebar's tables write the numbers side by side at one count, and a
// number short of room takes fewer alone.

// numDigits are the significant digits a number takes, most first: of a
// value (a metric, a mean) and of a half-width or an interval's ends.
// Numbers are written with sigFixed, their trailing zeros kept.
var numDigits = [][2]int{{3, 2}, {2, 1}, {1, 1}}

// atOneDigits writes n cells of a table: cell(i, d) is cell i at the
// digits d (of numDigits) and whether it fits its room. The values of a
// table are compared with each other, and read alike only at the same
// digits: three (numDigits[0]) where every cell fits, else two
// (numDigits[1]), even where a cell fits at neither; that cell takes
// fewer alone (alone(i)), so that none is cut. The ablation charts'
// titles share theirs otherwise (sharedDigits): down to one digit, and
// a title that fits at none does not hold the others back.
func atOneDigits(n int, cell func(i int, d [2]int) (string, bool), alone func(i int) string) []string {
	write := func(d [2]int) (cells []string, fit []bool, all bool) {
		all = true
		for i := range n {
			s, ok := cell(i, d)
			cells, fit, all = append(cells, s), append(fit, ok), all && ok
		}
		return cells, fit, all
	}
	cells, fit, all := write(numDigits[0])
	if !all {
		cells, fit, _ = write(numDigits[1])
	}
	for i, ok := range fit {
		if !ok {
			cells[i] = alone(i)
		}
	}
	return cells
}

// fitNumber is v in at most w cells, three significant digits where
// they fit.
func fitNumber(v float64, w int) string {
	s := sigFixed(v, 3)
	for digits := 2; digits >= 1 && ansi.StringWidth(s) > w; digits-- {
		s = sigFixed(v, digits)
	}
	return s
}
