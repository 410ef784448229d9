package core

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"apic/sims"
)

// Spread modes: how the observation-noise term of the predictive variance
// is set for each realization.
//
//	var_j = s² h_j² (v_j + σ_c²)
//
// where v_j is the spread of the latent (or Laplace) samples at value j,
// σ_c² the noise variance of channel c, h the evolution profile of
// profile.go (1 unless SpreadFit.Shape is set) and s the post-hoc scale
// of recalibrate.go. The discrepancy's variance has its own scale and
// profile, over time (deltaprofile.go): its error includes
// F(θ̂) − F(θ), which does not follow the reconstruction's.
const (
	// SpreadModel takes σ_c² from the model: the learned noise, or after
	// refinement the context residuals' RSS/n.
	SpreadModel = ""
	// SpreadContext fits σ_c² per realization so that the central
	// intervals of N(μ_j, v_j + σ_c²) cover the context observations at
	// the nominal rates (the ECE of BENCHMARKS.md, on the context):
	//
	//	σ_c² = argmin_σ² (1/9) Σ_p | (1/n_c) Σ_{i∈C_c} 1{|y_i − μ_i| ≤ z_p h_i √(v_i + σ²)} − p |
	//
	// With noise-free data the error of the mean is model error, whose
	// spread over a field need not be Gaussian; matching coverage rather
	// than the second moment calibrates the intervals of a realization
	// from its own data.
	SpreadContext = "context"
	// SpreadResidual is SpreadContext without the sample spread (v_j = 0):
	// the intervals come from the context residuals alone.
	SpreadResidual = "residual"
)

// spreadModes lists the valid modes.
var spreadModes = []string{SpreadModel, SpreadContext, SpreadResidual}

func checkSpread(s string) error {
	for _, m := range spreadModes {
		if s == m {
			return nil
		}
	}
	return fmt.Errorf("unknown spread mode %q (want %q, %q or %q)", s, "", SpreadContext, SpreadResidual)
}

// SpreadFit is a fitted predictive spread: the mode, the exponent q of
// the evolution profile (profile.go; zero: flat) and the post-hoc scales
// of the reconstruction's and the discrepancy's deviations (zero means
// 1).
type SpreadFit struct {
	Spread        string  `json:"spread,omitempty"`
	Shape         float64 `json:"shape,omitempty"`
	StdScale      float64 `json:"std_scale,omitempty"`
	DeltaStdScale float64 `json:"delta_std_scale,omitempty"`
	// DeltaProfile is the exponent q of the discrepancy deviation's time
	// profile (deltaprofile.go; zero: flat), fitted by recalibration
	// since it was introduced.
	DeltaProfile float64 `json:"delta_profile,omitempty"`
	// ThetaStdScale scales θ's reported deviation so that θ̂ ± 1.96 σ_θ
	// covers 95% of the validation parameters (recalibrate.go): the
	// latent spread alone knows nothing of the model's own error.
	ThetaStdScale float64 `json:"theta_std_scale,omitempty"`
	// Conditions, when set, replaces the three scales above by a table
	// over operating conditions (context size × estimated noise,
	// condscale.go): a spread calibrated at one condition is wrong at
	// others. Fits made before it existed have none.
	Conditions []ConditionScale `json:"conditions,omitempty"`
	// ThetaFloor, when set, is the floor b_q of each parameter's
	// deviation, √(σ_q² + b_q²), before any scale (thetabase.go): the
	// one-pass fit of a cnp has it, whose one sample has no spread (a
	// refining model's OnePass, else its default fit).
	ThetaFloor []float64 `json:"theta_floor,omitempty"`
	// DeltaTheta, when set, is the share of θ's uncertainty in δ's band
	// (deltatheta.go): the one-pass fit of lv's files has it, and only
	// a one-pass fit may (a refining model's OnePass, else its default
	// fit).
	DeltaTheta *DeltaTheta `json:"delta_theta,omitempty"`
}

