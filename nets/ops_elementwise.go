package nets

import (
	"fmt"
	"math"
)

// broadcast says how the second operand b of a binary op is laid over the
// first operand a.
type broadcast int

const (
	bcSame   broadcast = iota // b has a's shape
	bcRow                     // b is [1, C], repeated over a's rows
	bcScalar                  // b is [1, 1], repeated over every element
)

// broadcastSpan is the number of elements of a processed per chunk when b is
// broadcast; b is tiled once to this length so that the inner loops run over
// long flat slices even when a has few columns.
const broadcastSpan = 512

// broadcastOf classifies b against a, panicking on shapes that do not
// broadcast (a programming error in model code).
func broadcastOf(op string, a, b *Tensor) broadcast {
	switch {
	case a.SameShape(b):
		return bcSame
	case b.Rows == 1 && b.Cols == 1:
		return bcScalar
	case b.Rows == 1 && b.Cols == a.Cols:
		return bcRow
	}
	panic(fmt.Sprintf("nets: %s: cannot broadcast %s over %s", op, b.Shape(), a.Shape()))
}

// broadcastsOver reports whether small is a strict row or scalar broadcast
// over big (used to let the commutative ops take the broadcast operand
// first).
func broadcastsOver(small, big *Tensor) bool {
	if small.SameShape(big) || small.Rows != 1 {
		return false
	}
	return small.Cols == 1 || small.Cols == big.Cols
}

// binaryPlan walks a.Data in chunks together with the matching values of b.
type binaryPlan struct {
	kind broadcast
	n    int       // elements of a
	span int       // elements per chunk (a multiple of cols for bcRow)
	bt   []float64 // b.Data (bcSame) or b tiled to span elements
	cols int       // columns of a (at least 1)
}

func planBinary(op string, a, b *Tensor) *binaryPlan {
	p := &binaryPlan{kind: broadcastOf(op, a, b), n: a.Len(), cols: max(a.Cols, 1)}
	switch p.kind {
	case bcSame:
		p.span = max(p.n, 1)
		p.bt = b.Data
	case bcScalar:
		p.span = max(min(p.n, broadcastSpan), 1)
		p.bt = make([]float64, p.span)
		for i := range p.bt {
			p.bt[i] = b.Data[0]
		}
	case bcRow:
		c := p.cols
		p.span = c * max(1, min(a.Rows, broadcastSpan/c))
		p.bt = make([]float64, p.span)
		for i := 0; i < p.span; i += c {
			copy(p.bt[i:i+c], b.Data)
		}
	}
	return p
}

// chunk returns the b values (or b-shaped scratch values, for gradients)
// laid over a.Data[lo:hi].
func (p *binaryPlan) chunk(bt []float64, lo, hi int) []float64 {
	if p.kind == bcSame {
		return bt[lo:hi]
	}
	return bt[:hi-lo]
}

// gradScratch returns where the chunks of d loss / d b accumulate: b's own
// gradient for same-shaped operands, a tiled scratch buffer otherwise.
func (p *binaryPlan) gradScratch(b *Var) []float64 {
	if p.kind == bcSame {
		return b.grad().Data
	}
	return make([]float64, p.span)
}

// foldGrad reduces the tiled scratch gradient into b's gradient (the
// adjoint of broadcasting is summation over the broadcast axes).
func (p *binaryPlan) foldGrad(b *Var, scratch []float64) {
	if p.n == 0 {
		return
	}
	switch p.kind {
	case bcScalar:
		s := 0.0
		for _, v := range scratch {
			s += v
		}
		b.grad().Data[0] += s
	case bcRow:
		gb := b.grad().Data
		for i := 0; i < len(scratch); i += p.cols {
			row := scratch[i : i+p.cols]
			for j, v := range row {
				gb[j] += v
			}
		}
	}
}

