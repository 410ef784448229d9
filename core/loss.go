package core

import (
	"math"
	"math/rand/v2"
	"slices"

	"apic/nets"
)

// Losses are the terms of one training objective evaluation, for
// progress reports.
type Losses struct {
	Total float64 `json:"total"`
	NLL   float64 `json:"nll"`   // −mean log p(y | z) over target values
	KL    float64 `json:"kl"`    // (KL_θ + KL_δ) per target value
	Theta float64 `json:"theta"` // L_θ on the nominal batch
	Delta float64 `json:"delta"` // L_δ
}

// thetaLoss is the supervised parameter loss on prior-normalised
// coordinates so that parameters with different ranges weigh equally:
//
//	L_θ = mean_{i,p} ((θ̂_ip − θ_ip) / (hi_p − lo_p))²
func (m *Model) thetaLoss(tp *nets.Tape, theta *nets.Var, truth *nets.Tensor) *nets.Var {
	params := m.Sys.Params()
	inv := nets.NewTensor(1, len(params))
	for i, p := range params {
		inv.Data[i] = 1 / (p.Hi - p.Lo)
	}
	d := tp.Mul(tp.Sub(theta, tp.Const(truth)), tp.Const(inv))
	return tp.Mean(tp.Square(d))
}

// stage1Loss is L_θ on a nominal batch through the physics path only.
func (m *Model) stage1Loss(tp *nets.Tape, nominal *Batch, rng *rand.Rand) (*nets.Var, Losses) {
	_, _, theta := m.encodePhys(tp, nominal, 1, streamNoise(rng))
	l := m.thetaLoss(tp, theta, nominal.Theta)
	return l, Losses{Total: l.Value.Data[0], Theta: l.Value.Data[0]}
}

// stage2Loss is the full objective
//
//	L = −ELBO/T + λ_θ L_θ(nominal batch) + λ_δ L_δ
//
// where the ELBO uses one reparameterised latent sample, all grid values
// as targets (T per realization), and KL terms against N(0, I) (omitted
// for the deterministic CNP).
func (m *Model) stage2Loss(tp *nets.Tape, real, nominal *Batch, rng *rand.Rand) (*nets.Var, Losses) {
	t := m.Config.Train
	o := m.forward(tp, real, 1, streamNoise(rng))
	logVar := tp.TileRows(o.logVar, real.B)
	nll := tp.Neg(tp.Mean(tp.GaussianLogProb(tp.Const(real.Values), o.pred, logVar)))
	total := nll
	var ls Losses
	ls.NLL = nll.Value.Data[0]
	if m.Config.Arch.Backbone != CNP {
		kl := tp.Add(tp.Sum(tp.KLStdNormal(o.phys.mu, o.phys.logVar)), tp.Sum(tp.KLStdNormal(o.disc.mu, o.disc.logVar)))
		kl = tp.Scale(kl, 1/float64(real.B*real.Values.Cols))
		ls.KL = kl.Value.Data[0]
		total = tp.Add(total, kl)
	}
	if t.LambdaTheta > 0 && nominal != nil {
		_, _, th := m.encodePhys(tp, nominal, 1, streamNoise(rng))
		lt := m.thetaLoss(tp, th, nominal.Theta)
		ls.Theta = lt.Value.Data[0]
		total = tp.Add(total, tp.Scale(lt, t.LambdaTheta))
	}
	if t.LambdaDelta > 0 {
		ld := m.deltaPenalty(tp, o, real.Side)
		ls.Delta = ld.Value.Data[0]
		total = tp.Add(total, tp.Scale(ld, t.LambdaDelta))
	}
	ls.Total = total.Value.Data[0]
	return total, ls
}

// deltaPenalty is L_δ for the configured regulariser. The discrepancy is
// measured in observation space, δ̂ = ŷ − F(x; θ̂).
func (m *Model) deltaPenalty(tp *nets.Tape, o forwardOut, side *nets.Tensor) *nets.Var {
	switch m.Config.Train.Reg {
	case RegOrthogonal:
		c := tp.MatMul(o.zD, o.zT, true, false)
		return tp.Scale(tp.Sum(tp.Square(c)), 1/float64(o.zT.Value.Rows))
	case RegSpectral:
		var total *nets.Var
		layers := m.fpsi.Layers
		if m.trunk != nil {
			// f = b·φᵀ: penalising the branch alone would let training
			// shift gain onto the trunk.
			layers = append(slices.Clip(layers), m.trunk.Layers...)
		}
		for _, l := range layers {
			p := tp.Apply(&spectralPenalty{}, tp.Param(l.W))
			if total == nil {
				total = p
			} else {
				total = tp.Add(total, p)
			}
		}
		return total
	case RegSpread:
		return spreadPenalty(tp, o.f, o.theta.Value.Rows)
	}
	delta := tp.Sub(o.pred, m.Sys.NominalOp(tp, o.theta, side))
	switch m.Config.Train.Reg {
	case RegL1:
		return tp.Mean(tp.Abs(delta))
	case RegGradPen:
		return m.gradPenalty(tp, delta)
	}
	return tp.Mean(tp.Square(delta))
}

// spreadPenalty is the spread of f_ψ's output across the batch's
// realizations, at every query state:
//
//	mean_{b,q} (f_bq − (1/B) Σ_b' f_b'q)²
//
// Unlike L2 it leaves the correction the realizations share unpenalised
// and charges only what makes one realization's correction differ from
// the others'. Where the true discrepancy varies little across the
// population (lv's forcing), a wrong θ̂ can only be compensated by an
// unusual correction, so this anchors θ̂ on real data without biasing it
// towards the nominal best fit, as penalising the whole δ̂ does.
func spreadPenalty(tp *nets.Tape, f *nets.Var, realizations int) *nets.Var {
	perReal := tp.Reshape(f, realizations, f.Value.Rows*f.Value.Cols/realizations)
	centred := tp.Sub(perReal, tp.TileRows(tp.MeanRows(perReal), realizations))
	return tp.Mean(tp.Square(centred))
}

// gradPenalty approximates mean (∂δ/∂x)² by differences between
// consecutive grid points along the grid's last state dimension:
//
//	mean_g ((δ_{g+1} − δ_g) / Δx)²
//
// For a product grid the differences that wrap from one row to the next
// are included; they stay bounded because the fields are continuous.
func (m *Model) gradPenalty(tp *nets.Tape, delta *nets.Var) *nets.Var {
	g := m.Sys.Grid()
	c := len(g.Channels)
	n := delta.Value.Cols
	if g.Points() < 2 {
		return tp.Mean(tp.Scale(delta, 0))
	}
	s0, s1 := g.States[0], g.States[1]
	dx := math.Abs(s1[len(s1)-1] - s0[len(s0)-1])
	if dx == 0 {
		dx = 1
	}
	d := tp.Sub(tp.SliceCols(delta, c, n), tp.SliceCols(delta, 0, n-c))
	return tp.Mean(tp.Square(tp.Scale(d, 1/dx)))
}
