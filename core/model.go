package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"apic/nets"
	"apic/sims"
)

// Model is an APIC model for one system.
//
// Generative path for a realization with context C:
//
//	z_θ ~ q(z_θ | C),  z_δ ~ q(z_δ | C)
//	θ̂  = g_φ(z_θ) = exp(log θ_lo + sigmoid(MLP(z_θ))·(log θ_hi − log θ_lo))
//	f   = f_ψ(q(x), z_θ, z_δ, s_θ[, side]) at the closure's query states x
//	      (with Arch.Basis: Σ_h b_h(z_θ, z_δ, s_θ[, side])·φ_h(q(x)))
//	ŷ   = closure(θ̂, side, f)         on the grid
//	y  ~ N(ŷ, σ_c²)                    σ_c a learned scalar per channel
//
// s_θ ∈ (0,1)^P are the sigmoid outputs of g_φ (θ̂ in normalised log
// coordinates), handed to f_ψ so the correction can depend on the physics
// directly. The observation noise is homoscedastic per channel: with the
// Monte-Carlo spread of the latents it forms the predictive variance.
type Model struct {
	Sys    sims.System
	Config Config
	Params *nets.Params

	closure  sims.Closure
	phys     *encoder
	disc     *encoder
	thetaMap *nets.MLP
	fpsi     *nets.MLP    // f_ψ, or with Arch.Basis its branch b(z)
	trunk    *nets.MLP    // with Arch.Basis: the basis functions φ(q(x)); else nil
	logNoise *nets.Param  // [1, C] log σ_c²
	queryIn  *nets.Linear // anp: query-state embedding for target attention
	target   *nets.MultiHeadAttention

	summary        gridSummary
	sideFeat       sims.SideFeaturer // nil when f_ψ reads no side features
	logLo, logSpan *nets.Tensor      // [1, P]
	queryFeats     *nets.Tensor      // [Q, Fq]
	chanSpread     *nets.Tensor      // [C, G*C]: row c has ones at channel c
}

// NewModel builds a model with freshly initialised weights drawn from a
// source seeded with cfg.Train.Seed.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	sys, _ := sims.Lookup(cfg.Arch.System)
	a := cfg.Arch
	rng := rand.New(rand.NewPCG(cfg.Train.Seed, 0x617069632d696e69))
	ps := &nets.Params{}
	m := &Model{Sys: sys, Config: cfg, Params: ps, closure: closureFor(sys, a.Form)}

	params := sys.Params()
	P := len(params)
	m.logLo, m.logSpan = nets.NewTensor(1, P), nets.NewTensor(1, P)
	for i, p := range params {
		m.logLo.Data[i] = math.Log(p.Lo)
		m.logSpan.Data[i] = math.Log(p.Hi) - math.Log(p.Lo)
	}

	queries := m.closure.Queries()
	fq := 0
	if len(queries) > 0 && len(queries[0]) > 0 {
		fq = sys.QueryFeatureLen()
	}
	m.queryFeats = nets.NewTensor(len(queries), fq)
	for i, q := range queries {
		if fq > 0 {
			sys.QueryFeatures(m.queryFeats.Row(i), q)
		}
	}
	g := sys.Grid()
	C := len(g.Channels)
	m.chanSpread = nets.NewTensor(C, g.Size())
	for p := 0; p < g.Points(); p++ {
		for c := 0; c < C; c++ {
			m.chanSpread.Set(c, p*C+c, 1)
		}
	}

	m.summary = newGridSummary(sys.Grid())
	m.phys = newEncoder("phys", sys.FeatureLen(), m.summary.Len(), a, a.LatentTheta, ps, rng)
	m.disc = newEncoder("disc", sys.FeatureLen(), m.summary.Len(), a, a.LatentDelta, ps, rng)
	m.thetaMap = nets.NewMLP("gphi", []int{a.LatentTheta, a.DecHidden, a.DecHidden, P}, nets.ActReLU, ps, rng)

	in := fq + a.LatentTheta + a.LatentDelta + P
	if sf, ok := sys.(sims.SideFeaturer); ok {
		m.sideFeat = sf
		in += sf.SideFeatureLen()
	}
	if a.Backbone == ANP && fq > 0 && a.Basis == 0 {
		m.queryIn = nets.NewLinear("target.query", fq, a.Hidden, ps, rng)
		m.target = nets.NewMultiHeadAttention("target.attn", a.Hidden, a.Hidden, a.Hidden, a.Hidden, a.Heads, ps, rng)
		in += a.Hidden
	}
	act := nets.ActSiLU
	if a.DecAct != "" {
		act = nets.Activation(a.DecAct)
	}
	out := m.closure.Outputs()
	if a.Basis > 0 {
		in -= fq // the branch reads no query features
		out = a.Basis
		m.trunk = nets.NewMLP("fpsi.trunk", mlpSizes(fq, a.DecHidden, a.DecLayers, a.Basis), act, ps, rng)
	}
	m.fpsi = nets.NewMLP("fpsi", mlpSizes(in, a.DecHidden, a.DecLayers, out), act, ps, rng)
	// Start f_ψ at zero output so training begins from the nominal
	// simulator (envelope 1, no forcing, reaction rate at mid-range).
	m.fpsi.Last().W.Value.Zero()

	m.logNoise = nets.NewParam("obs.lognoise", 1, C)
	for c := range m.logNoise.Value.Data {
		m.logNoise.Value.Data[c] = math.Log(0.1 * 0.1)
	}
	ps.Add(m.logNoise)
	return m, nil
}

