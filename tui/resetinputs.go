package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// resetInputs (0) puts the inputs of inference back where the explorer
// opened them: the system's context size, noise σ 0, θ to the estimate,
// the realization of --seed and, on advdiff, the middle time slice. A
// demonstration that shrinks the context to a point and turns the
// noise up needed a dozen ←/→ presses to come back; the message names
// what moved. The model (atlas, trained or opened weights) stays: u
// undoes those, as the message says.
func (m *Model) resetInputs() tea.Cmd {
	sys := m.sys()
	var moved []string
	ctx := m.ctxSteps[sys.Name()]
	if start := float64(sys.TestContext()); ctx.value() != start {
		m.ctxSteps[sys.Name()] = ctx.at(start)
		moved = append(moved, fmt.Sprintf("context %d", sys.TestContext()))
	}
	if m.noise.value() != 0 {
		m.noise = m.noise.at(0)
		moved = append(moved, "noise σ 0")
	}
	if m.overridden() {
		for i := range m.theta {
			m.theta[i].set = false
		}
		moved = append(moved, "θ the estimate")
	}
	if m.is2D() {
		if mid := sys.Grid().Shape[0] / 2; m.slice != mid {
			m.slice = mid
			m.slices[sys.Name()] = mid
			g := sys.Grid()
			moved = append(moved, "time slice "+sliceTime(g.States[mid*g.Shape[1]][0]))
		}
	}
	if m.seed != m.opts.Seed {
		m.seed = m.opts.Seed
		m.real, m.split = drawRealization(sys, m.seed)
		moved = append(moved, fmt.Sprintf("seed %d", m.seed))
	}
	undo := ""
	if m.entry().undoable() {
		undo = " (u undoes the model)"
	}
	if len(moved) == 0 {
		m.setKeyNote("inputs as at the start already: context %d, noise σ 0, θ the estimate, seed %d%s", sys.TestContext(), m.seed, undo)
		return nil
	}
	m.noteRange()
	m.setKeyNote("back to the start: %s%s", strings.Join(moved, ", "), undo)
	return m.reinfer()
}
