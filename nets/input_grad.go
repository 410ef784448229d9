package nets

import (
	"fmt"
	"math"
)

// TiledInputGrad evaluates the MLP on inputs in the tiled layout of
// TiledAffine (x_f may be nil), as ForwardTiled does without a tape, and
// returns with the output y [R·Q, Out] the derivatives of every row's
// outputs by columns [lo, lo+n) of that row's own input [x_q | x_r | x_f]:
// g[o] is [R·Q, n] with
//
//	g[o][i, c] = ∂y[i, o] / ∂x[i, lo + c].
//
// Rows are independent, so one reverse pass per output gives these
// derivatives for every row at once: with δ_L = e_o and, going down,
//
//	δ_{k} = (δ_{k+1} W_{k+1}ᵀ) ⊙ act′(z_k),   g[o] = δ_0 W_0[lo:lo+n]ᵀ,
//
// z_k being layer k's pre-activation. A calibration needs ∂f_ψ/∂(z, s)
// at every query for a few dozen latent coordinates; forward differences
// cost a forward pass per coordinate, this about two for all of them.
// The products run on up to procs goroutines (at least one).
func (m *MLP) TiledInputGrad(xq, xr, xf *Tensor, lo, n, procs int) (y *Tensor, g []*Tensor) {
	return m.TiledInputGradIn(nil, xq, xr, xf, lo, n, procs)
}

// TiledInputGradIn is TiledInputGrad with y and g's tensors taken from
// the arena a (nil: the heap), valid until its Reset.
func (m *MLP) TiledInputGradIn(a *Arena, xq, xr, xf *Tensor, lo, n, procs int) (y *Tensor, g []*Tensor) {
	kf := 0
	if xf != nil {
		kf = xf.Cols
	}
	q, r := xq.Rows, xr.Rows
	l0 := m.Layers[0]
	in := xq.Cols + xr.Cols + kf
	if in != l0.In || (xf != nil && xf.Rows != r*q) || lo < 0 || n < 0 || lo+n > in {
		panic(fmt.Sprintf("nets: TiledInputGrad x_q %s, x_r %s, %d full columns, columns [%d, %d), first layer %d inputs",
			xq.Shape(), xr.Shape(), kf, lo, lo+n, l0.In))
	}
	procs = max(1, procs)
	rows := r * q
	// Scratch for each layer's act′(z) and two buffers, for the hidden
	// values and then the reverse pass, from inferTiled's pool: at a
	// calibration's sizes their allocation costs as much as the
	// arithmetic.
	width, hidden := l0.Out, 0
	for _, l := range m.Layers[:len(m.Layers)-1] {
		width = max(width, l.Out)
		hidden += l.Out
	}
	buf := inferBuffers.Get(rows*(hidden+2*width) + (q+r)*l0.Out)
	defer inferBuffers.Put(buf)
	sc := &gradScratch{free: buf}
	bufA, bufB := sc.take(rows, width).Data, sc.take(rows, width).Data
	y, derivs := m.tiledForwardDerivs(a, sc, xq, xr, xf, bufA, bufB, procs)
	wIn := Tensor{Rows: n, Cols: l0.Out, Data: l0.W.Value.Data[lo*l0.Out : (lo+n)*l0.Out]} // [n, H_0]
	g = make([]*Tensor, m.Out())
	for o := range g {
		g[o] = a.tensor(rows, n, false)
		m.inputGradOfOutput(g[o], o, derivs, &wIn, bufA, bufB, procs)
	}
	return y, g
}

// gradScratch hands out tensors from one pooled buffer; their headers
// are values, not heap objects.
type gradScratch struct{ free []float64 }

func (s *gradScratch) take(rows, cols int) Tensor {
	t := Tensor{Rows: rows, Cols: cols, Data: s.free[: rows*cols : rows*cols]}
	s.free = s.free[rows*cols:]
	return t
}