// Closure returns the discrepancy form the model uses.
func (m *Model) Closure() sims.Closure { return m.closure }

// Batch is a set of B realizations with the same context size N, prepared
// as tensors.
type Batch struct {
	B, N    int
	Feats   *nets.Tensor // [B*N, FeatureLen]
	Summary *nets.Tensor // [B, grid summary length]; filled on first use by models that read it
	Side    *nets.Tensor // [B, S]
	Values  *nets.Tensor // [B, G*C] target values on the grid (training)
	Theta   *nets.Tensor // [B, P] true parameters (when known)
	Context []sims.Context
	// Hint, HintSD and HintMask [B, P]: the system's direct estimates of
	// s_θ, their standard deviations and 1 where one is given
	// (sims.ThetaHinter); nil for other systems.
	Hint, HintSD, HintMask *nets.Tensor
	// procs caps the goroutines that inference on the batch uses (0:
	// GOMAXPROCS): 1 when the batch is one of several pieces that already
	// run side by side.
	procs int
	// arena holds the batch's features and, for a prediction, the
	// values of its inference tapes (nil: the heap); the caller resets
	// it once the predictions are copied out.
	arena *nets.Arena
	// done, a prediction's ctx.Done(), stops its tapes' longest
	// operations early (nets.Tape.SetDone); nil never does.
	done <-chan struct{}
}

// inferenceTape returns an inference tape (its values in arena; nil:
// the heap) limited to the batch's goroutines.
func (bt *Batch) inferenceTape(arena *nets.Arena) *nets.Tape {
	tp := nets.NewArenaTape(arena)
	tp.SetWorkers(bt.procs)
	tp.SetDone(bt.done)
	return tp
}

// NewBatch encodes contexts (all of one size) with their side information.
// values and theta may be nil.
func NewBatch(sys sims.System, ctxs []sims.Context, sides [][]float64, values, theta [][]float64) (*Batch, error) {
	return newBatchIn(nil, sys, ctxs, sides, values, theta)
}

