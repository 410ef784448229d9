package core

import (
	"context"
	"fmt"
	"math"
	"slices"

	"apic/nets"
	"apic/sims"
)

// DeltaTheta is the one-pass δ band's share of θ's uncertainty: the
// variance that θ's error carries into δ̂ = ŷ − F(x; θ̂) through the
// nominal simulator, the prediction ŷ held where the context pins it,
//
//	v_g = w Σ_q (∂F_g/∂θ_q)² r_q² (σ_q² + b_q²),
//
// added to δ's variance under the table's scale (applySpread). σ_q is
// the prediction's own deviation of θ_q (its samples' spread), b_q and
// r_q the one-pass table's floor and mean factor of θ_q when the term
// was fitted, and w the weight fitted at each condition of the table
// (Cells, read as the table's scales are read: cellWeights), 0 where
// the term does not help (RecalibrateOnePassDeltaTheta).
//
// Why: a one-pass prediction's θ samples spread far less than θ's error
// (the one-pass table's factors r_q reach 24 on lv's α), and δ's
// samples move only as far as θ's do, so δ's band missed most of what
// θ's error does to δ̂: lv/anp's worst realizations missed δ by nine
// deviations, for a mean δ LL of −1.1 (docs/uncertainty.md, "The one
// pass"). Refined predictions do not need it: refinement's Laplace
// posterior moves θ and the latents together.
type DeltaTheta struct {
	Factor []float64        `json:"factor"`
	Floor  []float64        `json:"floor,omitempty"`
	Cells  []DeltaThetaCell `json:"cells"`
}

// DeltaThetaCell is the θ term's weight at one condition of the table
// it was fitted on: the cell's context size and median σ̂, as in
// ConditionScale.
type DeltaThetaCell struct {
	Context  int     `json:"context"`
	NoiseStd float64 `json:"noise_std"`
	Weight   float64 `json:"weight"`
}

func (c DeltaThetaCell) place() (int, float64) { return c.Context, c.NoiseStd }

// maxDeltaThetaWeight bounds a stored weight: the fit tries at most
// 2¹², and a weight near float64's range would overflow δ's band.
const maxDeltaThetaWeight = 1 << 20

// weight is the term's weight at a context of n points with estimated
// noise sigma.
func (d *DeltaTheta) weight(n int, sigma float64) float64 {
	w := 0.0
	for _, cw := range cellWeights(d.Cells, n, sigma) {
		w += cw.w * d.Cells[cw.cell].Weight
	}
	return w
}

// check reports factors or floors beyond maxThetaBase parameters, of
// unequal counts, negative or not finite, and cells beyond
// LimitConditionCells, none, or with a context below 1, a σ̂ negative
// or not finite, or a weight outside [0, maxDeltaThetaWeight].
func (d *DeltaTheta) check() error {
	if d == nil {
		return nil
	}
	if err := LimitConditionCells.Check(len(d.Cells)); err != nil {
		return fmt.Errorf("δ's θ term: %w", err)
	}
	if len(d.Cells) == 0 {
		return fmt.Errorf("δ's θ term has no cells")
	}
	for i, c := range d.Cells {
		if c.Context < 1 || !(c.NoiseStd >= 0) || math.IsInf(c.NoiseStd, 0) || !(c.Weight >= 0 && c.Weight <= maxDeltaThetaWeight) {
			return fmt.Errorf("δ's θ term cell %d (context %d, σ̂ %g, weight %g): context must be ≥ 1, σ̂ finite and ≥ 0, the weight in [0, %d]", i, c.Context, c.NoiseStd, c.Weight, maxDeltaThetaWeight)
		}
	}
	if len(d.Factor) > maxThetaBase || len(d.Floor) > maxThetaBase {
		return fmt.Errorf("δ's θ term for %d parameters: at most %d", max(len(d.Factor), len(d.Floor)), maxThetaBase)
	}
	if len(d.Floor) != 0 && len(d.Floor) != len(d.Factor) {
		return fmt.Errorf("δ's θ term has %d factors and %d floors: they must be as many", len(d.Factor), len(d.Floor))
	}
	for _, v := range slices.Concat(d.Factor, d.Floor) {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("δ's θ term factor or floor %v: must be finite and ≥ 0", v)
		}
	}
	return nil
}

// variance adds to v (one value per grid value) the term's variance at
// weight w for a prediction with θ deviations std and nominal Jacobian
// jac (jac[q·G + g] = ∂F_g/∂θ_q, G = len(v)).
func (d *DeltaTheta) variance(v []float64, w float64, std, jac []float64) {
	if w == 0 {
		return
	}
	G := len(v)
	for q, r := range d.Factor {
		s2 := 0.0
		if q < len(std) {
			s2 = std[q] * std[q]
		}
		if q < len(d.Floor) {
			s2 += d.Floor[q] * d.Floor[q]
		}
		c := w * r * r * s2
		if c == 0 {
			continue
		}
		for g, j := range jac[q*G : (q+1)*G] {
			v[g] += c * j * j
		}
	}
}

