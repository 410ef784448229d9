package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"apic/sims"
)

// DiagnoseOptions configure Diagnose: the test realizations are drawn as
// Evaluate draws them (the same seed gives the same realizations and the
// same latent noise), so a diagnosis explains an evaluation's numbers.
type DiagnoseOptions struct {
	Tasks   int     // number of test realizations
	Context int     // context size; 0 means the system's test default
	Noise   float64 // context noise σ
	Seed    uint64  // evaluation seed; the SBC draws use their own stream of it
	Samples int     // Monte-Carlo latent samples (32 when 0)
	Refine  int     // refinement steps; negative: the model's setting
	// GaussianTheta scores θ's intervals as Gaussian, θ̂ ± z σ_θ, even
	// where the checkpoint has a calibrated shape for them (an
	// ablation: what the shape changes).
	GaussianTheta bool
	// GaussianBands scores the reconstruction's and δ's bands as
	// Gaussian, μ ± z σ, as BENCHMARKS.md's ECE does, even where the
	// checkpoint has calibrated shapes for them.
	GaussianBands bool
	// Progress, when set, is told how many of the realizations are
	// done as EvalOptions.Progress is.
	Progress func(done, total int)
}

// ReliabilityCurve is one quantity's coverage of central intervals at
// Diagnostics.Levels: Empirical[l] is the share of truths inside the
// central Levels[l] interval, Signed[l] = Empirical[l] − Levels[l]
// (below zero: over-confident).
type ReliabilityCurve struct {
	Name      string     `json:"name"`   // "reconstruction", "discrepancy" or "theta:NAME"
	Values    int        `json:"values"` // residuals counted
	Skipped   int        `json:"skipped,omitempty"`
	Empirical JSONFloats `json:"empirical"`
	Signed    JSONFloats `json:"signed"`
}

// SBCHistogram is a parameter's simulation-based calibration: the rank
// of the truth among Draws posterior draws per realization, binned,
// and the chi-square test of its uniformity.
type SBCHistogram struct {
	Draws     int       `json:"draws"`
	Counts    []int     `json:"counts"`
	ChiSquare JSONFloat `json:"chi_square"`
	DF        int       `json:"df"`
	// PValue is P(χ²_df ≥ chi_square) under uniform ranks; NaN ("NaN"
	// in JSON) where PValueWithheld gives a reason.
	PValue JSONFloat `json:"p_value"`
	// PValueWithheld says why there is no p-value (SBCWithheld: too few
	// realizations per bin for the χ² approximation); absent when there
	// is one. Every output of a diagnosis (text, figure, JSON) follows it.
	PValueWithheld string `json:"p_value_withheld,omitempty"`
}

// NewSBCHistogram is the histogram counts of ranks among SBCDraws
// draws with its chi-square test, the p-value withheld where
// SBCWithheld says the test does not apply.
func NewSBCHistogram(counts []int) SBCHistogram {
	stat, df, p := ChiSquareUniform(counts)
	h := SBCHistogram{Draws: SBCDraws, Counts: counts, ChiSquare: JSONFloat(stat), DF: df, PValue: JSONFloat(p)}
	if why := SBCWithheld(counts); why != "" {
		h.PValue, h.PValueWithheld = JSONFloat(math.NaN()), why
	}
	return h
}

// ThetaDiagnostic is one parameter's recovery, SBC and contraction over
// the realizations (the per-realization arrays are in realization order).
type ThetaDiagnostic struct {
	Name     string     `json:"name"`
	Symbol   string     `json:"symbol"`
	PriorLo  float64    `json:"prior_lo"`
	PriorHi  float64    `json:"prior_hi"`
	Truth    JSONFloats `json:"truth"`
	Estimate JSONFloats `json:"estimate"`
	Std      JSONFloats `json:"std"` // posterior deviation σ_post (0: a point estimate)
	// Cover95 is the share of truths in θ̂ ± 1.96 σ_post.
	Cover95     JSONFloat    `json:"cover95"`
	SBC         SBCHistogram `json:"sbc"`
	Contraction JSONFloats   `json:"contraction"` // 1 − σ_post²/σ_prior² per realization
	ZScore      JSONFloats   `json:"z_score"`     // (θ̂ − θ)/σ_post per realization
}

