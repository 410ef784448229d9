package tui

import (
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// escThenKey splits an alt+key into the esc and the key that a slow link
// delivered in one read: a terminal sends esc as a bare ESC, and Bubble
// Tea reads ESC and the next key together as that key with alt, so esc
// then d over SSH arrived as alt+d and did nothing, the help or view
// staying open, and esc then q left the path prompt open. The explorer
// binds no alt key, the prompt none either (it has no word editing, as
// bubbles' textinput has on alt+b, alt+f, alt+d); it splits one only
// where esc leaves what is on screen (the help, d, A, a switch's
// warning, the prompt), never where esc would stop a run: an alt+key
// typed as such must not.
func (m Model) escThenKey(k tea.KeyPressMsg) (rest tea.KeyPressMsg, ok bool) {
	if k.Mod&tea.ModAlt == 0 || !m.escLeaves() {
		return k, false
	}
	if m.prompt.active() && k.String() == "alt+backspace" {
		return k, false // the prompt's word delete, not esc then backspace
	}
	rest = k
	rest.Mod &^= tea.ModAlt
	if rest.Text == "" && rest.Mod&tea.ModCtrl == 0 {
		rest.Text = keyText(rest)
	}
	return rest, true
}

// escLeaves reports whether esc now closes or calls off something on
// screen rather than stopping work.
func (m Model) escLeaves() bool {
	return m.help.ShowAll || m.diag.open || m.abl.open || m.switchArmed.key != "" || m.prompt.active()
}

// keyText is the text a printable key types, which its alt form lacks
// ("A", not "shift+a": the bindings match that text); "" for others.
func keyText(k tea.KeyPressMsg) string {
	switch {
	case k.ShiftedCode != 0 && k.Mod&tea.ModShift != 0:
		return string(k.ShiftedCode)
	case !unicode.IsPrint(k.Code) || k.Code == ' ':
		return ""
	case k.Mod&tea.ModShift != 0:
		return string(unicode.ToUpper(k.Code))
	}
	return string(k.Code)
}
