package tui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// The sidebar's averages: beside the one realization on screen, each
// metric's mean and 95% interval over avgTasks seeded realizations at
// the current model, context size and noise, so that a change of a
// control reads against the spread of realizations rather than one
// realization's luck. core.EvaluateIntervals runs in a command off the
// UI goroutine; a change of the settings cancels it and starts anew.

// avgTasks is how many realizations the averages, the ablation view and
// the diagnostics evaluate by default (explore --tasks sets it),
// with the evaluation seed avgSeed: a fixed set, the same for every
// model and setting compared.
const (
	avgTasks = 32
	avgSeed  = 1
)

// LimitRealizations bounds explore's --tasks: an interval needs two
// realizations, and the top is what apic eval --tasks allows.
var LimitRealizations = core.Limit{Name: "tasks", Min: 2, Max: core.LimitTasks.Max, Why: "a 95% interval needs two; " + core.LimitTasks.Why}

// realizations is how many seeded realizations the sidebar's averages,
// the ablation view and the diagnostics evaluate: Options.Averages
// (explore's --tasks), or avgTasks where it shows none.
func (m Model) realizations() int {
	if m.opts.Averages > 0 {
		return m.opts.Averages
	}
	return avgTasks
}

// avgKey is what the averages depend on.
type avgKey struct {
	model   *core.Model
	context int
	noise   float64
}

// avgState is the averages' state. work, progress and started are
// those of the evaluation running (work nil when none): the status line
// counts its realizations once it has taken a second (computing), where
// with --tasks 2000 it said "● idle" beside "…" cells for half a minute.
type avgState struct {
	key      avgKey
	gen      int
	cancel   context.CancelFunc
	res      *core.Intervals
	err      error
	work     *workProgress
	progress realizationCount
	started  time.Time
}

// avgMsg is a finished evaluation of the averages.
type avgMsg struct {
	gen int
	res core.Intervals
	err error
}

func (m Model) avgKeyNow() avgKey {
	return avgKey{model: m.entry().model, context: int(m.ctxSteps[m.sys().Name()].value()), noise: m.noise.value()}
}

// evalOptions are the evaluation options of the averages and the
// ablation view at a context size and noise.
func (m Model) evalOptions(tasks, context int, noise float64) core.EvalOptions {
	return core.EvalOptions{Tasks: tasks, Context: context, Noise: noise, Seed: avgSeed, Samples: samplesFor(m.sys()), Refine: -1}
}

// syncAverages starts the averages' evaluation when the settings moved
// away from those of the result on screen or running.
func (m *Model) syncAverages() tea.Cmd {
	if m.opts.Averages < 0 || m.avg.key == m.avgKeyNow() {
		return nil
	}
	if m.avg.cancel != nil {
		m.avg.cancel()
	}
	m.avg.gen++
	m.avg.key, m.avg.cancel, m.avg.res, m.avg.err, m.avg.work = m.avgKeyNow(), nil, nil, nil, nil
	if res := m.ablResultFor(m.avg.key); res != nil {
		m.avg.res = res // the ablation view evaluated the same: shown at once
		return nil
	}
	ctx, cancel := context.WithCancel(m.opts.Context)
	work := newWorkProgress()
	m.avg.cancel, m.avg.work, m.avg.started = cancel, work, time.Now()
	m.avg.progress = realizationCount{total: m.opts.Averages}
	gen, model, opt := m.avg.gen, m.avg.key.model, m.evalOptions(m.opts.Averages, m.avg.key.context, m.avg.key.noise)
	opt.Progress = work.report
	// The evaluation first: run one after another (the tests), the
	// progress's wait then finds it returned.
	return tea.Batch(func() tea.Msg {
		defer work.finish()
		res, err := core.EvaluateIntervals(ctx, model, opt)
		return avgMsg{gen: gen, res: res, err: err}
	}, work.next())
}

// onAverages shows the averages if they are the newest request's.
func (m Model) onAverages(msg avgMsg) (tea.Model, tea.Cmd) {
	if msg.gen != m.avg.gen {
		return m, nil
	}
	m.avg.cancel, m.avg.work = nil, nil
	if msg.err != nil {
		m.avg.err = msg.err
		return m, nil
	}
	r := msg.res
	m.avg.res = &r
	return m, nil
}

// average is the interval of metric k over the realizations, and
// whether it is there yet.
func (m Model) average(k string) (core.Interval, bool) {
	if m.avg.res == nil {
		return core.Interval{}, false
	}
	iv, ok := m.avg.res.Metrics[k]
	return iv, ok
}

