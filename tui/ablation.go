package tui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/checkpoints"
	"apic/core"
)

// The ablation view (A): for the selected control, each metric's mean
// and 95% interval over Model.realizations seeded realizations across the
// control's values, the current value marked. Context and noise
// evaluate the model on screen at each value of their ladder; λθ, λδ
// and the regulariser evaluate each atlas model of that axis at the
// current context and noise. The points are computed one command after
// another off the UI goroutine, so the curve fills in as they come; a
// change of what it depends on (or closing the view) cancels the
// computation, and results of an older request are dropped.

// ablControls are the controls with an ablation curve.
var ablControls = []control{ctlContext, ctlNoise, ctlLamTheta, ctlLamDelta, ctlReg}

// ablMetrics are the metrics the view draws, in its 2×2 order.
var ablMetrics = [][2]string{
	{"recon MAE", core.KeyReconMAE}, {"δ MAE", core.KeyDeltaMAE},
	{"θ MAE", core.KeyThetaMAE}, {"recon ECE", core.KeyReconECE},
}

// ablKey is what a curve depends on; the swept setting itself is left
// out (-1), as are the model and λ settings on an atlas axis.
type ablKey struct {
	ctl              control
	system, backbone string
	model            *core.Model
	context          int
	noise            float64
}

// ablPoint is one value of the axis and its result.
type ablPoint struct {
	label   string
	context int
	noise   float64
	cell    *AtlasCell // on an atlas axis
	res     *core.Intervals
	err     error
}

// ablState is the view's state.
type ablState struct {
	open   bool
	key    ablKey
	points []ablPoint
	done   int // points computed (in order)
	gen    int
	// ctx is the computation's, cancelled by cancel: every point of one
	// request runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	why    string // why there is no curve
	// started is when the curve's computation started (the status
	// line's elapsed time).
	started time.Time
	// note is the status note A set on a control without a curve; it
	// goes with the curve it explains (dropNote).
	note string
	// work reports the progress of the point computing until its
	// result comes; progress is its newest count.
	work     *workProgress
	progress realizationCount
}

// ablMsg is one computed point.
type ablMsg struct {
	gen, i int
	res    core.Intervals
	err    error
}

// ablControl is the control the view follows: the focused one when it
// has a curve, else the one it showed.
func (m Model) ablControl() control {
	if id := m.controls()[m.focus]; slices.Contains(ablControls, id) {
		return id
	}
	if m.abl.key.ctl != ctlSystem { // ctlSystem, the zero value: none shown yet
		return m.abl.key.ctl
	}
	return ctlContext
}

// ablKeyNow is the current settings' key.
func (m Model) ablKeyNow() ablKey {
	k := ablKey{ctl: m.ablControl(), system: m.sys().Name(), backbone: m.backbone.value(),
		model: m.entry().model, context: int(m.ctxSteps[m.sys().Name()].value()), noise: m.noise.value()}
	switch k.ctl {
	case ctlContext:
		k.context = -1
	case ctlNoise:
		k.noise = -1
	default:
		k.model = nil
	}
	return k
}

// toggleAblation opens the view (closing the diagnostics) or closes it.
func (m Model) toggleAblation() (tea.Model, tea.Cmd) {
	if m.abl.open {
		m.closeAblation()
		return m, nil
	}
	m.closeDiag()
	m.abl.open = true
	if id := m.controls()[m.focus]; !slices.Contains(ablControls, id) {
		// The view opens on another control's curve, which its title
		// names; the note says why, so the key does not seem to have
		// ignored the selection.
		m.setMsg(msgInfo, "%s", m.ablFallbackNote(id))
		m.abl.note = m.msg
	}
	return m, m.startAblation()
}

// ablFallbackNote says which curve the view shows while control id,
// which it cannot sweep, is selected, and which it can: what it shows
// first, since the status line may cut the rest.
func (m Model) ablFallbackNote(id control) string {
	return fmt.Sprintf("A shows %s: %s cannot be swept", ablAxisLabel(m.ablControl()), m.controlName(id))
}

