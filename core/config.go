// Package core implements the APIC model: a dual-latent Neural Process
// whose physics latent z_θ is mapped to simulator parameters θ̂ = g_φ(z_θ)
// and whose discrepancy latent z_δ drives a shared correction network
// f_ψ(x, z_θ, z_δ), combined with the simulator in the form the system
// declares. It also holds the two-stage training, amortized inference,
// the evaluation metrics and the checkpoint format.
package core

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"apic/nets"
	"apic/sims"
)

// Backbone is the Neural Process variant: how the context set is
// aggregated and whether the latents are sampled.
type Backbone string

const (
	// CNP aggregates by mean and uses the latent mean deterministically.
	CNP Backbone = "cnp"
	// LNP aggregates by mean and samples the latents.
	LNP Backbone = "lnp"
	// ANP aggregates with self-attention then cross-attention from a
	// learned query, samples the latents, and gives f_ψ a deterministic
	// target-dependent representation by cross-attention from the query
	// states to the context.
	ANP Backbone = "anp"
)

// Backbones lists the valid backbones.
var Backbones = []Backbone{CNP, LNP, ANP}

// BackboneNames are Backbones' names.
func BackboneNames() []string { return namesOf(Backbones) }

// ParseBackbone validates a backbone name.
func ParseBackbone(s string) (Backbone, error) {
	for _, b := range Backbones {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("unknown backbone %q (want cnp, lnp or anp)", s)
}

// Form is how the discrepancy network is combined with the simulator.
type Form string

const (
	// Native uses the system's physics-guided closure (envelope, forcing,
	// reaction rate).
	Native Form = "native"
	// Additive predicts F(x; θ̂) + f_ψ(x, z) on the grid.
	Additive Form = "additive"
	// Multiplicative predicts F(x; θ̂)·(1 + f_ψ(x, z)) on the grid.
	Multiplicative Form = "multiplicative"
)

// Forms lists the valid forms.
var Forms = []Form{Native, Additive, Multiplicative}

// FormNames are Forms' names.
func FormNames() []string { return namesOf(Forms) }

// ParseForm validates a form name.
func ParseForm(s string) (Form, error) {
	switch Form(s) {
	case Native, Additive, Multiplicative:
		return Form(s), nil
	}
	return "", fmt.Errorf("unknown discrepancy form %q (want native, additive or multiplicative)", s)
}

// Regularizer names the discrepancy penalty L_δ.
type Regularizer string

const (
	RegL1         Regularizer = "l1"         // mean |δ̂|
	RegL2         Regularizer = "l2"         // mean δ̂²
	RegOrthogonal Regularizer = "orthogonal" // ‖Z_δᵀ Z_θ‖²_F / B
	RegSpectral   Regularizer = "spectral"   // Σ_W (σ_max(W) − 1)₊² over f_ψ's weights
	RegGradPen    Regularizer = "gradpen"    // mean (Δδ̂/Δx)² along the grid
	RegSpread     Regularizer = "spread"     // mean (f_ψ − batch mean of f_ψ)²
)

// Regularizers lists the valid regularizers.
var Regularizers = []Regularizer{RegL1, RegL2, RegOrthogonal, RegSpectral, RegGradPen, RegSpread}

// ParseRegularizer validates a regularizer name.
func ParseRegularizer(s string) (Regularizer, error) {
	for _, r := range Regularizers {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown regulariser %q (want %s)", s, strings.Join(RegularizerNames(), ", "))
}

// RegularizerNames are Regularizers' names.
func RegularizerNames() []string { return namesOf(Regularizers) }

// Arch fixes the network shapes; a checkpoint must match it exactly.
type Arch struct {
	System      string   `json:"system"`
	Backbone    Backbone `json:"backbone"`
	Form        Form     `json:"form"`
	Hidden      int      `json:"hidden"`       // per-point encoder width
	Layers      int      `json:"layers"`       // hidden layers of the per-point encoder
	LatentTheta int      `json:"latent_theta"` // dim z_θ
	LatentDelta int      `json:"latent_delta"` // dim z_δ
	DecHidden   int      `json:"dec_hidden"`   // width of f_ψ and g_φ
	DecLayers   int      `json:"dec_layers"`   // hidden layers of f_ψ
	Heads       int      `json:"heads"`        // attention heads (anp)
	GridSummary bool     `json:"grid_summary"` // encoders also read the context smoothed onto the grid
	// ThetaHint uses the system's direct estimates of some parameters
	// (sims.ThetaHinter: physics the discrepancy leaves exact) for those
	// parameters of θ̂ on every context: in training's real batches, in
	// one-pass predictions and, as a tight prior, in refinement. The
	// physics encoder still learns every parameter from nominal data.
	ThetaHint bool `json:"theta_hint,omitempty"`
	// DecAct is f_ψ's activation ("silu" when empty; "relu" is several
	// times cheaper at inference, where f_ψ runs for every sample and
	// query state).
	DecAct string `json:"dec_act,omitempty"`
	// Basis > 0 makes f_ψ a low-rank (DeepONet-style) decoder with Basis
	// learned functions of the query state shared by every realization,
	//
	//	f_ψ(x, z) = Σ_{h=1..Basis} b_h(z_θ, z_δ, s_θ[, side]) · φ_h(q(x)),
	//
	// instead of one MLP on [q(x), z]: every realization's correction
	// then lies in one learned Basis-dimensional function space, so it
	// cannot absorb realization-specific shapes such as the effect of a
	// wrong θ̂ (which the reconstruction then pushes back onto θ̂). The
	// closure must take one output per query; anp's target attention is
	// not used.
	Basis int `json:"basis,omitempty"`
}

// Train holds the training settings.
type Train struct {
	Steps1      int         `json:"steps1"`
	Steps2      int         `json:"steps2"`
	LR          float64     `json:"lr"`
	LRFinal     float64     `json:"lr_final"` // cosine decay target; 0 keeps LR constant
	Batch       int         `json:"batch"`
	LambdaTheta float64     `json:"lambda_theta"`
	LambdaDelta float64     `json:"lambda_delta"`
	Reg         Regularizer `json:"reg"`
	Seed        uint64      `json:"seed"`
	Noise       float64     `json:"noise"` // observation noise σ during training; validation and recalibration draw their contexts with it too
	// NoiseMax > Noise draws each training realization's noise σ
	// uniformly from [Noise, NoiseMax] (noise-aware training: the
	// explorer's noise slider runs from 0 to 0.1); 0 keeps σ = Noise.
	NoiseMax float64 `json:"noise_max,omitempty"`
	// NoiseLowShare, with a noise range, draws this share of the
	// realizations at its low end Noise and the rest uniformly: half
	// noise-free keeps a noise-aware lv model's accuracy at noise 0
	// (docs/training.md, "Noise-aware training").
	NoiseLowShare float64 `json:"noise_low_share,omitempty"`
	Trajectories  int     `json:"trajectories"` // 0: fresh realizations every step
	ClipNorm      float64 `json:"clip_norm"`
	ValEvery      int     `json:"val_every"` // steps between validations; 0 disables
	ValTasks      int     `json:"val_tasks"`
	// ContextMin and ContextMax bound the context sizes of training
	// batches, drawn uniformly from [ContextMin, ContextMax]; both 0
	// takes the system's range (sims.System.TrainContext).
	ContextMin int `json:"context_min,omitempty"`
	ContextMax int `json:"context_max,omitempty"`
}

// contextRange is the training context sizes [lo, hi] for sys.
func (t Train) contextRange(sys sims.System) (lo, hi int) {
	if t.ContextMin > 0 {
		return t.ContextMin, t.ContextMax
	}
	return sys.TrainContext()
}

// Infer holds inference settings stored with a model.
type Infer struct {
	// Refine is the number of Levenberg–Marquardt steps that polish the
	// encoders' estimate on the context (refine.go); 0 is the pure
	// one-pass amortized prediction.
	Refine int `json:"refine"`
	// ZThetaPrior > 0 also refines z_θ, the physics latent f_ψ reads,
	// with the encoder's posterior widened by this factor as its prior
	// (refine.go); 0 keeps z_θ at the encoder mean. Recalibration picks
	// it on validation realizations.
	ZThetaPrior float64 `json:"z_theta_prior,omitempty"`
	// ThetaPrior is the form of refinement's prior on θ's logits a
	// around the encoder's estimate a₀ (refine.go, logitPriorWidth):
	// ThetaPriorLogit ("" in files fitted before there was a choice) or
	// ThetaPriorTheta. Recalibration picks it on validation realizations.
	ThetaPrior string `json:"theta_prior,omitempty"`
	// ThetaPriorScale widens that prior, its cap included, by this
	// factor (0, unset: 1), within [MinThetaPriorScale,
	// MaxThetaPriorScale]. Recalibration leaves it unset: eval
	// --theta-prior-scale sets it, to show what the prior's width does
	// (docs/uncertainty.md, "θ at a prior bound").
	ThetaPriorScale float64 `json:"theta_prior_scale,omitempty"`
	// SpreadFit is the predictive spread of the default predictions: how
	// the noise term is set per realization and the post-hoc scales,
	// fitted on validation realizations after training (spread.go,
	// recalibrate.go). Its fields sit directly in the JSON object.
	SpreadFit
	// OnePass is the spread of one-pass predictions (no refinement) of a
	// model that refines by default; nil uses the fields above.
	OnePass *SpreadFit `json:"one_pass,omitempty"`
	// FitRefine is the number of refinement steps (0: one pass) of the
	// predictions the default spread above was fitted to by the last
	// whole recalibration (Recalibrate), which alone picks its mode and
	// profiles. It differs from Refine where a new count refitted
	// nothing (SetRefine): a default fit that is the one-pass one
	// serving refined predictions says 0. nil: not recorded (no fit, or
	// a file fitted before it was recorded).
	FitRefine *int `json:"fit_refine,omitempty"`
}

// FitRefineKnown is the refinement steps the default spread was fitted
// to (FitRefine) and whether the file records them.
func (in Infer) FitRefineKnown() (int, bool) {
	if in.FitRefine == nil {
		return 0, false
	}
	return *in.FitRefine, true
}

// Config is a model's architecture, training and inference settings.
type Config struct {
	Arch  Arch  `json:"arch"`
	Train Train `json:"train"`
	Infer Infer `json:"infer"`
}

// DefaultConfig returns the defaults for a system and backbone: widths
// and budgets from the system's hints (the paper's appendix A), Adam with
// lr 5e-4, batch 64, λθ = λδ = 1, L2 regularisation.
func DefaultConfig(sys sims.System, b Backbone) Config {
	h := sims.HintsFor(sys)
	return Config{
		Arch: Arch{
			System: sys.Name(), Backbone: b, Form: Native,
			Hidden: h.Hidden, Layers: 2, LatentTheta: h.Latent, LatentDelta: h.Latent,
			DecHidden: h.DecHidden, DecLayers: 2, Heads: 4,
			ThetaHint: hasThetaHint(sys),
		},
		Train: Train{
			Steps1: h.Steps1, Steps2: h.Steps2, LR: 5e-4, Batch: h.Batch,
			LambdaTheta: 1, LambdaDelta: 1, Reg: RegL2, Seed: 1,
			ClipNorm: 10, ValEvery: 500, ValTasks: 32,
		},
		Infer: Infer{Refine: 5},
	}
}

// Validate checks a configuration for values that cannot work.
func (c Config) Validate() error {
	for _, check := range []func() error{c.checkNames, c.Arch.check, c.Train.check, c.Infer.check, c.checkThetaBaseLen, c.checkLimits} {
		if err := check(); err != nil {
			return err
		}
	}
	if t := c.Train; t.ContextMin != 0 || t.ContextMax != 0 {
		if err := CheckContextRange(c.Arch.System, t.ContextMin, t.ContextMax); err != nil {
			return fmt.Errorf("training context range %d:%d (train.context_min:context_max) %w", t.ContextMin, t.ContextMax, err)
		}
	}
	return nil
}

// checkNames refuses an unknown system, backbone, form or regulariser.
func (c Config) checkNames() error {
	if _, err := sims.Lookup(c.Arch.System); err != nil {
		return err
	}
	if _, err := ParseBackbone(string(c.Arch.Backbone)); err != nil {
		return err
	}
	if _, err := ParseForm(string(c.Arch.Form)); err != nil {
		return err
	}
	_, err := ParseRegularizer(string(c.Train.Reg))
	return err
}

// check refuses sizes out of their bounds and settings the system or
// backbone cannot take. The upper bounds are far above any useful
// model; they keep a mistyped flag or a crafted checkpoint header from
// asking for more memory than exists, which the runtime cannot recover
// from.
func (a Arch) check() error {
	sizes := []struct {
		name    string
		v, most int
	}{{"hidden", a.Hidden, maxWidth}, {"layers", a.Layers, maxLayers}, {"latent-theta", a.LatentTheta, maxWidth},
		{"latent-delta", a.LatentDelta, maxWidth}, {"dec-hidden", a.DecHidden, maxWidth}, {"dec-layers", a.DecLayers, maxLayers}}
	for _, p := range sizes {
		if p.v < 1 || p.v > p.most {
			return fmt.Errorf("%s must be between 1 and %d, got %d", p.name, p.most, p.v)
		}
	}
	sys, err := sims.Lookup(a.System)
	if err != nil {
		return err
	}
	if a.ThetaHint && !hasThetaHint(sys) {
		return fmt.Errorf("theta-hint: system %s gives no parameter hints", a.System)
	}
	if a.DecAct != "" {
		if _, err := nets.ParseActivation(a.DecAct); err != nil {
			return fmt.Errorf("dec-act: %w", err)
		}
	}
	if a.Basis < 0 || a.Basis > maxWidth {
		return fmt.Errorf("basis must be between 0 and %d, got %d", maxWidth, a.Basis)
	}
	if a.Basis > 0 {
		cl := closureFor(sys, a.Form)
		if q := cl.Queries(); cl.Outputs() != 1 || len(q) < 2 || len(q[0]) == 0 {
			return fmt.Errorf("basis: %s's %s form gives %d value(s) at %d state(s); a basis decoder needs one value at each of several states", a.System, cl.Name(), cl.Outputs(), len(q))
		}
	}
	switch {
	case a.Backbone != ANP:
	case a.Heads < 1: // a checkpoint's header can say 0, which divides nothing
		return fmt.Errorf("heads must be ≥ 1, got %d", a.Heads)
	case a.Hidden%a.Heads != 0:
		return fmt.Errorf("heads must divide hidden (%d %% %d)", a.Hidden, a.Heads)
	}
	return nil
}

// check refuses a training plan out of its bounds: steps, batch,
// learning rates, weights and noise. JSON, and so a checkpoint's
// header, has no Inf or NaN.
func (t Train) check() error {
	if t.Batch < 1 || t.Batch > maxBatch {
		return fmt.Errorf("batch must be between 1 and %d, got %d", maxBatch, t.Batch)
	}
	if t.Steps1 < 0 || t.Steps2 < 0 || t.Steps1 > LimitTrainSteps.Max || t.Steps2 > LimitTrainSteps.Max {
		return fmt.Errorf("steps must be between 0 and %d per stage, got %d and %d", LimitTrainSteps.Max, t.Steps1, t.Steps2)
	}
	for _, v := range []struct {
		key   string
		limit FloatLimit
		x     float64
	}{{"train.lr", LimitLR, t.LR}, {"train.lr_final", LimitLRFinal, t.LRFinal}, {"train.lambda_theta", LimitLossWeight, t.LambdaTheta},
		{"train.lambda_delta", LimitLossWeight.As("lambda-delta"), t.LambdaDelta}, {"train.clip_norm", LimitClip, t.ClipNorm}} {
		if err := v.limit.Check(v.x); err != nil {
			return fmt.Errorf("%s: %w", v.key, err) // the key in the file, the bound as the flag's
		}
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"noise", t.Noise}, {"noise-max", t.NoiseMax}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) { // NaN fails x ≥ 0
			return fmt.Errorf("%s must be finite and ≥ 0, got %v", v.name, v.x)
		}
	}
	if t.Noise > MaxNoise || t.NoiseMax > MaxNoise {
		return fmt.Errorf("training noise σ must be at most %v (the data are of order 1), got %v", MaxNoise, math.Max(t.Noise, t.NoiseMax))
	}
	if t.NoiseMax > 0 && t.NoiseMax < t.Noise {
		return fmt.Errorf("training noise range %v:%v must satisfy low ≤ high", t.Noise, t.NoiseMax)
	}
	if !(t.NoiseLowShare >= 0 && t.NoiseLowShare <= 1) {
		return fmt.Errorf("noise-low-share must be between 0 and 1, got %v", t.NoiseLowShare)
	}
	return nil
}

