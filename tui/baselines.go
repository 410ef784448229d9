package tui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
	"apic/core/bcpi"
	"apic/core/cpinn"
	"apic/core/kohgp"
	"apic/sims"
)

// The baselines (c): the paper's three per-realization methods — KOH-GP,
// BCPI and Correction-PINN — calibrated on the realization on screen,
// each in a command of its own off the UI goroutine. Their corrected
// predictions and δ̂ are drawn over panels 3 and 2 (in the advdiff
// heatmap view, over the ▸ time slice in panel 4: baseSlicePanel), their
// θ̂ and wall time go under the θ readout. A new realization, another system, a
// different context size or noise, or c again cancels the running fits
// and drops their results: a baseline on screen is always one of the
// realization on screen. The status line says when a change dropped
// them, and that c runs them again.

// Interactive budgets: far below the paper's (BCPI 10 starts × 2000
// steps, Correction-PINN 20 members × 3000 steps), so that a fit comes
// back in seconds to a minute rather than minutes.
const (
	baseBCPIStarts   = 3
	baseBCPISteps    = 500
	basePINNMembers  = 4
	basePINNSteps    = 1000
	baseSeed         = 1
	baseBudgetString = "koh-gp default · bcpi 3 starts × 500 MCMC · cpinn 4 members × 1000 steps"
	// baseAgainNote starts the note that c started the fits: the status
	// line's account of them gives it room (see header).
	baseAgainNote = "esc stops them, c clears them"
	// baseAgainNoteTraining is baseAgainNote while a run trains, which
	// esc stops first (cancelKey), and is not stopping already.
	baseAgainNoteTraining = "c again stops and clears them"
	// baseDoneNote replaces it once every fit has ended.
	baseDoneNote = "c again clears them"
	// baseBudgetTitle heads the θ readout's baseline rows (30 cells, the
	// small sidebar's width): "baseline" heads their names' column.
	baseBudgetTitle = "baseline bcpi 3×500 cpinn 4×1k"
)

// baseStyle is how one baseline is drawn: its name (status line, θ
// readout, legends), plot mark and colour.
type baseStyle struct {
	name  string
	mark  string
	color color.Color
}

// baseStyles are the three baselines' styles, in run order. Their names
// are the command line's (apic compare --methods), in every place the
// explorer names them: one method under two names reads as two.
var baseStyles = []baseStyle{
	{name: "koh-gp", mark: "k", color: rgb(0xff, 0xa6, 0x4d)},
	{name: "bcpi", mark: "b", color: rgb(0x4d, 0xe0, 0xd0)},
	{name: "cpinn", mark: "p", color: rgb(0xc8, 0xe0, 0x4d)},
}

// baseKey is what a baseline fit depends on; a change of any of it
// makes the fits on screen stale.
type baseKey struct {
	system  string
	seed    uint64
	context int
	noise   float64
}

// baseRun is one baseline's state.
type baseRun struct {
	name    string // the method's own name, which starts its errors (correction-pinn)
	done    bool
	err     error // refused the system or failed
	pred    *core.Prediction
	elapsed time.Duration
}

// baseState is the baselines' state; active while fits run or show.
type baseState struct {
	active bool
	gen    int // generation of the newest request; older results are dropped
	key    baseKey
	ctx    context.Context
	cancel context.CancelFunc
	runs   []baseRun
	// started is when the fits started, together: the rows of those
	// still running give the time since.
	started time.Time
}

// baseMsg is one finished baseline fit.
type baseMsg struct {
	gen, idx int
	pred     core.Prediction
	err      error
	elapsed  time.Duration
}

// baseKeyNow is the realization on screen's key.
func (m Model) baseKeyNow() baseKey {
	sys := m.sys()
	return baseKey{system: sys.Name(), seed: m.seed, context: int(m.ctxSteps[sys.Name()].value()), noise: m.noise.value()}
}

// newBaselines builds the three baselines for a system, in baseStyles'
// order; a method that refuses the system comes back as nil with its
// error. A variable so that tests can put fast fakes in.
var newBaselines = interactiveBaselines

// interactiveBaselines builds the three baselines with the interactive
// budgets.
func interactiveBaselines(sys sims.System) ([]core.Method, []error) {
	methods := make([]core.Method, len(baseStyles))
	errs := make([]error, len(baseStyles))
	methods[0] = kohgp.New(sys, kohgp.Options{Seed: baseSeed})
	if b, err := bcpi.New(sys, bcpi.Options{Starts: baseBCPIStarts, Steps: baseBCPISteps, Seed: baseSeed}); err != nil {
		errs[1] = err
	} else {
		methods[1] = b
	}
	if c, err := cpinn.New(sys, cpinn.Options{Members: basePINNMembers, Steps: basePINNSteps, Seed: baseSeed}); err != nil {
		errs[2] = err
	} else {
		methods[2] = c
	}
	return methods, errs
}