// syncAblNote keeps A's note in step with the selected control while
// the view is open: a control it sweeps needs none (the chart is its
// own), and one it does not is named, whichever way the selection got
// there; a note naming a control no longer selected would mislead. An
// error or a warning on the line stays: the note only replaces notes.
func (m *Model) syncAblNote() {
	if !m.abl.open {
		return
	}
	id := m.controls()[m.focus]
	if slices.Contains(ablControls, id) {
		m.dropNote()
		return
	}
	note := m.ablFallbackNote(id)
	if note != m.abl.note && m.msgKind == msgInfo {
		m.setMsg(msgInfo, "%s", note)
		m.abl.note = note
	}
}

// dropNote clears the status note A set, if it is still the one shown:
// once the view closes or follows another control it would mislead.
func (m *Model) dropNote() {
	if m.abl.note != "" && m.msg == m.abl.note {
		m.setMsg(msgInfo, "")
	}
	m.abl.note = ""
}

// ablAxesText lists the controls with a curve: "context, noise σ, λθ,
// λδ or regulariser".
func ablAxesText() string {
	names := make([]string, len(ablControls))
	for i, id := range ablControls {
		names[i] = ablAxisLabel(id)
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// controlName names a control without a curve as a note speaks of it.
func (m Model) controlName(id control) string {
	switch id {
	case ctlSystem:
		return "the system"
	case ctlBackbone:
		return "the backbone"
	case ctlMode:
		return m.mode.label
	case ctlSlice:
		return "the time slice"
	}
	return "θ"
}

// closeAblation closes the view and stops its computation.
func (m *Model) closeAblation() {
	if m.abl.cancel != nil {
		m.abl.cancel()
	}
	m.dropNote()
	m.abl = ablState{gen: m.abl.gen}
}

// syncAblation restarts the curve when the view is open and what it
// depends on changed.
func (m *Model) syncAblation() tea.Cmd {
	if !m.abl.open || m.abl.key == m.ablKeyNow() {
		return nil
	}
	return m.startAblation()
}

// startAblation cancels any running computation and starts the curve
// of the current settings from its first point.
func (m *Model) startAblation() tea.Cmd {
	if m.abl.cancel != nil {
		m.abl.cancel()
	}
	ctx, cancel := context.WithCancel(m.opts.Context)
	m.abl.gen++
	m.abl.key, m.abl.ctx, m.abl.cancel, m.abl.done, m.abl.why = m.ablKeyNow(), ctx, cancel, 0, ""
	m.abl.points, m.abl.started = m.ablPoints(), time.Now()
	if len(m.abl.points) == 0 {
		cancel()
		m.abl.cancel = nil
		// t trains one model, at the value the control shows; a curve
		// of them is a sweep's work.
		m.abl.why = fmt.Sprintf("the atlas has no %s models of %s/%s: t trains one at the value set; apic sweep --vary %s=… trains one per value",
			m.ablLabel(), m.sys().Name(), m.backbone.value(), controlAxis(m.abl.key.ctl))
		return nil
	}
	return m.ablPointCmd(ctx, 0)
}

// ablLabel names the view's control.
func (m Model) ablLabel() string { return ablAxisLabel(m.abl.key.ctl) }

// ablAxisLabel names a control of ablControls.
func ablAxisLabel(id control) string {
	switch id {
	case ctlContext:
		return "context"
	case ctlNoise:
		return "noise σ"
	case ctlLamTheta:
		return "λθ"
	case ctlLamDelta:
		return "λδ"
	}
	return "regulariser"
}

// ablPoints are the values of the view's axis.
func (m Model) ablPoints() []ablPoint {
	k := m.abl.key
	ctxNow, noiseNow := int(m.ctxSteps[k.system].value()), m.noise.value()
	var out []ablPoint
	switch k.ctl {
	case ctlContext:
		for _, v := range m.ctxSteps[k.system].values {
			out = append(out, ablPoint{label: strconv.Itoa(int(v)), context: int(v), noise: noiseNow})
		}
	case ctlNoise:
		for _, v := range m.noise.values {
			out = append(out, ablPoint{label: compact(formatLadder(v)), context: ctxNow, noise: v})
		}
	default:
		for _, c := range atlasAxis(m.atlas, k.system, k.backbone, k.ctl) {
			c := c
			out = append(out, ablPoint{label: shortLabel(c.axisValue(k.ctl)), context: ctxNow, noise: noiseNow, cell: &c})
		}
	}
	return out
}

// ablPointCmd evaluates point i, m's work reporting its progress.
func (m *Model) ablPointCmd(ctx context.Context, i int) tea.Cmd {
	p, gen, model, cache := m.abl.points[i], m.abl.gen, m.abl.key.model, m.atlasModels
	work := newWorkProgress()
	m.abl.work, m.abl.progress = work, realizationCount{total: m.realizations()}
	opt := m.evalOptions(m.realizations(), p.context, p.noise)
	opt.Progress = work.report
	// The point first: run one after another (the tests), the
	// progress's wait then finds it returned.
	return tea.Batch(func() tea.Msg {
		defer work.finish()
		if p.cell != nil {
			var err error
			if model, _, err = cache.load(*p.cell); err != nil {
				return ablMsg{gen: gen, i: i, err: err}
			}
		}
		res, err := core.EvaluateIntervals(ctx, model, opt)
		return ablMsg{gen: gen, i: i, res: res, err: err}
	}, work.next())
}

// onAblation takes a computed point and starts the next one.
func (m Model) onAblation(msg ablMsg) (tea.Model, tea.Cmd) {
	if !m.abl.open || msg.gen != m.abl.gen {
		return m, nil // stale: the settings moved, or the view closed
	}
	m.abl.points = slices.Clone(m.abl.points) // earlier copies of the model keep theirs
	p := &m.abl.points[msg.i]
	if msg.err != nil {
		p.err = msg.err
	} else {
		r := msg.res
		p.res = &r
	}
	m.abl.done = msg.i + 1
	if m.abl.done < len(m.abl.points) {
		return m, m.ablPointCmd(m.abl.ctx, m.abl.done)
	}
	m.abl.cancel() // releases the finished computation's context
	m.abl.cancel, m.abl.work = nil, nil
	return m, nil
}

// atlasAxis are the atlas cells of system and backbone along control
// id's axis: the cells of that axis and any other cell trained at the
// same other two settings with a value the axis lacks (advdiff's λδ = 1
// is its λθ axis's value 1), ordered by value.
func atlasAxis(cells []AtlasCell, system, backbone string, id control) []AtlasCell {
	var out []AtlasCell
	var fixed *settings
	for _, c := range cells {
		if c.System == system && c.Backbone == backbone && axisControl[c.Axis] == id {
			out = append(out, c)
			s := trainSettings(c.Train)
			fixed = &s
		}
	}
	if fixed == nil {
		return nil
	}
	for _, c := range cells {
		s := trainSettings(c.Train)
		if c.System != system || c.Backbone != backbone || !sameOthers(s, *fixed, id) {
			continue
		}
		if !slices.ContainsFunc(out, func(o AtlasCell) bool { return trainSettings(o.Train).of(id) == s.of(id) }) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b AtlasCell) int {
		return compareSetting(trainSettings(a.Train).of(id), trainSettings(b.Train).of(id))
	})
	return out
}

// sameOthers reports whether a and b agree on the two settings other
// than id.
func sameOthers(a, b settings, id control) bool {
	for _, o := range []control{ctlLamTheta, ctlLamDelta, ctlReg} {
		if o != id && a.of(o) != b.of(o) {
			return false
		}
	}
	return true
}

// compareSetting orders λ values numerically and regularisers as
// core.Regularizers lists them.
func compareSetting(a, b any) int {
	if x, ok := a.(float64); ok {
		y, _ := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	ra, _ := a.(string)
	rb, _ := b.(string)
	return slices.Index(core.Regularizers, core.Regularizer(ra)) - slices.Index(core.Regularizers, core.Regularizer(rb))
}

// shortLabel is an atlas value as the view names it: numbers without a
// leading zero, regularisers by the names apic train --reg takes
// ("orthogonal", not "orth"), which the legend then lists. The charts
// cut a name that does not fit under its point themselves (fitLabels).
func shortLabel(v string) string {
	if isNumber(v) {
		return compact(v)
	}
	return v
}

// axisValue is the cell's value of control id's setting, as a label.
func (c AtlasCell) axisValue(id control) string {
	switch v := trainSettings(c.Train).of(id).(type) {
	case float64:
		return formatLadder(v)
	case string:
		return v
	}
	return c.Value
}

// ablCurrent is the index of the point at the current setting, -1 when
// the setting is none of the axis's values.
func (m Model) ablCurrent() int {
	now := m.trainControls()
	for i, p := range m.abl.points {
		switch {
		case m.abl.key.ctl == ctlContext && p.context == int(m.ctxSteps[m.abl.key.system].value()):
			return i
		case m.abl.key.ctl == ctlNoise && p.noise == m.noise.value():
			return i
		case p.cell != nil && trainSettings(p.cell.Train).of(m.abl.key.ctl) == now.of(m.abl.key.ctl):
			return i
		}
	}
	return -1
}

// ablCurrentOther reports whether the current value's point is of
// another model than the one on screen: on an atlas axis, the atlas
// model at the current value while the embedded checkpoint, weights
// trained here or an opened file are shown (the embedded λθ = 1 model
// is not the atlas's λθ = 1 cell, and their averages differ).
func (m Model) ablCurrentOther() bool {
	i := m.ablCurrent()
	if i < 0 || m.abl.points[i].cell == nil {
		return false
	}
	e := m.entry()
	return e.src != srcAtlas || e.cell.File() != m.abl.points[i].cell.File()
}

// ablIntervals are metric k's intervals at every point, NaN where not
// computed (or failed).
func (m Model) ablIntervals(k string) []core.Interval {
	out := make([]core.Interval, len(m.abl.points))
	for i, p := range m.abl.points {
		out[i] = core.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		if p.res != nil {
			out[i] = p.res.Metrics[k]
		}
	}
	return out
}

// atlasNote says where an atlas axis's models come from.
func (m Model) atlasNote() string {
	if m.abl.key.ctl == ctlContext || m.abl.key.ctl == ctlNoise {
		if m.run != nil {
			// As the diagnostics: the curve is of the model's entry, the
			// weights the run started from, while the panels follow the
			// run's; its end changes the key (syncAblation).
			return "weights before this run (redone at its end)"
		}
		return "the model on screen"
	}
	note := "atlas models"
	if len(m.abl.points) > 0 && m.abl.points[0].cell != nil {
		c := m.abl.points[0].cell
		if c.Axis == checkpoints.AxisReg {
			return fmt.Sprintf("atlas models at λθ %s, λδ %s", formatLadder(c.Train.LambdaTheta), formatLadder(c.Train.LambdaDelta))
		}
		note = fmt.Sprintf("atlas models, %s", otherSettings(*c, m.abl.key.ctl))
	}
	return note
}

// otherSettings names the two settings an atlas axis holds fixed.
func otherSettings(c AtlasCell, id control) string {
	t := c.Train
	switch id {
	case ctlLamTheta:
		return fmt.Sprintf("λδ %s, %s", formatLadder(t.LambdaDelta), t.Reg)
	case ctlLamDelta:
		return fmt.Sprintf("λθ %s, %s", formatLadder(t.LambdaTheta), t.Reg)
	}
	return ""
}

// spinner frames, one per computed point.
var spinner = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// ablView draws the view in the panel area (w × h): a title, a status
// line, and the four metrics' charts in a 2×2 grid.
func (m Model) ablView(w, h int) []string {
	t := m.theme
	k := m.abl.key
	// Shorter wordings where the panel beside the sidebar is narrow (80
	// columns): the title loses its filler words, the settings line the
	// system and backbone, which the header names. Like the charts, the
	// lines leave the last column blank, next to the sidebar's border.
	title := t.fitFirst(w-1,
		fmt.Sprintf("ablation: %s · mean ± 95%% over %d realizations", m.ablLabel(), m.realizations()),
		fmt.Sprintf("ablation: %s · mean ± 95%%, %d realizations", m.ablLabel(), m.realizations()),
		fmt.Sprintf("ablation: %s · mean ± 95%%/%d", m.ablLabel(), m.realizations()))
	settings := func(note string) string {
		return fmt.Sprintf("%s, context %d, σ %s", note, int(m.ctxSteps[k.system].value()), formatG(m.noise.value(), -1))
	}
	note := m.atlasNote()
	short, _, _ := strings.Cut(note, " (") // "weights before this run"
	where := t.fitFirst(w-1, fmt.Sprintf("%s/%s, %s", k.system, k.backbone, settings(note)), settings(note), settings(short))
	// The progress goes first and the key line fits the room it leaves,
	// so that while the points compute the line still ends on a whole
	// wording: cut after the progress, "◇ …, not the…" lost what ◇ means.
	progress := ""
	if n := len(m.abl.points); m.abl.done < n {
		progress = t.dots(fmt.Sprintf("%c computing %d/%d… · ", spinner[m.abl.done%len(spinner)], m.abl.done, n))
	}
	room := w - 1 - ansi.StringWidth(progress)
	status := t.fitFirst(room,
		m.keyText("A/esc closes · ↑/↓ another control · ◆ current"),
		"A/esc closes · ◆ current")
	if m.ablCurrentOther() {
		status = t.fitFirst(room,
			m.keyText("A/esc closes · ↑/↓ another control · ◇ the atlas model at the current value, not the one on screen"),
			"A/esc closes · ◇ the atlas model at the current value, not the one on screen",
			"A/esc closes · ◇ atlas model, not the one shown",
			"A/esc closes · ◇ atlas model")
	}
	status = progress + status
	lines := []string{t.paint(t.bold, title), where, t.paint(t.dim, t.truncate(status, w-1))}
	if m.abl.why != "" {
		lines = append(lines, "")
		for _, l := range wrapLines(t.dots(m.abl.why), w-1) {
			lines = append(lines, t.paint(t.warn, l))
		}
		return block(lines, w, h)
	}
	if err := m.ablError(); err != nil {
		lines = append(lines, t.paint(t.err, t.truncate("failed: "+err.Error(), w)))
	}
	return block(append(lines, m.ablCharts(w, h-len(lines))...), w, h)
}

// ablError is the first point's error, if any.
func (m Model) ablError() error {
	for _, p := range m.abl.points {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// ablCharts lays the four charts out in a 2×2 grid of w × h, under a
// legend of the values where the charts cannot label every point.
func (m Model) ablCharts(w, h int) []string {
	labels := make([]string, len(m.abl.points))
	for i, p := range m.abl.points {
		labels[i] = p.label
	}
	cur, other := m.ablCurrent(), m.ablCurrentOther()
	w1 := (w - 1) / 2
	charts := make([]ablChart, len(ablMetrics))
	labelW := 0
	for i, mt := range ablMetrics {
		charts[i] = ablChart{title: mt[0], metric: mt[1], labels: labels, ivs: m.ablIntervals(mt[1]), cur: cur, other: other, width: w1}.scaled()
		labelW = max(labelW, charts[i].yLabelWidth())
	}
	digits := sharedDigits(charts)
	for i := range charts {
		// The charts share the x axis (the control's values): with the
		// widest y labels' room each, their columns and value labels
		// line up, rather than each labelling the values it fits.
		charts[i].digits, charts[i].labelW = digits, labelW
	}
	// The charts share the labels, the width and x0: the labels are
	// fitted once, for all four.
	fitted, all := charts[0].fitLabels(charts[0].x0())
	var out []string
	if !all {
		// Points left unlabelled, or labelled in two letters, would
		// leave the regularisers apart only by order; nor does a number
		// ladder that is not evenly spaced (0 .1 .2 .5 1 2 5) say what
		// an unlabelled point between .1 and .5 is. A long ladder
		// (advdiff's 28 context sizes) keeps to its labels rather than
		// give the charts' rows to a legend.
		legend := ablLegend(labels, w-1)
		if len(legend) == 1 || !slices.ContainsFunc(labels, isNumber) {
			for _, l := range legend {
				out = append(out, m.theme.paint(m.theme.dim, l))
			}
		}
	}
	h1 := (h - len(out)) / 2
	chart := func(i int) []string {
		c := charts[i]
		c.height, c.fitted = h1, fitted
		return block(c.render(m.theme), w1, h1)
	}
	gap := block(nil, 1, h1)
	out = append(out, joinH(chart(0), gap, chart(1))...)
	return append(out, joinH(chart(2), gap, chart(3))...)
}

// ablLegend names the axis's values in order in w cells: shorter
// wordings first, then wrapped onto a second line, never cut (a name
// cut to "spectral…" is again not one --reg takes).
func ablLegend(labels []string, w int) []string {
	vals := strings.Join(labels, " ")
	if s := "values left to right: " + vals; ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return wrapLines("values: "+vals, w)
}
