package cpinn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// Name is the method's name in tables and JSON.
const Name = "correction-pinn"

// Options configure a fit. Zero values take the defaults.
type Options struct {
	// Members is the ensemble size (default 20, the APIC paper's).
	Members int
	// Steps is each member's number of full-batch Adam steps (default
	// DefaultSteps).
	Steps int
	// LearningRate is Adam's starting step (default 3·10⁻³).
	LearningRate float64
	// Seed seeds the members' initial weights and θ and the collocation
	// subset; a fit is a deterministic function of the context, the side
	// information and Seed.
	Seed uint64
	// Workers is the number of members trained at once (default
	// GOMAXPROCS).
	Workers int
	// Collocation caps the collocation states (default 256): all grid
	// states when the grid has fewer, else a seeded subset.
	Collocation int
	// CorrectionPenalty is λ_s (default 0.1).
	CorrectionPenalty float64
	// Trace, if set, is called every TraceEvery steps of every member
	// with the member, the step, the loss, the context misfit and θ
	// (for diagnostics; it must be safe for concurrent use).
	Trace      func(member, step int, loss, misfit float64, theta []float64)
	TraceEvery int
}

// The defaults. The APIC paper reports 20 members and about 150 s per
// realization; 3000 full-batch steps of the 3 × 64 network take about
// that on one core for spring.
const (
	DefaultMembers     = 20
	DefaultSteps       = 3000
	defaultLR          = 3e-3
	defaultCollocation = 256
	defaultPenalty     = 1e-1
	// finalLRFraction is where the exponential learning-rate decay ends.
	finalLRFraction = 0.1
)

func (o Options) withDefaults() Options {
	if o.Members < 1 {
		o.Members = DefaultMembers
	}
	if o.Steps < 1 {
		o.Steps = DefaultSteps
	}
	if o.LearningRate <= 0 {
		o.LearningRate = defaultLR
	}
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Collocation < 1 {
		o.Collocation = defaultCollocation
	}
	if o.CorrectionPenalty <= 0 {
		o.CorrectionPenalty = defaultPenalty
	}
	return o
}

// The networks' sizes (the specification of Zou et al.'s setup).
var (
	solutionHidden   = []int{64, 64, 64}
	correctionHidden = []int{32, 32}
)

// Calibrator is the Correction-PINN method for one system. It implements
// core.Method and is safe for concurrent use.
type Calibrator struct {
	Sys sims.System
	Eq  sims.Equations
	Opt Options
}

// New returns a Correction-PINN calibrator for sys, or an error when sys
// does not give its nominal equations.
func New(sys sims.System, opt Options) (*Calibrator, error) {
	eq, ok := sys.(sims.Equations)
	if !ok {
		return nil, fmt.Errorf("%s: system %s does not give its nominal equations (sims.Equations)", Name, sys.Name())
	}
	return &Calibrator{Sys: sys, Eq: eq, Opt: opt}, nil
}

// Name returns "correction-pinn".
func (*Calibrator) Name() string { return Name }

// Member is one trained ensemble member's outcome.
type Member struct {
	Theta []float64
	// Mean is û on the grid (layout as sims.Grid values).
	Mean []float64
	// Misfit is the final mean squared context misfit; Loss the final
	// total loss.
	Misfit, Loss float64
}

// Fit is one realization's ensemble.
type Fit struct {
	Members []Member
}

// Calibrate trains the ensemble and predicts on the whole grid.
func (c *Calibrator) Calibrate(ctx context.Context, obs sims.Context, side []float64) (core.Prediction, error) {
	f, err := c.Fit(ctx, obs, side)
	if err != nil {
		return core.Prediction{}, err
	}
	return c.predict(f, side), nil
}