// Diagnostics is Diagnose's result.
type Diagnostics struct {
	System   string  `json:"system"`
	Backbone string  `json:"backbone"`
	Tasks    int     `json:"tasks"`
	Context  int     `json:"context"`
	Noise    float64 `json:"noise"`
	Seed     uint64  `json:"seed"`
	Samples  int     `json:"samples"`
	Refine   int     `json:"refine"`
	// ThetaShaped says whether θ's intervals were scored with the
	// checkpoint's calibrated shape (false: Gaussian).
	ThetaShaped bool `json:"theta_shaped"`
	// BandsShaped says whether the reconstruction's and δ's bands were
	// scored with the checkpoint's calibrated shapes (false: Gaussian).
	BandsShaped bool               `json:"bands_shaped"`
	Levels      []float64          `json:"levels"`
	Reliability []ReliabilityCurve `json:"reliability"`
	Theta       []ThetaDiagnostic  `json:"theta"`
	// Failures are the realizations whose prediction failed, left out
	// of every statistic, as eval leaves them out of its means.
	Failures Failures `json:"failures"`
	// Warnings say where the condition (context size, noise) lies
	// outside what the model was trained on (Model.RangeWarnings), as
	// eval's do; empty, never null, when it does not.
	Warnings []string `json:"warnings"`
}

// sbcStream is the PCG stream of the SBC posterior draws, apart from the
// evaluation's draws of realizations and latent noise.
const sbcStream = 0x617069632d736263

// Diagnose draws opt.Tasks test realizations, predicts each and gathers
// the calibration diagnostics of amortized inference: the reliability
// curves of the reconstruction and the discrepancy (against the true G
// and δ on the targets) and of each θ component, θ recovery, SBC rank
// histograms and posterior contraction against z-score. ctx cancels
// between realizations while drawing and between batches while
// predicting.
func Diagnose(ctx context.Context, m *Model, opt DiagnoseOptions) (Diagnostics, error) {
	if err := LimitTasks.Check(opt.Tasks); err != nil {
		return Diagnostics{}, fmt.Errorf("diagnose: %w", err)
	}
	if opt.Samples < 1 {
		opt.Samples = 32
	}
	tasks, err := TestTasksContext(ctx, m.Sys, EvalOptions{Tasks: opt.Tasks, Context: opt.Context, Noise: opt.Noise, Seed: opt.Seed})
	if err != nil {
		return Diagnostics{}, fmt.Errorf("drawing the test realizations: %w", err)
	}
	return diagnoseTasks(ctx, m, tasks, opt)
}

// diagnoseTasks is Diagnose on drawn realizations: a realization whose
// prediction fails is listed in Failures and left out of every
// statistic; only when all fail is it an error.
func diagnoseTasks(ctx context.Context, m *Model, tasks []sims.Task, opt DiagnoseOptions) (Diagnostics, error) {
	acc := newDiagnosis(m.Sys, len(tasks), rand.New(rand.NewPCG(opt.Seed, sbcStream)))
	o := PredictOptions{Samples: opt.Samples, Seed: opt.Seed, Refine: opt.Refine}
	failed := []Failure{}
	err := m.predictTasks(ctx, tasks, o, false, opt.Progress, func(lo int, part []sims.Task, preds []Prediction) {
		for i, t := range part {
			if why := preds[i].problemIn(t); why != "" {
				failed = append(failed, Failure{Index: lo + i, Reason: m.failureAtNoise(why, opt.Noise)})
				continue
			}
			if opt.GaussianTheta {
				preds[i].ThetaShape = nil
			}
			if opt.GaussianBands {
				preds[i].ReconShape, preds[i].DeltaShape = nil, nil
			}
			acc.add(t, preds[i])
		}
	})
	// Worded as Evaluate's: the caller (apic diagnose, the explorer's
	// "diagnostics failed") already says it was diagnosing.
	if err != nil {
		return Diagnostics{}, fmt.Errorf("calibrating the test realizations: %w", err)
	}
	if len(failed) == len(tasks) {
		return Diagnostics{}, fmt.Errorf("calibrating the test realizations: all %d realizations failed (realization 0: %s)", len(tasks), failed[0].Reason)
	}
	d := acc.result()
	d.Failures = Failures{Count: len(failed), Realizations: failed}
	d.System, d.Backbone = m.Sys.Name(), string(m.Config.Arch.Backbone)
	d.Tasks, d.Context, d.Noise, d.Seed = len(tasks), tasks[0].Context.Len(), opt.Noise, opt.Seed
	d.Samples, d.Refine = m.samplesDrawn(opt.Samples), opt.Refine
	d.ThetaShaped, d.BandsShaped = acc.shaped, acc.bandsShaped
	d.Warnings = append([]string{}, m.RangeWarnings(d.Context, opt.Noise)...)
	stds := make([][]float64, len(d.Theta))
	for q, th := range d.Theta {
		stds[q] = th.Std
	}
	d.Warnings = append(d.Warnings, nearPriorWarnings(m.Sys.Params(), stds)...)
	d.Warnings = append(d.Warnings, priorGuessWarnings(m.Sys.Params(), thetaMAEs(d.Theta))...)
	d.Warnings = append(d.Warnings, refinementCarriesWarnings(m.Sys.Params(), thetaMAEs(d.Theta), acc.unrefinedMAEs())...)
	if d.Refine < 0 {
		d.Refine = m.Config.Infer.Refine
	}
	return d, nil
}