// newBatchIn is NewBatch with the encoded features in arena (nil: the
// heap), valid until its Reset.
func newBatchIn(arena *nets.Arena, sys sims.System, ctxs []sims.Context, sides [][]float64, values, theta [][]float64) (*Batch, error) {
	b := len(ctxs)
	if b == 0 {
		return nil, fmt.Errorf("empty batch")
	}
	n := ctxs[0].Len()
	if n == 0 {
		return nil, fmt.Errorf("empty context")
	}
	f := sys.FeatureLen()
	bt := &Batch{B: b, N: n, Feats: arena.Tensor(b*n, f), Side: nets.NewTensor(b, sys.Side().Len), Context: ctxs, arena: arena}
	for i, c := range ctxs {
		if c.Len() != n {
			return nil, fmt.Errorf("context %d has %d points, batch needs %d", i, c.Len(), n)
		}
		sys.EncodeContext(nets.FromSlice(n, f, bt.Feats.Data[i*n*f:(i+1)*n*f]), c, sides[i])
		copy(bt.Side.Row(i), sides[i])
	}
	if h, ok := sys.(sims.ThetaHinter); ok {
		p := len(sys.Params())
		bt.Hint, bt.HintSD, bt.HintMask = nets.NewTensor(b, p), nets.NewTensor(b, p), nets.NewTensor(b, p)
		for i, c := range ctxs {
			est, sd := h.ThetaHint(c, sides[i])
			for j, v := range est {
				if !math.IsNaN(v) {
					bt.Hint.Set(i, j, v)
					bt.HintSD.Set(i, j, sd[j])
					bt.HintMask.Set(i, j, 1)
				}
			}
		}
	}
	if values != nil {
		bt.Values = nets.NewTensor(b, sys.Grid().Size())
		for i, v := range values {
			copy(bt.Values.Row(i), v)
		}
	}
	if theta != nil {
		bt.Theta = nets.NewTensor(b, len(sys.Params()))
		for i, th := range theta {
			copy(bt.Theta.Row(i), th)
		}
	}
	return bt, nil
}

// batchSummary returns the batch's grid summary as a constant, encoding it
// on first use; it is nil for models without the grid summary, which then
// pay nothing for it in training steps or predictions.
func (m *Model) batchSummary(tp *nets.Tape, bt *Batch) *nets.Var {
	if !m.Config.Arch.GridSummary {
		return nil
	}
	if bt.Summary == nil {
		bt.Summary = nets.NewTensor(bt.B, m.summary.Len())
		for i, c := range bt.Context {
			m.summary.Encode(bt.Summary.Row(i), c)
		}
	}
	return tp.Const(bt.Summary)
}

// latentSample is z = μ + σ·ε for a latent with K samples per realization
// (rows realization-major); deterministic backbones use z = μ.
func (m *Model) latentSample(tp *nets.Tape, e encoded, k int, rng *noise) *nets.Var {
	mu, lv := e.mu, e.logVar
	if k > 1 {
		mu, lv = tp.RepeatRows(mu, k), tp.RepeatRows(lv, k)
	}
	if m.Config.Arch.Backbone == CNP || rng == nil {
		return mu
	}
	eps := nets.NewTensor(mu.Value.Rows, mu.Value.Cols)
	for i := range eps.Data {
		eps.Data[i] = rng.normal(i / eps.Cols / k) // rows realization-major
	}
	return tp.Add(mu, tp.Mul(tp.Exp(tp.Scale(lv, 0.5)), tp.Const(eps)))
}

// thetaHat maps z_θ [R, Lθ] to θ̂ [R, P] and the normalised s_θ [R, P].
func (m *Model) thetaHat(tp *nets.Tape, zT *nets.Var) (theta, s *nets.Var) {
	s = tp.Sigmoid(m.thetaMap.Forward(tp, zT))
	return m.thetaOfS(tp, s), s
}

// thetaOfS is θ = exp(log lo + s·(log hi − log lo)).
func (m *Model) thetaOfS(tp *nets.Tape, s *nets.Var) *nets.Var {
	return tp.Exp(tp.Add(tp.Mul(s, tp.Const(m.logSpan)), tp.Const(m.logLo)))
}

