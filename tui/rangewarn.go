package tui

import "strings"

// noteRange puts on the message line the warnings of core's
// RangeWarnings for the context size and noise σ on the sliders, when
// they lie outside what the model on screen was trained on (its
// intervals are not calibrated there), and takes its own earlier
// warning off the line once the sliders are back inside the range.
func (m *Model) noteRange() {
	e := m.entry()
	if e == nil || e.src == srcUntrained {
		m.rangeMsg = "" // untrained weights have no range to leave
		return
	}
	w := strings.Join(e.model.RangeWarnings(int(m.ctxSteps[m.sys().Name()].value()), m.noise.value()), "; ")
	switch {
	case w != "":
		m.setMsg(msgWarn, "%s", w)
	case m.rangeMsg != "" && m.msgKind == msgWarn && m.msg == m.rangeMsg:
		m.describeEntry()
	}
	m.rangeMsg = w
}