// clampInterval is iv with its ends cut to the values metric k can take
// (core.MetricRange): a mean ± 95% interval is symmetric about its mean,
// and over a few skewed realizations it runs below 0 for an error or
// past 1 for a coverage, values no realization can have.
func clampInterval(k string, iv core.Interval) core.Interval {
	lo, hi := core.MetricRange(k)
	if iv.Lo < lo {
		iv.Lo = lo
	}
	if iv.Hi > hi {
		iv.Hi = hi
	}
	return iv
}

// avgRows are the metrics the sidebar shows with their averages, in
// order of importance (the last ones go first when room is short). The
// log-likelihood is the reconstruction's, as eval's "recon LL" is: a
// bare "LL" read as the model's, or δ's.
var avgRows = [][2]string{
	{"recon MAE", core.KeyReconMAE}, {"δ MAE", core.KeyDeltaMAE}, {"θ MAE", core.KeyThetaMAE},
	{"recon ECE", core.KeyReconECE}, {"recon LL", core.KeyReconLL},
}

// averagedLines shows each metric of the realization on screen beside
// its mean ± 95% interval over the averages' realizations, in at most
// room lines: a column heading when there is room for it, with label
// (metricsLabel, or "") in its first column, and the rows from the most
// important on.
func (m Model) averagedLines(w, room int, label string) []string {
	oneW := 7
	avgW := max(1, w-1-10-oneW-1)
	ones, avgs := m.avgCells(oneW, avgW)
	var rows []string
	for i, r := range avgRows {
		rows = append(rows, padRight(padRight(" "+padRight(r[0], 10)+ones[i], 1+10+oneW+1)+avgs[i], w))
	}
	// The heading goes first whenever two lines fit: two unlabelled
	// columns of numbers read as one; the last rows give way instead.
	// In one line the mark counts it with the rows.
	head := padRight(" "+padRight(label, 10)+"this", 1+10+oneW+1) + m.avgHeading(avgW)
	rows = append([]string{padRight(m.theme.paint(m.theme.label, head), w)}, rows...)
	return m.theme.cutMarked(rows, w, max(0, room), sideMore)
}

// avgFew is the count of realizations below which the averages'
// heading calls them few: Student's t widens the interval for the
// count, but the spread it scales is itself estimated from a handful
// of values, skewed ones (an error's) at that, so the interval is rough.
const avgFew = 10

// fewRealizations reports whether an interval over n realizations is
// rough (one realization has none).
func fewRealizations(n int) bool { return n >= 2 && n < avgFew }

// avgHeading is the averages' column heading, cut to w cells. It says
// when the averages are not of the prediction on screen: while training
// ("this" follows the live weights, the averages wait for the run's
// end) and with θ set by hand (the averages are at θ̂). Over fewer than
// avgFew realizations, "(few)" marks the interval rough where it fits.
//
// Narrowed, the heading gives up "±95%" before "mean": the rows show
// the ±, but without "mean" nothing says what the numbers beside it
// are: "±95%/5 (few)" would not, in the 12 cells it has at 80 columns.
// The count goes last: cut, "mean±95%/2000" would read "mean±95%/2…", a
// count of 2.
func (m Model) avgHeading(w int) string {
	n := m.opts.Averages
	// One realization has no interval: "mean/1", as its rows show none.
	mean := "mean±95%"
	if n < 2 {
		mean = "mean"
	}
	h := fmt.Sprintf("%s/%d", mean, n)
	bare := fmt.Sprintf("mean/%d", n)
	var few []string // the marked forms, tried first
	if fewRealizations(n) {
		few = []string{h + " (few)", bare + " (few)", bare + "(few)"}
	}
	switch {
	case m.run != nil:
		return m.theme.fitFirst(w, "mean: after run", "mean: at end", "after run")
	case m.overridden():
		// That the averages are at θ̂ matters more than the marker.
		if few != nil {
			few = []string{"θ̂ " + h + " (few)", "θ̂ " + bare + " (few)"}
		}
		return m.theme.fitFirst(w, append(few, "θ̂ "+h, "θ̂ "+mean)...)
	}
	// Where it fits, "CI" says the ± is a confidence interval of the
	// mean, not eval's sd over the realizations.
	var ci []string
	if n >= 2 {
		ci = []string{fmt.Sprintf("mean±95%% CI/%d", n)}
	}
	short := strings.TrimPrefix(h, "mean")
	return m.theme.fitFirst(w, append(append(few, ci...), h, bare, short, fmt.Sprintf("/%d", n))...)
}