// check refuses inference settings out of their bounds: the spreads'
// fits, z_θ's prior factor, θ's prior form and scale.
func (in Infer) check() error {
	if err := in.SpreadFit.check(); err != nil {
		return err
	}
	if in.SpreadFit.DeltaTheta != nil && in.Refine > 0 {
		// Nothing fits one there: the θ term belongs to the one-pass
		// predictions' fit (RecalibrateOnePassDeltaTheta), which is the
		// default one only for a model that does not refine by default.
		return fmt.Errorf("δ's θ term is stored with the default spread of a model that refines by default (refine %d): it belongs to the one-pass fit (infer.one_pass.delta_theta) only", in.Refine)
	}
	if in.OnePass != nil {
		if err := in.OnePass.check(); err != nil {
			return fmt.Errorf("one-pass %w", err)
		}
		if err := in.OnePass.checkNoDisagreement(); err != nil {
			return err
		}
	}
	if !(in.ZThetaPrior >= 0 && in.ZThetaPrior <= MaxZThetaPrior) {
		return fmt.Errorf("z_θ prior factor must be in [0, %g], got %v", MaxZThetaPrior, in.ZThetaPrior)
	}
	if p := in.ThetaPrior; p != "" && !slices.Contains(ThetaPriors, p) {
		return fmt.Errorf("θ prior %s: the forms are %s", QuoteInput(p), strings.Join(ThetaPriors, " and "))
	}
	if k := in.ThetaPriorScale; k != 0 && !(k >= MinThetaPriorScale && k <= MaxThetaPriorScale) {
		return fmt.Errorf("θ prior scale %v: want 0 (unset) or a factor in [%g, %g]", k, MinThetaPriorScale, MaxThetaPriorScale)
	}
	return nil
}

