package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"apic/sims"
)

// ConditionScale is the set of post-hoc scales fitted at one operating
// condition (recalibrate.go's scales, one cell of the table of
// SpreadFit.Conditions). The condition a prediction is in is known only
// in part: its context size n, but not the noise level of its data, for
// which the prediction's own estimate σ̂ stands in. Each cell therefore
// also records where its realizations sit on the σ̂ axis (the median σ̂
// over them), and predictions interpolate between cells in log n and in
// σ̂ (scalesAt).
type ConditionScale struct {
	Context  int     `json:"context"`   // context size n
	Noise    float64 `json:"noise"`     // the noise σ of the cell's data
	NoiseStd float64 `json:"noise_std"` // the median estimated σ̂ over the cell's realizations
	Recon    float64 `json:"recon"`     // the reconstruction's scale
	Delta    float64 `json:"delta"`     // the discrepancy's scale
	Theta    float64 `json:"theta"`     // θ's interval scale
	// ThetaPrior is the weight ρ ∈ [0, 1] of the prior mean in the
	// reported θ: θ̂' = (1 − ρ) θ̂ + ρ μ_prior (0, the default, keeps θ̂).
	// Where a context is too sparse for θ̂ to beat the prior mean, the
	// fit moves θ̂ toward it and its interval toward the prior's
	// (thetaPriorWeight): the interval widens toward the prior, honestly.
	ThetaPrior float64 `json:"theta_prior,omitempty"`
	// ThetaShape is the shape of each parameter's intervals at the
	// condition (thetashape.go): nil in a table fitted before them,
	// whose intervals are Gaussian.
	ThetaShape []ThetaShape `json:"theta_shape,omitempty"`
	// ThetaParam is each parameter's factor r_q on its deviation at the
	// condition (thetabase.go): one-pass tables have them.
	ThetaParam []float64 `json:"theta_param,omitempty"`
	// ReconShape and DeltaShape are the shapes of the reconstruction's
	// and δ's bands at the condition (bandshape.go): nil in a table
	// fitted before them, whose bands are Gaussian.
	ReconShape *BandShape `json:"recon_shape,omitempty"`
	DeltaShape *BandShape `json:"delta_shape,omitempty"`
	// Disagree is the weight κ of how far a refined fit moved from its
	// start in the bands at the condition (disagree.go): 0 in a table
	// fitted before it, and in a one-pass table.
	Disagree float64 `json:"disagree,omitempty"`
}

// LimitConditionCells bounds the cells of a stored condition table (a
// checkpoint is read with it): the grids of recalibration have 24.
var LimitConditionCells = Limit{"condition cells", 0, 256, "recalibration's grids have a few dozen cells"}

