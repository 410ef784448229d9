package tui

import "fmt"

// sideLayout is how tightly the sidebar packs the rows that only label
// or hint: each layout gives a short terminal a row more than the one
// before, so that the metrics keep their rows. At 80×24 the spring fits
// with sideOneHint; advdiff and lv, with more controls or θ rows, need
// sideNoControlsHeading and sideNoTrainHint; with the baselines shown
// every system needs sideNoBaselineTitle, and the metrics give up rows.
type sideLayout int

const (
	// sideFull has every heading and the box's hints on two rows: the
	// train mode and m, then esc, s and o.
	sideFull sideLayout = iota
	// sideOneHint has the keys that start a run, save and open on one
	// row (trainHint): the train mode is the control row above, m and
	// esc are in the help and esc on the status line during a run.
	sideOneHint
	// sideHintAlone has the hint row stand for the box's heading before
	// any run.
	sideHintAlone
	// sideNoControlsHeading leaves out the "controls" heading as well:
	// the rows under it read as controls by their ◂ ▸ and focus marker.
	sideNoControlsHeading
	// sideNoTrainHint leaves out the training box before any run: its
	// keys are in the footer and the help, and the metrics, which say
	// how honest the calibration is, need the row more.
	sideNoTrainHint
	// sideNoBaselineTitle, with the baselines shown, leaves out their
	// title (baseBudgetTitle) too: the rows read as baselines by the
	// methods' names, which the panels' legends repeat, and the budgets
	// are in c's note, which the help (?) shows whole.
	sideNoBaselineTitle
)

// trainHint is the training box's hint on one row.
const trainHint = "t trains · s saves · o opens"

// avgKeepRows is the rows the averages need for the three errors
// (reconstruction, δ, θ): their heading, the errors and the mark of the
// rows left out. A finished run's box gives up rows for them.
const avgKeepRows = 5

// sideLayoutFor is the first layout in which the whole sidebar fits h
// rows, or the tightest. It is chosen as before any run, whatever is
// running: a layout that changed as a run started would move every row
// under the "controls" heading; the run's box makes its own room
// (Model.sidebar). Each layout is one row shorter than the one before
// it (TestSideLayoutsSaveARowEach), so the full layout's overflow is
// the layout, and the sidebar is built once here, not once per layout
// tried: this runs in every View.
func (m Model) sideLayoutFor(w, h int) sideLayout {
	before := m
	before.run, before.losses = nil, nil
	over := len(before.sidebarUncut(w, h, sideFull)) - h
	tightest := sideNoTrainHint
	if m.base.active {
		tightest = sideNoBaselineTitle
	}
	return sideLayout(min(max(over, 0), int(tightest)))
}

// sidebarUncut is the sidebar in layout lay with all its rows: the
// metrics all shown, nothing cut.
func (m Model) sidebarUncut(w, h int, lay sideLayout) []string {
	out := append(m.sideTop(w, h, lay), m.sideSection(w, m.metricsTitle()))
	out = append(out, m.metricsRows(w)...)
	return append(out, m.trainBox(w, lay)...)
}

// trainBox is the training box with its heading: once a run has
// started its progress (trainLines), before any run the keys to start
// one, save and open, as tightly as lay packs them.
func (m Model) trainBox(w int, lay sideLayout) []string {
	t := m.theme
	heading := m.sideSection(w, "training")
	switch {
	case m.run != nil || len(m.losses) > 0:
		return append([]string{heading}, m.trainLines(w)...)
	case lay >= sideNoTrainHint:
		return nil
	case lay >= sideHintAlone:
		return []string{m.sideSection(w, trainHint)}
	case lay >= sideOneHint:
		return []string{heading, padRight(" "+trainHint, w)}
	}
	return []string{
		heading,
		padRight(fmt.Sprintf(" t train (%s) · m mode", m.mode.value()), w),
		padRight(t.paint(t.label, " esc stops · s saves · o opens"), w),
	}
}