// nominalJacobians returns ∂F/∂θ on the grid at each of thetas (with
// its side information; row q of a Jacobian: the derivative in θ_q), by
// forward differences of the model's nominal simulator (NominalOp,
// whose F gives δ̂ = ŷ − F), with steps of a millionth of the prior's
// width, backward where the step would leave the prior's support: F is
// smooth in θ and a band needs two digits of it. The B·(P + 1) solves
// run as one batch.
func nominalJacobians(sys sims.System, thetas, sides [][]float64) [][]float64 {
	params := sys.Params()
	P, B := len(params), len(thetas)
	S := sys.Side().Len
	th, sd := nets.NewTensor(B*(P+1), P), nets.NewTensor(B*(P+1), S)
	steps := make([]float64, B*P)
	for b, theta := range thetas {
		for r := range P + 1 {
			copy(th.Row(b*(P+1)+r), theta)
			copy(sd.Row(b*(P+1)+r), sides[b])
		}
		for q, p := range params {
			h := 1e-6 * (p.Hi - p.Lo)
			if theta[q]+h > p.Hi {
				h = -h
			}
			row := th.Row(b*(P+1) + q + 1)
			row[q] = theta[q] + h
			steps[b*P+q] = row[q] - theta[q] // the step as rounded
		}
	}
	tp := nets.NewInferenceTape()
	f := sys.NominalOp(tp, tp.Const(th), sd).Value
	G := f.Cols
	jacs := make([][]float64, B)
	for b := range jacs {
		jac := make([]float64, P*G)
		f0 := f.Row(b * (P + 1))
		for q := range P {
			f1, row := f.Row(b*(P+1)+q+1), jac[q*G:(q+1)*G]
			for g := range row {
				row[g] = (f1[g] - f0[g]) / steps[b*P+q]
			}
		}
		jacs[b] = jac
	}
	return jacs
}

// nominalJacobian is nominalJacobians at one θ.
func nominalJacobian(sys sims.System, theta, side []float64) []float64 {
	return nominalJacobians(sys, [][]float64{theta}, [][]float64{side})[0]
}

// deltaThetaWeights are the weights w the fit tries on the θ term at
// each condition besides 0: 2⁻⁶ … 2¹² (lv/anp's samples, after the
// table's factors, spread θ up to thirty times less than its error at
// two context points: w = 2¹⁰).
var deltaThetaWeights = func() []float64 {
	var ws []float64
	for k := -6; k <= 12; k++ {
		ws = append(ws, math.Ldexp(1, k))
	}
	return ws
}()

// deltaThetaECESlack is how much the fit lets a condition's mean δ ECE
// rise for a higher δ LL: the ECE is what the condition table targets
// (docs/uncertainty.md), the LL what the θ term mends.
const deltaThetaECESlack = 0.005

// RecalibrateOnePassDeltaTheta fits the one-pass δ band's θ term
// (DeltaTheta) of a model that refines by default, on the n validation
// realizations per condition that RecalibrateOnePassConditions draws,
// then refits the one-pass table under it; of a model that does not,
// whose default prediction is the one pass, it fits the term of the
// default fit and refits the default table (RecalibrateConditions). The term's floors are the
// one-pass table's θ floors b_q, its factors r_q the geometric means
// over the table's cells of θ_q's factor, and its weight at each
// condition the one of 0 and deltaThetaWeights whose bands, the cell's
// δ scale refitted (bestScale), give the cell's realizations the
// highest mean δ LL with a mean δ ECE at most deltaThetaECESlack above
// the bands without the term. Where every weight is 0 the model keeps
// no term and its table is left as it was.
func (m *Model) RecalibrateOnePassDeltaTheta(ctx context.Context, n int) error {
	in := &m.Config.Infer
	// A model that does not refine by default holds its one pass's fit
	// as its default one, and its default table is the one-pass table.
	fit, set, refit := in.OnePass, func(f *SpreadFit) { in.OnePass = f }, m.RecalibrateOnePassConditions
	if m.onePassDefault() {
		fit, set, refit = &in.SpreadFit, func(f *SpreadFit) { in.SpreadFit = *f }, m.RecalibrateConditions
		if len(fit.Conditions) == 0 {
			return fmt.Errorf("recalibrate: the model has no table of scales per condition to fit δ's θ term on: recalibrate it whole")
		}
	} else if fit == nil || len(fit.Conditions) == 0 {
		return noOnePassFit(*in, "table")
	}
	base := rawSpread(*fit)
	base.DeltaTheta = nil
	cells := fit.Conditions
	data, err := m.tableSamples(ctx, n, cells, base, 0)
	if err != nil {
		return err
	}
	hd := deltaProfileFor(m.Sys.Grid(), base)
	d := deltaThetaOf(fit, len(m.Sys.Params()))
	gains := false
	for i, cs := range data {
		jacs := m.predictionJacobians(cs.preds, func(j int) []float64 { return cs.tasks[j].Real.Side })
		if err := ctx.Err(); err != nil {
			return err
		}
		w := m.cellDeltaThetaWeight(cs, jacs, hd, d)
		d.Cells = append(d.Cells, DeltaThetaCell{Context: cells[i].Context, NoiseStd: cells[i].NoiseStd, Weight: w})
		gains = gains || w > 0
	}
	if !gains {
		return nil
	}
	before := *fit
	op := before
	op.DeltaTheta = d
	set(&op)
	if err := refit(ctx, n); err != nil {
		set(&before)
		return err
	}
	return nil
}