// thetaMAEs is each parameter's MAE over the diagnosed realizations.
func thetaMAEs(ths []ThetaDiagnostic) []float64 {
	out := make([]float64, len(ths))
	for q, th := range ths {
		out[q] = th.MAE()
	}
	return out
}

// MAE is the parameter's mean |θ̂ − θ| over the diagnosed realizations,
// NaN for none.
func (th ThetaDiagnostic) MAE() float64 {
	n := min(len(th.Truth), len(th.Estimate))
	if n == 0 {
		return math.NaN()
	}
	sum := 0.0
	for i := range n {
		sum += math.Abs(th.Estimate[i] - th.Truth[i])
	}
	return sum / float64(n)
}

// diagnosis accumulates Diagnose's statistics one realization at a time,
// so that no prediction (advdiff's are 4160 values, several times over)
// outlives its batch.
type diagnosis struct {
	sys          sims.System
	recon, delta *Coverage
	theta        []*Coverage
	params       []ThetaDiagnostic
	ranks        [][]int
	rng          *rand.Rand
	shaped       bool // some θ interval was scored with a calibrated shape
	bandsShaped  bool // some band was scored with a calibrated shape
	// unrefined sums |θ̂ − θ| per parameter of the θ̂ each refinement
	// started from (Prediction.UnrefinedTheta), for the warning that the
	// refinement, not the network, calibrates θ; nil once a realization
	// lacks one (a one-pass diagnosis).
	unrefined []float64
}

func newDiagnosis(sys sims.System, n int, rng *rand.Rand) *diagnosis {
	d := &diagnosis{sys: sys, recon: NewCoverage(DiagnosticLevels), delta: NewCoverage(DiagnosticLevels), rng: rng,
		unrefined: make([]float64, len(sys.Params()))}
	for _, p := range sys.Params() {
		d.theta = append(d.theta, NewCoverage(DiagnosticLevels))
		d.params = append(d.params, ThetaDiagnostic{
			Name: p.Name, Symbol: p.Symbol, PriorLo: p.Lo, PriorHi: p.Hi,
			Truth: make(JSONFloats, 0, n), Estimate: make(JSONFloats, 0, n), Std: make(JSONFloats, 0, n),
			Contraction: make(JSONFloats, 0, n), ZScore: make(JSONFloats, 0, n),
		})
		d.ranks = append(d.ranks, make([]int, 0, n))
	}
	return d
}

// addBand counts one band value y against its interval of mean mu and
// deviation s, shaped where s has a shape.
func addBand(c *Coverage, shape *BandShape, mu, s, y float64) {
	if shape == nil {
		c.Add(mu, s, y)
		return
	}
	ok := s > 0 && !math.IsInf(s, 0) && !math.IsNaN(mu) && !math.IsNaN(y)
	c.AddLevel(shape.Level(s, math.Abs(y-mu)), ok)
}