// checkThetaBaseLen reports floors or factors of θ's deviation
// (thetabase.go) for other than the system's number of parameters
// (checkConditions makes the cells agree).
func (c Config) checkThetaBaseLen() error {
	sys, _ := sims.Lookup(c.Arch.System)
	if sys == nil {
		return nil
	}
	for _, s := range []*SpreadFit{&c.Infer.SpreadFit, c.Infer.OnePass} {
		if s == nil {
			continue
		}
		P := len(sys.Params())
		if n := len(s.ThetaFloor); n != 0 && n != P {
			return fmt.Errorf("θ deviation floors for %d parameters: %s has %d", n, c.Arch.System, P)
		}
		if d := s.DeltaTheta; d != nil && len(d.Factor) != P {
			return fmt.Errorf("δ's θ term for %d parameters: %s has %d", len(d.Factor), c.Arch.System, P)
		}
		if len(s.Conditions) > 0 {
			if n := len(s.Conditions[0].ThetaParam); n != 0 && n != P {
				return fmt.Errorf("θ deviation factors for %d parameters: %s has %d", n, c.Arch.System, P)
			}
		}
	}
	return nil
}

// checkLimits checks the counts that size memory or running time against
// the same limits as the flags that set them, since a checkpoint's
// config may hold any value: train --init would draw val_tasks
// realizations, and every prediction runs refine steps.
func (c Config) checkLimits() error {
	sys, err := sims.Lookup(c.Arch.System)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		key   string
		limit Limit
		v     int
	}{
		{"train.val_tasks", LimitValTasks, c.Train.ValTasks},
		{"train.trajectories", TrajectoriesLimit(sys), c.Train.Trajectories},
		{"infer.refine", LimitRefine, c.Infer.Refine},
		{"infer.fit_refine", LimitRefine, fitRefineOrZero(c.Infer)},
	} {
		if err := l.limit.Check(l.v); err != nil {
			return fmt.Errorf("%s: %w", l.key, err)
		}
	}
	return nil
}

