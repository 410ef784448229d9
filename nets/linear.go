package nets

import (
	"fmt"
	"math/rand/v2"
)

// Linear is a fully connected layer y = x W + b, with W of shape [In, Out]
// and the bias b of shape [1, Out] added to every row.
type Linear struct {
	W, B    *Param
	In, Out int
}

// NewLinear returns a Linear layer with Glorot-uniform weights and a zero
// bias, registering its parameters as name+".W" and name+".b" in ps.
func NewLinear(name string, in, out int, ps *Params, rng *rand.Rand) *Linear {
	l := &Linear{W: NewParam(name+".W", in, out), B: NewParam(name+".b", 1, out), In: in, Out: out}
	InitGlorot(l.W.Value, in, out, rng)
	ps.Add(l.W, l.B)
	return l
}

// Forward maps x [R, In] to x W + b [R, Out].
func (l *Linear) Forward(tp *Tape, x *Var) *Var {
	return tp.affine(x, tp.Param(l.W), tp.Param(l.B))
}

// betaFor is the β of a gradient product into storage that is fresh
// (arbitrary contents: set it) or holds earlier contributions (add).
func betaFor(fresh bool) float64 {
	if fresh {
		return 0
	}
	return 1
}

// affine records the fused y = x W + b (b a [1, Out] row) with one gemm:
// the bias is written into every row of y first and the product added on
// top. The gradients are
//
//	dX = dY Wᵀ,  dW = Xᵀ dY,  db = Σ_rows dY.
func (tp *Tape) affine(x, w, b *Var) *Var {
	r, in := x.Value.Rows, x.Value.Cols
	if w.Value.Rows != in || b.Value.Rows != 1 || b.Value.Cols != w.Value.Cols {
		panic(fmt.Sprintf("nets: Linear x %s, W %s, b %s", x.Value.Shape(), w.Value.Shape(), b.Value.Shape()))
	}
	out := w.Value.Cols
	y := tp.allocFull(r, out) // every row gets the bias below
	for i := range r {
		copy(y.Data[i*out:(i+1)*out], b.Value.Data)
	}
	tp.gemmOnCached(w.packs, false, false, 1, x.Value, w.Value, 1, y)
	return tp.record(y, func(o *Var) {
		g := o.Grad
		if x.needsGrad {
			gx, fresh := x.gradToSet()
			gemm(false, true, 1, g, w.Value, betaFor(fresh), gx)
		}
		if w.needsGrad {
			gemm(true, false, 1, x.Value, g, 1, w.grad())
		}
		if b.needsGrad {
			sumRowsOn(tp.procs(), b.grad().Data, g.Data, r, out)
		}
	}, x, w, b)
}