// checkConditions reports a table whose size is beyond
// LimitConditionCells, or a cell with a context below 1, a negative or
// non-finite noise, or a scale that is not finite and positive.
func checkConditions(cells []ConditionScale) error {
	if err := LimitConditionCells.Check(len(cells)); err != nil {
		return err
	}
	for i, c := range cells {
		ok := c.Context >= 1 && c.Noise >= 0 && c.NoiseStd >= 0 && !math.IsInf(c.Noise, 0) && !math.IsInf(c.NoiseStd, 0) && c.ThetaPrior >= 0 && c.ThetaPrior <= 1
		if !(c.Disagree >= 0 && c.Disagree <= maxDisagree) {
			return fmt.Errorf("condition scale %d (context %d, noise %g): disagreement weight %g, must be in [0, %d]", i, c.Context, c.Noise, c.Disagree, maxDisagree)
		}
		for _, s := range []float64{c.Recon, c.Delta, c.Theta} {
			ok = ok && s > 0 && !math.IsInf(s, 0)
		}
		if !ok {
			return fmt.Errorf("condition scale %d (context %d, noise %g, σ̂ %g, scales %g, %g, %g, prior weight %g): context must be ≥ 1, noise and σ̂ finite and ≥ 0, scales finite and > 0, the prior weight in [0, 1]",
				i, c.Context, c.Noise, c.NoiseStd, c.Recon, c.Delta, c.Theta, c.ThetaPrior)
		}
		if len(c.ThetaShape) != len(cells[0].ThetaShape) {
			return fmt.Errorf("condition scale %d has θ interval shapes for %d parameters, cell 0 for %d", i, len(c.ThetaShape), len(cells[0].ThetaShape))
		}
		if len(c.ThetaParam) != len(cells[0].ThetaParam) {
			return fmt.Errorf("condition scale %d has θ deviation factors for %d parameters, cell 0 for %d", i, len(c.ThetaParam), len(cells[0].ThetaParam))
		}
		if err := checkThetaBase(c.ThetaParam, nil); err != nil {
			return fmt.Errorf("condition scale %d: %w", i, err)
		}
		if (c.ReconShape == nil) != (cells[0].ReconShape == nil) || (c.DeltaShape == nil) != (cells[0].DeltaShape == nil) {
			return fmt.Errorf("condition scale %d has band shapes where cell 0 has none, or none where it has", i)
		}
		for _, s := range []*BandShape{c.ReconShape, c.DeltaShape} {
			if err := checkBandShape(s); err != nil {
				return fmt.Errorf("condition scale %d: %w", i, err)
			}
		}
		for q, s := range c.ThetaShape {
			if err := checkThetaShape(s); err != nil {
				return fmt.Errorf("condition scale %d, parameter %d: %w", i, q, err)
			}
		}
	}
	return nil
}

// scalesAt interpolates the table's scales (their logarithms) at a
// context of n points whose estimated noise is sigma: linearly in σ̂
// between the cells of the same context size (held at the ends), then
// linearly in log n between the two context sizes around n (held beyond
// the table's range). ok is false for an empty table.
func scalesAt(cells []ConditionScale, n int, sigma float64) (recon, delta, theta float64, ok bool) {
	recon, delta, theta, _, ok = cellAt(cells, n, sigma)
	return recon, delta, theta, ok
}

// cellAt is scalesAt with the cell's prior weight ρ, interpolated
// linearly (not in logarithms: it may be 0).
func cellAt(cells []ConditionScale, n int, sigma float64) (recon, delta, theta, prior float64, ok bool) {
	return cellRead(cells, cellWeights(cells, n, sigma))
}

// cellRead is cellAt for the cells ws that a condition reads.
func cellRead(cells []ConditionScale, ws []cellWeight) (recon, delta, theta, prior float64, ok bool) {
	if len(ws) == 0 {
		return 0, 0, 0, 0, false
	}
	prior = readLinear(cells, ws, func(c *ConditionScale) float64 { return c.ThetaPrior })
	recon = readGeo(cells, ws, func(c *ConditionScale) float64 { return c.Recon })
	delta = readGeo(cells, ws, func(c *ConditionScale) float64 { return c.Delta })
	theta = readGeo(cells, ws, func(c *ConditionScale) float64 { return c.Theta })
	return recon, delta, theta, prior, true
}

// readLinear is the weighted mean Σ_k w_k v(cell_k) of a value of the
// cells ws reads: how the table's values that may be 0 (prior weights,
// disagreement weights) are interpolated.
func readLinear(cells []ConditionScale, ws []cellWeight, v func(*ConditionScale) float64) float64 {
	acc := 0.0
	for _, w := range ws {
		acc += w.w * v(&cells[w.cell])
	}
	return acc
}

// readGeo is the weighted geometric mean exp(Σ_k w_k log v(cell_k)) of
// a value of the cells ws reads: how the table's scales, factors and
// shape ratios are interpolated.
func readGeo(cells []ConditionScale, ws []cellWeight, v func(*ConditionScale) float64) float64 {
	acc := 0.0
	for _, w := range ws {
		acc += w.w * math.Log(v(&cells[w.cell]))
	}
	return math.Exp(acc)
}

