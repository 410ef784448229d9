package nets

import (
	"fmt"
	"math"
)

// A jet is a network's value at N points together with its first and
// second derivatives along K input directions, stacked by rows into one
// [(1+2K)·N, C] var: block 0 (rows 0..N−1) the value h, block 1+2k the
// first derivative h′ along direction k, block 2+2k the second h″. The
// physics-informed baselines need u, u_t, u_xx of a network u(t, x) inside
// a loss they differentiate by the network's weights; carrying the jet
// forward through each layer gives those derivatives exactly, with one
// product per layer for all blocks, and the layer's hand-written adjoint
// gives their gradients.

// JetBlocks returns the number of row blocks of a jet along dirs
// directions, 1 + 2·dirs.
func JetBlocks(dirs int) int { return 1 + 2*dirs }

// JetLayer maps a jet [(1+2K)·N, In] through the layer z = h W + b,
// optionally followed by tanh, and returns the output jet [(1+2K)·N, Out].
// The derivatives follow the chain rule: z′ = h′ W, z″ = h″ W (the bias
// only enters the value) and, for a = tanh z,
//
//	a′ = (1 − a²) z′,   a″ = (1 − a²) z″ − 2a (1 − a²) z′².
//
// The products run on the calling goroutine: the callers train several
// small networks side by side, one per core.
func (tp *Tape) JetLayer(jet, w, b *Var, dirs int, tanh bool) *Var {
	blocks := JetBlocks(dirs)
	rows, in := jet.Value.Rows, jet.Value.Cols
	if dirs < 0 || rows%blocks != 0 || w.Value.Rows != in || b.Value.Rows != 1 || b.Value.Cols != w.Value.Cols {
		panic(fmt.Sprintf("nets: JetLayer jet %s (%d directions), W %s, b %s", jet.Value.Shape(), dirs, w.Value.Shape(), b.Value.Shape()))
	}
	n, out := rows/blocks, w.Value.Cols
	z := NewTensor(rows, out)
	gemmSerial(false, false, 1, jet.Value, w.Value, 0, z)
	for i := range n {
		accumulate(z.Data[i*out:(i+1)*out], b.Value.Data)
	}
	if !tanh {
		return tp.record(z, func(o *Var) { jetAffineBackward(jet, w, b, o.Grad, n) }, jet, w, b)
	}
	y := tp.Alloc(rows, out)
	m := n * out // elements per block
	a := y.Data[:m]
	for i, v := range z.Data[:m] {
		a[i] = math.Tanh(v)
	}
	for k := range dirs {
		z1, z2 := z.Data[(1+2*k)*m:(2+2*k)*m], z.Data[(2+2*k)*m:(3+2*k)*m]
		y1, y2 := y.Data[(1+2*k)*m:(2+2*k)*m], y.Data[(2+2*k)*m:(3+2*k)*m]
		for i, ai := range a {
			s := 1 - ai*ai
			y1[i] = s * z1[i]
			y2[i] = s*z2[i] - 2*ai*s*z1[i]*z1[i]
		}
	}
	return tp.record(y, func(o *Var) {
		dz := tanhJetAdjoint(o.Grad.Data, a, z.Data, dirs, m)
		jetAffineBackward(jet, w, b, FromSlice(rows, out, dz), n)
	}, jet, w, b)
}

// tanhJetAdjoint returns d loss / dz for the tanh part of JetLayer from
// g = d loss / d(a, a′_k, a″_k), a = tanh z₀ and z = (z₀, z′_k, z″_k).
// With s = 1 − a², ds/dz₀ = −2as and d(as)/dz₀ = s(1 − 3a²):
//
//	dz₀  = s g₀ + Σ_k [ −2as z′_k g′_k − (2as z″_k + 2s(1 − 3a²) z′_k²) g″_k ],
//	dz′_k = s g′_k − 4as z′_k g″_k,
//	dz″_k = s g″_k.
func tanhJetAdjoint(g, a, z []float64, dirs, m int) []float64 {
	dz := make([]float64, len(z))
	for i, ai := range a {
		s := 1 - ai*ai
		dz[i] = s * g[i]
	}
	for k := range dirs {
		o1, o2 := (1+2*k)*m, (2+2*k)*m
		for i, ai := range a {
			s := 1 - ai*ai
			as := ai * s
			z1, z2 := z[o1+i], z[o2+i]
			g1, g2 := g[o1+i], g[o2+i]
			dz[i] += -2*as*z1*g1 - (2*as*z2+2*s*(1-3*ai*ai)*z1*z1)*g2
			dz[o1+i] = s*g1 - 4*as*z1*g2
			dz[o2+i] = s * g2
		}
	}
	return dz
}

// jetAffineBackward accumulates the gradients of z = jet W + b (b on the
// first n rows, the value block) from dz:
//
//	d jet = dz Wᵀ,   dW = jetᵀ dz,   db = Σ_{rows < n} dz.
func jetAffineBackward(jet, w, b *Var, dz *Tensor, n int) {
	if jet.needsGrad {
		gemmSerial(false, true, 1, dz, w.Value, 1, jet.grad())
	}
	if w.needsGrad {
		gemmSerial(true, false, 1, jet.Value, dz, 1, w.grad())
	}
	if b.needsGrad {
		out := dz.Cols
		gb := b.grad().Data
		for i := range n {
			accumulate(gb, dz.Data[i*out:(i+1)*out])
		}
	}
}

// ForwardJet maps an input jet along dirs directions through the MLP,
// whose activation must be tanh (or identity), giving the output jet
// [(1+2K)·N, Out].
func (m *MLP) ForwardJet(tp *Tape, jet *Var, dirs int) *Var {
	if m.Act != ActTanh && m.Act != ActIdentity {
		panic(fmt.Sprintf("nets: ForwardJet of a %s MLP (want tanh or identity)", m.Act))
	}
	last := len(m.Layers) - 1
	for i, l := range m.Layers {
		jet = tp.JetLayer(jet, tp.Param(l.W), tp.Param(l.B), dirs, i < last && m.Act == ActTanh)
	}
	return jet
}

// SliceRows returns rows from..to−1 of a, giving [to−from, C].
func (tp *Tape) SliceRows(a *Var, from, to int) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	if from < 0 || to > r || from > to {
		panic(fmt.Sprintf("nets: SliceRows [%d, %d) of %s", from, to, a.Value.Shape()))
	}
	y := tp.Alloc(to-from, c)
	copy(y.Data, a.Value.Data[from*c:to*c])
	return tp.record(y, func(out *Var) {
		accumulate(a.grad().Data[from*c:to*c], out.Grad.Data)
	}, a)
}

// Jet is a jet split into its blocks: the value U [N, C] and, per
// direction k, the first and second derivatives D1[k], D2[k] [N, C].
type Jet struct {
	U      *Var
	D1, D2 []*Var
}

// SplitJet splits a [(1+2K)·N, C] jet into its blocks.
func (tp *Tape) SplitJet(jet *Var, dirs int) Jet {
	blocks := JetBlocks(dirs)
	if jet.Value.Rows%blocks != 0 {
		panic(fmt.Sprintf("nets: SplitJet of %s into %d blocks", jet.Value.Shape(), blocks))
	}
	n := jet.Value.Rows / blocks
	j := Jet{U: tp.SliceRows(jet, 0, n)}
	for k := range dirs {
		j.D1 = append(j.D1, tp.SliceRows(jet, (1+2*k)*n, (2+2*k)*n))
		j.D2 = append(j.D2, tp.SliceRows(jet, (2+2*k)*n, (3+2*k)*n))
	}
	return j
}
