package tui

import (
	"fmt"
	"strings"

	"apic/core"
)

// rangeWarning says, as core's RangeWarnings do in fewer words, where the
// context size and noise σ on the sliders lie outside what the model on
// screen was trained on (its intervals are not calibrated there); "" inside
// the range, and for untrained weights, which have no range to leave.
// Short, so that it fits the message line of an 80-column terminal
// beside the status, and leaves the line below to a message beside it.
func (m Model) rangeWarning() string {
	e := m.entry()
	if e == nil || e.src == srcUntrained {
		return ""
	}
	r, n, noise := e.model.TrainingRange(), int(m.ctxSteps[m.sys().Name()].value()), m.noise.value()
	ws := shortRangeWarnings(r, n, noise)
	if len(ws) == 2 {
		return bothOutside(r, n, noise)
	}
	return strings.Join(ws, "; ")
}

// bothOutside is the one warning for a context size and a noise both
// outside training's range r: the two short warnings side by side
// wrapped to two lines at 80 columns, pushing the frame's last line
// out.
func bothOutside(r core.TrainingRange, n int, noise float64) string {
	seen := "σ ≤ " + formatG(r.NoiseHi, 3)
	if r.NoiseHi == 0 {
		seen = "noise-free"
	}
	return fmt.Sprintf("%s, σ %s: beyond training (%d–%d points, %s)", core.Count(n, "point"), formatG(noise, 3), r.ContextLo, r.ContextHi, seen)
}

// shortRangeWarnings are RangeWarnings for range r, context size n and
// noise σ, in the explorer's words.
func shortRangeWarnings(r core.TrainingRange, n int, noise float64) []string {
	var out []string
	switch {
	case n < r.ContextLo && r.Calibrated(n):
		out = append(out, fmt.Sprintf("%s, under the %d–%d trained on: a rougher fit", core.Count(n, "point"), r.ContextLo, r.ContextHi))
	case n < r.ContextLo:
		out = append(out, fmt.Sprintf("%s, under the %d–%d trained on: intervals too narrow", core.Count(n, "point"), r.ContextLo, r.ContextHi))
	case n > r.ContextHi && r.Calibrated(n):
		out = append(out, fmt.Sprintf("%d points, over the %d–%d trained on: an extrapolated fit", n, r.ContextLo, r.ContextHi))
	case n > r.ContextHi:
		out = append(out, fmt.Sprintf("%d points, over the %d–%d trained on: spread extrapolated", n, r.ContextLo, r.ContextHi))
	}
	switch {
	case noise > r.NoiseHi*(1+1e-9) && r.NoiseHi == 0:
		out = append(out, fmt.Sprintf("σ %s, trained noise-free: intervals miss the noise", formatG(noise, 3)))
	case noise > r.NoiseHi*(1+1e-9):
		out = append(out, fmt.Sprintf("σ %s, over the %s trained on: intervals miss the extra noise", formatG(noise, 3), formatG(r.NoiseHi, 3)))
	}
	return out
}

// noteRange puts the range warning on the message line when the sliders
// move outside the range, and takes its own earlier warning off the line
// once they are back inside it.
func (m *Model) noteRange() {
	w := m.rangeWarning()
	switch {
	case w != "":
		m.setMsg(msgWarn, "%s", w)
	case m.rangeMsg != "" && m.msgKind == msgWarn && m.msg == m.rangeMsg:
		m.describeEntry()
	}
	m.rangeMsg = w
}

// shownMsg is the message line's text and kind: the last message, with
// the range warning added while the condition lies outside the range.
// A later message (an atlas model loaded, a file opened, an error) must
// not hide it: the intervals on screen stay uncalibrated until the
// sliders come back.
func (m Model) shownMsg() (string, msgKind) {
	w := m.rangeWarning()
	switch {
	case w == "" || strings.Contains(m.msg, w):
		return m.msg, m.msgKind
	case m.msg == "":
		return w, msgWarn
	case m.msgKind == msgErr && m.quitArmed == "":
		// The warning fits the status line whole; a long error after it
		// keeps its start and its cause on the line below (lastLine).
		// Before it, the error would push the warning off the lines.
		return w + " · " + m.msg, msgErr
	}
	// The quit warning goes first, as a key's notes do: it ends in what
	// the key does pressed again ("q again quits"), which beside a
	// training status has one line to fit in, and after the range
	// warning was the part cut.
	return m.msg + " · " + w, max(m.msgKind, msgWarn)
}
