package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
	"apic/core/cli"
)

// The diagnostics view (d): the calibration diagnostics of `apic
// diagnose` over Model.realizations realizations at the current system, model,
// context size and noise, in the panel area. core.Diagnose runs in a
// command off the UI goroutine; when the settings change while the view
// is open the running computation is cancelled and a new one started,
// and a result for settings no longer current is dropped. While a run
// trains the model it diagnoses the weights the run started from (the
// model's entry), and says so; the run's weights, landing in the entry
// at its end, start a new diagnosis.

// The view diagnoses Model.realizations realizations (avgTasks, 32, by
// default: enough for the curves' shape, a coverage share within about
// ±0.09, few enough to come back in seconds).

// diagSeed is the realizations' seed: the view's numbers are those of
// apic diagnose --tasks N --seed diagSeed --samples n.
const diagSeed = 1

// diagKey is what a diagnosis depends on; a change of any of it makes
// the one on screen stale.
type diagKey struct {
	system, backbone string
	model            *core.Model
	context          int
	noise            float64
}

// diagState is the view's state.
type diagState struct {
	open   bool
	gen    int // generation of the newest request; older results are dropped
	key    diagKey
	cancel context.CancelFunc
	res    *core.Diagnostics
	err    error
	// started is when the newest request started (the status line's
	// elapsed time).
	started time.Time
	// work reports the newest request's progress until its result
	// comes; progress is its newest count.
	work     *workProgress
	progress realizationCount
}

// diagMsg is a finished diagnosis.
type diagMsg struct {
	gen int
	d   core.Diagnostics
	err error
}

// diagKeyNow is the current settings' key.
func (m Model) diagKeyNow() diagKey {
	sys := m.sys()
	return diagKey{system: sys.Name(), backbone: m.backbone.value(), model: m.entry().model,
		context: int(m.ctxSteps[sys.Name()].value()), noise: m.noise.value()}
}

// toggleDiag opens the view (starting its computation) or closes it.
func (m Model) toggleDiag() (tea.Model, tea.Cmd) {
	if m.diag.open {
		m.closeDiag()
		return m, nil
	}
	m.diag.open = true
	return m, m.startDiag()
}

// closeDiag closes the view and stops its computation.
func (m *Model) closeDiag() {
	if m.diag.cancel != nil {
		m.diag.cancel()
	}
	m.diag = diagState{gen: m.diag.gen}
}

// syncDiag restarts the computation when the view is open and the
// settings moved away from those of its result or running request.
func (m *Model) syncDiag() tea.Cmd {
	if !m.diag.open || m.diag.key == m.diagKeyNow() {
		return nil
	}
	return m.startDiag()
}

// startDiag cancels any running diagnosis and starts one for the current
// settings.
func (m *Model) startDiag() tea.Cmd {
	if m.diag.cancel != nil {
		m.diag.cancel()
	}
	ctx, cancel := context.WithCancel(m.opts.Context)
	m.diag.gen++
	m.diag.key, m.diag.cancel, m.diag.started = m.diagKeyNow(), cancel, time.Now()
	m.diag.res, m.diag.err = nil, nil
	work := newWorkProgress()
	m.diag.work, m.diag.progress = work, realizationCount{total: m.realizations()}
	gen, model := m.diag.gen, m.diag.key.model
	opt := core.DiagnoseOptions{Tasks: m.realizations(), Context: m.diag.key.context, Noise: m.diag.key.noise,
		Seed: diagSeed, Samples: samplesFor(m.sys()), Refine: -1, Progress: work.report}
	// The diagnosis first: run one after another (the tests), the
	// progress's wait then finds it returned.
	return tea.Batch(func() tea.Msg {
		defer work.finish()
		d, err := core.Diagnose(ctx, model, opt)
		return diagMsg{gen: gen, d: d, err: err}
	}, work.next())
}

// onDiag shows a diagnosis if it is the newest request's.
func (m Model) onDiag(msg diagMsg) (tea.Model, tea.Cmd) {
	if !m.diag.open || msg.gen != m.diag.gen {
		return m, nil // stale: the settings moved, or the view closed
	}
	m.diag.cancel, m.diag.work = nil, nil
	if msg.err != nil {
		m.diag.err = msg.err
		return m, nil
	}
	d := msg.d
	m.diag.res = &d
	return m, nil
}

