package tui

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"strings"

	"apic/core"
	"apic/sims"
)

// Panels: the four views of a prediction. They only pick values out of
// the realization and the prediction and arrange them (the band is
// mean ± 2·σ' with σ' from Prediction.BandDeviations); every number
// comes from package core.

// role is what a curve shows; it picks the curve's mark.
type role int

const (
	roleMean role = iota
	roleBand
	roleTruth
	roleNominal
	roleNeeded
	roleContext
)

// marks per channel: the first channel draws means as lines; a second
// channel (Lotka–Volterra's predator) gets its own marks when there is no
// colour to tell the channels apart.
var roleMarks = [2][]string{
	{"", "·", "•", "∘", "×", "●"},
	{"+", ":", "▪", "~", "x", "▲"},
}

// axis1D is the plots' x axis: a 1-D grid along its state, or a product
// grid along its second state at one value of the first (a time slice).
type axis1D struct {
	n        int // samples
	name     string
	lo, hi   float64
	channels int
	offset   int // first grid point of the slice
}

// axis returns the x axis of the line plots.
func (m Model) axis() axis1D {
	g := m.sys().Grid()
	a := axis1D{n: g.Points(), name: g.StateNames[0], lo: g.Lo[0], hi: g.Hi[0], channels: len(g.Channels)}
	if len(g.Shape) == 2 {
		a.n = g.Shape[1]
		a.name, a.lo, a.hi = g.StateNames[1], g.States[0][1], g.States[a.n-1][1]
		a.offset = m.slice * a.n
	}
	return a
}

// channel extracts channel c along the axis from grid values.
func (a axis1D) channel(vals []float64, c int) []float64 {
	out := make([]float64, a.n)
	for i := range out {
		out[i] = vals[(a.offset+i)*a.channels+c]
	}
	return out
}

// band returns mean − 2·std and mean + 2·std along the axis (std from
// Prediction.BandDeviations: the calibrated band of ±2σ's level,
// 95.4%). The plots call it bandName, not "±2σ": it is often several
// times wider than twice the std that calibrate --json prints.
func (a axis1D) band(mean, std []float64, c int) (lo, hi []float64) {
	mu, sd := a.channel(mean, c), a.channel(std, c)
	lo, hi = make([]float64, a.n), make([]float64, a.n)
	for i := range mu {
		lo[i], hi[i] = mu[i]-2*sd[i], mu[i]+2*sd[i]
	}
	return lo, hi
}

// points returns the context observations of channel c on the axis.
func (a axis1D) points(ctx sims.Context, c int) (idx []int, vals []float64) {
	for i, g := range ctx.GridIndex {
		if g >= a.offset && g < a.offset+a.n && ctx.Mask[i][c] {
			idx = append(idx, g-a.offset)
			vals = append(vals, ctx.Values[i][c])
		}
	}
	return idx, vals
}

// styleOf is the mark and colour of a role on channel c.
func (m Model) styleOf(r role, c int, single color.Color) (string, color.Color) {
	mark := roleMarks[0][r]
	if m.theme.plain && c > 0 {
		mark = roleMarks[1][r]
	}
	if m.axis().channels == 1 {
		return mark, single
	}
	prey, dim, ctx := colPrey, colPreyDim, colPreyCtx
	if c > 0 {
		prey, dim, ctx = colPred, colPredDim, colPredCtx
	}
	switch r {
	case roleBand, roleNominal:
		return mark, dim
	case roleContext:
		return mark, ctx
	}
	return mark, prey
}

// legendItem is one entry of a plot's legend.
type legendItem struct {
	mark  string
	name  string
	color color.Color
	// curve is the series.curve the item stands for; "" (a channel's
	// colour) takes no note where its series are covered.
	curve string
	// hidden, when set, replaces name where the plot shows none of the
	// curve's cells (else name ≈ the curve on top; linePlot.noteHidden):
	// a band thinner than a row lies under its curve (advdiff's δ̂), and
	// "· 95% band" over no dot reads as none drawn.
	hidden string
}

// thinBand is a band's legend name where no cell of the band shows.
const thinBand = " (< 1 row)"

