package tui

// fourPanels reports whether the terminal is large enough to show all
// four panels at once, in a 2×2 grid; below it they come two at a
// time and p flips between the pairs.
func (m Model) fourPanels() bool {
	return m.width >= bigWidth && m.height >= bigHeight
}

// flipPage shows the other pair of panels. Where p can flip nothing on
// screen (all four panels show, or a view covers them) it says so
// instead: a flip there changed nothing in sight, and the panels came
// back later, on a smaller terminal or with the view closed, on the
// pair the user had not chosen, with no word why.
func (m *Model) flipPage() {
	switch {
	case m.fourPanels():
		m.setKeyNote("all four panels are on screen; p flips two at a time below %d×%d", bigWidth, bigHeight)
	case m.diag.open:
		m.setKeyNote("the diagnostics cover the panels: d or esc shows them, then p flips them")
	case m.abl.open:
		m.setKeyNote("the ablation view covers the panels: A or esc shows them, then p flips them")
	default:
		m.page = 1 - m.page
	}
}

// toggleHeat switches advdiff's panels between heatmaps and the time
// slice. Under the diagnostics or the ablation view it says why it
// switches nothing, as flipPage does: the switch was made out of sight,
// and the panels came back with the view closed in the other form.
func (m *Model) toggleHeat() {
	switch {
	case !m.is2D():
		m.setKeyNote("heatmaps are for systems on a (t, x) grid (advdiff)")
	case m.diag.open:
		m.setKeyNote("the diagnostics cover the panels: d or esc shows them, then v switches them")
	case m.abl.open:
		m.setKeyNote("the ablation view covers the panels: A or esc shows them, then v switches them")
	default:
		m.heat = !m.heat
	}
}