// baseNames are the methods' names for runs whose method could not be
// built.
var baseNames = []string{kohgp.Name, bcpi.Name, cpinn.Name}

// toggleBaselines starts the baselines, or stops and clears them.
func (m Model) toggleBaselines() (tea.Model, tea.Cmd) {
	if m.base.active {
		m.clearBaselines()
		m.setKeyNote("baselines cleared")
		return m, nil
	}
	return m, m.startBaselines()
}

// clearBaselines cancels any running fit and forgets the results.
func (m *Model) clearBaselines() {
	if m.base.cancel != nil {
		m.base.cancel()
	}
	m.base = baseState{gen: m.base.gen + 1}
}

// errBaseStopped is the end of a fit that esc stopped. It wraps
// context.Canceled: a stop is not a failure (failures skips it).
var errBaseStopped = fmt.Errorf("stopped (esc): %w", context.Canceled)

// stopBaselines (esc) cancels the fits still running, so that their
// work ends, and says which it stopped. Fits that ended stay on screen
// with the stopped ones' rows saying so, and why those that failed
// failed, which onBaseline says once all have ended, that is now: the
// stop cleared a failure with nothing else to show, its reason never
// told, as if the fit had been stopped too. With none to show, the
// baselines are cleared and c runs them again at once.
func (m *Model) stopBaselines() {
	m.base.cancel()
	runs := append([]baseRun(nil), m.base.runs...)
	var stopped, kept []string
	ended := false
	for i := range runs {
		switch r := &runs[i]; {
		case !r.done:
			r.done, r.err, r.elapsed = true, errBaseStopped, time.Since(m.base.started)
			stopped = append(stopped, baseStyles[i].name)
		case r.pred != nil:
			kept = append(kept, baseStyles[i].name)
			ended = true
		default:
			ended = true // failed
		}
	}
	m.base.runs = runs
	if !ended {
		m.clearBaselines()
		m.setKeyNote("baselines stopped: %s · c runs them again", strings.Join(stopped, ", "))
		return
	}
	note := "baselines stopped: " + strings.Join(stopped, ", ")
	if len(kept) > 0 {
		note += " · " + strings.Join(kept, ", ") + " kept"
	}
	if why := m.base.failures(); why != "" {
		// An error, as onBaseline's: a note would go at the next key.
		m.setMsg(msgErr, "%s · %s · %s", note, why, baseDoneNote)
		return
	}
	m.setKeyNote("%s · %s", note, baseDoneNote)
}

// syncBaselines drops the baselines when the realization on screen is
// no longer the one they fit, and says so: the status line would still
// say "esc stops them" with none running. prev is the message
// before the update; one the update set stays, the note after it.
func (m *Model) syncBaselines(prev string) {
	now := m.baseKeyNow()
	if !m.base.active || m.base.key == now {
		return
	}
	verb := "cleared"
	if !m.base.allDone() {
		verb = "stopped"
	}
	note := fmt.Sprintf("baselines %s: %s · c runs them again", verb, m.base.key.change(now))
	m.clearBaselines()
	if m.msg != prev && m.msg != "" {
		note = m.msg + " · " + note
	}
	// A warning, not a note: a note too long for the line is cut, and
	// the end says how to get them back.
	m.setMsg(max(m.msgKind, msgWarn), "%s", note)
}

// change names what differs between the key the baselines fit and now.
func (k baseKey) change(now baseKey) string {
	switch {
	case k.system != now.system:
		return "another system"
	case k.seed != now.seed:
		return "another realization"
	case k.context != now.context:
		return "the context size changed"
	}
	return "the noise changed"
}