// tiledForwardDerivs is TiledInputGradIn's forward pass: the output y
// (from the arena a) and each hidden layer's act′(z_k) (from sc), the
// hidden values alternating between bufA and bufB.
func (m *MLP) tiledForwardDerivs(a *Arena, sc *gradScratch, xq, xr, xf *Tensor, bufA, bufB []float64, procs int) (y *Tensor, derivs []Tensor) {
	q, r := xq.Rows, xr.Rows
	rows := r * q
	l0 := m.Layers[0]
	last := len(m.Layers) - 1
	tp := NewInferenceTape()
	tp.SetWorkers(procs)
	h := Tensor{Rows: rows, Cols: l0.Out, Data: bufA[:rows*l0.Out]}
	perQuery, perGroup := sc.take(q, l0.Out), sc.take(r, l0.Out)
	tiledPartsInto(tp, &perQuery, &perGroup, xq, xr, l0.W.Value, l0.B.Value)
	addTiled(&h, 0, &perQuery, &perGroup)
	if xf != nil && xf.Cols > 0 {
		wf := Tensor{Rows: xf.Cols, Cols: l0.Out, Data: l0.W.Value.Data[(xq.Cols+xr.Cols)*l0.Out : l0.In*l0.Out]}
		gemmRowsOn(procs, false, false, 1, xf, &wf, 1, &h)
	}
	derivs = make([]Tensor, 0, last)
	for k, l := range m.Layers[1:] {
		derivs = append(derivs, sc.take(rows, h.Cols))
		activateDeriv(m.Act, h.Data, derivs[k].Data)
		var next Tensor
		if k+1 == last {
			y = a.tensor(rows, l.Out, false) // returned
			next = *y
		} else {
			next = Tensor{Rows: rows, Cols: l.Out, Data: bufB[:rows*l.Out]}
		}
		for i := range rows {
			copy(next.Row(i), l.B.Value.Data)
		}
		gemmRowsCached(procs, &l.W.packs, false, false, 1, &h, l.W.Value, 1, &next)
		h, bufA, bufB = next, bufB, bufA
	}
	if last == 0 {
		y = a.tensor(rows, h.Cols, false)
		copy(y.Data, h.Data)
	}
	return y, derivs
}

// inputGradOfOutput writes to dst [rows, n] the derivatives of output o
// by the input columns wIn selects (the reverse pass of
// TiledInputGradIn, through the act′ derivs), using dA and dB as
// scratch.
func (m *MLP) inputGradOfOutput(dst *Tensor, o int, derivs []Tensor, wIn *Tensor, dA, dB []float64, procs int) {
	rows, l0, last := dst.Rows, m.Layers[0], len(m.Layers)-1
	var delta Tensor
	if last == 0 { // a single affine layer: ∂y/∂x = W_0ᵀ on every row
		delta = Tensor{Rows: rows, Cols: l0.Out, Data: dA[:rows*l0.Out]}
		clear(delta.Data)
		for i := range rows {
			delta.Set(i, o, 1)
		}
	} else {
		wl := m.Layers[last].W.Value
		delta = Tensor{Rows: rows, Cols: wl.Rows, Data: dA[:rows*wl.Rows]}
		for i := range rows {
			row := delta.Row(i)
			for c := range row {
				row[c] = wl.At(c, o)
			}
		}
	}
	for k := last - 1; k >= 0; k-- {
		mulTo(delta.Data, delta.Data, derivs[k].Data)
		if k == 0 {
			break
		}
		w := m.Layers[k].W
		prev := Tensor{Rows: rows, Cols: w.Value.Rows, Data: dB[:rows*w.Value.Rows]}
		gemmRowsCached(procs, &w.packs, false, true, 1, &delta, w.Value, 0, &prev)
		delta, dA, dB = prev, dB, dA
	}
	if wIn.Rows > 0 {
		gemmRowsCached(procs, &l0.W.packs, false, true, 1, &delta, wIn, 0, dst)
	}
}

// activateDeriv overwrites x with a(x) and writes a′(x) to d, with the
// same values Activate gives:
//
//	relu: 1 for x > 0, else 0      silu: σ(x)(1 + x(1 − σ(x)))
//	tanh: 1 − tanh²x               sigmoid: σ(1 − σ)
//	softplus: σ(x)                 identity: 1
func activateDeriv(a Activation, x, d []float64) {
	d = d[:len(x)]
	switch a {
	case ActReLU:
		reluDeriv(x, d)
	case ActSiLU:
		sigmoidInto(d, x)
		siluDeriv(x, d)
	case ActTanh:
		for i, v := range x {
			t := math.Tanh(v)
			x[i], d[i] = t, 1-t*t
		}
	case ActSigmoid:
		sigmoidInto(x, x)
		for i, s := range x {
			d[i] = s * (1 - s)
		}
	case ActSoftplus:
		for i, v := range x {
			x[i], d[i] = max(v, 0)+math.Log1p(math.Exp(-math.Abs(v))), sigmoid(v)
		}
	case ActIdentity:
		for i := range d {
			d[i] = 1
		}
	default:
		panic(fmt.Sprintf("nets: unknown activation %q", string(a)))
	}
}