// legendFor lists the roles a panel shows; with two channels it starts
// with the channels' colours and shows each role's marks for both.
func (m Model) legendFor(roles []role, names []string, single []color.Color) []legendItem {
	g := m.sys().Grid()
	var out []legendItem
	if len(g.Channels) > 1 {
		for c, ch := range g.Channels {
			mark, col := m.styleOf(roleMean, c, nil)
			if mark == "" {
				mark = "──"
			}
			out = append(out, legendItem{mark: mark, name: ch, color: col})
		}
	}
	for i, r := range roles {
		if r == roleMean && len(g.Channels) > 1 {
			continue // the channel entries show the lines
		}
		var marks []string
		for c := range g.Channels {
			mk, _ := m.styleOf(r, c, nil)
			if mk == "" {
				mk = "──"
			}
			if len(marks) == 0 || marks[len(marks)-1] != mk {
				marks = append(marks, mk)
			}
		}
		col := single[i]
		if len(g.Channels) > 1 {
			col = colLabel
		}
		it := legendItem{mark: strings.Join(marks, ""), name: names[i], color: col, curve: names[i]}
		if r == roleBand {
			it.hidden = names[i] + thinBand
		}
		out = append(out, it)
	}
	return out
}

// panelRange is a fixed vertical range per realization: the span of the
// given values widened by a tenth, so moving controls does not rescale
// the axes (values outside are clamped onto the edges).
func panelRange(vals ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, vs := range vals {
		for _, v := range vs {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 0
	}
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = math.Max(0.1, 0.25*math.Abs(hi))
	}
	return lo - pad, hi + pad
}

// The legend names of the panels' curves, which are also their
// series.curve: a legend entry and the curves it stands for must agree.
const (
	contextName    = "context"
	deltaName      = "δ̂"
	trueDeltaName  = "true δ"
	neededName     = "needed δ"
	predictionName = "prediction"
	truthName      = "truth G"
	nominalName    = "nominal"
)

// bandName is what the plots call the band they draw around δ̂ and the
// prediction (axis1D.band): the calibrated central 95% (95.4%) band.
const bandName = "95% band"

// symRange is ± the largest |value| widened by a fifth (for discrepancies).
func symRange(floor float64, vals ...[]float64) (lo, hi float64) {
	a := floor
	for _, vs := range vals {
		for _, v := range vs {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				a = math.Max(a, math.Abs(v))
			}
		}
	}
	return -1.2 * a, 1.2 * a
}

// sliceTime names a time slice as the panels' titles and the time
// slice control both write it, so that the two read alike ("t=0.016",
// where %.3g's "t=0.0159" in the title stood beside "t=0.016").
func sliceTime(t float64) string { return fmt.Sprintf("t=%.3f", t) }

// sliceView is what the output plots along the axis share, the line
// panels and the heatmap view's ▸ slice panel alike: the time of the
// slice shown ("t=0.5"; "" on a 1-D grid) and the vertical range. The
// range is fixed by the realization's truth and nominal on that slice,
// not by the prediction, so that moving controls never rescales and
// the two views of one slice read on one scale.
func (m Model) sliceView(a axis1D) (at string, lo, hi float64) {
	real := m.res.task.Real
	if m.is2D() {
		at = sliceTime(m.sys().Grid().States[a.offset][0])
	}
	var onAxis [][]float64
	for c := 0; c < a.channels; c++ {
		onAxis = append(onAxis, a.channel(real.True, c), a.channel(real.Nominal, c))
	}
	lo, hi = panelRange(onAxis...)
	return at, lo, hi
}

// linePanels builds the four line plots of the current result.
func (m Model) linePanels() []linePlot {
	a := m.axis()
	v := panelView{a: a, override: m.overridden()}
	at, ylo, yhi := m.sliceView(a)
	if at != "" {
		v.note = " at " + at
	}
	v.ylo, v.yhi = ylo, yhi
	// δ's range is fixed as the outputs' is (see sliceView).
	var deltaOnAxis [][]float64
	delta := m.res.task.Real.Discrepancy()
	for c := 0; c < a.channels; c++ {
		deltaOnAxis = append(deltaOnAxis, a.channel(delta, c))
	}
	v.dlo, v.dhi = symRange(0.05*math.Max(math.Abs(ylo), math.Abs(yhi)), deltaOnAxis...)
	return []linePlot{m.simPanel(v), m.deltaPanel(v, delta), m.predictionPanel(v), m.truthPanel(v)}
}

