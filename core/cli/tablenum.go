package cli

import (
	"math"
	"strconv"
	"strings"
)

// The numeric columns of eval's, eval --grid's and compare's tables take
// any finite value: a badly trained checkpoint or a tiny noise gives a
// recon LL of -123456.7 or -1.2e+09, which a column of fixed width
// would overflow, shifting the rest of its row. Each value is written
// in fixed notation up to tableExpBound and in exponent notation beyond
// (tableNumber), and each column is as wide as its widest cell
// (alignRight).

// tableExpBound is the magnitude from which a table's value is written
// in exponent notation: fixed notation would run to ten digits and more
// ("-1200000000.0000").
const tableExpBound = 1e6

// tableNumber is v with decimals places, "-123456.7000" for 4, or from
// tableExpBound on with four significant digits, "-1.200e+09".
func tableNumber(v float64, decimals int) string {
	if math.Abs(v) >= tableExpBound && !math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// alignRight right-aligns each column of rows to the widest of its cells
// (in terminal columns, displayWidth) and least[i], one space between
// columns; a row may have fewer cells than the others.
func alignRight(rows [][]string, least []int) []string {
	width := append([]int(nil), least...)
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], displayWidth(c))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = padLeft(c, width[i])
		}
		out[j] = strings.Join(cells, " ")
	}
	return out
}

// padLeft right-aligns s in width terminal columns (displayWidth).
func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-displayWidth(s))) + s
}
