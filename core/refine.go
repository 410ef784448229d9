package core

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"apic/nets"
	"apic/sims"
)

// Semi-amortized refinement. The encoders give, in one pass, a posterior
// whose mean is close to the answer; refinement then polishes it on the
// realization's own context by a few Levenberg–Marquardt steps on the
// negative log posterior of v = (a, z_δ), where θ = exp(log lo +
// sigmoid(a)·(log hi − log lo)):
//
//	E(v) = ½ Σ_{i,c} ((ŷ_c(x_i; v) − y_ic)/σ_c)² + ½‖(z_δ − μ_δ)/σ_δ‖² + ½‖(a − a₀)/σ_a‖²
//
// with the encoder's posterior q(z_δ | C) = N(μ_δ, σ_δ²) as the prior of
// z_δ (σ_δ = 1 for the deterministic cnp), a₀ the encoder's θ estimate
// and a weak prior σ_a keeping θ near it. With Infer.ZThetaPrior = c > 0,
// v also holds z_θ (the physics latent f_ψ reads), with prior
// N(μ_θ, (c·σ_θ)²): widening the encoder's posterior lets the fit use
// directions of f_ψ that a collapsed z_δ no longer moves. The point
// prediction is the decode at the optimum v*; the predictive spread comes
// from the Laplace approximation N(v*, (JᵀJ)⁻¹), sampled K times. Where
// the closure has a tangent (refine_jacobian.go) the Jacobian by v (n =
// P + L_δ coordinates, plus L_θ when z_θ is refined) is exact, each step
// costs one linearization of the decoder (about two decodes), the fit
// stops once it converges and the samples go through the linearization;
// otherwise each step costs a decode and n+1 more for forward
// differences, and the samples are decoded.

// refineSigmaA is σ_a, the width of the θ logits' prior around the
// encoder's estimate.
const refineSigmaA = 2.0

// refineStep is the forward-difference step in v.
const refineStep = 1e-6

// obsTerm is one observed value as a weighted sum of grid values.
type obsTerm struct {
	idx   []int
	w     []float64
	y     float64
	sigma float64
}

// contextTerms expands a context into observation terms on the grid
// prediction: on-grid points read one value, off-grid points interpolate
// multilinearly between the surrounding grid points.
func (m *Model) contextTerms(ctx sims.Context, obsVar []float64) ([]obsTerm, error) {
	terms, _, err := m.appendContextTerms(nil, nil, ctx, obsVar)
	return terms, err
}

// termWeightOne is the weight slice of every on-grid term (never written).
var termWeightOne = []float64{1}

// appendContextTerms is contextTerms appending to terms, with the terms'
// index slices in idx (both may be a previous call's storage, cut to
// length 0); it returns both grown.
func (m *Model) appendContextTerms(terms []obsTerm, idx []int, ctx sims.Context, obsVar []float64) ([]obsTerm, []int, error) {
	g := m.Sys.Grid()
	c := len(g.Channels)
	var axes [][]float64 // the grid's axes, built at the first off-grid point
	var period []float64 // and their periods
	// The terms' index slices share one backing array (an append that
	// moves it leaves the earlier terms on the old one, which nothing
	// writes again); on-grid points (the usual case) share one weight
	// slice. Neither is written later.
	terms = slices.Grow(terms, len(ctx.States)*c)
	idx = slices.Grow(idx, len(ctx.States)*c)
	one := termWeightOne
	for i, st := range ctx.States {
		gi, ws := ctx.GridIndex[i], one
		var pts []int
		if gi < 0 {
			if axes == nil {
				axes, period = productAxes(g, 1), periods(g)
			}
			var err error
			if pts, ws, err = multilinear(axes, period, st); err != nil {
				return nil, nil, err
			}
		}
		for ch := 0; ch < c; ch++ {
			if !ctx.Mask[i][ch] {
				continue
			}
			start := len(idx)
			if gi >= 0 {
				idx = append(idx, gi*c+ch)
			} else {
				for _, p := range pts {
					idx = append(idx, p*c+ch)
				}
			}
			terms = append(terms, obsTerm{y: ctx.Values[i][ch], sigma: math.Sqrt(obsVar[ch]), w: ws, idx: idx[start:len(idx):len(idx)]})
		}
	}
	return terms, idx, nil
}

// periods returns, per state dimension of g, the length of its domain
// when the dimension wraps around, else 0.
func periods(g sims.Grid) []float64 {
	ps := make([]float64, len(g.Lo))
	for d := range ps {
		if g.IsPeriodic(d) {
			ps[d] = g.Hi[d] - g.Lo[d]
		}
	}
	return ps
}

// multilinear returns the flat grid indices and weights interpolating a
// state on a product grid. Beyond an axis's last point a periodic
// dimension (period > 0) interpolates towards its first point, one
// period on; other dimensions hold the end value.
func multilinear(axes [][]float64, period []float64, st []float64) ([]int, []float64, error) {
	if len(st) != len(axes) {
		return nil, nil, fmt.Errorf("state %v has %d dimensions, grid has %d", st, len(st), len(axes))
	}
	idx, ws := []int{0}, []float64{1}
	for d, ax := range axes {
		k := lowerIndex(ax, st[d])
		var k0, k1 int
		var w1 float64
		switch {
		case k == 0:
			k0, k1, w1 = 0, 0, 0
		case k >= len(ax) && period[d] > 0:
			k0, k1 = len(ax)-1, 0
			w1 = (st[d] - ax[k0]) / (ax[0] + period[d] - ax[k0])
		case k >= len(ax):
			k0, k1, w1 = len(ax)-1, len(ax)-1, 0
		default:
			k0, k1 = k-1, k
			w1 = (st[d] - ax[k0]) / (ax[k1] - ax[k0])
		}
		var nidx []int
		var nws []float64
		for j, p := range idx {
			nidx = append(nidx, p*len(ax)+k0, p*len(ax)+k1)
			nws = append(nws, ws[j]*(1-w1), ws[j]*w1)
		}
		idx, ws = nidx, nws
	}
	return idx, ws, nil
}