// binary records y = f(a, b) with broadcasting. fwd fills y from a and b
// chunk by chunk; bwd accumulates the gradients of one chunk (ga or gb is
// nil when that operand needs no gradient).
func (tp *Tape) binary(op string, a, b *Var,
	fwd func(y, a, b []float64),
	bwd func(g, y, a, b, ga, gb []float64),
) *Var {
	p := planBinary(op, a.Value, b.Value)
	y := tp.Alloc(a.Value.Rows, a.Value.Cols)
	ad := a.Value.Data
	for lo := 0; lo < p.n; lo += p.span {
		hi := min(lo+p.span, p.n)
		fwd(y.Data[lo:hi], ad[lo:hi], p.chunk(p.bt, lo, hi))
	}
	return tp.record(y, func(out *Var) {
		var gaAll, gbAll []float64
		if a.needsGrad {
			gaAll = a.grad().Data
		}
		if b.needsGrad {
			gbAll = p.gradScratch(b)
		}
		g := out.Grad.Data
		for lo := 0; lo < p.n; lo += p.span {
			hi := min(lo+p.span, p.n)
			var ga, gb []float64
			if gaAll != nil {
				ga = gaAll[lo:hi]
			}
			if gbAll != nil {
				gb = p.chunk(gbAll, lo, hi)
			}
			bwd(g[lo:hi], y.Data[lo:hi], ad[lo:hi], p.chunk(p.bt, lo, hi), ga, gb)
		}
		if gbAll != nil {
			p.foldGrad(b, gbAll)
		}
	}, a, b)
}

// Add returns a + b element-wise. b has a's shape, or is a row [1, C] added
// to every row, or a scalar [1, 1]; since addition commutes, a may instead
// be the broadcast operand. The gradient of a broadcast operand is the sum
// of the output gradient over the broadcast axes.
func (tp *Tape) Add(a, b *Var) *Var {
	if broadcastsOver(a.Value, b.Value) {
		a, b = b, a
	}
	return tp.binary("Add", a, b, addFwd, addBwd)
}

func addFwd(y, a, b []float64) {
	b = b[:len(a)]
	y = y[:len(a)]
	for i, v := range a {
		y[i] = v + b[i]
	}
}

func addBwd(g, _, _, _, ga, gb []float64) {
	if ga != nil {
		accumulate(ga, g)
	}
	if gb != nil {
		accumulate(gb, g)
	}
}

// Sub returns a − b element-wise with Add's broadcasting rules (a may be the
// broadcast operand: a − b = −(b − a)).
func (tp *Tape) Sub(a, b *Var) *Var {
	if broadcastsOver(a.Value, b.Value) {
		return tp.Neg(tp.Sub(b, a))
	}
	return tp.binary("Sub", a, b, subFwd, subBwd)
}

func subFwd(y, a, b []float64) {
	b = b[:len(a)]
	y = y[:len(a)]
	for i, v := range a {
		y[i] = v - b[i]
	}
}

func subBwd(g, _, _, _, ga, gb []float64) {
	if ga != nil {
		accumulate(ga, g)
	}
	if gb != nil {
		gb = gb[:len(g)]
		for i, v := range g {
			gb[i] -= v
		}
	}
}

// Mul returns the element-wise product a ⊙ b with Add's broadcasting rules:
//
//	dA = dY ⊙ b,  dB = dY ⊙ a (summed over broadcast axes).
func (tp *Tape) Mul(a, b *Var) *Var {
	if broadcastsOver(a.Value, b.Value) {
		a, b = b, a
	}
	return tp.binary("Mul", a, b, mulFwd, mulBwd)
}

func mulFwd(y, a, b []float64) {
	b = b[:len(a)]
	y = y[:len(a)]
	for i, v := range a {
		y[i] = v * b[i]
	}
}

func mulBwd(g, _, a, b, ga, gb []float64) {
	if ga != nil {
		ga = ga[:len(g)]
		b = b[:len(g)]
		for i, v := range g {
			ga[i] += v * b[i]
		}
	}
	if gb != nil {
		gb = gb[:len(g)]
		a = a[:len(g)]
		for i, v := range g {
			gb[i] += v * a[i]
		}
	}
}

// Div returns a ⊘ b element-wise; b has a's shape or is a row [1, C] or a
// scalar [1, 1] broadcast over a:
//
//	dA = dY ⊘ b,  dB = −dY ⊙ y ⊘ b (summed over broadcast axes).
func (tp *Tape) Div(a, b *Var) *Var {
	return tp.binary("Div", a, b, divFwd, divBwd)
}

func divFwd(y, a, b []float64) {
	b = b[:len(a)]
	y = y[:len(a)]
	for i, v := range a {
		y[i] = v / b[i]
	}
}