// avgCells are the metrics table's cells, avgRows' "this" values in
// oneW cells and averages in avgW cells, all at one count of
// significant digits (atOneDigits): ".00234" beside ".0018±.0003"
// compared three digits with two.
func (m Model) avgCells(oneW, avgW int) (ones, avgs []string) {
	n := len(avgRows) // cells 0 to n-1 are the "this" values, then the averages
	cells := atOneDigits(2*n, func(i int, d [2]int) (string, bool) {
		k := avgRows[i%n][1]
		exp := m.avgRowExp(k, d, oneW, avgW)
		if i < n {
			return m.thisAt(k, oneW, d[0], exp)
		}
		return m.averageAt(k, avgW, d, exp)
	}, func(i int) string {
		// A cell alone: the table is at numDigits[1] (atOneDigits).
		k := avgRows[i%n][1]
		exp := m.avgRowExp(k, numDigits[1], oneW, avgW)
		if i < n {
			return fitNumber(m.res.metrics.Values[k], oneW, exp)
		}
		iv, _ := m.average(k)
		return m.theme.intervalText(k, iv, avgW, exp)
	})
	return cells[:n], cells[n:]
}

// avgRowExp reports whether metric k's row of the averages, at digits
// d, is written with exponents (one notation a row, sigIn): where its
// value on screen or the average beside it takes one, and they do not
// fit their cells, oneW and avgW, in decimals.
func (m Model) avgRowExp(k string, d [2]int, oneW, avgW int) bool {
	iv, ok := m.average(k)
	avg := ok && m.run == nil && !math.IsNaN(iv.Mean)
	if !(m.res != nil && needsExp(m.res.metrics.Values[k], d[0]) || avg && intervalNeedsExp(k, iv, d)) {
		return false
	}
	if s, _ := m.thisAt(k, oneW, d[0], false); !inDecimals(s, oneW) {
		return true
	}
	return avg && !slices.ContainsFunc(intervalForms(k, iv, d, false), func(s string) bool { return inDecimals(s, avgW) })
}

// thisAt is the realization on screen's metric k at digits significant
// digits, in the notation exp says (sigIn), and whether it fits w
// cells; "–" before the first result.
func (m Model) thisAt(k string, w, digits int, exp bool) (string, bool) {
	if m.res == nil {
		return "–", true
	}
	s := sigIn(m.res.metrics.Values[k], digits, exp)
	return s, ansi.StringWidth(s) <= w
}

// averageAt is metric k's mean ± the half-width of its 95% interval at
// digits (see intervalAt), and whether it fits w cells: "…" while
// computing or training (the weights on screen change with every
// step), "–" without a value.
func (m Model) averageAt(k string, w int, digits [2]int, exp bool) (string, bool) {
	iv, ok := m.average(k)
	switch {
	case m.run != nil:
		return m.theme.ellipsis, true
	case !ok && m.avg.err != nil:
		return "–", true
	case !ok:
		return m.theme.ellipsis, true
	case math.IsNaN(iv.Mean):
		return "–", true
	}
	return intervalAt(k, iv, w, digits, exp)
}

// intervalText writes metric k's interval in at most w cells: the
// first of its forms (intervalForms) that fits at some digits, with
// fewer digits where more would not fit; in decimals first, unless exp
// (sigIn), then, where a number takes one, with exponents.
func (t theme) intervalText(k string, iv core.Interval, w int, exp bool) string {
	for _, e := range intervalNotations(k, iv, numDigits[0], exp) {
		for f := 0; f < 3; f++ {
			for _, d := range numDigits {
				if forms := intervalForms(k, iv, d, e); f < len(forms) && ansi.StringWidth(forms[f]) <= w {
					return forms[f]
				}
			}
		}
	}
	return t.truncate(sigIn(iv.Mean, 2, exp || needsExp(iv.Mean, 2)), w)
}

// intervalAt is the first of metric k's interval forms at digits d
// that fits w cells, and whether one did: in decimals first, unless exp
// (sigIn), then, where a number takes one, with exponents.
func intervalAt(k string, iv core.Interval, w int, d [2]int, exp bool) (string, bool) {
	for _, e := range intervalNotations(k, iv, d, exp) {
		for _, s := range intervalForms(k, iv, d, e) {
			if ansi.StringWidth(s) <= w {
				return s, true
			}
		}
	}
	return intervalForms(k, iv, d, exp)[0], false
}