// maxProfileShape bounds the evolution profile's exponent in a stored
// fit: recalibration tries at most 0.6, and a large exponent overflows
// the profile.
const maxProfileShape = 4

// check reports a mode that does not exist, or an exponent or scale
// that is negative or not finite, or an exponent above maxProfileShape.
func (s SpreadFit) check() error {
	if err := checkSpread(s.Spread); err != nil {
		return err
	}
	for _, v := range []float64{s.Shape, s.StdScale, s.DeltaStdScale, s.ThetaStdScale, s.DeltaProfile} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("spread exponent and scales must be finite and ≥ 0, got %+v", s)
		}
	}
	if s.Shape > maxProfileShape {
		return fmt.Errorf("spread profile exponent %v is above %v", s.Shape, maxProfileShape)
	}
	if s.DeltaProfile > maxProfileShape {
		return fmt.Errorf("discrepancy time profile exponent %v is above %v", s.DeltaProfile, maxProfileShape)
	}
	if err := checkThetaBase(nil, s.ThetaFloor); err != nil {
		return err
	}
	if err := s.DeltaTheta.check(); err != nil {
		return err
	}
	return checkConditions(s.Conditions)
}

// Scales returns the reconstruction and discrepancy scale factors, an
// unset (zero) factor read as 1.
func (s SpreadFit) Scales() (recon, delta float64) {
	one := func(v float64) float64 {
		if v > 0 {
			return v
		}
		return 1
	}
	return one(s.StdScale), one(s.DeltaStdScale)
}

// ThetaScale returns the θ deviation's scale factor, an unset (zero)
// factor read as 1.
func (s SpreadFit) ThetaScale() float64 {
	if s.ThetaStdScale > 0 {
		return s.ThetaStdScale
	}
	return 1
}

// spreadFor returns the spread setting of predictions with refine
// refinement steps: one-pass predictions of a model that refines by
// default have their own fit (Infer.OnePass), since refinement changes
// both the error and the sample spread.
func (m *Model) spreadFor(refine int) *SpreadFit {
	in := m.Config.Infer
	f := in.SpreadFit
	if refine == 0 && in.Refine > 0 && in.OnePass != nil {
		f = *in.OnePass
	}
	return &f
}

// OnePassFit is the fit of the one-pass predictions that holds their own
// parts (θ's floors and factors, δ's θ term): a refining model's
// one-pass fit (nil where it has none), or the default fit of a model
// that does not refine by default, whose default prediction is the one
// pass.
func (in *Infer) OnePassFit() *SpreadFit {
	if in.Refine > 0 {
		return in.OnePass
	}
	return &in.SpreadFit
}

// SetRefine makes n the default number of refinement steps and keeps the
// one-pass predictions' fit where a model with n steps reads it
// (OnePassFit): a refining model's one-pass fit becomes the default fit
// of one that does not refine, and a fitted default fit of one that
// does not refine becomes the one-pass fit of one that does, a copy
// without δ's θ term staying the default fit, for refined predictions,
// until a recalibration fits them. Between two counts above 0 nothing
// moves: the default fit, made for the old count, serves the new one.
// FitRefine follows the default fit: the one-pass fit moved there was
// fitted to one pass. It reports whether a fit moved.
func (in *Infer) SetRefine(n int) (moved bool) {
	switch {
	case in.Refine > 0 && n <= 0 && in.OnePass != nil:
		in.SpreadFit, in.OnePass = *in.OnePass, nil
		in.FitRefine = new(int)
		moved = true
	case in.Refine <= 0 && n > 0 && in.OnePass == nil && in.SpreadFit.fitted():
		op := in.SpreadFit
		in.OnePass = &op
		in.SpreadFit.DeltaTheta = nil
		moved = true
	}
	in.Refine = n
	return moved
}

