package sims

// Hints are a system's suggested model sizes and training budget, taken
// from the paper's appendix A for the benchmark systems. They are defaults
// only: every value can be overridden on the command line.
type Hints struct {
	Hidden      int // width of the per-point encoder networks
	Latent      int // dimension of each latent (z_θ and z_δ)
	DecHidden   int // width of the discrepancy network f_ψ
	Steps1      int // stage 1 (physics pretraining) steps
	Steps2      int // stage 2 (joint variational training) steps
	Batch       int
	EvalSamples int // Monte-Carlo samples at inference
	// InteractiveSamples are the Monte-Carlo samples that keep one
	// prediction quick enough to follow a slider (the explorer): enough
	// for a visible ±2σ band, fewer where each sample is costly.
	InteractiveSamples int
}

// Hinter is implemented by systems that suggest model sizes and budgets.
type Hinter interface {
	Hints() Hints
}

// DefaultHints are used for systems that give none.
var DefaultHints = Hints{Hidden: 128, Latent: 16, DecHidden: 128, Steps1: 3000, Steps2: 4000, Batch: 64, EvalSamples: 32, InteractiveSamples: 16}

// HintsFor returns sys's hints, filling unset fields from DefaultHints.
func HintsFor(sys System) Hints {
	h := DefaultHints
	if hs, ok := sys.(Hinter); ok {
		g := hs.Hints()
		set := func(dst *int, v int) {
			if v > 0 {
				*dst = v
			}
		}
		set(&h.Hidden, g.Hidden)
		set(&h.Latent, g.Latent)
		set(&h.DecHidden, g.DecHidden)
		set(&h.Steps1, g.Steps1)
		set(&h.Steps2, g.Steps2)
		set(&h.Batch, g.Batch)
		set(&h.EvalSamples, g.EvalSamples)
		set(&h.InteractiveSamples, g.InteractiveSamples)
	}
	return h
}

// SideFeaturer is implemented by systems whose discrepancy depends on the
// side information in a way the discrepancy network should see directly
// (for lv, the forcing depends on the initial state). The features are
// appended to f_ψ's input at every query state.
type SideFeaturer interface {
	SideFeatureLen() int
	SideFeatures(dst, side []float64)
}

// ThetaHinter is implemented by systems that can estimate some of θ
// directly from a context through physics that the discrepancy leaves
// exact (for lv, the predator equation, which the prey forcing does not
// enter). ThetaHint returns estimates and their standard deviations in
// the prior's normalised log coordinates s = (log θ − log lo)/(log hi −
// log lo); a parameter without an estimate has sd NaN. A model may use
// the hints in place of its own estimates of those parameters (core's
// Arch.ThetaHint).
type ThetaHinter interface {
	ThetaHint(ctx Context, side []float64) (s, sd []float64)
}