// hinted replaces the hinted entries of s [B·k, P] (rows
// realization-major) by the batch's hints, s ← s·(1 − M) + h·M, and
// returns the matching θ; without hints it returns theta and s as given.
// With several latent samples (predictions) each sample draws its hint
// from N(h, sd²), so the predictive spread carries the hint's
// uncertainty; training (one sample) uses h itself.
//
// Either stays inside the prior box s ∈ [0, 1], where g_φ puts every
// other θ̂ and refinement keeps the hinted ones: one sample takes h cut
// to the box (the mode of the hint under the uniform prior), several
// draw from N(h, sd²) truncated to it (the hint's posterior). A few
// context points give the regression a wide sd and an h far off, and an
// unbounded draw then reached θ in the thousands, where the RK4
// integration overflows (one-pass lv at context 5: recon MAE 4.45).
func (m *Model) hinted(tp *nets.Tape, bt *Batch, k int, rng *noise, theta, s *nets.Var) (*nets.Var, *nets.Var) {
	if !m.Config.Arch.ThetaHint || bt.HintMask == nil {
		return theta, s
	}
	h, sd, mask := bt.Hint, bt.HintSD, bt.HintMask
	if k > 1 {
		h, sd, mask = repeatRows(h, k), repeatRows(sd, k), repeatRows(mask, k)
	}
	keep := nets.NewTensor(mask.Rows, mask.Cols)
	fixed := nets.NewTensor(mask.Rows, mask.Cols)
	for i, v := range mask.Data {
		keep.Data[i] = 1 - v
		if v == 0 {
			continue
		}
		hs := min(max(h.Data[i], 0), 1)
		if k > 1 && rng != nil {
			hs = truncatedNormal(h.Data[i], sd.Data[i], rng.normal(i/mask.Cols/k), 0, 1)
		}
		fixed.Data[i] = v * hs
	}
	s = tp.Add(tp.Mul(s, tp.Const(keep)), tp.Const(fixed))
	return m.thetaOfS(tp, s), s
}

// forwardOut holds one forward pass over R = B·K latent samples.
type forwardOut struct {
	phys, disc encoded
	zT, zD     *nets.Var // [R, L]
	theta, s   *nets.Var // [R, P]
	f          *nets.Var // [R*Q, O]
	pred       *nets.Var // [R, G*C]
	logVar     *nets.Var // [1, G*C] observation log-variance per grid value
	k          int
}

// encodePhys runs only the physics path: z_θ and θ̂.
func (m *Model) encodePhys(tp *nets.Tape, bt *Batch, k int, rng *noise) (encoded, *nets.Var, *nets.Var) {
	e := m.phys.forward(tp, tp.Const(bt.Feats), m.batchSummary(tp, bt), bt.B, bt.N)
	zT := m.latentSample(tp, e, k, rng)
	theta, _ := m.thetaHat(tp, zT)
	return e, zT, theta
}

// forward runs the full model with k latent samples per realization
// (k = 1 in training). rng == nil uses the latent means.
func (m *Model) forward(tp *nets.Tape, bt *Batch, k int, rng *noise) forwardOut {
	return m.forwardWith(tp, bt, k, rng, nil)
}

// forwardWith is forward with an optional θ override [B·k, P] that
// replaces θ̂ (and the s_θ f_ψ sees).
func (m *Model) forwardWith(tp *nets.Tape, bt *Batch, k int, rng *noise, override *nets.Tensor) forwardOut {
	feats, summary := tp.Const(bt.Feats), m.batchSummary(tp, bt)
	o := forwardOut{k: k}
	o.phys = m.phys.forward(tp, feats, summary, bt.B, bt.N)
	o.disc = m.disc.forward(tp, feats, summary, bt.B, bt.N)
	o.zT = m.latentSample(tp, o.phys, k, rng)
	o.zD = m.latentSample(tp, o.disc, k, rng)
	o.theta, o.s = m.thetaHat(tp, o.zT)
	o.theta, o.s = m.hinted(tp, bt, k, rng, o.theta, o.s)
	if override != nil {
		o.theta, o.s = tp.Const(override), tp.Const(m.normalisedTheta(override))
	}
	att := m.targetAttention(tp, o.disc, bt.B)
	// One realization's k samples share its attention [Q, H]: f_ψ's
	// tiled first layer then multiplies it once, not k times.
	if att != nil && k > 1 && bt.B > 1 {
		q, h := m.queryFeats.Rows, att.Value.Cols
		att = tp.Reshape(tp.RepeatRows(tp.Reshape(att, bt.B, q*h), k), bt.B*k*q, h)
	}
	side := bt.Side
	if k > 1 {
		side = repeatRows(bt.Side, k)
	}
	o.f, o.pred = m.decode(tp, o.theta, o.s, o.zT, o.zD, att, side)
	o.logVar = tp.MatMul(tp.Param(m.logNoise), tp.Const(m.chanSpread), false, false)
	return o
}