// startBaselines starts one command per baseline on the current task.
func (m *Model) startBaselines() tea.Cmd {
	m.clearBaselines()
	sys := m.sys()
	k := m.baseKeyNow()
	task, err := m.split.Task(sys, m.real, m.real.True, k.context, k.noise)
	if err != nil {
		m.setMsg(msgErr, "baselines: %v", err)
		return nil
	}
	ctx, cancel := context.WithCancel(m.opts.Context)
	m.base.active, m.base.key, m.base.ctx, m.base.cancel, m.base.started = true, k, ctx, cancel, time.Now()
	methods, errs := newBaselines(sys)
	m.base.runs = make([]baseRun, len(methods))
	gen := m.base.gen
	var cmds []tea.Cmd
	for i, meth := range methods {
		if meth == nil {
			m.base.runs[i] = baseRun{name: baseNames[i], done: true, err: errs[i]}
			continue
		}
		m.base.runs[i] = baseRun{name: meth.Name()}
		obs, side := task.Context, m.real.Side
		cmds = append(cmds, func() tea.Msg {
			start := time.Now()
			p, err := meth.Calibrate(ctx, obs, side)
			if err == nil && p.Failed != "" {
				err = errors.New(p.Failed)
			}
			return baseMsg{gen: gen, idx: i, pred: p, err: err, elapsed: time.Since(start)}
		})
	}
	// What c does next goes first: the status line's account of the
	// fits leaves the message little room, and the budgets are in the
	// sidebar's title too.
	note := baseAgainNote
	if m.escStopsRun() {
		note = baseAgainNoteTraining
	}
	m.setMsg(msgInfo, "%s · %s", note, baseBudgetString)
	if len(cmds) == 0 { // none could start
		m.base.cancel()
		m.setMsg(msgErr, "%s", m.base.failures())
	}
	return tea.Batch(cmds...)
}

// onBaseline records a fit if it belongs to the newest request.
func (m Model) onBaseline(msg baseMsg) (tea.Model, tea.Cmd) {
	if !m.base.active || msg.gen != m.base.gen || msg.idx < 0 || msg.idx >= len(m.base.runs) {
		return m, nil // stale: another realization, or cleared
	}
	if m.base.runs[msg.idx].done {
		return m, nil // stopped (esc) before it came back
	}
	runs := append([]baseRun(nil), m.base.runs...)
	r := &runs[msg.idx]
	r.done, r.elapsed, r.err = true, msg.elapsed, msg.err
	if msg.err == nil {
		p := msg.pred
		r.pred = &p
	}
	m.base.runs = runs
	if m.base.allDone() {
		m.base.cancel()
		// The sidebar wraps a failure's reason onto a few lines: the status
		// line gives the whole of it.
		if why := m.base.failures(); why != "" {
			m.setMsg(msgErr, "%s", why)
		} else if strings.HasPrefix(m.msg, baseAgainNote) || strings.HasPrefix(m.msg, baseAgainNoteTraining) {
			// Nothing is left to stop.
			m.setKeyNote("%s", baseDoneNote)
		}
	}
	return m, nil
}

// failures is "koh-gp: …; bcpi: …", why each fit that ended in an error
// (not a cancellation) failed, or "". The sidebar already says which
// failed. An error that starts with its method's own name
// ("correction-pinn: …") has it replaced by the explorer's.
func (b baseState) failures() string {
	var parts []string
	for i, r := range b.runs {
		if r.done && r.err != nil && !errors.Is(r.err, context.Canceled) {
			why, _ := strings.CutPrefix(r.err.Error(), r.name+": ")
			parts = append(parts, baseStyles[i].name+": "+why)
		}
	}
	return strings.Join(parts, "; ")
}

// running reports whether fits are shown and one of them still runs.
func (b baseState) running() bool { return b.active && !b.allDone() }

// allDone reports whether every fit has ended.
func (b baseState) allDone() bool {
	for _, r := range b.runs {
		if !r.done {
			return false
		}
	}
	return true
}

// baseStatusForms are the wordings of the status line's account of the
// fits, longest first: in words, with marks ("koh-gp ✓ 0.12 s, bcpi
// ✗"), without the "baselines:" before them, and at the least with
// marks alone ("koh-gp ✓, bcpi ✗, cpinn …"; the sidebar has the times),
// so that the last fit's state is not cut off the line and a note
// beside it has room. A fit still running gives the time it has taken.
// Beside other work's account (a diagnosis's or the ablation's counts,
// a training run's), the fits' names alone do not say what they are:
// there "baselines:" goes before the marks alone (baseNamedLeast), and
// goes only where even that has no room.
func (m Model) baseStatusForms(besideWork bool) []string {
	n := len(m.base.runs)
	long, short, least := make([]string, n), make([]string, n), make([]string, n)
	for i, r := range m.base.runs {
		name := baseStyles[i].name
		switch {
		case !r.done:
			running := m.theme.dots(name + " running…" + m.elapsedSince(m.base.started))
			long[i], short[i], least[i] = running, running, name+" "+m.theme.ellipsis
		case errors.Is(r.err, errBaseStopped):
			long[i], short[i], least[i] = name+" stopped", name+" stopped", name+" stopped"
		case r.err != nil:
			long[i], short[i], least[i] = name+" failed", name+" ✗", name+" ✗"
		default:
			long[i], short[i] = fmt.Sprintf("%s done %s", name, seconds(r.elapsed)), fmt.Sprintf("%s ✓ %s", name, seconds(r.elapsed))
			least[i] = name + " ✓"
		}
	}
	forms := []string{
		baseLabel + strings.Join(long, ", "),
		baseLabel + strings.Join(short, ", "),
	}
	if besideWork {
		forms = append(forms, baseLabel+strings.Join(least, ", "))
	}
	return append(forms, strings.Join(short, ", "), strings.Join(least, ", "))
}

