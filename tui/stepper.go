package tui

import (
	"slices"

	"github.com/charmbracelet/x/ansi"
)

// stepper is a numeric control that moves along a ladder of values
// (context sizes, noise levels, λ weights): ←/→ step to the neighbour,
// stopping at the ends.
type stepper struct {
	label  string
	values []float64
	idx    int
	format func(float64) string
}

// newStepper returns a stepper over values (sorted, duplicates removed)
// positioned at start, which is added to the ladder when missing.
func newStepper(label string, values []float64, start float64, format func(float64) string) stepper {
	vs := append([]float64(nil), values...)
	if !slices.Contains(vs, start) {
		vs = append(vs, start)
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	if format == nil {
		format = formatLadder
	}
	return stepper{label: label, values: vs, idx: slices.Index(vs, start), format: format}
}

func (s stepper) value() float64 { return s.values[s.idx] }

// step moves d rungs, clamped to the ladder.
func (s stepper) step(d int) stepper {
	s.idx = max(0, min(len(s.values)-1, s.idx+d))
	return s
}

// at moves to value v, staying put when the ladder does not hold it.
func (s stepper) at(v float64) stepper {
	if i := slices.Index(s.values, v); i >= 0 {
		s.idx = i
	}
	return s
}

func (s stepper) view(w int, focused bool, t theme) string {
	return controlRow(t, w, focused, s.label, s.format(s.value()), s.idx > 0, s.idx < len(s.values)-1)
}

// controlFrame is the cells controlRow adds to its label and value: the
// marker "▸ ", at least one space, "◂ " and " ▸".
const controlFrame = 7

// controlRow draws one control: a focus marker, the label on the left and
// the value on the right, with ◂ ▸ on the focused row where a step is
// possible.
func controlRow(t theme, w int, focused bool, label, value string, canDec, canInc bool) string {
	// The cells around label and value: controlFrame.
	marker, l, r := "  ", " ", " "
	if focused {
		marker = "▸ "
		if canDec {
			l = "◂"
		}
		if canInc {
			r = "▸"
		}
	}
	v := l + " " + value + " " + r
	gap := w - ansi.StringWidth(marker+label) - ansi.StringWidth(v)
	if gap < 1 {
		label = t.truncate(label, max(1, ansi.StringWidth(label)+gap-1))
		gap = max(1, w-ansi.StringWidth(marker+label)-ansi.StringWidth(v))
	}
	row := padRight(marker+label+spaces(gap)+v, w)
	if focused {
		return t.paint(t.focus, row)
	}
	return row
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