func divBwd(g, y, _, b, ga, gb []float64) {
	b = b[:len(g)]
	if ga != nil {
		ga = ga[:len(g)]
		for i, v := range g {
			ga[i] += v / b[i]
		}
	}
	if gb != nil {
		gb = gb[:len(g)]
		y = y[:len(g)]
		for i, v := range g {
			gb[i] -= v * y[i] / b[i]
		}
	}
}

// accumulate sets dst += src.
func accumulate(dst, src []float64) {
	addInto(dst[:len(src)], dst, src) // vector adds where the CPU has them
}

// scaleTo sets dst = s·src.
func scaleTo(dst []float64, s float64, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = s * v
	}
}

// accumulateScaled sets dst += s·src.
func accumulateScaled(dst []float64, s float64, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += s * v
	}
}

// Scale returns s·a.
func (tp *Tape) Scale(a *Var, s float64) *Var {
	y := tp.like(a.Value)
	scaleTo(y.Data, s, a.Value.Data)
	return tp.record(y, func(out *Var) {
		accumulateScaled(a.grad().Data, s, out.Grad.Data)
	}, a)
}

// AddConst returns a + c element-wise.
func (tp *Tape) AddConst(a *Var, c float64) *Var {
	y := tp.like(a.Value)
	for i, v := range a.Value.Data {
		y.Data[i] = v + c
	}
	return tp.record(y, func(out *Var) {
		accumulate(a.grad().Data, out.Grad.Data)
	}, a)
}

// Neg returns −a.
func (tp *Tape) Neg(a *Var) *Var { return tp.Scale(a, -1) }

// ReLU returns max(a, 0) element-wise; its derivative is 1 where a > 0 and
// 0 elsewhere. Both passes are branch-free: with activations of random sign
// a data-dependent branch mispredicts about half the time, which costs
// several times more than the arithmetic.
func (tp *Tape) ReLU(a *Var) *Var {
	y := tp.allocFull(a.Value.Rows, a.Value.Cols) // reluForward writes every value
	yd, x := y.Data[:len(a.Value.Data)], a.Value.Data
	procs := tp.procs()
	forRange(procs, len(yd), 1, func(lo, hi int) { reluForward(yd[lo:hi], x[lo:hi]) })
	return tp.record(y, func(out *Var) {
		ga, fresh := a.gradToSet()
		gd, od := ga.Data[:len(yd)], out.Grad.Data
		forRange(procs, len(yd), 1, func(lo, hi int) {
			reluBackward(gd[lo:hi], od[lo:hi], yd[lo:hi], fresh)
		})
	}, a)
}

// Tanh returns tanh(a) element-wise; dy/da = 1 − y².
func (tp *Tape) Tanh(a *Var) *Var {
	y := tp.like(a.Value)
	for i, v := range a.Value.Data {
		y.Data[i] = math.Tanh(v)
	}
	return tp.record(y, func(out *Var) {
		g, ga, yd := out.Grad.Data, a.grad().Data, y.Data
		ga = ga[:len(g)]
		yd = yd[:len(g)]
		for i, v := range g {
			ga[i] += v * (1 - yd[i]*yd[i])
		}
	}, a)
}

// sigmoid is 1/(1+e^−x), with its limits 0 and 1 at either end: the
// value sigmoidInto gives (expScalar is the vector exponential's).
func sigmoid(x float64) float64 {
	// One form for both signs: for x < −709.78 e^−x overflows to +Inf
	// and the quotient is 0, σ's limit, so no branch is needed. A branch
	// on the sign (e^x/(1+e^x) below 0) mispredicts on a layer's mixed
	// signs and cost a third more per value.
	return 1 / (1 + expScalar(-x))
}

// Sigmoid returns σ(a) = 1/(1+e^−a) element-wise; dy/da = y(1 − y).
func (tp *Tape) Sigmoid(a *Var) *Var {
	y := tp.like(a.Value)
	sigmoidInto(y.Data, a.Value.Data)
	return tp.record(y, func(out *Var) {
		g, ga, yd := out.Grad.Data, a.grad().Data, y.Data
		ga = ga[:len(g)]
		yd = yd[:len(g)]
		for i, v := range g {
			ga[i] += v * yd[i] * (1 - yd[i])
		}
	}, a)
}

