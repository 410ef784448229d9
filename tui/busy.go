package tui

import (
	"fmt"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Work in progress besides training: the baselines' fits (c), a
// diagnosis (d) and the ablation view's points (A). The status line
// says which of them run, where it said "● idle" for as long as a
// minute (bcpi on advdiff); none of them reports how far it is, so a
// tick every progressEvery moves on the time each has taken.

// progressEvery is how often the elapsed times of work in progress
// move on; zero or less never (the tests: their commands run one after
// another, and a tick would wait for it).
var progressEvery = time.Second

// progressTickMsg moves the elapsed times on to at.
type progressTickMsg struct{ at time.Time }

// syncProgressTick starts the tick when work is in progress and none
// is pending; onProgressTick's Update starts the next while it goes on.
func (m *Model) syncProgressTick() tea.Cmd {
	if progressEvery <= 0 || m.ticking || !m.busy() {
		return nil
	}
	m.ticking = true
	return tea.Tick(progressEvery, func(at time.Time) tea.Msg { return progressTickMsg{at: at} })
}

// onProgressTick takes the tick's time for the elapsed times.
func (m Model) onProgressTick(msg progressTickMsg) (tea.Model, tea.Cmd) {
	m.ticking = false
	m.now = msg.at
	return m, nil
}

// busy reports whether work other than training is in progress.
func (m Model) busy() bool { return m.base.running() || len(m.computing()) > 0 }

// computing names the work in progress other than training and the
// baselines (whose account follows the status: baseStatusForms), each
// with the time it has taken: "diagnostics… 12 s", "ablation 3/8… 40 s".
func (m Model) computing() []string {
	var jobs []string
	if m.diag.open && m.diag.cancel != nil {
		jobs = append(jobs, "diagnostics…"+m.elapsedSince(m.diag.started))
	}
	if n := len(m.abl.points); m.abl.open && m.abl.done < n {
		jobs = append(jobs, fmt.Sprintf("ablation %d/%d…", m.abl.done, n)+m.elapsedSince(m.abl.started))
	}
	return jobs
}

// elapsedSince is " 12 s", the time since start as of the last tick,
// or "" before the first whole second (and in the tests, which never
// tick).
func (m Model) elapsedSince(start time.Time) string {
	d := m.now.Sub(start)
	if start.IsZero() || d < time.Second {
		return ""
	}
	return " " + elapsedText(d)
}

// elapsedText is a wall time so far in whole seconds: "12 s", then
// "1:05" from a minute on.
func elapsedText(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + " s"
	}
	return formatDuration(d.Truncate(time.Second))
}
