package tui

import (
	"github.com/charmbracelet/x/ansi"
)

// stalePanels is the panel area as drawn just before a switch to another
// system, backbone or checkpoint file dropped the inference it showed
// (Model.res, which the new model's does not replace until it comes):
// the panels stay, dimmed under a line that says what is being
// inferred, until it arrives. They blanked to a lone "inferring…" for
// the length of an inference, a frame at least, a second on advdiff
// over a busy machine.
type stalePanels struct {
	w, h  int      // the panel area's size when drawn
	lines []string // the panel area, w × h
	from  string   // the system and backbone they show: "spring/lnp"
}

// keepPanels keeps the panel area on screen as stalePanels, for a
// switch about to drop m.res. A second switch before the inference
// arrives keeps the panels of the first: there is no newer to keep.
func (m *Model) keepPanels() {
	if m.res == nil || m.width < minWidth || m.height < minHeight {
		return
	}
	drawn := *m
	if m.opts.ASCII {
		drawn = drawn.laidOutForASCII() // as View draws them
	}
	w, h, big := m.panelArea()
	m.kept = &stalePanels{w: w, h: h, lines: block(drawn.plots(w, h, big), w, h), from: m.key().system + "/" + m.key().backbone}
}

// staleView is the kept panels dimmed, their first line (panel 1's
// title) saying what is being inferred in their place.
func (m Model) staleView(s *stalePanels) []string {
	t := m.theme
	now := m.key().system + "/" + m.key().backbone
	below := "below: " + s.from
	if s.from == now {
		below = "below: the weights before" // a file of the same system and backbone
	}
	infer := "inferring " + now + "…"
	head := t.fitFirst(s.w-1, t.dots(infer+" · "+below+", until it comes"), t.dots(infer+" · "+below), t.dots(infer))
	out := []string{padRight(t.paint(t.accent, head), s.w)}
	for _, l := range s.lines[1:] {
		out = append(out, t.paint(t.dim, ansi.Strip(l)))
	}
	return out
}