// baseLabel says what the fits' account on the status line is.
const baseLabel = "baselines: "

// baseNamedLeast is the shortest account of the fits that says
// "baselines:": the room the status line keeps for them beside other
// work's account.
func (m Model) baseNamedLeast() string { return m.baseStatusForms(true)[2] }

// seconds is a wall time in short form: two significant digits below
// ten seconds ("0.096 s", "2.2 s"), whole seconds from there ("12 s",
// "125 s", where two digits wrote "1.2e+02 s").
func seconds(d time.Duration) string {
	if d >= 10*time.Second {
		return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
	}
	return sig2(d.Seconds()) + " s"
}

// baseLines are the θ readout's rows for the baselines: θ̂ and wall
// time of each finished fit, or why it has none. Nothing is cut: a row
// too long for the sidebar gives up its wall time (the status line has
// it), the spaces after the symbols and then θ̂'s third digit, and else
// wraps; a failure's reason
// wraps onto up to reasonLines lines, an "…" where it goes on (the
// status line has all of it).
func (m Model) baseLines(w, reasonLines int) []string {
	t := m.theme
	out := []string{padRight(t.paint(t.label, t.truncate(baseBudgetTitle, w)), w)}
	// The methods' θ̂ are compared with each other: all at the same
	// significant digits, three unless a method's row fits only at two.
	digits := 3
	for _, r := range m.base.runs {
		if r.done && r.err == nil {
			syms, th, edge := m.baseTheta(r)
			digits = min(digits, thetaDigits(syms, th, edge, w-baseLabelW))
		}
	}
	anyEdge := false
	for i, r := range m.base.runs {
		label := padRight(baseStyles[i].name, baseLabelW)
		var rows []string
		switch {
		case !r.done:
			rows = []string{label + t.dots("running…") + m.elapsedSince(m.base.started)}
		case errors.Is(r.err, errBaseStopped):
			rows = []string{label + t.paint(t.dim, "stopped (esc)")}
		case r.err != nil:
			// The method's name (the row's label says it) and a
			// "failed:" (the status line says it) would take most of
			// the room.
			why, _ := strings.CutPrefix(r.err.Error(), r.name+": ")
			for j, l := range t.wrapReason("✗ "+why, w-baseLabelW, reasonLines) {
				lead := label
				if j > 0 {
					lead = spaces(baseLabelW + 2) // under the reason, past "✗ "
				}
				rows = append(rows, lead+t.paint(t.err, l))
			}
		default:
			syms, th, edge := m.baseTheta(r)
			anyEdge = anyEdge || slices.Contains(edge, true)
			for j, l := range thetaRows(syms, th, edge, seconds(r.elapsed), w-baseLabelW, digits) {
				lead := label
				if j > 0 {
					lead = spaces(baseLabelW)
				}
				// The wall time is the row's last word.
				if head, ok := strings.CutSuffix(l, " "+seconds(r.elapsed)); ok {
					l = head + " " + t.paint(t.dim, seconds(r.elapsed))
				}
				rows = append(rows, lead+l)
			}
		}
		for _, row := range rows {
			out = append(out, padRight(t.truncate(row, w), w))
		}
	}
	if anyEdge {
		// An estimate on its prior's bound is where the fit stopped, not
		// a value it found (koh-gp's failure on spring in the paper).
		note := t.fitFirst(w, edgeMark+" on its prior's bound: the fit stopped there", edgeMark+" on its prior's bound")
		out = append(out, padRight(t.paint(t.dim, note), w))
	}
	return out
}

// edgeMark follows a baseline's θ̂ that lies on its prior's bound.
const edgeMark = "!"

// baseEdgeHelp is the help's line on edgeMark.
const baseEdgeHelp = "  " + edgeMark + " after a θ̂: on its prior's bound, where the fit stopped"