// productAxes returns the axis values of each state dimension of a grid
// (a product grid when Shape is set, else one dimension), every stride-th.
func productAxes(g sims.Grid, stride int) [][]float64 {
	shape := g.Shape
	if shape == nil {
		shape = []int{g.Points()}
	}
	axes := make([][]float64, len(shape))
	for d := range shape {
		step := 1
		for _, k := range shape[d+1:] {
			step *= k
		}
		for k := 0; k < shape[d]; k += stride {
			axes[d] = append(axes[d], g.States[k*step][d])
		}
	}
	return axes
}

// refiner holds one batch's fixed encoder outputs.
type refiner struct {
	m     *Model
	b, n  int
	zT    *nets.Tensor // [B, Lθ] encoder mean of z_θ
	nT    int          // Lθ when z_θ is refined too (its values follow a in v), else 0
	zTSig *nets.Tensor // [B, Lθ] prior σ of a refined z_θ
	att   *nets.Tensor // [B*Q, H] or nil
	side  *nets.Tensor
	a0    *nets.Tensor // [B, P]
	// sigmaA [B, P] is the prior width of the logits a around a0
	// (logitPriorWidth).
	sigmaA *nets.Tensor
	z0     *nets.Tensor // [B, Lδ] encoder mean of z_δ
	zSig   *nets.Tensor // [B, Lδ] encoder σ of z_δ (1 for the deterministic cnp)
	terms  [][]obsTerm
	// tanAt and tanPos: per realization, the grid values its terms read
	// and where each term's are among them (buildTangentAt), for a
	// closure whose derivatives can be had at those values only.
	tanAt  [][]int
	tanPos [][][]int
	// hint, hintSD, hintMask [B, P]: the batch's direct estimates of s_θ
	// (Batch.Hint), nil when the model uses no hints.
	hint, hintSD, hintMask *nets.Tensor
	procs                  int // goroutines its tapes may use (Batch.procs)
	// arena is the batch's (nil: the heap): the refinement's tensors
	// live as long as the prediction, and the arena's storage is reused
	// by the next, so a refined calibration makes little garbage.
	arena *nets.Arena
	// keepStart makes the fit keep its first decode, where it started
	// (refineFit.start): the disagreement term reads it.
	keepStart bool
}

// tensor returns a zeroed [rows, cols] tensor from the refiner's arena,
// for use on the calling goroutine only (the arena is not shared).
func (r *refiner) tensor(rows, cols int) *nets.Tensor { return r.arena.Tensor(rows, cols) }

// thetaOf maps v rows to θ and s.
func (r *refiner) thetaOf(v *nets.Tensor) (theta, s *nets.Tensor) {
	P := r.a0.Cols
	theta, s = r.tensor(v.Rows, P), r.tensor(v.Rows, P)
	for i := 0; i < v.Rows; i++ {
		for p := 0; p < P; p++ {
			sv := 1 / (1 + math.Exp(-v.At(i, p)))
			s.Set(i, p, sv)
			theta.Set(i, p, math.Exp(r.m.logLo.Data[p]+sv*r.m.logSpan.Data[p]))
		}
	}
	return theta, s
}

// decode evaluates v [R, n] where row i belongs to realization i/per.
func (r *refiner) decode(v *nets.Tensor, per int) (pred, theta, f *nets.Tensor) {
	tp := nets.NewInferenceTape()
	tp.SetWorkers(r.procs)
	P := r.a0.Cols
	th, s := r.thetaOf(v)
	zD := nets.NewTensor(v.Rows, r.n-P-r.nT)
	for i := 0; i < v.Rows; i++ {
		copy(zD.Row(i), v.Row(i)[P+r.nT:])
	}
	zT, side, att := r.zT, r.side, r.att
	if per > 1 {
		zT, side = repeatRows(zT, per), repeatRows(side, per)
	}
	if r.nT > 0 {
		zT = nets.NewTensor(v.Rows, r.nT)
		for i := 0; i < v.Rows; i++ {
			copy(zT.Row(i), v.Row(i)[P:P+r.nT])
		}
	}
	if per > 1 && r.b > 1 { // one realization's samples share its attention (decode)
		if att != nil {
			q := att.Rows / r.b
			att = nets.FromSlice(r.b*per*q, att.Cols, repeatRows(nets.FromSlice(r.b, q*att.Cols, att.Data), per).Data)
		}
	}
	var attV *nets.Var
	if att != nil {
		attV = tp.Const(att)
	}
	fv, pv := r.m.decode(tp, tp.Const(th), tp.Const(s), tp.Const(zT), tp.Const(zD), attV, side)
	return pv.Value, th, fv.Value
}

// residuals of realization b at its prediction row.
func (r *refiner) residuals(b int, v, pred []float64) []float64 {
	P := r.a0.Cols
	out := make([]float64, 0, len(r.terms[b])+r.n)
	for _, t := range r.terms[b] {
		y := 0.0
		for j, k := range t.idx {
			y += t.w[j] * pred[k]
		}
		out = append(out, (y-t.y)/t.sigma)
	}
	for p := 0; p < P; p++ {
		out = append(out, (v[p]-r.a0.At(b, p))/r.sigmaA.At(b, p))
	}
	if r.hint != nil {
		for p := 0; p < P; p++ {
			if r.hintMask.At(b, p) != 0 {
				out = append(out, (1/(1+math.Exp(-v[p]))-r.hint.At(b, p))/r.hintSD.At(b, p))
			}
		}
	}
	for j, z := range v[P : P+r.nT] {
		out = append(out, (z-r.zT.At(b, j))/r.zTSig.At(b, j))
	}
	for j, z := range v[P+r.nT:] {
		out = append(out, (z-r.z0.At(b, j))/r.zSig.At(b, j))
	}
	return out
}