// diagView draws the view in the panel area (w × h). Like the plots and
// the ablation view it leaves the area's last column blank, a gap
// beside the sidebar's border: the text takes w-1 columns.
func (m Model) diagView(w, h int) []string {
	t := m.theme
	textW := w - 1
	lines := m.diagHeader(textW)
	switch {
	case m.diag.err != nil:
		lines = append(lines, "")
		for _, l := range wrapLines("diagnostics failed: "+m.diag.err.Error(), textW) {
			lines = append(lines, t.paint(t.err, l))
		}
	case m.diag.res == nil:
		p := m.diag.progress
		lines = append(lines, "", m.theme.dots(fmt.Sprintf("computing %d/%d realizations…", p.done, p.total))+m.elapsedSince(m.diag.started))
	default:
		if note := priorWideNote(*m.diag.res); note != "" {
			for _, l := range wrapLines(note, textW) {
				lines = append(lines, t.paint(t.warn, l))
			}
		}
		body := diagBody(*m.diag.res, textW, h-len(lines))
		if len(lines)+len(body) > h && len(lines) > 1 {
			// Short of room the hint line gives way to the body: its
			// context and σ are the sidebar's rows, and the footer
			// offers d to close the view. lv's four parameters need
			// every row of 80×22.
			lines = slices.Delete(lines, 1, 2)
			body = diagBody(*m.diag.res, textW, h-len(lines))
		}
		lines = append(lines, body...)
	}
	return block(t.cutMarked(lines, textW, h, diagMore), w, h)
}