// normalisedTheta maps θ [R, P] to s = (log θ − log lo)/(log hi − log lo),
// the coordinates g_φ produces and f_ψ reads.
func (m *Model) normalisedTheta(theta *nets.Tensor) *nets.Tensor {
	s := nets.NewTensor(theta.Rows, theta.Cols)
	for i, v := range theta.Data {
		p := i % theta.Cols
		s.Data[i] = (math.Log(v) - m.logLo.Data[p]) / m.logSpan.Data[p]
	}
	return s
}

// targetAttention is the anp's deterministic target-dependent
// representation [B*Q, H]: each query state attends to the context points
// of its realization. It is nil for other backbones.
func (m *Model) targetAttention(tp *nets.Tape, disc encoded, b int) *nets.Var {
	if m.target == nil {
		return nil
	}
	qe := tp.TileRows(m.queryIn.Forward(tp, tp.Const(m.queryFeats)), b)
	return m.target.Forward(tp, qe, disc.points, disc.points, b)
}

// decode evaluates f_ψ at the closure's query states for R latent
// samples and combines it with the simulator:
//
//	f = f_ψ(q(x), z_θ, z_δ, s_θ [, att(x)]),   ŷ = closure(θ, side, f)
//
// or, with a basis decoder, f = b(z_θ, z_δ, s_θ)·φ(q(x)) (no att).
//
// theta, s [R, P]; zT [R, Lθ]; zD [R, Lδ]; side [R, S]; att [R*Q, H],
// or [Q, H] shared by every sample, or nil.
func (m *Model) decode(tp *nets.Tape, theta, s, zT, zD, att *nets.Var, side *nets.Tensor) (f, pred *nets.Var) {
	r := theta.Value.Rows
	// f_ψ's input row i·Q + j is [query features of state j | z_θ, z_δ,
	// s, side features of sample i | attention of (i, j)]; the tiled
	// first layer multiplies the shared parts once.
	perSample := []*nets.Var{zT, zD, s}
	if m.sideFeat != nil {
		sf := nets.NewTensor(r, m.sideFeat.SideFeatureLen())
		for i := 0; i < r; i++ {
			m.sideFeat.SideFeatures(sf.Row(i), side.Row(i))
		}
		perSample = append(perSample, tp.Const(sf))
	}
	if m.trunk != nil {
		// f [R, Q] = b(z) [R, J] · φ(q)ᵀ [J, Q], realization-major as
		// [R·Q, 1].
		phi := m.trunk.Forward(tp, tp.Const(m.queryFeats))
		f = tp.MatMul(m.fpsi.Forward(tp, tp.ConcatCols(perSample...)), phi, false, true)
		f = tp.Reshape(f, r*m.queryFeats.Rows, 1)
	} else {
		f = m.fpsi.ForwardTiled(tp, tp.Const(m.queryFeats), tp.ConcatCols(perSample...), att)
	}
	return f, m.closure.Apply(tp, theta, side, f)
}

// repeatRows repeats each row of t k times (no gradient).
// mlpSizes are an MLP's layer sizes: in, layers hidden layers width
// wide, out (NewModel's networks, and ParamCount's count of them).
func mlpSizes(in, width, layers, out int) []int {
	return append(append([]int{in}, slices.Repeat([]int{width}, layers)...), out)
}

func repeatRows(t *nets.Tensor, k int) *nets.Tensor {
	out := nets.NewTensor(t.Rows*k, t.Cols)
	for i := 0; i < t.Rows; i++ {
		for j := 0; j < k; j++ {
			copy(out.Row(i*k+j), t.Row(i))
		}
	}
	return out
}