// cellPlace is a table cell's place on the condition axes: its context
// size and the median σ̂ of its realizations.
type cellPlace interface {
	place() (context int, noiseStd float64)
}

func (c ConditionScale) place() (int, float64) { return c.Context, c.NoiseStd }

// cellWeight is one cell's share in an interpolated condition.
type cellWeight struct {
	cell int // index into the table
	w    float64
}

// cellWeights returns the cells a context of n points with estimated
// noise sigma reads and their weights (summing to 1): linear in σ̂
// between the cells of a context size (held at the ends), then linear
// in log n between the two context sizes around n (held beyond the
// table's range). It is empty for an empty table.
func cellWeights[C cellPlace](cells []C, n int, sigma float64) []cellWeight {
	if len(cells) == 0 {
		return nil
	}
	var sizes []int
	for _, c := range cells {
		if n, _ := c.place(); !slices.Contains(sizes, n) {
			sizes = append(sizes, n)
		}
	}
	slices.Sort(sizes)
	k := sort.SearchInts(sizes, n) // sizes[k-1] < n ≤ sizes[k]
	switch {
	case k == 0:
		return rowWeights(cells, sizes[0], sigma, 1, nil)
	case k == len(sizes):
		return rowWeights(cells, sizes[k-1], sigma, 1, nil)
	}
	w := (math.Log(float64(n)) - math.Log(float64(sizes[k-1]))) / (math.Log(float64(sizes[k])) - math.Log(float64(sizes[k-1])))
	return rowWeights(cells, sizes[k], sigma, w, rowWeights(cells, sizes[k-1], sigma, 1-w, nil))
}

// rowWeights appends to out the weights of the cells of context size n
// at σ̂ = sigma, times share: linear in σ̂ between neighbouring cells,
// the first or last cell alone beyond them (a NaN σ̂ reads the first).
func rowWeights[C cellPlace](cells []C, n int, sigma, share float64, out []cellWeight) []cellWeight {
	var row []int
	for i, c := range cells {
		if cn, _ := c.place(); cn == n {
			row = append(row, i)
		}
	}
	sigmaOf := func(i int) float64 { _, s := cells[i].place(); return s }
	slices.SortStableFunc(row, func(a, b int) int {
		switch {
		case sigmaOf(a) < sigmaOf(b):
			return -1
		case sigmaOf(a) > sigmaOf(b):
			return 1
		}
		return 0
	})
	if math.IsNaN(sigma) || sigma <= sigmaOf(row[0]) {
		return append(out, cellWeight{row[0], share})
	}
	for i := 1; i < len(row); i++ {
		a, b := sigmaOf(row[i-1]), sigmaOf(row[i])
		if sigma <= b {
			w := (sigma - a) / (b - a)
			return append(out, cellWeight{row[i-1], share * (1 - w)}, cellWeight{row[i], share * w})
		}
	}
	return append(out, cellWeight{row[len(row)-1], share})
}

// contextNoiseStd is a prediction's σ̂ on the table's axis: the root
// mean of its per-channel noise variances.
func contextNoiseStd(noiseStd []float64) float64 {
	s := 0.0
	for _, v := range noiseStd {
		s += v * v
	}
	return math.Sqrt(s / float64(max(1, len(noiseStd))))
}

// conditionThetaLevel is the share of validation parameters a cell's θ
// scale makes its 95% intervals cover: a little above 0.95, since a cell
// is fitted on few realizations and predictions interpolate between
// cells.
const conditionThetaLevel = 0.965

