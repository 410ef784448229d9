package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"apic/nets"
	"apic/sims"
)

// Prediction is the predictive distribution for one realization on the
// grid (layout as sims.Grid), collapsed from K Monte-Carlo latent samples
// to mean and standard deviation:
//
//	mean = (1/K) Σ_k ŷ_k,   var = σ_obs² + (1/K) Σ_k (ŷ_k − mean)²
//
// before the spread calibration (spread.go), which rescales the two
// terms per checkpoint (and, after refinement, centres the sample term on
// the mode). The discrepancy δ̂_k = ŷ_k − F(x; θ̂_k) is collapsed the
// same way (its variance includes σ_obs² because it is measured in
// observation space).
type Prediction struct {
	Mean, Std           []float64
	DeltaMean, DeltaStd []float64
	Nominal             []float64 // F(x; θ̂) averaged over samples
	// Theta and ThetaStd are θ̂ and its deviation over the samples (for
	// a refined CNP, which draws one, the Laplace deviation).
	Theta, ThetaStd []float64
	// ThetaShape is the shape of each parameter's intervals at the
	// context's condition (thetashape.go; ThetaHalfWidth reads it): nil
	// where they are Gaussian (no table of shapes, a baseline's θ).
	ThetaShape []ThetaShape
	// ReconShape and DeltaShape are the shapes of the function bands
	// (Std, DeltaStd) at the context's condition: nil where the
	// checkpoint has none, and the bands are Gaussian.
	ReconShape, DeltaShape *BandShape
	// UnrefinedTheta is θ̂ where refinement started, the network's one
	// pass at the encoders' mean latent (a hinted parameter's hint): nil
	// for a prediction that did not refine. Eval compares its error with
	// the refined θ̂'s, since refinement can hide a network that learned
	// little (refinementCarriesWarnings).
	UnrefinedTheta []float64
	// Clipped reports that the closure's output sat at a clip for most
	// samples (e.g. a reaction rate at its bound).
	Clipped bool
	// Failed says why the prediction failed, for a call with
	// PredictOptions.KeepFailed (empty when it did not); the other
	// fields of a failed prediction are not to be used.
	Failed string

	// NoiseStd is σ̂, the estimated observation noise of the context per
	// channel: the noise term of the spread (spread.go). The function
	// band (Std, DeltaStd) is for the true function G; the observation
	// band for a new noisy observation y adds it (ObservationStd).
	NoiseStd []float64

	// usedDOF is, per channel, the degrees of freedom refinement's fit
	// used up (its leverages' sum; nil for one-pass predictions), and
	// thetaScale θ's interval scale at the context's condition (0: the
	// fit's single scale); spread.go sets and reads them.
	usedDOF    []float64
	thetaScale float64
	// thetaParam is each parameter's factor on its deviation at the
	// context's condition (nil: none).
	thetaParam []float64
	thetaPrior float64 // the prior's weight in θ at the condition (shrinkTheta)

	// sampleVarY and sampleVarD are the latent samples' variances before
	// the noise term, noiseVar the model's noise variance per value
	// (spread.go recombines them).
	sampleVarY, sampleVarD, noiseVar []float64
	// nominalJac is ∂F/∂θ at θ̂ (deltatheta.go), set on one-pass
	// predictions only for their spread's θ term, and dropped after it.
	nominalJac []float64
	// startMean and startDelta are the prediction and δ where a refined
	// fit started, the decode at the encoders' mean latent: the
	// disagreement term of the spread (disagree.go) reads how far the
	// fit moved from them. nil for one-pass predictions, and for refined
	// ones whose spread has no such term.
	startMean, startDelta []float64
	// moveWidening is the largest ratio of the reconstruction's band to
	// its own after the widening by the fit's move (0: not widened).
	moveWidening float64
}