// fitCost is a refinement step's objective, the sum of squared
// residuals res, or +Inf when the prediction pred on the whole grid is
// not finite: with a few context points, a fit can match them all with a
// trajectory that overflows after the last one (lv at context 2: a prey
// forcing that sends both populations to infinity), which the residuals
// alone never see.
func fitCost(res, pred []float64) float64 {
	c := sumSq(res)
	if math.IsNaN(c) || !finite(pred) {
		return math.Inf(1)
	}
	return c
}

func sumSq(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// jacobianRows caps the decoder rows (realizations × perturbations ×
// query states) of one batched Jacobian decode.
const jacobianRows = 1 << 17

// jacobians returns, per realization, J = ∂residuals/∂v by forward
// differences: the n perturbed copies of every realization are decoded
// together, as few large decodes rather than n small ones.
func (r *refiner) jacobians(v *nets.Tensor, res [][]float64) []*mat.Dense {
	js := make([]*mat.Dense, r.b)
	for b := range js {
		js[b] = mat.NewDense(len(res[b]), r.n, nil)
	}
	q := max(1, len(r.m.closure.Queries()))
	chunk := max(1, min(r.n, jacobianRows/(r.b*q)))
	for j0 := 0; j0 < r.n; j0 += chunk {
		cnt := min(chunk, r.n-j0)
		vp := nets.NewTensor(r.b*cnt, r.n)
		for b := 0; b < r.b; b++ {
			for c := 0; c < cnt; c++ {
				row := vp.Row(b*cnt + c)
				copy(row, v.Row(b))
				row[j0+c] += refineStep
			}
		}
		pred, _, _ := r.decode(vp, cnt)
		for b := 0; b < r.b; b++ {
			for c := 0; c < cnt; c++ {
				rp := r.residuals(b, vp.Row(b*cnt+c), pred.Row(b*cnt+c))
				for i := range rp {
					js[b].Set(i, j0+c, (rp[i]-res[b][i])/refineStep)
				}
			}
		}
	}
	return js
}

// newRefiner runs the encoders on the batch and returns its refiner
// and the starting point v of every realization (rows).
func (m *Model) newRefiner(bt *Batch) (*refiner, *nets.Tensor, error) {
	tp := bt.inferenceTape(bt.arena)
	feats, summary := tp.Const(bt.Feats), m.batchSummary(tp, bt)
	phys := m.phys.forward(tp, feats, summary, bt.B, bt.N)
	disc := m.disc.forward(tp, feats, summary, bt.B, bt.N)
	_, s0 := m.thetaHat(tp, phys.mu)
	P, L := s0.Value.Cols, disc.mu.Value.Cols
	r := &refiner{m: m, b: bt.B, n: P + L, zT: phys.mu.Value, side: bt.Side, a0: nets.NewTensor(bt.B, P), sigmaA: nets.NewTensor(bt.B, P), procs: bt.procs, arena: bt.arena}
	if m.Config.Infer.ZThetaPrior > 0 {
		r.nT = phys.mu.Value.Cols
		r.n += r.nT
		r.zTSig = nets.NewTensor(bt.B, r.nT)
		for i, lv := range phys.logVar.Value.Data {
			r.zTSig.Data[i] = m.Config.Infer.ZThetaPrior
			if m.Config.Arch.Backbone != CNP {
				r.zTSig.Data[i] *= math.Exp(0.5 * lv)
			}
		}
	}
	if att := m.targetAttention(tp, disc, bt.B); att != nil {
		r.att = att.Value
	}
	v := nets.NewTensor(bt.B, r.n)
	for b := 0; b < bt.B; b++ {
		for p := 0; p < P; p++ {
			a := logit(s0.Value.At(b, p), 1e-9)
			r.a0.Set(b, p, a)
			r.sigmaA.Set(b, p, m.Config.Infer.ThetaPriorWidthScale()*logitPriorWidth(m.Config.Infer.ThetaPrior, s0.Value.At(b, p)))
			v.Set(b, p, a)
		}
		copy(v.Row(b)[P:], phys.mu.Value.Row(b)[:r.nT])
		copy(v.Row(b)[P+r.nT:], disc.mu.Value.Row(b))
	}
	r.z0 = disc.mu.Value
	r.zSig = nets.NewTensor(bt.B, L)
	for i, lv := range disc.logVar.Value.Data {
		r.zSig.Data[i] = 1
		if m.Config.Arch.Backbone != CNP {
			r.zSig.Data[i] = math.Exp(0.5 * lv)
		}
	}
	if m.Config.Arch.ThetaHint && bt.HintMask != nil {
		r.hint, r.hintSD, r.hintMask = bt.Hint, bt.HintSD, bt.HintMask
		// Start the fit at the hinted values, kept 1e-6 inside (0, 1): a
		// hint beyond the prior box must not start the fit where the
		// sigmoid is flat.
		for b := 0; b < bt.B; b++ {
			for p := 0; p < P; p++ {
				if r.hintMask.At(b, p) != 0 {
					v.Set(b, p, logit(r.hint.At(b, p), 1e-6))
				}
			}
		}
	}
	obsVar := m.obsVariance()
	r.terms = make([][]obsTerm, bt.B)
	for b, c := range bt.Context {
		t, err := m.contextTerms(c, obsVar)
		if err != nil {
			return nil, nil, err
		}
		r.terms[b] = t
	}
	return r, v, nil
}

// predictRefined runs the encoders, refines v for steps LM iterations and
// samples the Laplace posterior k times. ctx is checked at every
// iteration: each costs a decode and a Jacobian, and steps has no bound
// but the checkpoint's or the caller's. With withStart each prediction
// also keeps where its fit started (Prediction.startMean).
func (m *Model) predictRefined(ctx context.Context, bt *Batch, k, steps int, rng *noise, withStart bool) ([]Prediction, error) {
	r, v, err := m.newRefiner(bt)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // the encoders may have stopped early
		return nil, err
	}
	unrefined := r.thetaRows(v) // before the fit moves v
	var startNom *nets.Tensor
	if withStart {
		startNom = r.nominalAt(bt, v)
	}
	r.keepStart = withStart
	var fit *refineFit
	if tc, ok := r.tangentClosure(); ok {
		fit, err = r.fitExact(ctx, tc, v, steps)
	} else {
		fit, err = r.fitDifferences(ctx, v, steps)
	}
	if err != nil {
		return nil, err
	}
	pred, js, lin := fit.pred, fit.js, fit.lin
	var startMean, startDelta [][]float64
	if withStart {
		startMean, startDelta = startRows(fit.start, startNom)
	}
	obsVars, used := r.refitNoise(pred, js, m.obsVariance())
	samples, thetaSD := r.laplaceSamples(v, js, k, rng)
	for b, j := range js {
		releaseJacobian(j)
		js[b] = nil
	}
	var sp, th, f *nets.Tensor
	if tc, ok := r.tangentClosure(); ok && lin != nil && refineLinearSamples {
		sp, th, f = r.linearSamples(tc, lin, v, samples, k)
	} else {
		sp, th, f = r.decode(samples, k)
	}
	ntp := bt.inferenceTape(bt.arena)
	nom := m.Sys.NominalOp(ntp, ntp.Const(th), repeatRows(bt.Side, k)).Value
	// The point prediction is the decode at the mode v*: the decoder is
	// nonlinear in v, so the average of the Laplace samples is pulled
	// away from the fit to the context; the samples give the spread
	// around the mode.
	modeTheta, _ := r.thetaOf(v)
	mtp := bt.inferenceTape(bt.arena)
	modeNom := m.Sys.NominalOp(mtp, mtp.Const(modeTheta), bt.Side).Value
	preds := m.collapseAround(bt.B, k, sp, nom, th, f, obsVars, &center{pred: pred, nom: modeNom, theta: modeTheta}, bt.procs)
	for b, sd := range thetaSD {
		if sd != nil {
			copy(preds[b].ThetaStd, sd)
		}
	}
	for b := range preds {
		preds[b].usedDOF, preds[b].UnrefinedTheta = used[b], unrefined[b]
		if withStart {
			preds[b].startMean, preds[b].startDelta = startMean[b], startDelta[b]
		}
	}
	return preds, nil
}