// predictKept predicts tasks under spread for RecalibrateConditions.
// A realization whose prediction fails (at one or two context points a
// fit can diverge) is left out rather than failing the condition: the
// others are predicted one by one, on their own streams, when the batch
// fails. It fails only when ctx is done or no realization is left.
func (m *Model) predictKept(ctx context.Context, tasks []sims.Task, spread *SpreadFit, refine int) ([]sims.Task, []Prediction, error) {
	ctxs := make([]sims.Context, len(tasks))
	sides := make([][]float64, len(tasks))
	for j, t := range tasks {
		ctxs[j], sides[j] = t.Context, t.Real.Side
	}
	opt := PredictOptions{Samples: 16, Seed: m.Config.Train.Seed, Refine: refine, keepStart: true}
	preds, err := m.predictWith(ctx, ctxs, sides, opt, spread)
	if err == nil || ctx.Err() != nil {
		return tasks, preds, err
	}
	var keptTasks []sims.Task
	var kept []Prediction
	for j := range tasks {
		o := opt
		o.First = j
		p, err := m.predictWith(ctx, ctxs[j:j+1], sides[j:j+1], o, spread)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err == nil {
			keptTasks, kept = append(keptTasks, tasks[j]), append(kept, p[0])
		}
	}
	if len(kept) == 0 {
		return nil, nil, fmt.Errorf("every realization failed: %w", err)
	}
	return keptTasks, kept, nil
}

// CalibrationConditions are the conditions RecalibrateConditions fits a
// system's scales at: every context size of SmallContexts and
// ConditionContexts at every noise level of ConditionNoises, spanning
// the explorer's sliders.
func CalibrationConditions(sys sims.System) []Condition {
	return GridOf(append(slices.Clone(SmallContexts), ConditionContexts(sys)...), ConditionNoises, false)
}

// RecalibrateConditions fits the table of condition-dependent scales of
// the default predictions (SpreadFit.Conditions) and, for a model that
// refines by default, of its one-pass predictions
// (RecalibrateOnePassConditions): at each condition of
// CalibrationConditions, n validation realizations (the validation
// stream, never the test stream) predicted with the fitted spread mode
// and profile, then the reconstruction's and the discrepancy's scales
// minimising their mean ECE and θ's 95% interval scale (as Recalibrate
// fits its single scales), the median σ̂, and the shapes of θ's
// intervals and of the two bands. Every other setting is kept; the
// single scales stay for predictions outside the table. A model that
// does not refine by default gets the one pass's θ floors and factors
// in its default table (onePassDefault).
func (m *Model) RecalibrateConditions(ctx context.Context, n int) error {
	if n < 1 {
		return fmt.Errorf("recalibrate: need at least one realization per condition, got %d", n)
	}
	cells, err := m.fitConditionTable(ctx, n, rawSpread(m.Config.Infer.SpreadFit), -1)
	if err != nil {
		return err
	}
	if in := m.Config.Infer; in.Refine > 0 && in.OnePass != nil {
		if err := m.RecalibrateOnePassConditions(ctx, n); err != nil {
			return err
		}
	}
	m.Config.Infer.Conditions = cells.cells
	if m.onePassDefault() {
		m.Config.Infer.ThetaFloor = cells.thetaFloor
	}
	return nil
}

// onePassDefault reports whether m's default prediction is its one
// pass (it does not refine by default): its default fit then holds the
// one-pass parts, θ's floors and factors and δ's θ term, that a
// refining model's one-pass fit (Infer.OnePass) holds.
func (m *Model) onePassDefault() bool { return m.Config.Infer.Refine <= 0 }

// onePassPrediction reports whether predictions with refine refinement
// steps (-1: the model's default) are one pass.
func (m *Model) onePassPrediction(refine int) bool {
	return refine == 0 || refine < 0 && m.onePassDefault()
}

