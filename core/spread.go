package core

import (
	"fmt"
	"math"
	"slices"

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
// of recalibrate.go. The discrepancy's variance has its own scale and no
// profile: its error includes F(θ̂) − F(θ), which does not follow the
// reconstruction's.
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
	for _, v := range []float64{s.Shape, s.StdScale, s.DeltaStdScale} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("spread exponent and scales must be finite and ≥ 0, got %+v", s)
		}
	}
	if s.Shape > maxProfileShape {
		return fmt.Errorf("spread profile exponent %v is above %v", s.Shape, maxProfileShape)
	}
	return nil
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
// from their latent sample variances, the noise term of the mode, the
// evolution profile and the scales of s.
func (m *Model) applySpread(preds []Prediction, ctxs []sims.Context, s SpreadFit) error {
	grid := m.Sys.Grid()
	c := len(grid.Channels)
	learned := m.obsVariance()
	sy, sd := s.Scales()
	for b := range preds {
		p := &preds[b]
		sampY, sampD := p.sampleVarY, p.sampleVarD
		var h []float64 // the evolution profile; nil when flat
		if s.Shape != 0 {
			h = make([]float64, len(p.Mean))
			evolutionProfile(h, p.Mean, grid, s.Shape)
		}
		noise := func(g int) float64 { return p.noiseVar[g] }
		if s.Spread != SpreadModel {
			if s.Spread == SpreadResidual {
				sampY, sampD = make([]float64, len(p.Mean)), make([]float64, len(p.Mean))
			}
			terms, err := m.contextTerms(ctxs[b], learned)
			if err != nil {
				return err
			}
			perCh := fitContextNoise(terms, p.Mean, sampY, h, c, learned)
			noise = func(g int) float64 { return perCh[g%c] }
		}
		for g := range p.Std {
			n := noise(g)
			hg := 1.0
			if h != nil {
				hg = h[g]
			}
			p.Std[g] = sy * hg * math.Sqrt(sampY[g]+n)
			p.DeltaStd[g] = sd * math.Sqrt(sampD[g]+n)
		}
	}
	return nil
}

// fitContextNoise returns σ_c² per channel fitted to the coverage of the
// context residuals (see SpreadContext) under the profile h (nil: flat),
// searched on a log grid around the profiled residuals' mean square; a
// channel without observations keeps the learned variance.
func fitContextNoise(terms []obsTerm, mean, sampleVar, h []float64, c int, learned []float64) []float64 {
	byCh := make([][]coverageResid, c)
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
	out := make([]float64, c)
	for ch := range out {
		rs := byCh[ch]
		out[ch] = learned[ch]
		if len(rs) == 0 {
			continue
		}
		cov := newResidCoverage(rs)
		ms := 0.0
		for _, r := range rs {
			ms += r.r2
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
			e := cov.errorAt(s2)
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

// coverageResid is a squared residual r² and the sample variance v under
// it.
type coverageResid struct{ r2, v float64 }

// residCoverage evaluates the coverage error of residuals under
// N(0, v_i + σ²) for many σ² (the inner loop of fitContextNoise, which
// runs in every prediction of the context spread modes).
type residCoverage struct {
	rs     []coverageResid
	sorted []float64 // r² ascending when every v is 0, else nil
	counts []int
}

func newResidCoverage(rs []coverageResid) *residCoverage {
	c := &residCoverage{rs: rs, counts: make([]int, len(eceLevels))}
	flat := true
	for _, r := range rs {
		flat = flat && r.v == 0
	}
	if flat {
		// A NaN residual is never covered (as in coverageError): it is
		// left out of the sorted values but still counts in n.
		c.sorted = make([]float64, 0, len(rs))
		for _, r := range rs {
			if !math.IsNaN(r.r2) {
				c.sorted = append(c.sorted, r.r2)
			}
		}
		slices.Sort(c.sorted)
	}
	return c
}

// errorAt is coverageError of the residuals with deviations √(v_i + σ²).
func (c *residCoverage) errorAt(s2 float64) float64 {
	n := len(c.rs)
	if c.sorted != nil {
		// Without sample variances the count inside z_p σ is the number
		// of r² ≤ z_p² σ².
		countAtMost(c.counts, c.sorted, eceZ2, s2)
	} else {
		clear(c.counts)
		for _, r := range c.rs {
			w := r.v + s2
			for l, z2 := range eceZ2 {
				if r.r2 <= z2*w {
					c.counts[l]++
				}
			}
		}
	}
	return coverageGap(c.counts, n)
}
