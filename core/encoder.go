package core

import (
	"math/rand/v2"

	"apic/nets"
)

// encoder maps a context set to a diagonal Gaussian over a latent:
//
//	h_i = MLP(s_i)                      per context point
//	r   = Agg({h_i}) + W_s mean_i(s_i) + MLP_g(summary)
//	                                   Agg: mean (cnp, lnp) or attention (anp)
//	(μ, σ) = head(act(r)),  σ = σ_min + (1 − σ_min)·sigmoid(·)
//
// The linear skip of the pooled raw features lets physics-informed
// summary features (sims.System.EncodeContext) reach the head directly;
// the optional grid summary (gridsummary.go) gives the encoder the
// context smoothed onto the grid.
//
// For mean aggregation the last linear layer of the point network is
// applied after pooling, mean(W h + b) = W mean(h) + b, which is the same
// function at a fraction of the cost.
type encoder struct {
	point  *nets.MLP
	skip   *nets.Linear // linear map of the pooled raw features
	grid   *nets.MLP    // MLP on the grid summary (nil when disabled)
	head   *nets.Linear
	latent int
	// anp only
	self  *nets.MultiHeadAttention
	cross *nets.MultiHeadAttention
	query *nets.Param // learned query [1, hidden]
}

// sigmaMin bounds the latent standard deviation from below so that the
// KL term and sampling stay well conditioned.
const sigmaMin = 1e-3

func newEncoder(name string, in, summary int, a Arch, latent int, ps *nets.Params, rng *rand.Rand) *encoder {
	e := &encoder{
		point:  nets.NewMLP(name+".point", mlpSizes(in, a.Hidden, a.Layers, a.Hidden), nets.ActReLU, ps, rng),
		skip:   nets.NewLinear(name+".skip", in, a.Hidden, ps, rng),
		head:   nets.NewLinear(name+".head", a.Hidden, 2*latent, ps, rng),
		latent: latent,
	}
	// Start with a small latent σ (sigmoid(−4) ≈ 0.02): a wide initial
	// posterior drowns stage 1's supervised signal in sampling noise, and
	// stage 2's KL term widens σ where the data call for it.
	for j := latent; j < 2*latent; j++ {
		e.head.B.Value.Data[j] = -4
	}
	if a.GridSummary {
		e.grid = nets.NewMLP(name+".grid", []int{summary, a.Hidden, a.Hidden}, nets.ActReLU, ps, rng)
	}
	if a.Backbone == ANP {
		e.self = nets.NewMultiHeadAttention(name+".self", a.Hidden, a.Hidden, a.Hidden, a.Hidden, a.Heads, ps, rng)
		e.cross = nets.NewMultiHeadAttention(name+".cross", a.Hidden, a.Hidden, a.Hidden, a.Hidden, a.Heads, ps, rng)
		e.query = nets.NewParam(name+".query", 1, a.Hidden)
		nets.InitGlorot(e.query.Value, 1, a.Hidden, rng)
		ps.Add(e.query)
	}
	return e
}

// encoded is an encoder's output for a batch of B realizations.
type encoded struct {
	mu, logVar *nets.Var // [B, latent]
	points     *nets.Var // anp: attended point representations [B*N, hidden]
}

// forward encodes feats [B*N, in] (N points per realization) and the
// grid summary [B, summary].
func (e *encoder) forward(tp *nets.Tape, feats, summary *nets.Var, b, n int) encoded {
	var r, points *nets.Var
	if e.self == nil {
		r = e.point.Last().Forward(tp, e.point.ForwardHiddenMean(tp, feats, n))
	} else {
		h := e.point.Forward(tp, feats)
		points = tp.Add(h, e.self.Forward(tp, h, h, h, b))
		q := tp.TileRows(tp.Param(e.query), b)
		r = e.cross.Forward(tp, q, points, points, b)
	}
	r = tp.Add(r, e.skip.Forward(tp, tp.SegmentMean(feats, n)))
	if e.grid != nil {
		r = tp.Add(r, e.grid.Forward(tp, summary))
	}
	out := e.head.Forward(tp, tp.ReLU(r))
	mu := tp.SliceCols(out, 0, e.latent)
	sigma := tp.AddConst(tp.Scale(tp.Sigmoid(tp.SliceCols(out, e.latent, 2*e.latent)), 1-sigmaMin), sigmaMin)
	return encoded{mu: mu, logVar: tp.Scale(tp.Log(sigma), 2), points: points}
}