// Softplus returns log(1 + e^a) element-wise, computed as
// max(a, 0) + log1p(e^−|a|) so that it neither overflows for large a nor
// loses precision for very negative a. Its derivative is σ(a), recovered
// from the output as 1 − e^−y.
func (tp *Tape) Softplus(a *Var) *Var {
	y := tp.like(a.Value)
	for i, v := range a.Value.Data {
		y.Data[i] = max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
	}
	return tp.record(y, func(out *Var) {
		g, ga, yd := out.Grad.Data, a.grad().Data, y.Data
		ga = ga[:len(g)]
		yd = yd[:len(g)]
		for i, v := range g {
			ga[i] += v * -math.Expm1(-yd[i])
		}
	}, a)
}

// SiLU returns the sigmoid-weighted linear unit a·σ(a) element-wise;
// dy/da = σ(a)(1 + a(1 − σ(a))).
func (tp *Tape) SiLU(a *Var) *Var {
	y := tp.like(a.Value)
	x := a.Value.Data
	yd := y.Data[:len(x)]
	if !a.needsGrad {
		siluInto(yd, x)
		return tp.record(y, nil, a)
	}
	// σ(a) is kept for the backward pass: an exp per element costs more
	// than the memory.
	sig := tp.scratch(len(x))
	procs := tp.procs()
	forRange(procs, len(x), 1, func(lo, hi int) {
		sigmoidInto(sig[lo:hi], x[lo:hi])
		mulTo(yd[lo:hi], x[lo:hi], sig[lo:hi])
	})
	return tp.record(y, func(out *Var) {
		ga, fresh := a.gradToSet()
		gd, od := ga.Data[:len(x)], out.Grad.Data
		forRange(procs, len(x), 1, func(lo, hi int) {
			siluBackward(gd[lo:hi], od[lo:hi], x[lo:hi], sig[lo:hi], fresh)
		})
	}, a)
}

// Exp returns e^a element-wise; dy/da = y.
func (tp *Tape) Exp(a *Var) *Var {
	y := tp.like(a.Value)
	expInto(y.Data, a.Value.Data)
	return tp.record(y, func(out *Var) {
		g, ga, yd := out.Grad.Data, a.grad().Data, y.Data
		ga = ga[:len(g)]
		yd = yd[:len(g)]
		for i, v := range g {
			ga[i] += v * yd[i]
		}
	}, a)
}

// Log returns the natural logarithm of a element-wise; dy/da = 1/a.
func (tp *Tape) Log(a *Var) *Var {
	y := tp.like(a.Value)
	x := a.Value.Data
	for i, v := range x {
		y.Data[i] = math.Log(v)
	}
	return tp.record(y, func(out *Var) {
		g, ga := out.Grad.Data, a.grad().Data
		ga = ga[:len(g)]
		x := x[:len(g)]
		for i, v := range g {
			ga[i] += v / x[i]
		}
	}, a)
}

// Square returns a² element-wise; dy/da = 2a.
func (tp *Tape) Square(a *Var) *Var {
	y := tp.like(a.Value)
	x := a.Value.Data
	for i, v := range x {
		y.Data[i] = v * v
	}
	return tp.record(y, func(out *Var) {
		g, ga := out.Grad.Data, a.grad().Data
		ga = ga[:len(g)]
		x := x[:len(g)]
		for i, v := range g {
			ga[i] += 2 * v * x[i]
		}
	}, a)
}

// Abs returns |a| element-wise; dy/da = sign(a), taken as 0 at a = 0.
func (tp *Tape) Abs(a *Var) *Var {
	y := tp.like(a.Value)
	x := a.Value.Data
	for i, v := range x {
		y.Data[i] = math.Abs(v)
	}
	return tp.record(y, func(out *Var) {
		g, ga := out.Grad.Data, a.grad().Data
		ga = ga[:len(g)]
		x := x[:len(g)]
		for i, v := range g {
			switch {
			case x[i] > 0:
				ga[i] += v
			case x[i] < 0:
				ga[i] -= v
			}
		}
	}, a)
}

// Sqrt returns √a element-wise; dy/da = 1/(2y).
func (tp *Tape) Sqrt(a *Var) *Var {
	y := tp.like(a.Value)
	for i, v := range a.Value.Data {
		y.Data[i] = math.Sqrt(v)
	}
	return tp.record(y, func(out *Var) {
		g, ga, yd := out.Grad.Data, a.grad().Data, y.Data
		ga = ga[:len(g)]
		yd = yd[:len(g)]
		for i, v := range g {
			ga[i] += 0.5 * v / yd[i]
		}
	}, a)
}