// panelView is what the four line panels share: the axis they are drawn
// along, the slice they show (note), the outputs' and δ's fixed ranges,
// and whether θ is set by hand.
type panelView struct {
	a                  axis1D
	note               string
	ylo, yhi, dlo, dhi float64
	override           bool
}

// base is an empty panel titled title along the view's axis.
func (v panelView) base(title string) linePlot {
	return linePlot{title: title + v.note, n: v.a.n, xName: v.a.name, xLo: v.a.lo, xHi: v.a.hi}
}

// simPanel is panel 1: the simulator's output with the context points.
func (m Model) simPanel(v panelView) linePlot {
	a, p := v.a, m.res.pred
	simTitle, simName := "1 simulator F(x; θ̂)", "F(x; θ̂)"
	if v.override {
		simTitle, simName = "1 simulator F(x; θ set by hand)", "F(x; θ)"
	}
	p1 := v.base(simTitle)
	if v.override {
		p1.short = "1 F(x; θ set by hand)" + v.note
	}
	p1.yLo, p1.yHi = v.ylo, v.yhi
	for c := 0; c < a.channels; c++ {
		mk, col := m.styleOf(roleMean, c, colSim)
		p1.series = append(p1.series, series{values: a.channel(p.Nominal, c), mark: mk, color: col, curve: simName})
		idx, vals := a.points(m.res.task.Context, c)
		cm, cc := m.styleOf(roleContext, c, colContext)
		p1.points = append(p1.points, scatter{idx: idx, vals: vals, mark: []rune(cm)[0], color: cc, curve: contextName})
	}
	p1.legend = m.legendFor([]role{roleMean, roleContext}, []string{simName, contextName}, []color.Color{colSim, colContext})
	return p1
}

// deltaPanel is panel 2: the learned discrepancy with its band against
// the true one (delta), and with θ set by hand the δ that θ needs.
func (m Model) deltaPanel(v panelView, delta []float64) linePlot {
	a, p, real := v.a, m.res.pred, m.res.task.Real
	_, bandD := p.BandDeviations()
	p2 := v.base("2 discrepancy δ̂ with " + bandName + " vs true δ")
	p2.short = "2 δ̂, " + bandName + " vs true δ" + v.note
	if v.override {
		p2.title = "2 δ̂, " + bandName + ", true δ, and the δ needed at the set θ" + v.note
		p2.short = "2 δ̂, band, true δ, needed δ" + v.note
	}
	p2.yLo, p2.yHi = v.dlo, v.dhi
	// The baselines' curves go over the band but under the truth and
	// APIC's own: where they agree, δ̂ and the true δ stay in sight.
	baseDelta, baseLegend := m.baseOverlay(a, func(p *core.Prediction) []float64 { return p.DeltaMean })
	var over []series
	for c := 0; c < a.channels; c++ {
		lo, hi := a.band(p.DeltaMean, bandD, c)
		bm, bc := m.styleOf(roleBand, c, colDeltaBnd)
		tm, tc := m.styleOf(roleTruth, c, colTruth)
		mm, mc := m.styleOf(roleMean, c, colDelta)
		p2.series = append(p2.series, series{values: lo, mark: bm, color: bc, curve: bandName}, series{values: hi, mark: bm, color: bc, curve: bandName})
		over = append(over, series{values: a.channel(delta, c), mark: tm, color: tc, curve: trueDeltaName})
		if v.override {
			// What the discrepancy must absorb when θ is set by hand:
			// the truth minus the simulator at the set θ.
			need := make([]float64, len(real.True))
			for i := range need {
				need[i] = real.True[i] - p.Nominal[i]
			}
			nm, nc := m.styleOf(roleNeeded, c, colNeeded)
			over = append(over, series{values: a.channel(need, c), mark: nm, color: nc, curve: neededName})
		}
		over = append(over, series{values: a.channel(p.DeltaMean, c), mark: mm, color: mc, curve: deltaName})
	}
	p2.series = append(append(p2.series, baseDelta...), over...)
	roles, names, cols := []role{roleMean, roleBand, roleTruth}, []string{deltaName, bandName, trueDeltaName}, []color.Color{colDelta, colDeltaBnd, colTruth}
	if v.override {
		roles, names, cols = append(roles, roleNeeded), append(names, neededName), append(cols, colNeeded)
	}
	p2.legend = append(m.legendFor(roles, names, cols), baseLegend...)
	return p2
}

