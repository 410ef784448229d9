package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tooSmall is the screen below the minimum size: what is wrong, what q
// does there, the only key that acts, and the work going on out of
// sight (backgroundWork). It has no status line, so it says itself what
// the quit warning and a quit waiting for training to stop would:
// unseen, a first q seemed to do nothing, and the q pressed again lost
// the weights it had warned of.
func (m Model) tooSmall() string {
	w, h := max(m.width, 1), max(m.height, 1)
	head := []string{
		"terminal too small",
		fmt.Sprintf("%d×%d, need %d×%d", m.width, m.height, minWidth, minHeight),
	}
	quit := m.tooSmallQuit()
	lines := wrapAllCentred(slices.Concat(head, quit), w)
	if work := m.backgroundWork(); len(work) > 0 && !m.quitting {
		// Nothing else on this screen says that the run started before
		// the resize goes on: without it, the screen read as if the
		// shrink had stopped it, and q as costing nothing. Once quitting,
		// the quit's own line says that training stops. Where it leaves
		// no room, what q does goes first.
		with := wrapAllCentred(slices.Concat(head, []string{"still running: " + strings.Join(work, ", ")}, quit), w)
		if len(with) <= h {
			lines = with
		}
	}
	out := make([]string, h)
	top := max(0, (h-len(lines))/2)
	for i := range out {
		s := ""
		if j := i - top; j >= 0 && j < len(lines) {
			s = m.theme.truncate(lines[j], w)
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
		return []string{m.theme.dots("stopping training before quitting…"), "q again to force"}
	case m.quitting && m.saves.pending() > 0:
		return []string{m.theme.dots("writing the checkpoint before quitting…"), "q again to force"}
	case m.quitArmed != "":
		names, _ := m.unsaved()
		return []string{"unsaved: " + strings.Join(names, ", "), "enlarge it to save them, or q again to quit"}
	}
	return []string{"enlarge it, or q to quit"}
}

// backgroundWork names the long work going on out of sight, briefly:
// training (with its step), the diagnostics (d), the ablation (A), the
// baselines' fits (c) and the sidebar's averages once they take a
// second (averagingLong).
func (m Model) backgroundWork() []string {
	var work []string
	if len(m.runs) > 0 {
		work = append(work, m.trainingBrief())
	}
	if m.diagnosing() {
		work = append(work, "diagnostics")
	}
	if m.ablating() {
		work = append(work, "ablation")
	}
	if m.base.running() {
		work = append(work, "baselines")
	}
	if m.averagingLong() {
		work = append(work, "averages")
	}
	return work
}

// trainingBrief is the state of the training run in a few words:
// "training step 120/1000 (stage 1/2)", or the spread's refit after it.
func (m Model) trainingBrief() string {
	switch {
	case m.run == nil || m.run.stopping:
		return "training (stopping)"
	case m.run.recalibrating:
		return "recalibrating the spread"
	case m.prog == nil:
		return "training (starting)"
	}
	return fmt.Sprintf("training step %d/%d (stage %d/2)", m.prog.Step, m.prog.Steps, m.prog.Stage)
}

// wrapAllCentred is each of msg wrapped by wrapCentred, in turn.
func wrapAllCentred(msg []string, w int) []string {
	var lines []string
	for _, s := range msg {
		lines = append(lines, wrapCentred(s, w)...)
	}
	return lines
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