// fitRefineOrZero is in's FitRefine, 0 where none is recorded.
func fitRefineOrZero(in Infer) int {
	n, _ := in.FitRefineKnown()
	return n
}

// Limits on the sizes a configuration may ask for (see Validate).
const (
	maxWidth  = 4096
	maxLayers = 32
	maxBatch  = 4096
)

// hasThetaHint reports whether sys estimates some parameters directly.
func hasThetaHint(sys sims.System) bool {
	_, ok := sys.(sims.ThetaHinter)
	return ok
}

// CheckContextRange reports a training context range lo:hi outside
// 1 ≤ lo ≤ hi ≤ the number of grid states of the system named, in the
// words that train's --context-range, sweep's context-range axis and a
// checkpoint's config share, the value left to the caller to name (the
// bound on hi is left out for a system that does not exist, which
// Validate reports on its own).
func CheckContextRange(system string, lo, hi int) error {
	sys, err := sims.Lookup(system)
	switch {
	case err != nil && (lo < 1 || hi < lo):
		return errors.New("must satisfy 1 ≤ MIN ≤ MAX")
	case err != nil:
		return nil
	case lo < 1 || hi < lo || hi > len(sys.Grid().States):
		return fmt.Errorf("must satisfy 1 ≤ MIN ≤ MAX ≤ %d (%s's grid states)", len(sys.Grid().States), system)
	}
	return nil
}

// namesOf is the names of a list of named settings (backbones, forms,
// regularisers), in its order, for flags that take them in any case.
func namesOf[T ~string](list []T) []string {
	names := make([]string, len(list))
	for i, v := range list {
		names[i] = string(v)
	}
	return names
}