// add counts one realization's prediction against its truth.
func (d *diagnosis) add(t sims.Task, p Prediction) {
	truth, delta := t.Real.True, t.Real.Discrepancy()
	d.bandsShaped = d.bandsShaped || p.ReconShape != nil || p.DeltaShape != nil
	d.addUnrefined(t.Real.Theta, p.UnrefinedTheta)
	for _, i := range targetValues(d.sys, t.Targets) {
		addBand(d.recon, p.ReconShape, p.Mean[i], p.Std[i], truth[i])
		addBand(d.delta, p.DeltaShape, p.DeltaMean[i], p.DeltaStd[i], delta[i])
	}
	for k := range d.params {
		th, est, sd := t.Real.Theta[k], p.Theta[k], 0.0
		if k < len(p.ThetaStd) {
			sd = p.ThetaStd[k]
		}
		prm := &d.params[k]
		prm.Truth = append(prm.Truth, th)
		prm.Estimate = append(prm.Estimate, est)
		prm.Std = append(prm.Std, sd)
		prm.Contraction = append(prm.Contraction, Contraction(sd, UniformPriorVariance(prm.PriorLo, prm.PriorHi)))
		prm.ZScore = append(prm.ZScore, ZScore(th, est, sd))
		var shape ThetaShape
		if k < len(p.ThetaShape) {
			shape = p.ThetaShape[k]
		}
		d.shaped = d.shaped || shape != nil
		if shape == nil {
			d.theta[k].Add(est, sd, th)
			d.ranks[k] = append(d.ranks[k], SBCRank(d.rng, SBCDraws, th, est, sd))
			continue
		}
		d.theta[k].AddLevel(shape.Level(sd, math.Abs(th-est)), sd > 0 && !math.IsInf(sd, 0))
		d.ranks[k] = append(d.ranks[k], SBCRankCDF(d.rng, SBCDraws, shape.CDF(th, est, sd), sd > 0 && !math.IsInf(sd, 0)))
	}
}

// addUnrefined adds one realization's |θ̂ − θ| of the θ̂ its refinement
// started from, or forgets the sums when it has none.
func (d *diagnosis) addUnrefined(truth, start []float64) {
	if len(start) != len(truth) {
		d.unrefined = nil
	}
	for k := range d.unrefined {
		d.unrefined[k] += math.Abs(start[k] - truth[k])
	}
}

// unrefinedMAEs is each parameter's MAE of the θ̂ refinement started
// from, nil unless every diagnosed realization refined.
func (d *diagnosis) unrefinedMAEs() []float64 {
	n := len(d.ranks[0])
	if d.unrefined == nil || n == 0 {
		return nil
	}
	out := make([]float64, len(d.unrefined))
	for k, s := range d.unrefined {
		out[k] = s / float64(n)
	}
	return out
}

// result turns the counts into curves and histograms.
func (d *diagnosis) result() Diagnostics {
	out := Diagnostics{Levels: DiagnosticLevels}
	curve := func(name string, c *Coverage) ReliabilityCurve {
		return ReliabilityCurve{Name: name, Values: c.N, Skipped: c.Skipped, Empirical: c.Empirical(), Signed: c.Signed()}
	}
	out.Reliability = append(out.Reliability, curve("reconstruction", d.recon), curve("discrepancy", d.delta))
	z95 := CentralZ(0.95)
	for k := range d.params {
		out.Reliability = append(out.Reliability, curve("theta:"+d.params[k].Name, d.theta[k]))
		prm := d.params[k]
		covered, counted := 0, 0
		for i := range prm.Truth {
			if sd := prm.Std[i]; sd > 0 && !math.IsInf(sd, 0) {
				counted++
				if math.Abs(prm.Estimate[i]-prm.Truth[i]) <= z95*sd {
					covered++
				}
			}
		}
		prm.Cover95 = JSONFloat(math.NaN())
		if counted > 0 {
			prm.Cover95 = JSONFloat(float64(covered) / float64(counted))
		}
		prm.SBC = NewSBCHistogram(RankHistogram(d.ranks[k], SBCDraws, SBCBins(counted)))
		out.Theta = append(out.Theta, prm)
	}
	return out
}

// Curve returns the reliability curve named name ("reconstruction",
// "discrepancy", "theta:NAME"), or false.
func (d Diagnostics) Curve(name string) (ReliabilityCurve, bool) {
	for _, c := range d.Reliability {
		if c.Name == name {
			return c, true
		}
	}
	return ReliabilityCurve{}, false
}