// intervalNotations are the notations (sigIn's exp) intervalAt tries
// for metric k's interval at digits d: exponents alone where exp says
// so, decimals first, and exponents where a number takes one.
func intervalNotations(k string, iv core.Interval, d [2]int, exp bool) []bool {
	switch {
	case exp:
		return []bool{true}
	case intervalNeedsExp(k, iv, d):
		return []bool{false, true}
	}
	return []bool{false}
}

// intervalForms are the ways to write metric k's interval at digits d
// (of the mean, of the half-width or ends), longest first: "mean±half",
// or "mean [lo,hi]" where an end is cut to the metric's range
// (clampInterval), no longer symmetric, and short of room only the end
// not at the metric's bound ("mean ≤hi" for an MAE from 0). One
// realization has no interval: its value shows alone, with "n=1" where
// that fits ("±0" would read as certainty). Its numbers take one
// notation, exp's (sigIn).
func intervalForms(k string, iv core.Interval, d [2]int, exp bool) []string {
	mean := sigIn(iv.Mean, d[0], exp)
	if iv.N < 2 {
		return []string{mean + fmt.Sprintf(" n=%d", iv.N), mean}
	}
	raw := iv
	iv = clampInterval(k, iv)
	end := func(v float64) string { return sigIn(v, d[1], exp) }
	below, above := iv.Mean-iv.Lo, iv.Hi-iv.Mean
	if symmetric(below, above) {
		return []string{sigIn(iv.Mean, meanDigits(iv.Mean, above, d), exp) + "±" + end(above)}
	}
	// An end cut to the metric's bound is the bound, exactly ("1", not
	// "1.0").
	lo, hi := iv.Lo != raw.Lo, iv.Hi != raw.Hi
	loS, hiS := end(iv.Lo), end(iv.Hi)
	if lo {
		loS = compact(formatG(iv.Lo, -1))
	}
	if hi {
		hiS = compact(formatG(iv.Hi, -1))
	}
	forms := []string{mean + " [" + loS + "," + hiS + "]", mean + "[" + loS + "," + hiS + "]"}
	switch {
	case lo && !hi:
		forms = append(forms, mean+" ≤"+hiS)
	case hi && !lo:
		forms = append(forms, mean+" ≥"+loS)
	}
	return forms
}

// symmetric reports whether an interval's ends lie as far below and
// above its mean: intervalForms writes it mean ± half-width.
func symmetric(below, above float64) bool {
	return math.Abs(below-above) <= 1e-9*math.Max(math.Abs(below), math.Abs(above))
}

// intervalNeedsExp reports whether a number intervalForms writes of
// metric k's interval at digits d takes an exponent (needsExp): the
// mean, and the half-width or the ends not cut to the metric's bound.
func intervalNeedsExp(k string, iv core.Interval, d [2]int) bool {
	switch {
	case needsExp(iv.Mean, d[0]):
		return true
	case iv.N < 2:
		return false
	}
	c := clampInterval(k, iv)
	if below, above := c.Mean-c.Lo, c.Hi-c.Mean; symmetric(below, above) {
		return needsExp(above, d[1])
	}
	return c.Lo == iv.Lo && needsExp(c.Lo, d[1]) || c.Hi == iv.Hi && needsExp(c.Hi, d[1])
}

// maxMeanDigits bounds the significant digits meanDigits gives a mean.
const maxMeanDigits = 4

// meanDigits is how many significant digits "mean±half" gives the mean
// at digits d: d[0], or more, up to maxMeanDigits, where the half-width
// at d[1] ends at a finer decimal place, since a mean rounded coarser
// than its own interval (".04±.006" for .038) misplaces the interval.
func meanDigits(mean, half float64, d [2]int) int {
	if mean == 0 || half == 0 || math.IsNaN(mean+half) || math.IsInf(mean+half, 0) {
		return d[0]
	}
	want := sigDecimals(half, d[1])
	k := d[0]
	for k < maxMeanDigits && sigDecimals(mean, k) < want {
		k++
	}
	return k
}

// ablResultFor is the ablation view's point evaluated exactly as the
// averages at k would be (the same model, context size, noise and
// realizations), if it has one.
func (m Model) ablResultFor(k avgKey) *core.Intervals {
	for _, p := range m.abl.points {
		model := m.abl.key.model
		if p.cell != nil {
			model = m.atlasModels.cached(*p.cell)
		}
		if p.res != nil && model == k.model && p.context == k.context && p.noise == k.noise {
			return p.res
		}
	}
	return nil
}