// RecalibrateOnePassConditions fits the one-pass predictions' own table
// of scales and θ's floors and factors (thetabase.go) as
// RecalibrateConditions fits the default's: the explorer shows the one
// pass while its sliders move, at every condition. A model without a
// one-pass fit of its own (one that does not refine by default, whose
// one pass is its default prediction) is refused.
func (m *Model) RecalibrateOnePassConditions(ctx context.Context, n int) error {
	in := &m.Config.Infer
	if in.Refine <= 0 || in.OnePass == nil {
		return noOnePassFit(*in, "fit")
	}
	if n < 1 {
		return fmt.Errorf("recalibrate: need at least one realization per condition, got %d", n)
	}
	t, err := m.fitConditionTable(ctx, n, rawSpread(*in.OnePass), 0)
	if err != nil {
		return err
	}
	op := *in.OnePass
	op.Conditions, op.ThetaFloor = t.cells, t.thetaFloor
	in.OnePass = &op
	return nil
}

// noOnePassFit is the error of a partial recalibration of the one-pass
// fit (what: "fit" or "table") on a model in without one, with the advice
// that gives it one: a model that does not refine by default needs a
// refinement count first, since a whole recalibration of it fits only
// its default prediction, which is the one pass.
func noOnePassFit(in Infer, what string) error {
	if in.Refine <= 0 {
		return fmt.Errorf("recalibrate: the model has no one-pass %s of its own: it does not refine by default (refine %d), so its one pass is its default prediction; give it refinement steps to get one (apic train --init FILE --steps1 0 --steps2 0 --refine 5)", what, in.Refine)
	}
	return fmt.Errorf("recalibrate: the model has no one-pass %s of its own (it was recalibrated before one-pass %ss existed): recalibrate it whole", what, what)
}

// conditionTable is what fitConditionTable fits.
type conditionTable struct {
	cells      []ConditionScale
	thetaFloor []float64 // θ's floors (one pass only)
}

// fitConditionTable fits a table of scales for predictions with refine
// refinement steps made under base (a spread without scales), on n
// validation realizations per condition. For the one pass (refine 0, or
// -1 for a model that does not refine by default) it also fits θ's
// floors and each cell's factors per parameter (thetabase.go) and the
// table's scales scale their deviations.
func (m *Model) fitConditionTable(ctx context.Context, n int, base SpreadFit, refine int) (conditionTable, error) {
	var t conditionTable
	var data []cellSample
	for _, ic := range m.tableConditions() {
		sample, err := m.conditionSample(ctx, ic, n, &base, refine)
		if err != nil {
			return t, err
		}
		data = append(data, sample)
		t.cells = append(t.cells, m.conditionCell(ic.cond, sample, m.onePassPrediction(refine)))
	}
	params := m.Sys.Params()
	if m.onePassPrediction(refine) {
		t.thetaFloor = fitThetaFloor(data, params)
		fitThetaFactors(t.cells, data, SpreadFit{ThetaFloor: t.thetaFloor}, params)
	}
	fitThetaScalesAsRead(t.cells, data, params, conditionThetaLevel)
	fitThetaShapes(t.cells, data, params)
	m.fitBandShapes(t.cells, data)
	return t, nil
}

// fitThetaFactors floors the deviations of data's predictions under
// floor, fits each cell's factors per parameter on its own sample
// (cellThetaFactors), scales every prediction's deviations by the
// factors it reads and restarts each cell's θ scale from its own sample
// so scaled.
func fitThetaFactors(cells []ConditionScale, data []cellSample, floor SpreadFit, params []sims.Param) {
	P := len(params)
	for i, d := range data {
		for _, p := range d.preds {
			floor.applyThetaFloor(p.ThetaStd)
		}
		cells[i].ThetaParam = cellThetaFactors(d, P)
	}
	applyThetaFactors(cells, data, P)
	for i, d := range data {
		cells[i].Theta = cellThetaStart(params, d, cells[i].ThetaPrior)
	}
}

// applyThetaFactors scales the θ deviations of each cell's predictions
// in data (one sample per cell of cells) by the factors per parameter
// they read from the table, as a prediction reads them.
func applyThetaFactors(cells []ConditionScale, data []cellSample, P int) {
	for i, d := range data {
		for _, p := range d.preds {
			r := factorsAt(cells, cellWeights(cells, cells[i].Context, contextNoiseStd(p.NoiseStd)), P)
			for q := range r {
				p.ThetaStd[q] *= r[q]
			}
		}
	}
}