// atEdge reports whether v lies on the bound of [lo, hi], within a
// thousandth of the range.
func atEdge(v, lo, hi float64) bool {
	tol := 1e-3 * (hi - lo)
	return math.Abs(v-lo) <= tol || math.Abs(v-hi) <= tol
}

// baseLabelW is the room of a baseline row's label ("koh-gp ").
const baseLabelW = 7

// baseTheta is a finished baseline's θ̂ with the parameters' symbols,
// and which values lie on their prior's bound.
func (m Model) baseTheta(r baseRun) (syms []string, th []float64, edge []bool) {
	for j, v := range r.pred.Theta {
		if j < len(m.theta) {
			c := m.theta[j]
			th, syms = append(th, v), append(syms, c.symbol())
			edge = append(edge, atEdge(v, c.lo, c.hi))
		}
	}
	return syms, th, edge
}

// thetaItems are "α .896"-like items of θ̂ at digits significant
// digits (sigFixed: "β .860", not "β .86"), gap after each symbol, and
// edgeMark after a value on its prior's bound (edge may be nil).
func thetaItems(syms []string, th []float64, edge []bool, digits int, gap string) []string {
	out := make([]string, len(th))
	for j, v := range th {
		out[j] = syms[j] + gap + sigFixed(v, digits)
		if j < len(edge) && edge[j] {
			out[j] += edgeMark
		}
	}
	return out
}

// thetaDigits is the significant digits a baseline's θ̂ takes in w
// cells: two where only two fit on one line, else three (on one line,
// or wrapped).
func thetaDigits(syms []string, th []float64, edge []bool, w int) int {
	if ansi.StringWidth(strings.Join(thetaItems(syms, th, edge, 3, ""), " ")) > w &&
		ansi.StringWidth(strings.Join(thetaItems(syms, th, edge, 2, ""), " ")) <= w {
		return 2
	}
	return 3
}

// thetaRows writes a baseline's θ̂ ("α .896 β .860") at digits
// significant digits and its wall time in lines of at most w cells: on
// one line where it fits, else without the time, else without the space
// after each symbol ("α.896"), else wrapped between the parameters.
func thetaRows(syms []string, th []float64, edge []bool, elapsed string, w, digits int) []string {
	spaced := thetaItems(syms, th, edge, digits, " ")
	for _, s := range []string{
		strings.Join(append(spaced, elapsed), " "),
		strings.Join(spaced, " "),
		strings.Join(thetaItems(syms, th, edge, digits, ""), " "),
	} {
		if ansi.StringWidth(s) <= w {
			return []string{s}
		}
	}
	var lines []string
	line := ""
	for _, it := range append(spaced, elapsed) {
		switch {
		case line == "":
			line = it
		case ansi.StringWidth(line+" "+it) <= w:
			line += " " + it
		default:
			lines, line = append(lines, line), it
		}
	}
	return append(lines, line)
}

// wrapReason breaks a failure's reason at spaces into at most n lines,
// the first of w cells and the others of w−2 (indented under the text
// after "✗ "); where the reason goes on, the last line ends in "…".
func (t theme) wrapReason(why string, w, n int) []string {
	head, rest := cutAtSpace(why, w)
	lines := []string{head}
	for rest != "" && len(lines) < n {
		head, rest = cutAtSpace(rest, w-2)
		lines = append(lines, head)
	}
	if rest != "" {
		room := w - ansi.StringWidth(t.ellipsis)
		if len(lines) > 1 {
			room -= 2
		}
		last := lines[len(lines)-1]
		if ansi.StringWidth(last) > room {
			last, _ = cutAtSpace(last, room)
		}
		lines[len(lines)-1] = last + t.ellipsis
	}
	return lines
}

// baseOverlay returns the finished baselines' curves of vals (their
// Mean or DeltaMean) along the axis, and their legend items.
func (m Model) baseOverlay(a axis1D, vals func(p *core.Prediction) []float64) ([]series, []legendItem) {
	var ss []series
	var legend []legendItem
	for i, r := range m.base.runs {
		if r.pred == nil {
			continue
		}
		st := baseStyles[i]
		v := vals(r.pred)
		if len(v) < (a.offset+a.n)*a.channels {
			continue // not a prediction on this grid
		}
		for c := 0; c < a.channels; c++ {
			ss = append(ss, series{values: a.channel(v, c), mark: st.mark, color: st.color, overlay: true, curve: st.name})
		}
		legend = append(legend, legendItem{mark: st.mark, name: st.name, color: st.color, curve: st.name})
	}
	return ss, legend
}
