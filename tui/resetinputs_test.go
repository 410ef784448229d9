package tui

import (
	"strings"
	"testing"
)

// TestResetPutsInputsBack: after the context, noise, θ and realization
// have moved, 0 puts each back as the explorer opened it, infers again
// and names what moved; pressed again it says they are there already.
func TestResetPutsInputsBack(t *testing.T) {
	m := newTest(t, "spring", 100, 30)
	start := m.ctxSteps["spring"].value()
	m = focusOn(t, m, ctlContext)
	m, _ = press(t, m, "left", "left", "down", "right", "right", "r")
	m.theta[0].set, m.theta[0].value = true, 4
	if m.ctxSteps["spring"].value() == start || m.noise.value() == 0 || m.seed == 1 {
		t.Fatalf("setup: context %v, noise %v, seed %d did not move", m.ctxSteps["spring"].value(), m.noise.value(), m.seed)
	}
	gen := m.gen
	m, _ = press(t, m, "0")
	if got := m.ctxSteps["spring"].value(); got != start {
		t.Errorf("context after 0: %v, want %v", got, start)
	}
	if m.noise.value() != 0 || m.overridden() || m.seed != 1 {
		t.Errorf("after 0: noise %v, θ set %v, seed %d; want 0, false, 1", m.noise.value(), m.overridden(), m.seed)
	}
	if m.gen == gen || m.res == nil {
		t.Errorf("0 did not infer again")
	}
	for _, want := range []string{"back to the start", "context 30", "noise σ 0", "θ the estimate", "seed 1"} {
		if !strings.Contains(m.msg, want) {
			t.Errorf("message %q lacks %q", m.msg, want)
		}
	}
	if m, _ = press(t, m, "0"); !strings.Contains(m.msg, "already") {
		t.Errorf("0 at the start: message %q, want it to say so", m.msg)
	}
}

// TestResetIsInTheHelp: the ? help names the 0 key, the only place a
// key beyond the footer's can be found.
func TestResetIsInTheHelp(t *testing.T) {
	m := newTest(t, "spring", 120, 35)
	help := strings.Join(helpAt(m, 120), "\n")
	if !strings.Contains(help, "reset context, noise, θ, seed") {
		t.Errorf("the help does not name 0:\n%s", help)
	}
}