// conditionCell fits one cell's own scales, prior weight and median σ̂
// on its validation sample (the θ scale is where fitThetaScalesAsRead
// starts), δ's band scale likelihood-aware with likelihoodAware
// (cellBandScale): the reconstruction's stays the ECE's, where a
// likelihood-aware one cost the one-pass grid's recon ECE target in
// cells of every system (docs/uncertainty.md, "The one pass").
func (m *Model) conditionCell(cond Condition, d cellSample, likelihoodAware bool) ConditionScale {
	tasks, preds := d.tasks, d.preds
	n, deltas := len(tasks), taskDiscrepancies(tasks)
	cell := ConditionScale{Context: cond.Context, Noise: cond.Noise}
	cell.ThetaPrior = thetaPriorWeight(m.Sys.Params(), tasks, preds)
	cell.Theta = cellThetaStart(m.Sys.Params(), d, cell.ThetaPrior)
	recon := func(j int) ([]float64, []float64, []float64) { return preds[j].Mean, preds[j].Std, tasks[j].Real.True }
	delta := func(j int) ([]float64, []float64, []float64) { return preds[j].DeltaMean, preds[j].DeltaStd, deltas[j] }
	cell.Recon = cellBandScale(tasks, m.Sys, cond.Context, recon, false)
	cell.Delta = cellBandScale(tasks, m.Sys, cond.Context, delta, likelihoodAware)
	sig := make([]float64, n)
	for j, p := range preds {
		sig[j] = contextNoiseStd(p.NoiseStd)
	}
	slices.Sort(sig)
	cell.NoiseStd = sig[n/2]
	return cell
}

// cellBandScale is a band's scale at a cell of context size n, on its
// realizations tasks (get gives a realization's mean, deviations and
// truth): the one that minimises their ECE (bestScale), or with
// likelihoodAware the one nearest the likelihood's scale among those
// within likelihoodECETol of that ECE (likelihoodAwareScale); and below
// the calibration grid, where a band is judged by its LL (issue 21:
// wide, not wrong), never narrower than the likelihood's scale.
func cellBandScale(tasks []sims.Task, sys sims.System, n int, get func(int) (mu, sd, truth []float64), likelihoodAware bool) float64 {
	var s float64
	if likelihoodAware {
		s = likelihoodAwareScale(tasks, sys, get)
	} else {
		s, _ = bestScale(tasks, sys, get)
	}
	if slices.Contains(SmallContexts, n) {
		s = max(s, likelihoodScale(tasks, sys, get))
	}
	return s
}

// likelihoodECETol is how much mean ECE a likelihood-aware band scale
// may give up against the ECE's own: the tolerance of δ's time profile
// and of the disagreement weights.
const likelihoodECETol = 0.01

// likelihoodAwareScale is the factor of bestScale's grid nearest (in
// log) the likelihood's scale (likelihoodScale) among those whose mean
// ECE is within likelihoodECETol of the least. Where the errors are
// heavier-tailed than the band, the ECE's scale is too narrow for the
// few far ones, which pull the mean LL down, while the ECE is flat
// around its least: the one pass's tables are fitted so
// (docs/uncertainty.md, "The one pass").
func likelihoodAwareScale(tasks []sims.Task, sys sims.System, get func(int) (mu, sd, truth []float64)) float64 {
	scales, sums := scaleECESums(tasks, sys, get)
	least := math.Inf(1)
	for _, e := range sums {
		least = min(least, e)
	}
	if math.IsInf(least, 1) || math.IsNaN(least) {
		return 1
	}
	target := math.Log(likelihoodScale(tasks, sys, get))
	best, gap := 1.0, math.Inf(1)
	for k, e := range sums {
		if e/float64(len(tasks)) > least/float64(len(tasks))+likelihoodECETol {
			continue
		}
		if d := math.Abs(math.Log(scales[k]) - target); d < gap {
			best, gap = scales[k], d
		}
	}
	return best
}