// nominalAt is the nominal simulator at the θ of v's rows.
func (r *refiner) nominalAt(bt *Batch, v *nets.Tensor) *nets.Tensor {
	theta, _ := r.thetaOf(v)
	tp := bt.inferenceTape(bt.arena)
	return r.m.Sys.NominalOp(tp, tp.Const(theta), bt.Side).Value
}

// startRows returns each realization's prediction where its fit
// started, start, and its δ there: start less the simulator nom at the
// starting θ.
func startRows(start [][]float64, nom *nets.Tensor) (mean, delta [][]float64) {
	delta = make([][]float64, len(start))
	for b, row := range start {
		delta[b] = slices.Clone(row)
		for g, n := range nom.Row(b) {
			delta[b][g] -= n
		}
	}
	return start, delta
}

// thetaRows is θ at each row of v, copied out of the refiner's arena.
func (r *refiner) thetaRows(v *nets.Tensor) [][]float64 {
	theta, _ := r.thetaOf(v)
	out := make([][]float64, v.Rows)
	for b := range out {
		out[b] = slices.Clone(theta.Row(b))
	}
	return out
}

// refitNoise re-estimates every realization's observation noise from
// its context residuals at the fit (reestimateNoise) and rescales the
// Jacobians' data rows to it, returning the variances per grid value
// and, per realization, the degrees of freedom the fit used per channel
// (its leverages' sums).
//
// The learned noise σ_c describes the one-pass prediction's error;
// after refinement the fit is closer, so each realization's noise is
// re-estimated from its context residuals, counting the degrees of
// freedom the fit used up and shrunk toward the learned value: with few
// points the fit can be exact, and RSS/n would collapse the spread. The
// Laplace approximation and the predictive variance both use σ̂. The
// Jacobian at v* under the learned σ gives the leverages; its data rows
// are r/σ, so they are rescaled to σ̂ exactly.
func (r *refiner) refitNoise(pred *nets.Tensor, js []*mat.Dense, learned []float64) (obsVars, used [][]float64) {
	obsVars, used = make([][]float64, r.b), make([][]float64, r.b)
	for b := range r.b {
		lev := dataLeverages(js[b], len(r.terms[b]))
		used[b] = r.leverageByChannel(b, lev)
		old := make([]float64, len(r.terms[b]))
		for i, t := range r.terms[b] {
			old[i] = t.sigma
		}
		obsVars[b] = r.reestimateNoise(b, pred.Row(b), learned, lev)
		for i, t := range r.terms[b] {
			row := js[b].RawRowView(i)
			for j := range row {
				row[j] *= old[i] / t.sigma
			}
		}
	}
	return obsVars, used
}