// predictionJacobians returns the nominal Jacobians at the θ̂ of preds,
// side(j) the side information of preds[j], in batches of at most
// jacobianBatch realizations.
func (m *Model) predictionJacobians(preds []Prediction, side func(j int) []float64) [][]float64 {
	jacs := make([][]float64, 0, len(preds))
	for lo := 0; lo < len(preds); lo += jacobianBatch {
		hi := min(lo+jacobianBatch, len(preds))
		thetas, sides := make([][]float64, 0, hi-lo), make([][]float64, 0, hi-lo)
		for j := lo; j < hi; j++ {
			thetas, sides = append(thetas, preds[j].Theta), append(sides, side(j))
		}
		jacs = append(jacs, nominalJacobians(m.Sys, thetas, sides)...)
	}
	return jacs
}

// jacobianBatch bounds the realizations whose Jacobians share a batch of
// solves: advdiff's B·(P + 1) fields of 4096 values each stay near 4 MB.
const jacobianBatch = 40

// deltaThetaOf is the θ term, without cells, for the one-pass fit op of
// a system with P parameters.
func deltaThetaOf(op *SpreadFit, P int) *DeltaTheta {
	d := &DeltaTheta{Factor: make([]float64, P), Floor: slices.Clone(op.ThetaFloor)}
	for q := range d.Factor {
		acc, k := 0.0, 0
		for _, c := range op.Conditions {
			if q < len(c.ThetaParam) {
				acc += math.Log(c.ThetaParam[q])
				k++
			}
		}
		d.Factor[q] = 1
		if k > 0 {
			d.Factor[q] = math.Exp(acc / float64(k))
		}
	}
	return d
}

// cellDeltaThetaWeight is the weight of the term d at one condition, on
// its realizations cs (predicted without the term; jacs their nominal
// Jacobians): see RecalibrateOnePassDeltaTheta.
func (m *Model) cellDeltaThetaWeight(cs cellSample, jacs [][]float64, hd []float64, d *DeltaTheta) float64 {
	deltas := taskDiscrepancies(cs.tasks)
	ll0, ece0 := m.deltaThetaScore(cs, deltas, jacs, hd, d, 0)
	best, bestW := ll0, 0.0
	for _, w := range deltaThetaWeights {
		if ll, ece := m.deltaThetaScore(cs, deltas, jacs, hd, d, w); ll > best && ece <= ece0+deltaThetaECESlack {
			best, bestW = ll, w
		}
	}
	return bestW
}

// deltaThetaScore returns the mean δ LL and ECE over one condition's
// realizations cs (deltas their true discrepancies) of δ bands with the
// term d at weight w, under the δ scale fitted on them as conditionCell
// fits it; hd is δ's time profile (nil: flat).
func (m *Model) deltaThetaScore(cs cellSample, deltas, jacs [][]float64, hd []float64, d *DeltaTheta, w float64) (ll, ece float64) {
	stds := make([][]float64, len(cs.preds))
	for j, p := range cs.preds {
		stds[j] = deltaStdWith(p, jacs[j], hd, d, w)
	}
	get := func(j int) ([]float64, []float64, []float64) { return cs.preds[j].DeltaMean, stds[j], deltas[j] }
	s := cellBandScale(cs.tasks, m.Sys, cs.tasks[0].Context.Len(), get, true)
	for j, task := range cs.tasks {
		for g := range stds[j] {
			stds[j][g] *= s
		}
		idx := targetValues(m.Sys, task.Targets)
		ll += GaussianLL(cs.preds[j].DeltaMean, stds[j], deltas[j], idx)
		ece += ECE(cs.preds[j].DeltaMean, stds[j], deltas[j], idx)
	}
	return ll / float64(len(cs.tasks)), ece / float64(len(cs.tasks))
}

// deltaStdWith is p's δ deviations (predicted without the θ term) with
// the term d at weight w added under δ's time profile hd (nil: flat).
func deltaStdWith(p Prediction, jac, hd []float64, d *DeltaTheta, w float64) []float64 {
	out := slices.Clone(p.DeltaStd)
	v := make([]float64, len(out))
	d.variance(v, w, p.ThetaStd, jac)
	for g := range out {
		h := 1.0
		if hd != nil {
			h = hd[g]
		}
		out[g] = math.Sqrt(out[g]*out[g] + h*h*v[g])
	}
	return out
}