// Fit trains Opt.Members members on up to Opt.Workers goroutines. ctx is
// checked every few steps.
func (c *Calibrator) Fit(ctx context.Context, obs sims.Context, side []float64) (*Fit, error) {
	opt := c.Opt.withDefaults()
	prob, err := newProblem(c.Sys, c.Eq, obs, side, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	fit := &Fit{Members: make([]Member, opt.Members)}
	errs := make([]error, opt.Members)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(opt.Workers, opt.Members) {
		wg.Go(func() {
			for m := range next {
				fit.Members[m], errs[m] = prob.train(ctx, opt, m)
			}
		})
	}
	for m := range opt.Members {
		next <- m
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return fit, nil
}

// problem is one realization's fixed training data, shared read-only by
// the members.
type problem struct {
	sys      sims.System
	eq       sims.Equations
	side     []float64
	dims     int
	channels int
	lo, span *nets.Tensor // θ's prior box, [1, P]

	ctxIn, ctxY, ctxMask *nets.Tensor // context features [Nc, F], values and 0/1 mask [Nc, C]
	observed             float64      // number of observed values
	colJet, colIn        *nets.Tensor // collocation jet [(1+2D)·Nr, F] and its value block
	thetaHold            float64      // share of the steps θ is held at its start (thetaHold)
	icJet                *nets.Tensor // initial-condition jet [(1+2D)·M, F]
	gridIn               *nets.Tensor // grid features [G, F]
}

func newProblem(sys sims.System, eq sims.Equations, obs sims.Context, side []float64, opt Options) (*problem, error) {
	g := sys.Grid()
	if err := checkContext(sys, obs, side); err != nil {
		return nil, err
	}
	p := &problem{sys: sys, eq: eq, side: side, dims: len(g.StateNames), channels: len(g.Channels), thetaHold: thetaHold[sys.Name()]}
	params := sys.Params()
	p.lo, p.span = nets.NewTensor(1, len(params)), nets.NewTensor(1, len(params))
	for i, q := range params {
		p.lo.Data[i], p.span.Data[i] = q.Lo, q.Hi-q.Lo
	}
	p.ctxIn = features(eq, obs.States, 0)
	n, C := obs.Len(), p.channels
	p.ctxY, p.ctxMask = nets.NewTensor(n, C), nets.NewTensor(n, C)
	for i := range n {
		for ch := range C {
			if obs.Mask[i][ch] {
				p.ctxY.Set(i, ch, obs.Values[i][ch])
				p.ctxMask.Set(i, ch, 1)
				p.observed++
			}
		}
	}
	col := collocation(g, opt.Collocation, opt.Seed)
	p.colJet = features(eq, col, p.dims)
	p.colIn = nets.FromSlice(len(col), eq.EqFeatureLen(), p.colJet.Data[:len(col)*eq.EqFeatureLen()])
	p.icJet = features(eq, eq.InitialStates(), p.dims)
	p.gridIn = features(eq, g.States, 0)
	return p, nil
}

// checkContext validates a context and the side information.
func checkContext(sys sims.System, obs sims.Context, side []float64) error {
	g := sys.Grid()
	if want := sys.Side().Len; len(side) != want {
		return fmt.Errorf("%d side values, want %d", len(side), want)
	}
	for i, v := range side {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("side value %d is %v", i, v)
		}
	}
	n, C, D := obs.Len(), len(g.Channels), len(g.StateNames)
	if n < 1 {
		return fmt.Errorf("empty context")
	}
	if len(obs.Values) != n || len(obs.Mask) != n {
		return fmt.Errorf("malformed context: %d states, %d values, %d masks", n, len(obs.Values), len(obs.Mask))
	}
	for i := range n {
		if len(obs.States[i]) != D || len(obs.Values[i]) != C || len(obs.Mask[i]) != C {
			return fmt.Errorf("observation %d has %d state values, %d values and %d mask entries, want %d, %d, %d",
				i, len(obs.States[i]), len(obs.Values[i]), len(obs.Mask[i]), D, C, C)
		}
		for c, v := range obs.Values[i] {
			if obs.Mask[i][c] && (math.IsNaN(v) || math.IsInf(v, 0)) {
				return fmt.Errorf("observation %d, channel %s is %v", i, g.Channels[c], v)
			}
		}
	}
	return nil
}

// collocation returns the grid's states when there are at most limit of
// them, else limit grid states drawn without replacement from a source
// seeded with seed.
func collocation(g sims.Grid, limit int, seed uint64) [][]float64 {
	if g.Points() <= limit {
		return g.States
	}
	rng := rand.New(rand.NewPCG(seed, 0x636f6c6c6f63))
	perm := rng.Perm(g.Points())[:limit]
	out := make([][]float64, limit)
	for i, gi := range perm {
		out[i] = g.States[gi]
	}
	return out
}

// features builds the networks' input jet at states along dirs
// directions (0: the features alone), [(1+2·dirs)·N, F].
func features(eq sims.Equations, states [][]float64, dirs int) *nets.Tensor {
	n, F := len(states), eq.EqFeatureLen()
	t := nets.NewTensor(nets.JetBlocks(dirs)*n, F)
	var d1, d2 [][]float64
	if dirs > 0 {
		d1, d2 = make([][]float64, dirs), make([][]float64, dirs)
		for d := range dirs {
			d1[d], d2[d] = make([]float64, F), make([]float64, F)
		}
	}
	for i, s := range states {
		eq.EqFeatures(s, t.Row(i), d1, d2)
		for d := range dirs {
			copy(t.Row((1+2*d)*n+i), d1[d])
			copy(t.Row((2+2*d)*n+i), d2[d])
		}
	}
	return t
}
