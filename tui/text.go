package tui

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text helpers: every block of the frame is a list of lines of an exact
// display width, so blocks join side by side without lipgloss measuring
// them again.

// padRight pads (or truncates) s to exactly w cells.
func padRight(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		// A wide character that would straddle the edge is dropped
		// whole, so the cut may leave a cell to pad.
		s = ansi.Truncate(s, w, "")
		sw = ansi.StringWidth(s)
	}
	switch {
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// truncate cuts s to at most w cells, marking a cut with the ellipsis
// (where w leaves it room).
func (t theme) truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	if ell := t.ellipsis; ansi.StringWidth(ell) <= w {
		return ansi.Truncate(s, w, ell)
	}
	return ansi.Truncate(s, w, "")
}

// fitFirst is the first of texts (ordered longest wording first) that
// fits in w cells, else the last cut to w.
func (t theme) fitFirst(w int, texts ...string) string {
	for _, s := range texts {
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return t.truncate(texts[len(texts)-1], w)
}

// cutAtSpace splits s at the last space that leaves at most w cells
// before it (at w cells when its first word is wider), the spaces at the
// break dropped. Only spaces break: a hyphen may belong to a flag
// ("--gaussian-theta"), a slash to a path. Nor do the spaces about a
// relation: "p < 1e-6" cut after "p" would read "< 1e-6" alone.
func cutAtSpace(s string, w int) (head, rest string) {
	if ansi.StringWidth(s) <= w {
		return s, ""
	}
	cut := -1
	for i, r := range s {
		if r == ' ' && i > 0 && !besideRelation(s, i) {
			if ansi.StringWidth(s[:i]) > w {
				break
			}
			cut = i
		}
	}
	if cut < 0 || strings.TrimSpace(s[:cut]) == "" {
		head = ansi.Cut(s, 0, max(w, 1))
		return head, strings.TrimLeft(s[len(head):], " ")
	}
	return strings.TrimRight(s[:cut], " "), strings.TrimLeft(s[cut:], " ")
}

// cutMarked keeps lines within h: where they do not fit, the first h-1
// and a dim last line that says how many were left out and how to see
// them: the first of more's wordings for the count that fits w. Cut
// silently, the last lines of a view read as all there is.
func (t theme) cutMarked(lines []string, w, h int, more func(n int) []string) []string {
	if len(lines) <= h {
		return lines
	}
	if h < 1 {
		return nil
	}
	n := len(lines) - (h - 1)
	wordings := more(n)
	for i := range wordings {
		wordings[i] = t.dots(wordings[i])
	}
	return append(lines[:h-1:h-1], padRight(t.paint(t.dim, t.fitFirst(w, wordings...)), w))
}

// block pads lines to w cells and h lines.
func block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = padRight(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return out
}

// joinH places equally tall blocks side by side.
func joinH(blocks ...[]string) []string {
	h := 0
	for _, b := range blocks {
		h = max(h, len(b))
	}
	out := make([]string, h)
	for i := range out {
		var sb strings.Builder
		for _, b := range blocks {
			if i < len(b) {
				sb.WriteString(b[i])
			}
		}
		out[i] = sb.String()
	}
	return out
}

// barFormat is the number format of a colour bar whose ends are
// bounds: three significant digits each, in fixed notation ("0.223",
// "1.00") unless a bound needs an exponent (a magnitude below 0.001 or
// from 10⁴), and then both ends have one ("1.53e-4"); zero is "0".
func barFormat(bounds ...float64) func(float64) string {
	exp := false
	for _, v := range bounds {
		if a := math.Abs(v); a != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) && (a < 1e-3 || a >= 1e4) {
			exp = true
		}
	}
	return func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "–"
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "-∞"
		case v == 0:
			return "0"
		case exp:
			return shortExp(v, 2)
		}
		return strconv.FormatFloat(v, 'f', max(0, sigDecimals(v, 3)), 64)
	}
}

// sigDecimals is how many decimals print a finite, non-zero v to digits
// significant digits, counted after the rounding (0.9996 at three is
// 1.00: two, not four); negative from 10^digits up.
func sigDecimals(v float64, digits int) int {
	_, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', digits-1, 64), "e")
	n, _ := strconv.Atoi(e)
	return digits - 1 - n
}

// formatLadder prints a control value briefly (0.01, 1, 10).
func formatLadder(v float64) string { return formatG(v, 4) }

// formatDuration prints m:ss or h:mm:ss.
func formatDuration(d time.Duration) string {
	s := int(math.Round(d.Seconds()))
	if s < 0 {
		s = 0
	}
	if s >= 3600 {
		return strconv.Itoa(s/3600) + ":" + twoDigits((s/60)%60) + ":" + twoDigits(s%60)
	}
	return strconv.Itoa(s/60) + ":" + twoDigits(s%60)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// besideRelation is whether the space at byte i of s has a relation
// sign (=, <, >, ≤, ≥) as its neighbour across the spaces either side.
func besideRelation(s string, i int) bool {
	const signs = "=<>≤≥"
	before := strings.TrimRight(s[:i], " ")
	after := strings.TrimLeft(s[i:], " ")
	if r, _ := utf8.DecodeLastRuneInString(before); before != "" && strings.ContainsRune(signs, r) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(after)
	return after != "" && strings.ContainsRune(signs, r)
}
