package nets

import "testing"

// TestJetLayerGrad checks JetLayer's hand-written adjoint against finite
// differences in the jet, the weights and the bias, with and without
// tanh, for two directions.
func TestJetLayerGrad(t *testing.T) {
	for _, tanh := range []bool{true, false} {
		rng := newRNG(70)
		const dirs, n = 2, 3
		jet := randSigned(rng, JetBlocks(dirs)*n, 4, 0, 1)
		w := randSigned(rng, 4, 3, 0.1, 0.8)
		b := randSigned(rng, 1, 3, 0, 0.3)
		name := "JetLayer/linear"
		if tanh {
			name = "JetLayer/tanh"
		}
		checkGrad(t, name, func(tp *Tape, in []*Var) *Var {
			return wsum(tp, tp.JetLayer(in[0], in[1], in[2], dirs, tanh))
		}, jet, w, b)
	}
}

// TestSliceRowsGrad checks SliceRows and SplitJet's adjoints.
func TestSliceRowsGrad(t *testing.T) {
	a := randSigned(newRNG(71), 10, 2, 0, 1)
	checkGrad(t, "SliceRows", func(tp *Tape, in []*Var) *Var {
		j := tp.SplitJet(in[0], 2)
		return tp.Add(wsum(tp, tp.SliceRows(in[0], 3, 7)), tp.Add(wsum(tp, j.U), wsum(tp, j.D2[1])))
	}, a)
}

// TestForwardJetDerivatives checks that an MLP's output jet holds its
// first and second derivatives along each input direction, against
// central differences of the plain forward pass.
func TestForwardJetDerivatives(t *testing.T) {
	rng := newRNG(72)
	var ps Params
	m := NewMLP("u", []int{2, 6, 5, 2}, ActTanh, &ps, rng)
	randomBiases(m, rng)
	x := randSigned(rng, 3, 2, 0, 1)
	const dirs = 2
	n := x.Rows
	in := NewTensor(JetBlocks(dirs)*n, 2)
	copy(in.Data, x.Data)
	for k := range dirs {
		for i := range n {
			in.Set((1+2*k)*n+i, k, 1) // d/dx_k of x is e_k; second derivative 0
		}
	}
	tp := NewTape()
	jet := tp.SplitJet(m.ForwardJet(tp, tp.Const(in), dirs), dirs)
	plain := func(x *Tensor) *Tensor { return m.Forward(NewTape(), NewTape().Const(x)).Value }
	assertClose(t, "value", jet.U.Value, plain(x), 1e-12)
	const h = 1e-4
	for k := range dirs {
		xp, xm := x.Clone(), x.Clone()
		for i := range n {
			xp.Data[i*2+k] += h
			xm.Data[i*2+k] -= h
		}
		fp, f0, fm := plain(xp), plain(x), plain(xm)
		d1, d2 := NewTensor(n, 2), NewTensor(n, 2)
		for i := range d1.Data {
			d1.Data[i] = (fp.Data[i] - fm.Data[i]) / (2 * h)
			d2.Data[i] = (fp.Data[i] - 2*f0.Data[i] + fm.Data[i]) / (h * h)
		}
		assertClose(t, "first derivative", jet.D1[k].Value, d1, 1e-7)
		assertClose(t, "second derivative", jet.D2[k].Value, d2, 1e-5)
	}
}

// TestForwardJetParamGrads checks the weights' gradients of a loss built
// from every block of an MLP's jet, as a PINN residual is.
func TestForwardJetParamGrads(t *testing.T) {
	rng := newRNG(73)
	var ps Params
	m := NewMLP("u", []int{1, 5, 4, 1}, ActTanh, &ps, rng)
	randomBiases(m, rng)
	in := NewTensor(JetBlocks(1)*4, 1)
	for i := range 4 {
		in.Data[i] = 0.3*float64(i) - 0.5
		in.Data[4+i] = 1
	}
	checkParamGrads(t, "ForwardJet", &ps, func(tp *Tape) *Var {
		j := tp.SplitJet(m.ForwardJet(tp, tp.Const(in), 1), 1)
		r := tp.Add(tp.Mul(j.D2[0], j.U), tp.Square(j.D1[0]))
		return wsum(tp, r)
	})
}
