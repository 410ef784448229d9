package tui

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Work in progress besides training: the baselines' fits (c), a
// diagnosis (d), the ablation view's points (A) and the sidebar's
// averages. The status line says which of them run, where it said
// "● idle" for as long as a minute (bcpi on advdiff), and a tick every
// progressEvery moves on the time each has taken. A diagnosis, an
// ablation point and the averages also say how many of their
// realizations are done (workProgress); the fits report nothing of the
// kind.

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

// busy reports whether work other than training is in progress: the
// sidebar's averages too, which computing names only after a second.
func (m Model) busy() bool {
	return m.base.running() || m.avg.work != nil || len(m.computing(0)) > 0
}

// computing names the work in progress other than training and the
// baselines (whose account follows the status: baseStatusForms), each
// with how far it is and the time it has taken, in one of three forms,
// the longest first: "diagnostics 25/32 realizations… 12 s",
// "ablation 3/8 points, 121/256 realizations… 40 s"; the counts without
// their words, "diagnostics 25/32… 12 s", "ablation 3/8, 121/256…
// 40 s"; the ablation's points alone, "ablation 3/8… 40 s". The
// ablation counts the realizations of the whole curve: those of the
// point computing alone would read as the next point's.
func (m Model) computing(form int) []string {
	points, unit := " points", " realizations"
	if form > 0 {
		points, unit = "", ""
	}
	var jobs []string
	defer func() {
		for i := range jobs {
			jobs[i] = m.theme.dots(jobs[i])
		}
	}()
	if m.diagnosing() {
		p := m.diag.progress
		jobs = append(jobs, fmt.Sprintf("diagnostics %d/%d%s…", p.done, p.total, unit)+m.elapsedSince(m.diag.started))
	}
	if n := len(m.abl.points); m.ablating() {
		p := m.abl.progress
		count := fmt.Sprintf("ablation %d/%d%s, %d/%d%s…", m.abl.done, n, points, m.abl.done*p.total+p.done, n*p.total, unit)
		if form > 1 {
			count = fmt.Sprintf("ablation %d/%d…", m.abl.done, n)
		}
		jobs = append(jobs, count+m.elapsedSince(m.abl.started))
	}
	if m.averagingLong() {
		p := m.avg.progress
		jobs = append(jobs, fmt.Sprintf("averages %d/%d%s…", p.done, p.total, unit)+m.elapsedSince(m.avg.started))
	}
	return jobs
}

// diagnosing reports whether the diagnostics (d) are computing.
func (m Model) diagnosing() bool { return m.diag.open && m.diag.cancel != nil }

// ablating reports whether the ablation view (A) has points computing.
func (m Model) ablating() bool { return m.abl.open && m.abl.done < len(m.abl.points) }

// averagingLong reports whether the sidebar's averages are computing
// and have taken a second: they follow every move of a slider and
// mostly take a fraction of one, so named from their first second on
// they do not flash on the status line at each step.
func (m Model) averagingLong() bool {
	return m.avg.work != nil && m.elapsedSince(m.avg.started) != ""
}

// computingForms is how many forms computing has.
const computingForms = 3

// computingStatus is the status line's account of the work computing
// ("" when none), in the longest of computing's forms that leaves a
// note's first part its room beside it (a note is cut, not wrapped: A's
// on a control it cannot sweep says which curve it shows), and the
// baselines' account the room for its words: beside that, the counts go
// without theirs, and shorten further before the baselines' account
// loses its "baselines:" (baseNamedLeast).
func (m Model) computingStatus() string {
	room := m.width
	if lead, _, _ := strings.Cut(m.msg, " · "); m.msgKind == msgInfo && lead != "" {
		room -= ansi.StringWidth(lead) + 5 // "  │  "
	}
	first := 0
	if m.base.active {
		first = 1
		// The fits' shortest named account after " · ", and the " …" a
		// note cut to its first part ends in: headerCut keeps both.
		room -= ansi.StringWidth(" · "+m.baseNamedLeast()) + 2
	}
	status := ""
	for form := first; form < computingForms; form++ {
		jobs := m.computing(form)
		if len(jobs) == 0 {
			return ""
		}
		if status = "◐ computing " + strings.Join(jobs, ", "); ansi.StringWidth(status) <= room {
			break
		}
	}
	return status
}

// workProgress carries how far a diagnosis or an ablation point is from
// the goroutine that computes it (core's Progress callback) to the UI.
// The callback only stores the count and signals; the UI takes it with
// next, a command that waits for the signal, and asks for the one after
// from Update while the work is still its current one (onWorkProgress).
// A count not yet taken is replaced by the newer one, so the callback
// never blocks the computation and the UI never falls behind it.
type workProgress struct {
	latest atomic.Uint64 // done<<32 | total
	ready  chan struct{} // a count not yet taken; capacity 1
	end    chan struct{} // closed when the computation has returned
}

// newWorkProgress is the progress of a computation about to start.
func newWorkProgress() *workProgress {
	return &workProgress{ready: make(chan struct{}, 1), end: make(chan struct{})}
}

// report is core's Progress callback: done of total realizations.
func (w *workProgress) report(done, total int) {
	w.latest.Store(uint64(done)<<32 | uint64(uint32(total)))
	select {
	case w.ready <- struct{}{}:
	default: // a signal is pending: the UI takes the newest count
	}
}

// finish says the computation has returned: next stops waiting.
func (w *workProgress) finish() { close(w.end) }

// next waits for a count not yet taken; nil once the computation has
// returned (its result message follows, or has come), whether or not a
// count is left.
func (w *workProgress) next() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-w.end:
			return nil
		default:
		}
		select {
		case <-w.ready:
			v := w.latest.Load()
			return workProgressMsg{work: w, count: realizationCount{done: int(v >> 32), total: int(uint32(v))}}
		case <-w.end:
			return nil
		}
	}
}

// realizationCount is how many realizations of a computation are done.
type realizationCount struct{ done, total int }

// workProgressMsg is a computation's newest count.
type workProgressMsg struct {
	work  *workProgress
	count realizationCount
}

// onWorkProgress takes the count of the diagnosis, ablation point or
// averages computing now and waits for its next; a count of a computation
// cancelled, superseded or finished is dropped, and nothing waits for
// its next.
func (m Model) onWorkProgress(msg workProgressMsg) (tea.Model, tea.Cmd) {
	switch {
	case m.diag.work != nil && msg.work == m.diag.work:
		m.diag.progress = msg.count
	case m.abl.work != nil && msg.work == m.abl.work:
		m.abl.progress = msg.count
	case m.avg.work != nil && msg.work == m.avg.work:
		m.avg.progress = msg.count
	default:
		return m, nil
	}
	return m, msg.work.next()
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