// applySpread sets the standard deviations of preds (one per context)
// from their latent sample variances, the noise term of the mode, the
// evolution profile and the scales of s, on up to procs goroutines
// (forEachOn).
func (m *Model) applySpread(preds []Prediction, ctxs []sims.Context, s SpreadFit, procs int) error {
	grid := m.Sys.Grid()
	c := len(grid.Channels)
	learned := m.obsVariance()
	sy, sd := s.Scales()
	hd := deltaProfileFor(grid, s) // nil when flat
	var zeros []float64            // SpreadResidual's sample variances (read only)
	if s.Spread == SpreadResidual {
		zeros = make([]float64, grid.Size())
	}
	errs := make([]error, len(preds))
	forEachOn(procs, len(preds), func(b int) {
		sc := spreadScratches.Get().(*spreadScratch)
		defer spreadScratches.Put(sc)
		p := &preds[b]
		sampY, sampD := p.sampleVarY, p.sampleVarD
		var h []float64 // the evolution profile; nil when flat
		if s.Shape != 0 {
			sc.h = slices.Grow(sc.h[:0], len(p.Mean))[:len(p.Mean)]
			h = sc.h
			evolutionProfile(h, p.Mean, grid, s.Shape)
		}
		noise := p.noiseVar // per grid value
		perCh := false      // noise per channel instead
		if s.Spread != SpreadModel {
			if s.Spread == SpreadResidual {
				sampY, sampD = zeros, zeros
			}
			var err error
			sc.terms, sc.idx, err = m.appendContextTerms(sc.terms[:0], sc.idx[:0], ctxs[b], learned)
			if err != nil {
				errs[b] = err
				return
			}
			noise, perCh = sc.fitContextNoise(sc.noise[:0], sc.terms, p.Mean, sampY, h, c, learned), true
			sc.noise = noise
			shrinkContextNoise(noise, sc.terms, p.usedDOF, learned, c)
		}
		p.NoiseStd = make([]float64, c)
		for ch := range p.NoiseStd {
			p.NoiseStd[ch] = math.Sqrt(noise[ch])
		}
		thetaVar := sc.deltaThetaVar(s.DeltaTheta, p, ctxs[b].Len(), m.Sys.Params())
		// The table's scales are those of the context's condition: its
		// size and its estimated noise (condscale.go).
		sy, sd := sy, sd
		p.thetaScale, p.thetaPrior = 0, 0
		ws := cellWeights(s.Conditions, ctxs[b].Len(), contextNoiseStd(p.NoiseStd))
		if ry, rd, rt, rp, ok := cellRead(s.Conditions, ws); ok {
			sy, sd, p.thetaScale, p.thetaPrior = ry, rd, rt, rp
		}
		p.ThetaShape = shapeAt(s.Conditions, ws, len(p.Theta))
		p.thetaParam = factorsAt(s.Conditions, ws, len(p.Theta))
		p.ReconShape = bandShapeAt(s.Conditions, ws, reconShape)
		p.DeltaShape = bandShapeAt(s.Conditions, ws, deltaShape)
		for g := range p.Std {
			var n float64
			if perCh {
				n = noise[g%c]
			} else {
				n = noise[g]
			}
			hg := 1.0
			if h != nil {
				hg = h[g]
			}
			p.Std[g] = sy * hg * math.Sqrt(sampY[g]+n)
			vt := 0.0
			if thetaVar != nil {
				vt = thetaVar[g]
			}
			p.DeltaStd[g] = sd * math.Sqrt(sampD[g]+n+vt)
			if hd != nil {
				p.DeltaStd[g] *= hd[g]
			}
		}
		p.moveWidening = 0
		if k := disagreeAt(s.Conditions, ws); k > 0 && p.startMean != nil {
			p.moveWidening = widenByMove(p.Std, p.Mean, p.startMean, k)
			widenByMove(p.DeltaStd, p.DeltaMean, p.startDelta, k)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// deltaThetaVar is δ's share of θ's uncertainty in prediction p from a
// context of n points (deltatheta.go) at each grid value, in sc's
// storage; nil where there is none (no term, or no Jacobian: refined
// predictions, θ given). θ's deviations are capped at the prior's, as
// the prediction reports them (applyThetaTable): lv's θ hints from a
// few noisy points can spread far wider.
func (sc *spreadScratch) deltaThetaVar(d *DeltaTheta, p *Prediction, n int, params []sims.Param) []float64 {
	if d == nil || p.nominalJac == nil {
		return nil
	}
	sc.thetaVar = slices.Grow(sc.thetaVar[:0], len(p.Mean))[:len(p.Mean)]
	clear(sc.thetaVar)
	sc.thetaStd = sc.thetaStd[:0]
	for q, s := range p.ThetaStd {
		sc.thetaStd = append(sc.thetaStd, min(s, priorStd(params[q])))
	}
	d.variance(sc.thetaVar, d.weight(n, contextNoiseStd(p.NoiseStd)), sc.thetaStd, p.nominalJac)
	return sc.thetaVar
}

// shrinkContextNoise turns the context modes' fitted noise variances
// (one per channel) into an estimate on the degrees of freedom the
// context leaves (used: those a refined fit used up, per channel; nil
// for a one-pass prediction, which fits none), as refinement's own
// estimate does (shrunkNoiseVar): a fit that matches a few points
// exactly leaves residuals that say nothing of the noise, and one or
// two residuals say little even unfitted. A one-pass prediction at one
// context point had a band of about 1e-4 on spring/anp, where its
// error was of order 1, and a mean recon LL of −73000 over 100
// realizations (`apic eval --system spring --backbone anp --refine 0
// --context 1 --json`); from noisePriorDOF points on its fit is kept.
func shrinkContextNoise(noise []float64, terms []obsTerm, used, learned []float64, c int) {
	counts := make([]float64, c)
	for _, t := range terms {
		counts[t.idx[0]%c]++
	}
	for ch := range noise[:c] {
		if counts[ch] == 0 {
			continue
		}
		dof := counts[ch]
		if used != nil {
			dof -= used[ch]
		}
		noise[ch] = shrunkNoiseVar(counts[ch]*noise[ch], dof, learned[ch])
	}
}

// spreadScratch is the working storage of one realization's spread fit,
// reused by the next (spreadScratches): a batched prediction would
// otherwise leave a few kilobytes of garbage per realization, and the
// collections that triggers stall the other cores' pieces.
type spreadScratch struct {
	h, noise        []float64
	thetaVar        []float64
	thetaStd        []float64
	terms           []obsTerm
	idx             []int
	byCh            [][]coverageResid
	s2s, errs, ties []float64
}

var spreadScratches = sync.Pool{New: func() any { return new(spreadScratch) }}

// fitContextNoise appends to dst σ_c² per channel fitted to the coverage
// of the context residuals (see SpreadContext) under the profile h (nil:
// flat), searched on a log grid around the profiled residuals' mean
// square; a channel without observations keeps the learned variance. It
// works in sc's storage.
func (sc *spreadScratch) fitContextNoise(dst []float64, terms []obsTerm, mean, sampleVar, h []float64, c int, learned []float64) []float64 {
	for len(sc.byCh) < c {
		sc.byCh = append(sc.byCh, nil)
	}
	byCh := sc.byCh[:c]
	for ch := range byCh {
		byCh[ch] = byCh[ch][:0]
	}
	for _, t := range terms {
		y, v, hh := 0.0, 0.0, 0.0
		for j, k := range t.idx {
			y += t.w[j] * mean[k]
			v += t.w[j] * sampleVar[k]
			if h != nil {
				hh += t.w[j] * h[k]
			}
		}
		if h == nil {
			hh = 1
		}
		ch := t.idx[0] % c
		// |y − μ| ≤ z h √(v + σ²)  ⇔  (|y − μ|/h)² ≤ z² (v + σ²).
		r := (y - t.y) / hh
		byCh[ch] = append(byCh[ch], coverageResid{r * r, v})
	}
	dst = slices.Grow(dst, c)[:len(dst)+c]
	out := dst[len(dst)-c:]
	s2s, errs := sc.s2s, sc.errs
	for ch := range out {
		rs := byCh[ch]
		out[ch] = learned[ch]
		if len(rs) == 0 {
			continue
		}
		// σ² = ms·2^(k/4), k = −48 … 16 (ms/2^12 to ms·2^4), each at least
		// the floor, after the floor itself: a nondecreasing list. A NaN
		// or infinite residual is never covered and does not move the
		// grid.
		ms, finite := 0.0, 0
		for _, r := range rs {
			if !math.IsNaN(r.r2) && !math.IsInf(r.r2, 0) {
				ms += r.r2
				finite++
			}
		}
		ms /= float64(finite)
		floor := noiseFloor * learned[ch]
		s2s = append(s2s[:0], floor)
		if finite > 0 && !math.IsInf(ms, 0) {
			for _, f := range quarterPowers {
				s2s = append(s2s, max(ms*f, floor))
			}
		}
		errs = slices.Grow(errs[:0], len(s2s))[:len(s2s)]
		coverageErrors(errs, rs, s2s)
		bestE := math.Inf(1)
		var lo, hi int // the candidates within 1e-12 of the best so far
		for k, e := range errs {
			switch {
			case e < bestE-1e-12:
				bestE, lo, hi = e, k, k
			case e <= bestE+1e-12:
				hi = k
			}
		}
		// With few observations a range of variances scores the same;
		// take its middle.
		ties := sc.ties[:0]
		for k := lo; k <= hi; k++ {
			if errs[k] <= bestE+1e-12 {
				ties = append(ties, s2s[k])
			}
		}
		out[ch] = ties[len(ties)/2]
		sc.ties = ties
	}
	sc.s2s, sc.errs = s2s, errs
	return dst
}

// coverageGapTables caches coverageGapTable by n.
var coverageGapTables sync.Map

// coverageGapTable returns, for n residuals, |c/n − p_l| at index
// l·(n+1) + c: coverageGap's term for a count c at level l, the same
// arithmetic, computed once per n rather than in every fit.
func coverageGapTable(n int) []float64 {
	if t, ok := coverageGapTables.Load(n); ok {
		return t.([]float64)
	}
	t := make([]float64, len(eceLevels)*(n+1))
	for l, p := range eceLevels {
		for c := range n + 1 {
			t[l*(n+1)+c] = math.Abs(float64(c)/float64(n) - p)
		}
	}
	coverageGapTables.Store(n, t)
	return t
}

// quarterPowers are 2^(k/4) for k = −48 … 16, fitContextNoise's grid.
var quarterPowers = func() []float64 {
	out := make([]float64, 0, 65)
	for k := -48; k <= 16; k++ {
		out = append(out, math.Exp2(float64(k)/4))
	}
	return out
}()

// coverageResid is a squared residual r² and the sample variance v under
// it.
type coverageResid struct{ r2, v float64 }

// coverageErrors sets dst[k] to the coverage error (coverageGap, the
// ECE's count) of the residuals rs under N(0, v_i + σ²) with σ² = s2s[k],
// for a nondecreasing s2s. Residual i lies inside level l's interval,
// r_i² ≤ z_l²(v_i + σ²), from some first candidate on (the bound only
// grows with σ², also in floating point); bisection finds it, and running
// sums of those first indices give every candidate's counts: O(L·n·log K)
// for the L levels, n residuals and K candidates instead of O(L·n·K),
// with the same comparisons, so the same counts. This is the inner loop
// of fitContextNoise, which runs in every prediction of the context
// spread modes.
func coverageErrors(dst []float64, rs []coverageResid, s2s []float64) {
	flat := true
	for _, r := range rs {
		flat = flat && r.v == 0
	}
	if flat {
		coverageErrorsFlat(dst, rs, s2s)
		return
	}
	nk, nl := len(s2s), len(eceZ2)
	// first[l*(nk+1)+k] counts the residuals first covered at level l by
	// candidate k (k = nk: never, e.g. a NaN residual).
	first := make([]int, nl*(nk+1))
	for _, r := range rs {
		for l, z2 := range eceZ2 {
			lo, hi := 0, nk
			for lo < hi {
				mid := int(uint(lo+hi) >> 1)
				if r.r2 <= z2*(r.v+s2s[mid]) {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			first[l*(nk+1)+lo]++
		}
	}
	var counts [16]int
	cs := counts[:nl]
	for k := range nk {
		for l := range cs {
			cs[l] += first[l*(nk+1)+k]
		}
		dst[k] = coverageGap(cs, len(rs))
	}
}

// coverageErrorsFlat is coverageErrors without sample variances: with
// the residuals sorted, each level's count at the next candidate
// continues from the last (r² ≤ z²σ², the same comparison).
func coverageErrorsFlat(dst []float64, rs []coverageResid, s2s []float64) {
	var buf [64]float64
	sorted := buf[:0]
	for _, r := range rs {
		if !math.IsNaN(r.r2) { // a NaN residual is never covered
			sorted = append(sorted, r.r2)
		}
	}
	slices.Sort(sorted)
	n := len(rs)
	gaps := coverageGapTable(n)
	// at[l] is level l's count at the current candidate. The levels'
	// gaps are summed in level order, as coverageGap sums them.
	var ats [16]int
	at := ats[:len(eceZ2)]
	dst = dst[:len(s2s)]
	for k, s2 := range s2s {
		e := 0.0
		for l, z2 := range eceZ2 {
			bound := z2 * s2
			a := at[l]
			for a < len(sorted) && sorted[a] <= bound {
				a++
			}
			at[l] = a
			e += gaps[l*(n+1)+a]
		}
		dst[k] = e / float64(len(eceLevels))
	}
}

// UseRawSpread makes every later prediction of m use the predictive
// distribution of BENCHMARKS.md as written: the Monte-Carlo mixture
// collapsed to its mean and variance,
//
//	var_j = v_j + σ_c²
//
// with v_j the spread of the latent (or, after refinement, Laplace)
// samples and σ_c² the model's noise (the learned one, or after
// refinement the context residuals' RSS/n), dropping the fitted spread
// mode, evolution profile and post-hoc scales of recalibration — θ's
// interval scale included. It shows what recalibration adds.
func (m *Model) UseRawSpread() {
	m.Config.Infer.SpreadFit = SpreadFit{}
	m.Config.Infer.OnePass = nil
	m.Config.Infer.FitRefine = nil
}

// DropFit forgets every inference setting fitted on validation
// realizations (the spread, θ's interval scale and the refinement's z_θ
// prior, left at 0: z_θ fixed, and the θ logits' prior, left at its
// default form and width), for weights that training has changed
// since the fit and that no recalibration has refitted.
func (m *Model) DropFit() {
	m.UseRawSpread()
	m.Config.Infer.ZThetaPrior = 0
	m.Config.Infer.ThetaPrior = ""
	m.Config.Infer.ThetaPriorScale = 0
}

// Fitted reports whether m holds an inference setting DropFit would
// forget. It names every field; TestFittedSeesEveryFitField fails when
// one is added to Infer or SpreadFit without a line here.
func (m *Model) Fitted() bool {
	in := m.Config.Infer
	return in.SpreadFit.fitted() || in.OnePass != nil || in.FitRefine != nil || in.ZThetaPrior != 0 || in.ThetaPrior != "" || in.ThetaPriorScale != 0
}

// fitted reports whether s holds any fitted setting (Fitted's share of
// it): the plain spread has none.
func (s SpreadFit) fitted() bool {
	return s.Spread != "" || s.Shape != 0 || s.StdScale != 0 || s.DeltaStdScale != 0 || s.DeltaProfile != 0 || s.ThetaStdScale != 0 ||
		len(s.Conditions) > 0 || len(s.ThetaFloor) > 0 || s.DeltaTheta != nil
}