// ObservationStd returns the deviation of the observation band per grid
// value: the function band's deviation (Std) with the estimated noise σ̂
// of its channel added in quadrature, the spread of a new noisy
// observation y rather than of the true function G. Without a noise
// estimate (a prediction not made by Predict) it is Std.
func (p Prediction) ObservationStd() []float64 {
	out := make([]float64, len(p.Std))
	c := len(p.NoiseStd)
	for g, sd := range p.Std {
		out[g] = sd
		if c > 0 {
			n := p.NoiseStd[g%c]
			out[g] = math.Sqrt(sd*sd + n*n)
		}
	}
	return out
}

// Predict runs amortized inference for contexts of any sizes with k
// latent samples each (k is forced to 1 for the deterministic CNP). The
// latent noise comes from a source seeded with seed.
func (m *Model) Predict(ctxs []sims.Context, sides [][]float64, k int, seed uint64) ([]Prediction, error) {
	return m.PredictWith(ctxs, sides, PredictOptions{Samples: k, Seed: seed, Refine: -1})
}

// PredictOptions configure PredictWith.
type PredictOptions struct {
	Samples int    // Monte-Carlo latent samples
	Seed    uint64 // seed of the latent noise
	// First is the stream index of the call's first realization:
	// realization i draws from stream First+i of Seed (see
	// realizationNoise), so that a caller predicting one realization of
	// a larger set can give it the draws it has in the set.
	First int
	// Theta, when set, overrides θ̂ for every realization (one row per
	// realization): the simulator and f_ψ both see the given parameters,
	// so the prediction shows what the learned correction does on top of
	// physics the user chose — the identifiability lesson.
	Theta [][]float64
	// Refine is the number of refinement steps (refine.go); negative uses
	// the model's Config.Infer.Refine. Ignored with a θ override.
	Refine int
	// KeepFailed returns a realization whose prediction diverged (every
	// latent sample non-finite) marked in Prediction.Failed, instead of
	// failing the call: an evaluation over many realizations must not
	// lose them all to one.
	KeepFailed bool
	// keepStart keeps where each refined fit started
	// (Prediction.startMean) whatever the spread: validation
	// realizations carry it for fits that read it (disagree.go,
	// bandshapefit.go).
	keepStart bool
	// predicted, when set, is told how many realizations were just
	// predicted as each piece of a batch is done; it may be called from
	// several goroutines at once. It changes nothing predicted: the
	// batches are the same, as an ANP's one-pass prediction's last bits
	// depend on the batch it is in, and smaller batches would make every
	// refined prediction slower.
	predicted func(n int)
}

// ErrDiverged is the error of a realization whose every latent sample
// gave a non-finite prediction.
var ErrDiverged = errors.New("every latent sample gave a non-finite prediction" + divergedSuffix)

// Problem says why p cannot be scored: the reason it failed, or the
// first of its mean, std, discrepancy, discrepancy std or θ that is not
// finite (samples that overflow without diverging can give an infinite
// std), named as calibrate's table and Runaway name them; "" when it
// can.
func (p Prediction) Problem() string {
	if p.Failed != "" {
		return p.Failed
	}
	for _, f := range []struct {
		name string
		vals []float64
	}{{"the prediction", p.Mean}, {"the prediction std", p.Std}, {"the discrepancy", p.DeltaMean}, {"the discrepancy std", p.DeltaStd}, {"θ̂", p.Theta}} {
		if !finite(f.vals) {
			return f.name + " is not finite"
		}
	}
	return ""
}

// SamplesDrawn is how many latent samples a prediction of a model of
// backbone b asked for k draws: k, or one for the deterministic CNP.
// The reports record it; the explorer's help quotes it.
func (b Backbone) SamplesDrawn(k int) int {
	if b == CNP {
		return 1
	}
	return k
}

// samplesDrawn is SamplesDrawn for m's backbone.
func (m *Model) samplesDrawn(k int) int { return m.Config.Arch.Backbone.SamplesDrawn(k) }