// laplaceSamples draws k samples per realization (rows b·k … b·k+k−1)
// from the Laplace approximation v ~ N(v*, (JᵀJ)⁻¹) at the fit v, and
// returns them with θ's deviations (nil for a realization whose JᵀJ is
// not positive definite; its samples are then all v*).
//
// θ's deviations are the Laplace covariance's, carried through θ's map
// to first order, not the spread of the k samples: the samples' spread
// is a noisy estimate whose intervals covered more the more samples
// were drawn (advdiff/lnp at 1024 points, σ = 0.05: 0.963, 0.980, 0.993
// and 0.998 of θ at 8, 16, 32 and 64 samples), so that scales fitted at
// one sample count missed at another.
func (r *refiner) laplaceSamples(v *nets.Tensor, js []*mat.Dense, k int, rng *noise) (samples *nets.Tensor, thetaSD [][]float64) {
	samples = r.tensor(r.b*k, r.n)
	eps := make([]float64, r.n)
	thetaSD = make([][]float64, r.b)
	for b := range r.b {
		chol := laplaceFactor(js[b])
		if chol != nil {
			thetaSD[b] = r.thetaStd(v.Row(b), chol)
		}
		for j := range k {
			row := samples.Row(b*k + j)
			copy(row, v.Row(b))
			if chol == nil || k == 1 {
				continue
			}
			for i := range eps {
				eps[i] = rng.normal(b)
			}
			// row += L ε with Σ = L Lᵀ.
			for i := range r.n {
				acc := 0.0
				for q := 0; q <= i; q++ {
					acc += chol.At(i, q) * eps[q]
				}
				row[i] += acc
			}
		}
	}
	return samples, thetaSD
}

// refineFit is a refinement's result: the fitted v (in place), the
// prediction there [B, G], the residuals and their Jacobian, and with
// exact Jacobians the decoder's linearization at v (else nil).
type refineFit struct {
	pred *nets.Tensor
	res  [][]float64
	js   []*mat.Dense
	lin  *linearization
	// start is each realization's prediction where the fit started,
	// copied out of the first decode (refiner.keepStart; nil without).
	start [][]float64
}

// startPreds copies the rows of pred, the decode at the v a fit starts
// from, when the refiner keeps where fits start; nil otherwise. The fit
// decodes there anyway, and later moves overwrite pred's rows.
func (r *refiner) startPreds(pred *nets.Tensor) [][]float64 {
	if !r.keepStart {
		return nil
	}
	out := make([][]float64, pred.Rows)
	for b := range out {
		out[b] = slices.Clone(pred.Row(b))
	}
	return out
}

// lmInit returns the residuals, cost and starting damping of every
// realization at its prediction pred.
func (r *refiner) lmInit(v, pred *nets.Tensor) (res [][]float64, cost, lambda []float64) {
	res, cost, lambda = make([][]float64, r.b), make([]float64, r.b), make([]float64, r.b)
	for b := range res {
		res[b] = r.residuals(b, v.Row(b), pred.Row(b))
		cost[b] = fitCost(res[b], pred.Row(b))
		lambda[b] = 1e-2
	}
	return res, cost, lambda
}

// lmRejectDamping is the least damping after a rejected step. The
// damping scales JᵀJ's diagonal by 1 + λ, so below about 0.1 a larger λ
// hardly shortens the step: at the λ ≈ 10⁻³ that accepted steps leave
// behind, multiplying by 4 proposed nearly the same step again, and a
// rejected step (where the linear model overstates the gain: a ReLU
// decoder's kinks, lv's nonlinearity) was usually followed by more, each
// costing a linearization. From 0.3 on the retried step is shorter in
// every direction, and refinement ends closer to the data
// (TestRejectDampingLowersError; 0 restores the plain ×4 rule).
var lmRejectDamping = 0.3

// lmAccepted is the damping after an accepted step.
func lmAccepted(lambda float64) float64 { return math.Max(lambda/3, 1e-9) }

// lmRejected is the damping after a rejected step: four times as much,
// and at least lmRejectDamping.
func lmRejected(lambda float64) float64 {
	return math.Min(math.Max(lambda*4, lmRejectDamping), 1e9)
}

// lmCandidates returns v moved by each realization's Levenberg–Marquardt
// step (unmoved where the step fails or skip says so).
func (r *refiner) lmCandidates(v *nets.Tensor, js []*mat.Dense, res [][]float64, lambda []float64, skip []bool) *nets.Tensor {
	cand := v.Clone()
	for b := 0; b < r.b; b++ {
		if skip != nil && skip[b] {
			continue
		}
		step, ok := lmStep(js[b], res[b], lambda[b])
		if !ok {
			continue
		}
		for j, d := range step {
			cand.Set(b, j, cand.At(b, j)+d)
		}
	}
	return cand
}

// fitDifferences refines v for steps Levenberg–Marquardt iterations with
// forward-difference Jacobians: each decodes the candidates and builds
// the Jacobian at the current point (n+1 decodes).
func (r *refiner) fitDifferences(ctx context.Context, v *nets.Tensor, steps int) (*refineFit, error) {
	pred, _, _ := r.decode(v, 1)
	start := r.startPreds(pred)
	res, cost, lambda := r.lmInit(v, pred)
	for it := 0; it < steps; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cand := r.lmCandidates(v, r.jacobians(v, res), res, lambda, nil)
		cp, _, _ := r.decode(cand, 1)
		for b := 0; b < r.b; b++ {
			rc := r.residuals(b, cand.Row(b), cp.Row(b))
			if c := fitCost(rc, cp.Row(b)); c < cost[b] {
				copy(v.Row(b), cand.Row(b))
				res[b], cost[b] = rc, c
				lambda[b] = lmAccepted(lambda[b])
			} else {
				lambda[b] = lmRejected(lambda[b])
			}
		}
	}
	pred, _, _ = r.decode(v, 1)
	for b := 0; b < r.b; b++ {
		res[b] = r.residuals(b, v.Row(b), pred.Row(b))
	}
	return &refineFit{pred: pred, res: res, js: r.jacobians(v, res), start: start}, nil
}