// priorWideNote says which parameters had nearly their prior's
// deviation in how many realizations ("" when none did), as apic
// diagnose warns: such an interval covers θ from almost any estimate,
// so the verdict's coverage and a "calibrated" counting them say
// little, and θ̂ ± σ in the sidebar then means "anywhere in the prior".
func priorWideNote(d core.Diagnostics) string {
	var parts []string
	for _, th := range d.Theta {
		if n := th.PriorWide(); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", cmp.Or(th.Symbol, th.Name), n, len(th.Std)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "σ ≈ the prior's own in " + strings.Join(parts, ", ") + ": those intervals cover θ from almost any θ̂"
}

// diagMore is the line that ends a diagnosis cut for room: the whole
// one is in a taller terminal, or apic diagnose (the ? help has the
// command line).
func diagMore(n int) []string {
	more := "… " + core.Count(n, "more line")
	return []string{more + ": a taller terminal, or apic diagnose (? help)", more + ": taller terminal"}
}

// diagBody is the diagnosis in w columns and, where it can, room lines.
// Below 80 columns it is cli.DiagnosticsPanel, whose table takes the 47
// the view has at 80 columns; from 80 on it is the command line's
// layout with the most that fits: the scatter plots with the curves, the curves, the bands'
// curves alone (on a system with two or more parameters, advdiff and
// lv, the two plots need more than a 44-line terminal leaves), or
// neither. Fitting counts the lines as drawn, wrapped.
func diagBody(d core.Diagnostics, w, room int) []string {
	d = cli.DiagnosticsSymbols(d) // "θ ω", as the sidebar names ω
	if w < 80 {
		return wrapLines(cli.DiagnosticsPanel(d), w)
	}
	for _, detail := range []cli.DiagnosticsDetail{cli.DiagnosticsFull, cli.DiagnosticsCurves, cli.DiagnosticsBands} {
		if body := wrapLines(cli.DiagnosticsText(d, w, detail, false), w); len(body) <= room {
			return body
		}
	}
	return wrapLines(cli.DiagnosticsText(d, w, cli.DiagnosticsCompact, false), w)
}

// diagHeader is the view's title and hint lines at width w. The title
// gives the sample count with the realizations: the numbers depend on
// it, and it is the system's interactive one (8 for lv, 16 else), not
// the 32 that apic diagnose takes by default. It is the count the
// result reports drawn, so it appears with the result: a cnp draws one
// sample whatever was asked. Where the title does not
// fit a line, context and σ start the hint line, whose hint shortens.
// While the model on screen trains, a third line says which weights the
// numbers are of.
func (m Model) diagHeader(w int) []string {
	t := m.theme
	k := m.diag.key
	title := fmt.Sprintf("diagnostics: %d realizations", m.realizations())
	if d := m.diag.res; d != nil {
		title += fmt.Sprintf(", %s each", core.Count(d.Samples, "sample"))
	}
	where := fmt.Sprintf("context %d, σ %s", k.context, formatG(k.noise, -1))
	hint := "d/esc closes · context/noise recompute"
	if full := title + ", " + where; ansi.StringWidth(full) <= w {
		title = full
	} else if hint = where + " · " + hint; ansi.StringWidth(hint) > w {
		hint = where + " · d/esc closes"
	}
	lines := []string{t.paint(t.bold, t.truncate(title, w)), t.paint(t.dim, t.truncate(hint, w))}
	if m.run != nil {
		// The panels and the sidebar follow the run's weights step by
		// step; the diagnosis is of the model's entry, the weights the
		// run started from, until the run's weights land in it at its
		// end and change the key (syncDiag).
		note := "diagnosing the weights before this run; recomputed when it ends"
		if ansi.StringWidth(note) > w {
			note = "weights before this run; recomputed at its end"
		}
		lines = append(lines, t.paint(t.warn, t.truncate(note, w)))
	}
	return lines
}

// wrapLines splits text into its lines and breaks each one wider than
// w at spaces, the continuation indented one past the line's own
// indent, so that it reads as part of it. The explanations of `apic
// diagnose` are written for a terminal's full width and would
// otherwise be cut at the sidebar, losing their ends (the flag to
// pass); its plots and tables are drawn to w and stay whole.
func wrapLines(text string, w int) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if ansi.StringWidth(line) <= w || w < 2 {
			out = append(out, line)
			continue
		}
		hang := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))+1)
		if len(hang) > w/2 {
			hang = ""
		}
		head, rest := cutAtSpace(line, w)
		pieces := []string{head}
		for rest != "" {
			head, rest = cutAtSpace(rest, w-len(hang))
			pieces = append(pieces, hang+head)
		}
		out = append(out, keepLastWordCompany(pieces, hang, w)...)
	}
	return out
}

// keepLastWordCompany breaks the next-to-last of a wrapped line's
// pieces earlier where the last holds a single word, so that the word
// does not stand alone: the explorer's d verdict at 80 columns ended
// "β biased, θ̂ below" with " θ" on a line of its own. It breaks after
// a clause's "; " where that leaves the line above at least half full
// ("α η γ calibrated;" then " β biased, θ̂ below θ"), else before the
// line's last word that fits; never beside a relation sign (cutAtSpace).
func keepLastWordCompany(pieces []string, hang string, w int) []string {
	n := len(pieces)
	word := strings.TrimLeft(pieces[n-1], " ")
	if n < 2 || word == "" || strings.Contains(word, " ") {
		return pieces
	}
	prev := pieces[n-2]
	start := len(prev) - len(strings.TrimLeft(prev, " "))
	cut, clause := -1, -1
	for i, r := range prev[start:] {
		j := start + i
		if r != ' ' || besideRelation(prev, j) || strings.TrimSpace(prev[:j]) == "" {
			continue
		}
		if len(hang)+ansi.StringWidth(strings.TrimLeft(prev[j:], " ")+" "+word) > w {
			continue
		}
		cut = j
		if head := strings.TrimRight(prev[:j], " "); strings.HasSuffix(head, ";") && 2*ansi.StringWidth(head) >= w {
			clause = j
		}
	}
	if clause >= 0 {
		cut = clause
	}
	if cut < 0 {
		return pieces
	}
	out := slices.Clone(pieces)
	out[n-2] = strings.TrimRight(prev[:cut], " ")
	out[n-1] = hang + strings.TrimLeft(prev[cut:], " ") + " " + word
	return out
}