// cellThetaStart is a cell's own θ scale with prior weight rho on its
// sample (1 where no parameter has a deviation).
func cellThetaStart(params []sims.Param, d cellSample, rho float64) float64 {
	shrunk := withPriorWeight(params, d.preds, rho)
	if s := thetaScaleAt(d.tasks, shrunk, conditionThetaLevel); s > 0 {
		return s
	}
	return 1
}

// rawSpread is the spread a table's validation realizations are
// predicted with: s without its single scales, its table and its base
// deviation of θ.
func rawSpread(s SpreadFit) SpreadFit {
	s.StdScale, s.DeltaStdScale, s.ThetaStdScale, s.Conditions = 0, 0, 0, nil
	s.ThetaFloor = nil
	return s
}

// indexedCondition is a condition of CalibrationConditions and its
// index there, which seeds its validation realizations.
type indexedCondition struct {
	i    int
	cond Condition
}

// tableConditions returns the conditions of CalibrationConditions that
// the table has a cell for, in order: those whose context leaves at
// least one target on the system's grid.
func (m *Model) tableConditions() []indexedCondition { return tableConditionsOf(m.Sys) }

// conditionSample draws and predicts the n validation realizations of
// condition ic under spread: the same realizations for the same model
// seed, condition index and n.
func (m *Model) conditionSample(ctx context.Context, ic indexedCondition, n int, spread *SpreadFit, refine int) (cellSample, error) {
	cond := ic.cond
	rng := rand.New(rand.NewPCG(m.Config.Train.Seed^0xc0dd1^uint64(ic.i)<<20, valStream))
	tasks, err := drawTasks(ctx, m.Sys, rng, n, cond.Context, cond.Noise)
	if err != nil {
		return cellSample{}, fmt.Errorf("recalibrate: condition %+v: %w", cond, err)
	}
	tasks, preds, err := m.predictKept(ctx, tasks, spread, refine)
	if err != nil {
		return cellSample{}, fmt.Errorf("recalibrate: condition %+v: %w", cond, err)
	}
	return cellSample{tasks: tasks, preds: preds}, nil
}

// RecalibrateThetaShapes fits only the θ interval shapes of the model's
// table (fitThetaShapes) on the n validation realizations per condition
// that RecalibrateConditions draws, keeping every scale and prior
// weight. The table must be the one RecalibrateConditions fits: one
// cell per condition of CalibrationConditions that the grid has room
// for.
func (m *Model) RecalibrateThetaShapes(ctx context.Context, n int) error {
	in := m.Config.Infer
	cells := slices.Clone(in.Conditions)
	data, err := m.tableSamples(ctx, n, cells, rawSpread(in.SpreadFit), -1)
	if err != nil {
		return err
	}
	if m.onePassDefault() {
		// The shapes were fitted to the deviations with the one pass's
		// floors and factors, as fitConditionTable fits them.
		P := len(m.Sys.Params())
		for _, d := range data {
			for _, p := range d.preds {
				in.applyThetaFloor(p.ThetaStd)
			}
		}
		applyThetaFactors(cells, data, P)
	}
	fitThetaShapes(cells, data, m.Sys.Params())
	m.Config.Infer.Conditions = cells
	return nil
}