// thetaStd is the standard deviation of θ under the Laplace
// approximation N(v*, L Lᵀ) at the mode v, by the delta method: with
// θ_p = exp(log lo_p + s_p·span_p), s_p = sigmoid(a_p),
//
//	sd(θ_p) = θ_p · span_p · s_p(1 − s_p) · √(L Lᵀ)_pp.
//
// It is every refined prediction's θ deviation, whatever the number of
// samples drawn (predictRefined).
func (r *refiner) thetaStd(v []float64, chol *mat.TriDense) []float64 {
	P := r.a0.Cols
	out := make([]float64, P)
	for p := range out {
		va := 0.0
		for q := 0; q <= p; q++ {
			l := chol.At(p, q)
			va += l * l
		}
		sv := 1 / (1 + math.Exp(-v[p]))
		th := math.Exp(r.m.logLo.Data[p] + sv*r.m.logSpan.Data[p])
		out[p] = th * r.m.logSpan.Data[p] * sv * (1 - sv) * math.Sqrt(va)
	}
	return out
}

// logit is log(s/(1 − s)), the θ logit of a normalised s, with s kept
// within [eps, 1 − eps] so that an estimate at or beyond the prior's
// edge stays finite.
func logit(s, eps float64) float64 {
	s = math.Min(math.Max(s, eps), 1-eps)
	return math.Log(s / (1 - s))
}

// noiseFloor is the smallest re-estimated noise variance, relative to the
// learned one: only a guard against zero, since a near-exact fit (advdiff
// cnp) must be allowed a near-zero spread to stay calibrated. At 10⁻⁸
// (a deviation 10⁻⁴ of the learned one) it still bound on advdiff
// without noise, where the shipped cnp fits some realizations to 10⁻⁶
// and its band stayed at the floor's 5·10⁻⁶, several times too wide
// (TestNoiseFloorLetsExactFitsShrink).
const noiseFloor = 1e-12

// reestimateNoise sets the σ of realization b's observation terms from
// its residuals per channel and returns the variance per grid value:
// RSS/(n − p), where p is the sum of the channel's leverages (lev, one
// per term; nil: none), the degrees of freedom the fit used up, falling
// back to the learned variance when few are left
// (shrunkNoiseVar). RSS/n would collapse whenever the fit can match the
// few points exactly. The spread is then set by the post-hoc scale of
// recalibrate.go.
func (r *refiner) reestimateNoise(b int, pred []float64, learned []float64, lev []float64) []float64 {
	g := r.m.Sys.Grid()
	c := len(g.Channels)
	rss := make([]float64, c)
	dof := make([]float64, c)
	for i, t := range r.terms[b] {
		ch := t.idx[0] % c
		y := 0.0
		for j, k := range t.idx {
			y += t.w[j] * pred[k]
		}
		rss[ch] += (y - t.y) * (y - t.y)
		dof[ch]++
		if lev != nil {
			dof[ch] -= lev[i]
		}
	}
	chVar := make([]float64, c)
	for ch := range chVar {
		chVar[ch] = shrunkNoiseVar(rss[ch], dof[ch], learned[ch])
	}
	for i := range r.terms[b] {
		r.terms[b][i].sigma = math.Sqrt(chVar[r.terms[b][i].idx[0]%c])
	}
	out := make([]float64, g.Size())
	for i := range out {
		out[i] = chVar[i%c]
	}
	return out
}

// leverageByChannel sums realization b's term leverages (nil: none) per
// channel.
func (r *refiner) leverageByChannel(b int, lev []float64) []float64 {
	c := len(r.m.Sys.Grid().Channels)
	out := make([]float64, c)
	if lev == nil {
		return out
	}
	for i, t := range r.terms[b] {
		out[t.idx[0]%c] += lev[i]
	}
	return out
}

// noisePriorDOF is how many degrees of freedom the residuals need
// before the noise estimate is theirs alone: one residual is no
// estimate (spring's point at t = 0, which the initial condition fixes,
// has leverage 0 and a zero residual).
const noisePriorDOF = 3

// shrunkNoiseVar estimates a noise variance from a residual sum of
// squares rss on dof degrees of freedom (observations less the fit's
// effective parameters): RSS/dof with at least noisePriorDOF degrees
// left, and below that a blend toward the learned variance σ₀², all of
// it at none,
//
//	σ̂² = w σ₀² + (1 − w) RSS / max(dof, 1),   w = max(0, 1 − dof/noisePriorDOF),
//
// floored at noiseFloor·σ₀²; σ₀² when it is not finite. The learned
// noise describes the one-pass error and is often orders of magnitude
// above a refined fit's residuals (advdiff's), so it weighs only where
// the data say next to nothing, never as pseudo-observations beside
// many real ones.
func shrunkNoiseVar(rss, dof, learned float64) float64 {
	w := math.Min(1, math.Max(0, 1-dof/noisePriorDOF))
	v := w*learned + (1-w)*rss/math.Max(dof, 1)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = learned
	}
	return math.Max(v, noiseFloor*learned)
}

