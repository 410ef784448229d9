package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// Spread modes: how the observation-noise term of the predictive variance
// is set for each realization.
//
//	var_j = s² (v_j + σ_c²)
//
// where v_j is the spread of the latent (or Laplace) samples at value j,
// σ_c² the noise variance of channel c and s the post-hoc scale of
// recalibrate.go.
const (
	// SpreadModel takes σ_c² from the model: the learned noise, or after
	// refinement the context residuals' RSS/n.
	SpreadModel = ""
	// SpreadContext fits σ_c² per realization so that the central
	// intervals of N(μ_j, v_j + σ_c²) cover the context observations at
	// the nominal rates (the ECE of BENCHMARKS.md, on the context):
	//
	//	σ_c² = argmin_σ² (1/9) Σ_p | (1/n_c) Σ_{i∈C_c} 1{|y_i − μ_i| ≤ z_p √(v_i + σ²)} − p |
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

// SpreadFit is a fitted predictive spread: the mode and the post-hoc
// scales of the reconstruction's and the discrepancy's deviations (zero
// means 1).
type SpreadFit struct {
	Spread        string  `json:"spread,omitempty"`
	StdScale      float64 `json:"std_scale,omitempty"`
	DeltaStdScale float64 `json:"delta_std_scale,omitempty"`
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

// applySpread sets the standard deviations of preds (one per context)
// from their latent sample variances, the noise term of the mode and the
// scales of s.
func (m *Model) applySpread(preds []Prediction, ctxs []sims.Context, s SpreadFit) error {
	c := len(m.Sys.Grid().Channels)
	learned := m.obsVariance()
	sy, sd := s.Scales()
	for b := range preds {
		p := &preds[b]
		sampY, sampD := p.sampleVarY, p.sampleVarD
		noise := func(g int) float64 { return p.noiseVar[g] }
		if s.Spread != SpreadModel {
			if s.Spread == SpreadResidual {
				sampY, sampD = make([]float64, len(p.Mean)), make([]float64, len(p.Mean))
			}
			terms, err := m.contextTerms(ctxs[b], learned)
			if err != nil {
				return err
			}
			perCh := fitContextNoise(terms, p.Mean, sampY, c, learned)
			noise = func(g int) float64 { return perCh[g%c] }
		}
		for g := range p.Std {
			n := noise(g)
			p.Std[g] = sy * math.Sqrt(sampY[g]+n)
			p.DeltaStd[g] = sd * math.Sqrt(sampD[g]+n)
		}
	}
	return nil
}

// fitContextNoise returns σ_c² per channel fitted to the coverage of the
// context residuals (see SpreadContext), searched on a log grid around
// the residuals' mean square; a channel without observations keeps the
// learned variance.
func fitContextNoise(terms []obsTerm, mean, sampleVar []float64, c int, learned []float64) []float64 {
	type resid struct{ r, v float64 }
	byCh := make([][]resid, c)
	for _, t := range terms {
		y, v := 0.0, 0.0
		for j, k := range t.idx {
			y += t.w[j] * mean[k]
			v += t.w[j] * sampleVar[k]
		}
		ch := t.idx[0] % c
		byCh[ch] = append(byCh[ch], resid{math.Abs(y - t.y), v})
	}
	out := make([]float64, c)
	for ch := range out {
		rs := byCh[ch]
		out[ch] = learned[ch]
		if len(rs) == 0 {
			continue
		}
		ms := 0.0
		for _, r := range rs {
			ms += r.r * r.r
		}
		ms /= float64(len(rs))
		floor := noiseFloor * learned[ch]
		bestE := math.Inf(1)
		var ties []float64
		// σ² = ms·2^(k/4): from ms/2^12 to ms·2^4, and σ² = floor.
		for k := -49; k <= 16; k++ {
			s2 := floor
			if k > -49 {
				s2 = math.Max(ms*math.Exp2(float64(k)/4), floor)
			}
			e := coverageError(len(rs), func(i int) (float64, float64) {
				return rs[i].r, math.Sqrt(rs[i].v + s2)
			})
			switch {
			case e < bestE-1e-12:
				bestE, ties = e, []float64{s2}
			case e <= bestE+1e-12:
				ties = append(ties, s2)
			}
		}
		// With few observations a range of variances scores the same;
		// take its middle.
		best := ties[len(ties)/2]
		out[ch] = best
	}
	return out
}