// PredictWith is Predict with options.
func (m *Model) PredictWith(ctxs []sims.Context, sides [][]float64, o PredictOptions) ([]Prediction, error) {
	return m.predictWith(context.Background(), ctxs, sides, o, nil)
}

// PredictContext is PredictWith stopped by ctx: it checks ctx between
// batches and between refinement steps (many steps, or many
// realizations, can take long) and then returns ctx's error.
func (m *Model) PredictContext(ctx context.Context, ctxs []sims.Context, sides [][]float64, o PredictOptions) ([]Prediction, error) {
	return m.predictWith(ctx, ctxs, sides, o, nil)
}

// predictWith is PredictContext with the spread setting given (nil: the
// model's for the number of refinement steps).
func (m *Model) predictWith(ctx context.Context, ctxs []sims.Context, sides [][]float64, o PredictOptions, spread *SpreadFit) ([]Prediction, error) {
	k, seed := o.Samples, o.Seed
	refine := o.Refine
	if refine < 0 {
		refine = m.Config.Infer.Refine
	}
	if o.Theta != nil {
		refine = 0
	}
	if spread == nil {
		spread = m.spreadFor(refine)
	}
	if err := m.checkPredictInputs(ctxs, sides, o); err != nil {
		return nil, err
	}
	k = m.samplesDrawn(k)
	rngs := realizationNoise(seed, o.First, len(ctxs))
	out := make([]Prediction, len(ctxs))
	// Group realizations by context size (a batch shares N), and cap the
	// batch (batchCap).
	maxB := m.batchCap(k)
	order, groups, err := groupByContextSize(ctxs)
	if err != nil {
		return nil, err
	}
	// A batch runs in independent pieces, one per core: the network's
	// products already use every core, but the per-realization features,
	// moments, refinement fits and spread fits would otherwise run on
	// one. Each realization's arithmetic and random draws are the same in
	// any piece.
	pieces := runtime.GOMAXPROCS(0)
	for _, n := range order {
		idx := groups[n]
		for lo := 0; lo < len(idx); lo += maxB {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			part := idx[lo:min(lo+maxB, len(idx))]
			np := max(1, min(pieces, len(part)/minPiece))
			size := (len(part) + np - 1) / np
			procs := 0 // the pieces share the cores: each runs on one
			if np > 1 || m.serialAlone(len(part), k) {
				procs = 1
			}
			errs := make([]error, np)
			forEach(np, func(i int) {
				piece := part[min(i*size, len(part)):min((i+1)*size, len(part))]
				errs[i] = m.predictPart(ctx, out, piece, ctxs, sides, o, k, refine, spread, rngs, procs)
				if errs[i] == nil && o.predicted != nil {
					o.predicted(len(piece))
				}
			})
			for _, err := range errs {
				if err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// batchCap is the most realizations a prediction of k latent samples
// each runs as one batch: its largest tensors, the B·K predictions on
// the grid and f_ψ's B·K·Q rows of hidden units, stay near 8 MB.
func (m *Model) batchCap(k int) int {
	return batchCapOf(m.Sys.Grid().Size(), len(m.closure.Queries()), m.Config.Arch.DecHidden, k)
}

// batchCapOf is batchCap for a grid of gridSize values, a closure of
// queries queries and a decoder decHidden wide.
func batchCapOf(gridSize, queries, decHidden, k int) int {
	per := k * max(gridSize, queries*decHidden)
	return max(1, 1_000_000/per)
}

// checkPredictInputs checks a prediction's inputs against the model:
// one side vector of the system's length per context, at least one
// sample, and θ overrides (if any) one per realization, each positive
// and finite.
func (m *Model) checkPredictInputs(ctxs []sims.Context, sides [][]float64, o PredictOptions) error {
	if o.Theta != nil && len(o.Theta) != len(ctxs) {
		return fmt.Errorf("predict: %d θ overrides for %d realizations", len(o.Theta), len(ctxs))
	}
	for i, th := range o.Theta {
		if len(th) != len(m.Sys.Params()) {
			return fmt.Errorf("predict: θ override %d has %d values, want %d", i, len(th), len(m.Sys.Params()))
		}
		for _, v := range th {
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("predict: θ override %d must be positive and finite, got %v", i, v)
			}
		}
	}
	if len(ctxs) != len(sides) {
		return fmt.Errorf("predict: %d contexts but %d side vectors", len(ctxs), len(sides))
	}
	if o.Samples < 1 {
		return fmt.Errorf("predict: need at least one sample, got %d", o.Samples)
	}
	want := m.Sys.Side().Len
	for i, s := range sides {
		if len(s) != want {
			return fmt.Errorf("predict: realization %d has %d side values, want %d", i, len(s), want)
		}
	}
	return nil
}

// groupByContextSize groups the realizations' indices by context size
// (a batch shares N), the sizes in order of first appearance; an empty
// context is an error.
func groupByContextSize(ctxs []sims.Context) (order []int, groups map[int][]int, err error) {
	groups = map[int][]int{}
	for i, c := range ctxs {
		if c.Len() == 0 {
			return nil, nil, fmt.Errorf("predict: realization %d has an empty context", i)
		}
		if _, ok := groups[c.Len()]; !ok {
			order = append(order, c.Len())
		}
		groups[c.Len()] = append(groups[c.Len()], i)
	}
	return order, groups, nil
}

// minPiece is the fewest realizations worth a piece of their own.
const minPiece = 8

// serialAlone reports whether a prediction of b realizations with k
// samples runs faster on one core: a single realization whose decoder
// has fewer than serialRows rows, where handing work to a second core
// costs more than it saves. Spring's cnp and lnp one pass, 32 × 12 rows,
// take about 0.75× and 0.85× the time on one core in interleaved
// BenchmarkCalibrate runs; its refined calibration 0.87–0.97× (cnp),
// 0.84–1.0× (lnp) and 0.68–0.88× (anp) in interleaved
// BenchmarkAPICLatencySpring runs beside other work. lv's 32 × 100
// does not gain: its refinement took 1.07–1.09× on one core
// (BenchmarkCalibrate/lv/lnp/refined).
func (m *Model) serialAlone(b, k int) bool {
	return b == 1 && k*m.queryFeats.Rows < serialRows
}

// serialRows is the decoder size below which a single one-pass
// prediction stays on one core.
const serialRows = 1024

// predictPart predicts the realizations part of ctxs as one batch (one
// context size) into out.
func (m *Model) predictPart(ctx context.Context, out []Prediction, part []int, ctxs []sims.Context, sides [][]float64, o PredictOptions, k, refine int, spread *SpreadFit, rngs []*rand.Rand, procs int) error {
	if len(part) == 0 {
		return nil
	}
	rng := &noise{per: make([]*rand.Rand, len(part))}
	cs := make([]sims.Context, len(part))
	ss := make([][]float64, len(part))
	var th [][]float64
	for j, i := range part {
		rng.per[j], cs[j], ss[j] = rngs[i], ctxs[i], sides[i]
		if o.Theta != nil {
			th = append(th, o.Theta[i])
		}
	}
	// The batch's features and a one-pass tape's values live in a pooled
	// arena: collapse copies out everything a Prediction keeps before it
	// goes back.
	arena := getArena()
	defer putArena(arena)
	bt, err := newBatchIn(arena, m.Sys, cs, ss, nil, th)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	bt.procs, bt.done = procs, ctx.Done()
	var preds []Prediction
	if refine > 0 {
		if preds, err = m.predictRefined(ctx, bt, k, refine, rng, o.keepStart || spread.disagrees()); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	} else {
		preds = m.predictBatch(bt.inferenceTape(arena), bt, k, rng)
	}
	if err := ctx.Err(); err != nil { // the tapes may have stopped early
		return err
	}
	// The spread is set on the realizations that did not diverge.
	live, liveCtx, liveAt := preds[:0:0], cs[:0:0], []int(nil)
	for j, p := range preds {
		if !finite(p.Mean) {
			if !o.KeepFailed {
				return fmt.Errorf("predict: realization %d: %w", part[j], ErrDiverged)
			}
			preds[j] = Prediction{Failed: ErrDiverged.Error()}
			continue
		}
		live, liveCtx, liveAt = append(live, p), append(liveCtx, cs[j]), append(liveAt, j)
	}
	if refine == 0 && spread.DeltaTheta != nil && th == nil { // θ set by hand is exact
		jacs := m.predictionJacobians(live, func(l int) []float64 { return ss[liveAt[l]] })
		for l := range live {
			live[l].nominalJac = jacs[l]
		}
	}
	if err := m.applySpread(live, liveCtx, *spread, procs); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	// θ's scale is applied here, once, not in applySpread, which
	// recalibration calls again on the same predictions (it recomputes
	// the grid deviations but would compound this one).
	for l, p := range live {
		live[l].nominalJac = nil
		if th == nil { // θ set by hand is exact
			spread.applyThetaFloor(p.ThetaStd)
			for q, r := range p.thetaParam {
				p.ThetaStd[q] *= r
			}
		}
		st := spread.ThetaScale()
		if p.thetaScale > 0 {
			st = p.thetaScale
		}
		applyThetaTable(m.Sys.Params(), &p, st, p.thetaPrior)
	}
	for l, j := range liveAt {
		preds[j] = live[l]
	}
	for j, i := range part {
		out[i] = preds[j]
	}
	return nil
}

// applyThetaTable gives p's θ the condition's prior weight rho
// (shrinkTheta) and scale st, its deviation capped at the prior's: what
// a prediction reports, and what the table's fits (condtheta.go,
// thetashapefit.go) score. A deviation nearly the prior's keeps its
// condition's calibrated shape, even where that gives a 50% interval far
// narrower than a Gaussian's: at the sparse noisy conditions where such
// deviations are common, the shape's intervals cover as they say
// (docs/uncertainty.md, "The one pass"). An estimate at a prior bound
// has its interval reach the bound (reachBound).
func applyThetaTable(params []sims.Param, p *Prediction, st, rho float64) {
	shrinkTheta(params, p, rho)
	for q := range p.ThetaStd {
		p.ThetaStd[q] = reachBound(params[q], p.Theta[q], min(p.ThetaStd[q]*st, priorStd(params[q])))
	}
}

// thetaReachBound switches reachBound on; the tests of refinement's θ
// prior turn it off to see the pull toward the interior it covers.
var thetaReachBound = true

// reachBound returns the deviation sd of an estimate th of par, widened
// where th lies within boundFrac of a prior bound (AtPriorBound) so that
// th ± 1.96 sd reaches that bound. There the bounded map's slope, and
// with it the Laplace deviation, goes to 0, while the prior on the
// logits and the encoder's start pull the estimate inward: the truth
// lay between the estimate and the bound, about two deviations out, in
// most such estimates on advdiff (`apic eval --system advdiff`, "θ at a
// bound"). A deviation of 0 (no interval) stays 0.
func reachBound(par sims.Param, th, sd float64) float64 {
	if !thetaReachBound || !(sd > 0) || !AtPriorBound(par, th) {
		return sd
	}
	d := max(0, min(th-par.Lo, par.Hi-th))
	return max(sd, d/CentralZ(0.95))
}

// predictBatch is the one-pass prediction of a batch, recorded on the
// inference tape tp.
func (m *Model) predictBatch(tp *nets.Tape, bt *Batch, k int, rng *noise) []Prediction {
	var src *noise
	if k > 1 || m.Config.Arch.Backbone != CNP {
		src = rng
	}
	var override *nets.Tensor
	if bt.Theta != nil {
		override = repeatRows(bt.Theta, k)
	}
	o := m.forwardWith(tp, bt, k, src, override)
	nom := m.Sys.NominalOp(tp, o.theta, repeatRows(bt.Side, k)).Value
	preds := m.collapse(bt.B, k, o.pred.Value, nom, o.theta.Value, o.f.Value, nil, bt.procs)
	if bt.Theta != nil { // an override is exact: averaging k copies of it could round
		for b := range preds {
			copy(preds[b].Theta, bt.Theta.Row(b))
			clear(preds[b].ThetaStd)
		}
	} else if k == 1 {
		m.hintThetaStd(bt, preds)
	}
	return preds
}

// hintThetaStd gives the hinted parameters of single-sample predictions
// (a cnp's one pass) the hint's deviation carried to θ by the delta
// method,
//
//	sd(θ_q) = θ_q · (log hi_q − log lo_q) · sd_s,
//
// where sd_s is the hint's deviation in the normalised coordinate s.
// Several samples draw the hint from N(h, sd_s²) (hinted), so their
// spread carries it; one sample takes h itself and had no spread, and a
// cnp's θ intervals then came from one floor per parameter that ignored
// how precise the context's hint is (lv's η, γ: a median 0.45 at five
// clean points, 2e-4 at sixty).
func (m *Model) hintThetaStd(bt *Batch, preds []Prediction) {
	if !m.Config.Arch.ThetaHint || bt.HintMask == nil {
		return
	}
	for b := range preds {
		for q, th := range preds[b].Theta {
			if bt.HintMask.At(b, q) != 0 {
				preds[b].ThetaStd[q] = th * m.logSpan.Data[q] * bt.HintSD.At(b, q)
			}
		}
	}
}

// inferArenas recycles the storage of one-pass prediction tapes. A
// sync.Pool would drop them at every garbage collection, and a batched
// prediction's arena (tens of megabytes) would be allocated anew; this
// list keeps up to maxFreeArenas, each below maxArenaValues.
var inferArenas struct {
	sync.Mutex
	free []*nets.Arena
}

const (
	maxFreeArenas  = 4
	maxArenaValues = 16 << 20 // 128 MB
)

func getArena() *nets.Arena {
	inferArenas.Lock()
	defer inferArenas.Unlock()
	if n := len(inferArenas.free); n > 0 {
		a := inferArenas.free[n-1]
		inferArenas.free = inferArenas.free[:n-1]
		return a
	}
	return new(nets.Arena)
}

// putArena resets a and keeps it for the next prediction, unless the
// list is full or a holds more than maxArenaValues.
func putArena(a *nets.Arena) {
	a.Reset()
	if a.Cap() > maxArenaValues {
		return
	}
	inferArenas.Lock()
	defer inferArenas.Unlock()
	if len(inferArenas.free) < maxFreeArenas {
		inferArenas.free = append(inferArenas.free, a)
	}
}

// obsVariance returns σ_c² per grid value.
func (m *Model) obsVariance() []float64 {
	g := m.Sys.Grid()
	c := len(g.Channels)
	v := make([]float64, g.Size())
	// One exponential per channel, then the grid is that pattern
	// repeated (advdiff's has 4096 values of one channel).
	for ch := 0; ch < c && ch < len(v); ch++ {
		v[ch] = math.Exp(m.logNoise.Value.Data[ch])
	}
	for i := c; i < len(v); i++ {
		v[i] = v[i-c]
	}
	return v
}

// collapse reduces B·k samples (rows realization-major) of the prediction,
// the nominal at θ̂, θ̂ and the closure output to per-realization means
// and standard deviations (unscaled: applySpread sets the final ones).
// obsVars gives each realization's observation
// variance per grid value; nil uses the model's learned noise.
func (m *Model) collapse(B, k int, pred, nom, theta, f *nets.Tensor, obsVars [][]float64, procs int) []Prediction {
	return m.collapseAround(B, k, pred, nom, theta, f, obsVars, nil, procs)
}

// center is a point prediction per realization ([B, ·] rows) that
// collapseAround reports as the mean, with the samples' spread measured
// around it.
type center struct {
	pred, nom, theta *nets.Tensor
}

// collapseAround is collapse with the mean, nominal and θ̂ taken from c
// (nil: the sample averages) and the variances as mean squared
// deviations of the samples from them.
func (m *Model) collapseAround(B, k int, pred, nom, theta, f *nets.Tensor, obsVars [][]float64, c *center, procs int) []Prediction {
	out := make([]Prediction, B)
	learned := m.obsVariance()
	forEachOn(procs, B, func(b int) {
		obsVar := learned
		if obsVars != nil {
			obsVar = obsVars[b]
		}
		out[b] = m.collapseOne(b, k, sampleRows{pred, nom, theta, f}, obsVar, c)
	})
	return out
}

// sampleRows are the B·k samples collapse reduces (rows
// realization-major): the prediction, the nominal at θ̂, θ̂ and the
// closure's output.
type sampleRows struct{ pred, nom, theta, f *nets.Tensor }

// newPrediction returns a Prediction with its slices for gc grid values
// and P parameters, and the two variance accumulators, in one
// allocation (each slice capped, so that an append elsewhere cannot run
// into its neighbour).
func newPrediction(gc, P int) (p Prediction, varY, varD []float64) {
	store := make([]float64, 7*gc+2*P)
	next := func(n int) []float64 {
		v := store[:n:n]
		store = store[n:]
		return v
	}
	p = Prediction{
		Mean: next(gc), Std: next(gc), DeltaMean: next(gc), DeltaStd: next(gc),
		Nominal: next(gc), Theta: next(P), ThetaStd: next(P),
	}
	return p, next(gc), next(gc)
}

// collapseOne is collapseAround for realization b: its k samples'
// sums, then their moments.
func (m *Model) collapseOne(b, k int, s sampleRows, obsVar []float64, c *center) Prediction {
	gc, P := s.pred.Cols, s.theta.Cols
	fPer := s.f.Len() / (s.pred.Rows)
	p, varY, varD := newPrediction(gc, P)
	one := k == 1 && c == nil // a single sample's moments in one pass
	// θ's moments are accumulated as deviations from the first usable
	// sample (the shifted-data algorithm): samples that agree, such as
	// hinted parameters, then give a spread of exactly 0.
	var thRef []float64
	clipped, used := 0, 0
	for j := range k {
		r := b*k + j
		yr, nr := s.pred.Row(r), s.nom.Row(r)
		// A latent sample far in the tail can make the closure or
		// the simulator overflow; it is left out rather than
		// poisoning the mean (PredictWith fails if all are).
		if !finite(yr) || !finite(nr) {
			continue
		}
		used++
		if one {
			momentsOfOne(p, varY, varD, yr, nr, obsVar)
		} else {
			for g := range gc {
				d := yr[g] - nr[g]
				p.Mean[g] += yr[g]
				varY[g] += yr[g] * yr[g]
				p.DeltaMean[g] += d
				varD[g] += d * d
				p.Nominal[g] += nr[g]
			}
		}
		if thRef == nil {
			thRef = s.theta.Row(r)
		}
		for q, th := range s.theta.Row(r) {
			d := th - thRef[q]
			p.Theta[q] += d
			p.ThetaStd[q] += d * d
		}
		if m.closure.Clipped(s.f.Data[r*fPer : (r+1)*fPer]) {
			clipped++
		}
	}
	inv := 1 / float64(used) // +Inf when every sample diverged: NaN mean
	if !(one && used == 1) {
		functionMoments(p, varY, varD, inv, obsVar, b, c, used > 0)
	}
	thetaMoments(p, thRef, inv, b, c, used > 0)
	p.Clipped = 2*clipped > used
	p.sampleVarY, p.sampleVarD, p.noiseVar = varY, varD, obsVar
	return p
}

// functionMoments turns the sums in p, varY and varD (inv = 1/samples)
// into the means and deviations of the prediction and δ, adding the
// observation variance obsVar; with a center c (and some sample used)
// the mean is c's point prediction and the variance is measured around
// it: E[(y − y*)²] = Var y + (E y − y*)².
func functionMoments(p Prediction, varY, varD []float64, inv float64, obsVar []float64, b int, c *center, around bool) {
	for g := range p.Mean {
		p.Mean[g] *= inv
		p.DeltaMean[g] *= inv
		p.Nominal[g] *= inv
		varY[g] = max(0, varY[g]*inv-p.Mean[g]*p.Mean[g])
		varD[g] = max(0, varD[g]*inv-p.DeltaMean[g]*p.DeltaMean[g])
		if c != nil && around {
			yc, nc := c.pred.At(b, g), c.nom.At(b, g)
			varY[g] += (p.Mean[g] - yc) * (p.Mean[g] - yc)
			varD[g] += (p.DeltaMean[g] - (yc - nc)) * (p.DeltaMean[g] - (yc - nc))
			p.Mean[g], p.DeltaMean[g], p.Nominal[g] = yc, yc-nc, nc
		}
		p.Std[g] = math.Sqrt(varY[g] + obsVar[g])
		p.DeltaStd[g] = math.Sqrt(varD[g] + obsVar[g])
	}
}

// thetaMoments turns θ's sums of deviations from the reference sample
// thRef into θ̂ and its deviation (NaN without a usable sample), around
// c's point estimate θ* when there is one.
func thetaMoments(p Prediction, thRef []float64, inv float64, b int, c *center, around bool) {
	for q := range p.Theta {
		d := p.Theta[q] * inv
		v := max(0, p.ThetaStd[q]*inv-d*d)
		p.Theta[q] = math.NaN()
		if thRef != nil {
			p.Theta[q] = thRef[q] + d
		}
		if c != nil && around {
			tc := c.theta.At(b, q)
			v += (p.Theta[q] - tc) * (p.Theta[q] - tc)
			p.Theta[q] = tc
		}
		p.ThetaStd[q] = math.Sqrt(v)
	}
}

// momentsOfOne sets p's grid moments from a single finite sample (y,
// nominal n) in one pass, with the values collapseAround's accumulation
// over samples and its normalisation by one sample give: the sums start
// at +0 (so a −0 sample gives +0) and the variances are max(0, y·y −
// y·y), 0 or, where y·y overflows, NaN. Multiplying by 1 and adding 0 to
// a square are exact, so they are left out.
func momentsOfOne(p Prediction, varY, varD, y, n, obsVar []float64) {
	for g := range y {
		d := y[g] - n[g]
		mean, dm := 0+y[g], 0+d
		p.Mean[g], p.DeltaMean[g], p.Nominal[g] = mean, dm, 0+n[g]
		varY[g] = max(0, y[g]*y[g]-mean*mean)
		varD[g] = max(0, d*d-dm*dm)
		p.Std[g] = math.Sqrt(varY[g] + obsVar[g])
		p.DeltaStd[g] = math.Sqrt(varD[g] + obsVar[g])
	}
}

// finite reports whether every value of xs is finite.
func finite(xs []float64) bool {
	for _, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// priorStd is the standard deviation of a parameter's uniform prior,
// (hi − lo)/√12: no posterior is wider than its prior, so a scaled θ
// deviation stops there (at sparse contexts the fitted scale can ask
// for more; the interval then already spans the prior box).
func priorStd(p sims.Param) float64 {
	return (p.Hi - p.Lo) / math.Sqrt(12)
}