// dataLeverages returns the leverages of the first m rows of the
// Jacobian j (the data rows; the rest are prior rows), the diagonal of
// J (JᵀJ)⁻¹ Jᵀ: each in [0, 1], their sum the fit's effective number of
// parameters. nil when JᵀJ is singular.
func dataLeverages(j *mat.Dense, m int) []float64 {
	_, n := j.Dims()
	g, release := gram(j)
	defer release()
	for i := 0; i < n; i++ {
		g.Data[i*g.Stride+i] += 1e-12
	}
	u, ok := cholesky(g)
	if !ok {
		return nil
	}
	if m == 0 {
		return []float64{}
	}
	// With JᵀJ = UᵀU, leverage i is ‖j_i U⁻¹‖²: one triangular solve
	// for all data rows at once, on a copy of them.
	raw := j.RawMatrix()
	buf := gramBuffers.Get(m * n)
	defer gramBuffers.Put(buf)
	for i := 0; i < m; i++ {
		copy(buf[i*n:(i+1)*n], raw.Data[i*raw.Stride:i*raw.Stride+n])
	}
	if n <= smallDense {
		var inv [smallDense]float64
		for c := range n {
			inv[c] = 1 / u.Data[c*u.Stride+c]
		}
		trsmRightUpper(u.Data, u.Stride, n, inv[:n], buf, m)
	} else {
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u, blas64.General{Rows: m, Cols: n, Stride: n, Data: buf})
	}
	lev := make([]float64, m)
	for i := range lev {
		lev[i] = math.Min(1, math.Max(0, sumSq(buf[i*n:(i+1)*n])))
	}
	return lev
}

// lmStep solves (JᵀJ + λ diag(JᵀJ) + εI) δ = −Jᵀr by Cholesky.
//
// The factorizations here (and dataLeverages') call LAPACK directly
// rather than through mat.Cholesky, whose condition estimate after every factorization
// (LAPACK's dpocon) and allocations cost 12–19 % of a spring
// refinement's CPU time (BenchmarkCalibrate/spring/lnp/refined). The
// systems are small (at most 36 coordinates), and the pivots of the
// factor bound the condition number from below, cond ≥ (max u_ii /
// min u_ii)²: a factor whose bound passes mat.ConditionTolerance is
// refused, as mat.Cholesky's solves refused one whose estimate did.
func lmStep(j *mat.Dense, res []float64, lambda float64) ([]float64, bool) {
	_, n := j.Dims()
	a, release := gram(j)
	defer release()
	for i := 0; i < n; i++ {
		a.Data[i*a.Stride+i] = a.Data[i*a.Stride+i]*(1+lambda) + 1e-12
	}
	u, ok := cholesky(a)
	if !ok {
		return nil, false
	}
	// g = Jᵀr, row by row of J.
	raw := j.RawMatrix()
	g := make([]float64, n)
	for i, ri := range res {
		if ri == 0 {
			continue
		}
		for c, x := range raw.Data[i*raw.Stride : i*raw.Stride+n] {
			g[c] += x * ri
		}
	}
	if n <= smallDense {
		potrsUpper(u.Data, u.Stride, n, g)
	} else {
		lapack64.Potrs(u, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: g})
	}
	for i := range g {
		g[i] = -g[i]
	}
	return g, true
}

// cholesky factors a = UᵀU in place, failing where a is not positive
// definite or its pivots' condition bound passes mat.ConditionTolerance.
func cholesky(a blas64.Symmetric) (blas64.Triangular, bool) {
	u, ok := lapack64.Potrf(a)
	if !ok {
		return u, false
	}
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < u.N; i++ {
		d := math.Abs(u.Data[i*u.Stride+i])
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return u, (hi/lo)*(hi/lo) <= mat.ConditionTolerance
}

// symNorm1 is the 1-norm (largest column sum of magnitudes) of a
// symmetric matrix stored in its upper triangle.
func symNorm1(a blas64.Symmetric) float64 {
	var stack [smallDense]float64
	col := stack[:0]
	if a.N <= smallDense {
		col = stack[:a.N]
	} else {
		col = make([]float64, a.N)
	}
	for i := 0; i < a.N; i++ {
		for q := i; q < a.N; q++ {
			v := math.Abs(a.Data[i*a.Stride+q])
			col[q] += v
			if q != i {
				col[i] += v
			}
		}
	}
	return slices.Max(col)
}

// gram returns JᵀJ (at least its upper triangle, which its readers use)
// in pooled storage that release hands back once the caller, who may
// overwrite it, is done. The product runs on the engine's kernel:
// gonum's Dsyrk, row by row, took 7 % of a refined spring calibration at
// these sizes (n ≤ 36 columns).
func gram(j *mat.Dense) (a blas64.Symmetric, release func()) {
	raw := j.RawMatrix()
	n := raw.Cols
	buf := gramBuffers.Get(n * n)
	a = blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: buf}
	if raw.Stride == n {
		jt := nets.FromSlice(raw.Rows, n, raw.Data[:raw.Rows*n])
		nets.MatMulInto(nets.FromSlice(n, n, a.Data), jt, jt, true, false)
	} else {
		blas64.Syrk(blas.Trans, 1, raw, 0, a) // beta 0: a's old values are not read
	}
	return a, func() { gramBuffers.Put(buf) }
}

// gramBuffers holds gram's matrices: an LM step, the leverages and the
// Laplace factor each form one.
var gramBuffers nets.FloatPool

// laplaceFactor returns the lower Cholesky factor of (JᵀJ)⁻¹, or nil if
// JᵀJ is singular. Where JᵀJ is too ill-conditioned to factor (its
// condition number is J's squared: a near-exact fit's rows, scaled by a
// tiny σ̂, beside the prior's), the factor comes from J itself
// (laplaceFactorQR).
func laplaceFactor(j *mat.Dense) *mat.TriDense {
	_, n := j.Dims()
	a, release := gram(j)
	defer release()
	norm := symNorm1(a)
	u, ok := cholesky(a)
	if !ok {
		return laplaceFactorQR(j)
	}
	// With the inverse at hand the condition number is exact.
	inv, ok := lapack64.Potri(u)
	if !ok || norm*symNorm1(inv) > mat.ConditionTolerance {
		return laplaceFactorQR(j)
	}
	// Factor (JᵀJ)⁻¹ = VᵀV in place; L = Vᵀ.
	v, ok := cholesky(inv)
	if !ok {
		return laplaceFactorQR(j)
	}
	l := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for q := i; q < n; q++ {
			l.SetTri(q, i, v.Data[i*v.Stride+q])
		}
	}
	return l
}

