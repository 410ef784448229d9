package tui

import "strings"

// rangeWarning is core's RangeWarnings for the context size and noise σ
// on the sliders, joined, when they lie outside what the model on screen
// was trained on (its intervals are not calibrated there); "" inside the
// range, and for untrained weights, which have no range to leave.
func (m Model) rangeWarning() string {
	e := m.entry()
	if e == nil || e.src == srcUntrained {
		return ""
	}
	return strings.Join(e.model.RangeWarnings(int(m.ctxSteps[m.sys().Name()].value()), m.noise.value()), "; ")
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
	}
	return m.msg + " · " + w, max(m.msgKind, msgWarn)
}
