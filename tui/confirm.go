package tui

import (
	"fmt"
	"strings"
)

// Showing another system or backbone stops the work that belongs to the
// one on screen: its training run, and on another system the
// baselines' fits; opening a checkpoint stops the run too, and the
// baselines when the file is of another system. As q does
// before quitting, the key that would stop it asks first; the same key
// again goes ahead (esc stops a run without leaving).

// switchArm is a switch (or an open) that warned: the key that asked,
// the system index and backbone it would show, and the work it named as
// stopping. The warning is a key note (setKeyMsg), and the arm goes
// with it.
type switchArm struct {
	key string
	// open: the key opens a checkpoint, whose system and backbone are
	// not known until it is read; sysIdx and backbone are unset.
	open     bool
	sysIdx   int
	backbone string
	stops    string
}

// runStops names the run that showing another model stops, "" when
// none trains (one already stopping is on its way out).
func (m Model) runStops() string {
	if m.run == nil || m.run.stopping {
		return ""
	}
	return "training " + m.run.key.system + "/" + m.run.key.backbone
}

// armStops names the work that a's key, pressed again, would stop now,
// "" when none: a run that trains, and the baselines' fits still
// running, which are of the system on screen (an open's file is not
// read yet: they stop if it is of another system).
func (m Model) armStops(a switchArm) string {
	otherSys := a.open || a.sysIdx != m.sysIdx
	if !otherSys && a.backbone == m.backbone.value() {
		return ""
	}
	var what []string
	if run := m.runStops(); run != "" {
		what = append(what, run)
	}
	switch {
	case !otherSys || !m.base.active || m.base.allDone():
	case a.open:
		what = append(what, "the baselines if it is another system's")
	default:
		what = append(what, "the baselines")
	}
	return strings.Join(what, " and ")
}

// confirmSwitch reports whether the key pressed, asking to show system
// index i (wrapping around) with backbone b, goes ahead (confirm).
func (m *Model) confirmSwitch(pressed string, armed switchArm, i int, b string) bool {
	n := len(m.systems)
	return m.confirm(armed, switchArm{key: pressed, sysIdx: ((i % n) + n) % n, backbone: b})
}

// confirmOpen reports whether the key pressed, asking for a checkpoint
// to open, goes ahead (confirm): opening one stops the run that trains,
// and the baselines if it is of another system.
func (m *Model) confirmOpen(pressed string, armed switchArm) bool {
	return m.confirm(armed, switchArm{key: pressed, open: true})
}

// confirm reports whether the key of a goes ahead: at once when nothing
// would stop, else when it is the key that warned (armed). Else it
// warns, and arms the key.
func (m *Model) confirm(armed, a switchArm) bool {
	a.stops = m.armStops(a)
	if a.stops == "" || armed.key == a.key {
		return true
	}
	m.warnSwitch(a)
	return false
}

// warnSwitch puts a's warning on the status line and arms its key.
func (m *Model) warnSwitch(a switchArm) {
	m.setKeyMsg(msgWarn, "%s", m.switchWarning(a))
	m.switchArmed = a
}

// switchWarning is what a's key, pressed again, does and stops.
func (m Model) switchWarning(a switchArm) string {
	if a.open {
		// The run stops once a file opens: esc at the prompt, or a file
		// that cannot be read, leaves it training.
		return fmt.Sprintf("%s again opens a checkpoint, which stops %s", m.keyText(keyName(a.key)), a.stops)
	}
	return fmt.Sprintf("%s again stops %s and shows %s/%s", m.keyText(keyName(a.key)), a.stops, m.systems[a.sysIdx].Name(), a.backbone)
}

// syncSwitchWarning keeps a switch's warning, while it is on the
// status line, true of the work that ends meanwhile: the baselines'
// last fit (a run's end says so itself) leaves it naming work that is
// no longer there to stop. It then names what is left, or goes.
func (m *Model) syncSwitchWarning() {
	a := m.switchArmed
	if a.key == "" {
		return
	}
	switch what := m.armStops(a); what {
	case a.stops:
	case "":
		m.setMsg(msgInfo, "")
	default:
		a.stops = what
		m.warnSwitch(a)
	}
}

// confirmAdjust is confirmSwitch for ←/→ by d on the focused control,
// which asks only on the system and backbone rows.
func (m *Model) confirmAdjust(pressed string, armed switchArm, d int) bool {
	switch m.controls()[m.focus] {
	case ctlSystem:
		return m.confirmSwitch(pressed, armed, m.sysIdx+d, m.backbone.value())
	case ctlBackbone:
		return m.confirmSwitch(pressed, armed, m.sysIdx, m.backbone.step(d).value())
	}
	return true
}

// keyName is a key as the status line names it: arrows as arrows.
func keyName(k string) string {
	switch k {
	case "left":
		return "←"
	case "right":
		return "→"
	}
	return k
}