// predictionPanel is panel 3: the corrected prediction with its band
// and the context points.
func (m Model) predictionPanel(v panelView) linePlot {
	a, p := v.a, m.res.pred
	bandY, _ := p.BandDeviations()
	p3 := v.base("3 corrected prediction with " + bandName)
	p3.short = "3 prediction with " + bandName + v.note
	p3.yLo, p3.yHi = v.ylo, v.yhi
	baseMean, baseLegend := m.baseOverlay(a, func(p *core.Prediction) []float64 { return p.Mean })
	var over []series
	for c := 0; c < a.channels; c++ {
		lo, hi := a.band(p.Mean, bandY, c)
		bm, bc := m.styleOf(roleBand, c, colBand)
		mm, mc := m.styleOf(roleMean, c, colMean)
		p3.series = append(p3.series, series{values: lo, mark: bm, color: bc, curve: bandName}, series{values: hi, mark: bm, color: bc, curve: bandName})
		over = append(over, series{values: a.channel(p.Mean, c), mark: mm, color: mc, curve: predictionName})
		idx, vals := a.points(m.res.task.Context, c)
		cm, cc := m.styleOf(roleContext, c, colContext)
		p3.points = append(p3.points, scatter{idx: idx, vals: vals, mark: []rune(cm)[0], color: cc, curve: contextName})
	}
	p3.series = append(append(p3.series, baseMean...), over...)
	p3.legend = append(m.legendFor([]role{roleMean, roleBand, roleContext}, []string{predictionName, bandName, contextName}, []color.Color{colMean, colBand, colContext}), baseLegend...)
	return p3
}

// truthPanel is panel 4: the ground truth against the corrected
// prediction, the nominal dimmed. The truth is drawn last, over the
// prediction: a good fit runs along it, and a line drawn over the
// truth's dots hid them.
func (m Model) truthPanel(v panelView) linePlot {
	a, p, real := v.a, m.res.pred, m.res.task.Real
	p4 := v.base(truthTitle(m.theme))
	p4.short = "4 truth vs prediction" + v.note
	p4.yLo, p4.yHi = v.ylo, v.yhi
	for c := 0; c < a.channels; c++ {
		nm, nc := m.styleOf(roleNominal, c, colNominal)
		tm, tc := m.styleOf(roleTruth, c, colTruth)
		mm, mc := m.styleOf(roleMean, c, colMean)
		p4.series = append(p4.series, series{values: a.channel(real.Nominal, c), mark: nm, color: nc, curve: nominalName},
			series{values: a.channel(p.Mean, c), mark: mm, color: mc, curve: predictionName},
			series{values: a.channel(real.True, c), mark: tm, color: tc, curve: truthName})
	}
	p4.legend = m.legendFor([]role{roleMean, roleTruth, roleNominal}, []string{predictionName, truthName, nominalName}, []color.Color{colMean, colTruth, colNominal})
	return p4
}

// truthTitle is panel 4's title. A plain theme (NO_COLOR, --ascii)
// draws no faint colour: there the nominal is told apart by its ∘ mark
// alone, and a title saying it is dimmed would send a reader looking
// for a shade that is not drawn.
func truthTitle(t theme) string {
	if t.plain {
		return "4 truth vs prediction and nominal"
	}
	return "4 truth vs prediction (nominal dimmed)"
}