// RecalibrateBandShapes fits only the shapes of the reconstruction's
// and δ's bands (fitBandShapes) of the model's table and, where it has
// one, of its one-pass table, on the n validation realizations per
// condition that RecalibrateConditions draws, keeping every scale. The
// tables must be the ones RecalibrateConditions fits.
func (m *Model) RecalibrateBandShapes(ctx context.Context, n int) error {
	in := &m.Config.Infer
	cells := slices.Clone(in.Conditions)
	data, err := m.tableSamples(ctx, n, cells, rawSpread(in.SpreadFit), -1)
	if err != nil {
		return err
	}
	m.fitBandShapes(cells, data)
	var op *SpreadFit
	if in.Refine > 0 && in.OnePass != nil && len(in.OnePass.Conditions) > 0 {
		o := *in.OnePass
		o.Conditions = slices.Clone(o.Conditions)
		data, err := m.tableSamples(ctx, n, o.Conditions, rawSpread(o), 0)
		if err != nil {
			return fmt.Errorf("one pass: %w", err)
		}
		m.fitBandShapes(o.Conditions, data)
		op = &o
	}
	in.Conditions = cells
	if op != nil {
		in.OnePass = op
	}
	return nil
}

// tableSamples draws and predicts, with refine refinement steps under
// base, the n validation realizations per condition of
// RecalibrateConditions for the table cells, with the cells each
// prediction reads. The table must be one RecalibrateConditions fits:
// one cell per condition of CalibrationConditions that the grid has
// room for.
func (m *Model) tableSamples(ctx context.Context, n int, cells []ConditionScale, base SpreadFit, refine int) ([]cellSample, error) {
	if n < 1 {
		return nil, fmt.Errorf("recalibrate: need at least one realization per condition, got %d", n)
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("recalibrate: the model has no table of scales per condition: fit it first (--recalibrate-only conditions)")
	}
	var data []cellSample
	for _, ic := range m.tableConditions() {
		cond, k := ic.cond, len(data)
		if k >= len(cells) || cells[k].Context != cond.Context || cells[k].Noise != cond.Noise {
			return nil, fmt.Errorf("recalibrate: the model's table of %d cells is not the grid of conditions (context %d, noise %g is cell %d): fit the whole table (--recalibrate-only conditions)", len(cells), cond.Context, cond.Noise, k)
		}
		sample, err := m.conditionSample(ctx, ic, n, &base, refine)
		if err != nil {
			return nil, err
		}
		sample.reads = make([][]cellWeight, len(sample.preds))
		for j, p := range sample.preds {
			sample.reads[j] = cellWeights(cells, cond.Context, contextNoiseStd(p.NoiseStd))
		}
		data = append(data, sample)
	}
	if len(data) != len(cells) {
		return nil, fmt.Errorf("recalibrate: the model's table has %d cells, the grid of conditions %d: fit the whole table (--recalibrate-only conditions)", len(cells), len(data))
	}
	return data, nil
}

// NoiseInterval returns the 95% interval of the estimated noise σ̂_c of
// each channel of a prediction made from context ctx: σ̂² on ν degrees of
// freedom (the channel's observations less what refinement's fit used
// up, at least one) gives ν σ̂²/σ² ~ χ²_ν. A
// channel without observations gets [0, +Inf).
func NoiseInterval(p Prediction, ctx sims.Context) (lo, hi []float64) {
	c := len(p.NoiseStd)
	counts := make([]float64, c)
	for i := range ctx.Mask {
		for ch, ok := range ctx.Mask[i] {
			if ok && ch < c {
				counts[ch]++
			}
		}
	}
	lo, hi = make([]float64, c), make([]float64, c)
	for ch := range lo {
		dof := counts[ch]
		if ch < len(p.usedDOF) {
			dof -= p.usedDOF[ch]
		}
		nu := math.Max(dof, 1)
		if counts[ch] == 0 {
			lo[ch], hi[ch] = 0, math.Inf(1)
			continue
		}
		chi := distuv.ChiSquared{K: nu}
		s := p.NoiseStd[ch]
		lo[ch] = s * math.Sqrt(nu/chi.Quantile(0.975))
		hi[ch] = s * math.Sqrt(nu/chi.Quantile(0.025))
	}
	return lo, hi
}
