package tui

import (
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

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
// they fit, in the notation exp says (sigIn).
func fitNumber(v float64, w int, exp bool) string {
	s := sigIn(v, 3, exp)
	for digits := 2; digits >= 1 && ansi.StringWidth(s) > w; digits-- {
		s = sigIn(v, digits, exp)
	}
	return s
}

// One notation a row: the numbers written side by side, a metric's value
// beside its mean ± half-width or two metrics on a sidebar row, are
// written alike: in decimals where they all fit their cells so, else,
// where one of them takes an exponent (needsExp), all with exponents.
// Each chose its own before, and a row read "recon MAE 5.0e-5
// .000121±6.8e-5".

// needsExp reports whether v at digits significant digits is written
// with an exponent (shortNumber's rule: below 1e-4, or where %g would
// write one).
func needsExp(v float64, digits int) bool {
	return strings.Contains(shortNumber(v, digits), "e")
}

// sigIn is v at digits significant digits in one notation: with exp,
// an exponent whatever its size ("1.2e-4", at most two digits, as
// shortNumber's exponents); without, decimals, below 1e-4 too
// (".000050", where sigFixed writes "5.0e-5"), and sigFixed's form from
// 10^digits up. Zero, infinities and NaN are as sigFixed writes them.
func sigIn(v float64, digits int, exp bool) string {
	switch {
	case v == 0 || math.IsNaN(v) || math.IsInf(v, 0):
		return sigFixed(v, digits)
	case exp:
		return shortExp(v, min(1, digits-1))
	case tiny(v):
		return compact(strconv.FormatFloat(v, 'f', sigDecimals(v, digits), 64))
	}
	return sigFixed(v, digits)
}

// inDecimals reports whether s, a number sigIn wrote without exp, is in
// decimals and at most w cells: a huge one keeps its exponent.
func inDecimals(s string, w int) bool {
	return !strings.Contains(s, "e") && ansi.StringWidth(s) <= w
}
