package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tooSmall is the screen below the minimum size: what is wrong, and
// what q does there, the only key that acts. It has no status line, so
// it says itself what the quit warning and a quit waiting for training
// to stop would: unseen, a first q seemed to do nothing, and the q
// pressed again lost the weights it had warned of.
func (m Model) tooSmall() string {
	w, h := max(m.width, 1), max(m.height, 1)
	msg := []string{
		"terminal too small",
		fmt.Sprintf("%d×%d, need %d×%d", m.width, m.height, minWidth, minHeight),
	}
	msg = append(msg, m.tooSmallQuit()...)
	var lines []string
	for _, s := range msg {
		lines = append(lines, wrapCentred(s, w)...)
	}
	out := make([]string, h)
	top := max(0, (h-len(lines))/2)
	for i := range out {
		s := ""
		if j := i - top; j >= 0 && j < len(lines) {
			s = truncate(lines[j], w)
			s = strings.Repeat(" ", max(0, (w-ansi.StringWidth(s))/2)) + s
		}
		out[i] = padRight(s, w)
	}
	return strings.Join(out, "\n")
}

// tooSmallQuit is what the too-small screen says about quitting.
func (m Model) tooSmallQuit() []string {
	switch {
	case m.quitting && len(m.runs) > 0:
		return []string{"stopping training before quitting…", "q again to force"}
	case m.quitArmed != "":
		names, _ := m.unsaved()
		return []string{"unsaved: " + strings.Join(names, ", "), "enlarge it to save them, or q again to quit"}
	}
	return []string{"enlarge it, or q to quit"}
}

// wrapCentred breaks s at spaces into lines of at most w cells, with
// no hanging indent: each line is centred on its own.
func wrapCentred(s string, w int) []string {
	var out []string
	for ansi.StringWidth(s) > w && w >= 2 {
		head, rest := cutAtSpace(s, w)
		if rest == "" {
			break
		}
		out = append(out, head)
		s = rest
	}
	return append(out, s)
}