// laplaceFactorQR returns a lower-triangular L with L Lᵀ = (JᵀJ)⁻¹ from
// the QR factorization of J with its columns reversed, J P = Q R (P the
// reversal), without forming JᵀJ:
//
//	(JᵀJ)⁻¹ = P R⁻¹ R⁻ᵀ P = L Lᵀ,   L = P R⁻¹ P,
//
// lower triangular because R⁻¹ is upper. R's condition number is J's,
// the square root of JᵀJ's, so this factors fits whose JᵀJ is beyond
// Cholesky's reach in float64. nil where R is singular or its condition
// passes mat.ConditionTolerance.
func laplaceFactorQR(j *mat.Dense) *mat.TriDense {
	m, n := j.Dims()
	if m < n {
		return nil
	}
	rev := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < n; c++ {
			rev.Set(i, n-1-c, j.At(i, c))
		}
	}
	var qr mat.QR
	qr.Factorize(rev)
	var r mat.Dense
	qr.RTo(&r)
	// Rows of R signed to a positive diagonal (Q's columns absorb the
	// signs): L is then the Cholesky factor, with its positive diagonal.
	upper := mat.NewTriDense(n, mat.Upper, nil)
	for i := 0; i < n; i++ {
		sign := 1.0
		if r.At(i, i) < 0 {
			sign = -1
		}
		for c := i; c < n; c++ {
			upper.SetTri(i, c, sign*r.At(i, c))
		}
	}
	var inv mat.TriDense
	if err := inv.InverseTri(upper); err != nil {
		return nil
	}
	l := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for c := 0; c <= i; c++ {
			l.SetTri(i, c, inv.At(n-1-i, n-1-c))
		}
	}
	return l
}

// The forms of refinement's prior on θ's logits (Infer.ThetaPrior).
const (
	// ThetaPriorLogit is N(a₀, σ_a²) on every logit.
	ThetaPriorLogit = "logit"
	// ThetaPriorTheta is N(a₀, (σ_a / 4s₀(1 − s₀))²), s₀ = sigmoid(a₀):
	// the logit prior's strength carried to θ at the encoder's estimate,
	// the same wherever a₀ lies.
	ThetaPriorTheta = "theta"
)

// ThetaPriors lists the forms, the default first.
var ThetaPriors = []string{ThetaPriorLogit, ThetaPriorTheta}

// ThetaPriorForm names the form of θ's prior refinement uses with in:
// the stored one, or the logit form where a file stores none.
func (in Infer) ThetaPriorForm() string {
	if in.ThetaPrior != "" {
		return in.ThetaPrior
	}
	return ThetaPriorLogit
}

// ThetaPriorWords names the prior on θ's logits refinement uses with
// in: its form, and the factor on its width where that is not 1
// ("theta ×10").
func (in Infer) ThetaPriorWords() string {
	if k := in.ThetaPriorWidthScale(); k != 1 {
		return fmt.Sprintf("%s ×%g", in.ThetaPriorForm(), k)
	}
	return in.ThetaPriorForm()
}

// The bounds of Infer.ThetaPriorScale: a thousandfold wider prior
// leaves θ to the data alone, and one a hundred times narrower holds it
// at the encoder's estimate.
const (
	MinThetaPriorScale = 0.01
	MaxThetaPriorScale = 1000.0
)

// MaxZThetaPrior bounds Infer.ZThetaPrior: a prior on z_θ a thousand
// times the encoder's posterior already leaves z_θ to the data.
const MaxZThetaPrior = 1000.0

// ThetaPriorWidthScale is the factor on the width of θ's prior that
// refinement uses with in: the stored one, or 1 where a file stores
// none.
func (in Infer) ThetaPriorWidthScale() float64 {
	if in.ThetaPriorScale != 0 {
		return in.ThetaPriorScale
	}
	return 1
}

// maxLogitPriorWidth caps the θ form's width at ten times σ_a, reached
// where s₀ is within about 2.5% of a bound. Wider, the prior no longer
// holds a logit whose data are wild: a context with one value far off
// (TestOutlierWarningOffGrid) sent spring's θ̂ to the other bound and
// the misfit into the noise estimate, where a cap of 20 keeps the fit,
// and the outlier it names, as the logit form has them.
const maxLogitPriorWidth = 10 * refineSigmaA

// logitPriorWidth is the width of the prior on a logit whose encoder
// estimate is s₀ = sigmoid(a₀), in the form named (ThetaPriors; ""
// is the logit form). θ's map θ = lo + (hi − lo)·s flattens toward its
// bounds (dθ/da = (hi − lo)·s(1 − s), and as much for a log-scaled θ in
// log θ), so there the data pin a down loosely. A fixed σ_a then pulls θ̂
// toward the encoder's estimate, and so toward the interior, by several
// of its deviations (spring, context 30: 3 of 11 intervals at a bound
// held θ); the θ form widens the prior where the map flattens, as a
// prior of fixed width in θ would be in a.
func logitPriorWidth(form string, s0 float64) float64 {
	if form != ThetaPriorTheta {
		return refineSigmaA
	}
	return min(maxLogitPriorWidth, refineSigmaA/max(4*s0*(1-s0), 1e-12))
}