// truthHelp is the help's line on panel 4, dimmed only where the theme
// draws in colour (truthTitle).
func truthHelp(t theme) string {
	if t.plain {
		return "4 ground truth G (drawn over the prediction) and the nominal F(x; θ)"
	}
	return "4 ground truth G (drawn over the prediction) and the nominal F(x; θ), dimmed"
}

// heatPanels builds the four heatmaps of a product-grid result: truth,
// prediction, δ̂ and |error|, each on a range fixed by the realization.
func (m Model) heatPanels() []heatmap {
	res := m.res
	g := m.sys().Grid()
	real := res.task.Real
	nt, nx := g.Shape[0], g.Shape[1]
	c := len(g.Channels)
	field := func(vals []float64) []float64 {
		out := make([]float64, nt*nx)
		for i := range out {
			out[i] = vals[i*c]
		}
		return out
	}
	delta := real.Discrepancy()
	errAbs := make([]float64, len(real.True))
	emax := 0.0
	for i := range errAbs {
		errAbs[i] = math.Abs(real.True[i] - res.pred.Mean[i])
		if errAbs[i] > emax { // false for NaN: such a cell stays out of the scale
			emax = errAbs[i]
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range real.True {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lo = math.Min(lo, 0)
	dmax := 0.0
	for _, v := range delta {
		dmax = math.Max(dmax, math.Abs(v))
	}
	if dmax == 0 {
		dmax = 1
	}
	base := func(title string, vals []float64, lo, hi float64, cm colormap) heatmap {
		return heatmap{title: title, rows: nt, cols: nx, values: field(vals), lo: lo, hi: hi, cmap: cm,
			rowName: g.StateNames[0], colName: g.StateNames[1],
			rowLo: g.States[0][0], rowHi: g.States[len(g.States)-1][0], colLo: g.States[0][1], colHi: g.States[nx-1][1],
			marked: true, markRow: m.slice}
	}
	return []heatmap{
		base("1 truth G(t, x)", real.True, lo, hi, sequential),
		base("2 corrected prediction", res.pred.Mean, lo, hi, sequential),
		base("3 learned discrepancy δ̂", res.pred.DeltaMean, -dmax, dmax, diverging),
		// On its own scale (its colour bar says how small): on δ's the
		// good fits are blank.
		base("4 |truth − prediction|, own scale", errAbs, 0, cmp.Or(emax, dmax), sequential),
	}
}

// baseSlicePanel is the heatmap view's fourth panel while baselines are
// shown (c): along the time slice the heatmaps mark with ▸, the truth,
// the corrected prediction and each finished baseline's, on the slice
// view's fixed range. The heatmaps have no room for three more fields,
// and a field per method would not compare at a glance; [ ] move the
// slice through time.
func (m Model) baseSlicePanel() linePlot {
	res := m.res
	a := m.axis()
	real := res.task.Real
	at, ylo, yhi := m.sliceView(a)
	p := linePlot{title: "4 ▸ " + at + ": truth, prediction and baselines", short: "4 ▸ " + at + ": vs baselines",
		n: a.n, xName: a.name, xLo: a.lo, xHi: a.hi, yLo: ylo, yHi: yhi}
	// The baselines first, so that the prediction and the truth are
	// drawn over them where they agree; the truth last, over the
	// prediction, as on the line panels' fourth.
	baseMean, baseLegend := m.baseOverlay(a, func(p *core.Prediction) []float64 { return p.Mean })
	p.series = append(p.series, baseMean...)
	for c := 0; c < a.channels; c++ {
		tm, tc := m.styleOf(roleTruth, c, colTruth)
		mm, mc := m.styleOf(roleMean, c, colMean)
		p.series = append(p.series, series{values: a.channel(res.pred.Mean, c), mark: mm, color: mc, curve: predictionName},
			series{values: a.channel(real.True, c), mark: tm, color: tc, curve: truthName})
	}
	p.legend = append(m.legendFor([]role{roleMean, roleTruth}, []string{predictionName, truthName}, []color.Color{colMean, colTruth}), baseLegend...)
	return p
}

// overridden reports whether θ is set by hand.
func (m Model) overridden() bool {
	for _, c := range m.theta {
		if c.set {
			return true
		}
	}
	return false
}
