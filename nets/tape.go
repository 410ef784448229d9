package nets

import (
	"fmt"
	"runtime"
)

// Var is a value recorded on a Tape. Its gradient is accumulated during
// Tape.Backward.
type Var struct {
	Value *Tensor
	// Grad holds d loss / d Value after Backward. It is nil for vars that
	// do not depend on any parameter or differentiable input.
	Grad *Tensor

	needsGrad bool
	back      func() // propagates Grad to the inputs' Grad
	// packs is the parameter's packed-panel cache when the var records
	// one on an inference tape (nil otherwise).
	packs *packCache
	// arena holds Grad when the var was recorded on a training tape with
	// an arena (nil: the heap).
	arena *Arena
}

// NeedsGrad reports whether gradients flow into this var.
func (v *Var) NeedsGrad() bool { return v.needsGrad }

// grad returns v.Grad, allocating it zeroed on first use.
func (v *Var) grad() *Tensor {
	if v.Grad == nil {
		v.Grad = v.arena.Tensor(v.Value.Rows, v.Value.Cols)
	}
	return v.Grad
}

// gradToSet returns v's gradient and whether it was just allocated with
// arbitrary contents: a backward pass that is the first to reach v then
// writes every value (a product with β = 0) instead of clearing the
// storage first and adding to it.
func (v *Var) gradToSet() (g *Tensor, fresh bool) {
	if v.Grad != nil {
		return v.Grad, false
	}
	v.Grad = v.arena.tensor(v.Value.Rows, v.Value.Cols, false)
	return v.Grad, true
}

// Tape records operations for reverse-mode differentiation. A Tape is used
// for one forward/backward pass and then discarded; it is not safe for
// concurrent use.
type Tape struct {
	nodes   []*Var
	params  map[*Param]*Var
	noGrad  bool
	arena   *Arena // forward values' storage (nil: the heap)
	workers int    // goroutines an op may use (0: GOMAXPROCS; SetWorkers)
	done    <-chan struct{}
}

// SetDone makes this inference tape's longest operations (attention
// over long contexts) stop early once done is closed, as a cancelled
// context's Done channel is: their results are then incomplete, and the
// caller, which sees its context cancelled, must discard them.
func (tp *Tape) SetDone(done <-chan struct{}) { tp.done = done }

// stopped reports whether done is closed (never, for nil).
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// SetWorkers caps the goroutines that this tape's operations run on
// (n ≤ 0: GOMAXPROCS, the default): an inference tape's products and
// attention, and every tape's elementwise passes and bias sums (a
// training tape's products take GOMAXPROCS). A caller that already runs
// several tapes side by side sets 1, so that they do not spawn
// goroutines to compete for the same cores. Values do not depend on it.
func (tp *Tape) SetWorkers(n int) { tp.workers = n }

// procs is the goroutines an operation may use.
func (tp *Tape) procs() int {
	if tp.workers > 0 {
		return tp.workers
	}
	return runtime.GOMAXPROCS(0)
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{params: make(map[*Param]*Var)} }

// NewInferenceTape returns a tape on which parameters need no gradient, so
// operations record nothing for a backward pass and skip the buffers they
// would keep for it. Backward on it is a no-op.
func NewInferenceTape() *Tape { return &Tape{noGrad: true} }

// Const records a tensor that receives no gradient.
func (tp *Tape) Const(t *Tensor) *Var {
	v := tp.newVar()
	v.Value = t
	return v
}

// Input records a tensor that receives a gradient (for gradient checks and
// for derivatives with respect to data).
func (tp *Tape) Input(t *Tensor) *Var {
	v := &Var{Value: t, needsGrad: true}
	tp.nodes = append(tp.nodes, v)
	return v
}

// Param records a parameter; gradients accumulate into p.Grad. Recording
// the same parameter twice on a training tape returns the same var (an
// inference tape, which keeps no gradients, returns a fresh wrapper).
func (tp *Tape) Param(p *Param) *Var {
	if tp.noGrad {
		// Nothing flows back to an inference tape's parameters, so a
		// fresh wrapper is as good as a shared one and skips the map.
		v := tp.newVar()
		v.Value, v.packs = p.Value, &p.packs
		return v
	}
	if v, ok := tp.params[p]; ok {
		return v
	}
	if p.Grad == nil || !p.Grad.SameShape(p.Value) {
		p.Grad = NewTensor(p.Value.Rows, p.Value.Cols)
	}
	v := &Var{Value: p.Value, Grad: p.Grad, needsGrad: true}
	tp.params[p] = v
	tp.nodes = append(tp.nodes, v)
	return v
}

// record appends the result of an operation. back is only kept when some
// input needs a gradient.
func (tp *Tape) record(value *Tensor, back func(out *Var), inputs ...*Var) *Var {
	out := tp.newVar()
	out.Value = value
	if !tp.noGrad {
		out.arena = tp.arena
	}
	for _, in := range inputs {
		if in.needsGrad {
			out.needsGrad = true
			break
		}
	}
	if out.needsGrad && back != nil {
		out.back = func() { back(out) }
		tp.nodes = append(tp.nodes, out)
	}
	return out
}

// Backward computes d loss / d v for every recorded var that needs a
// gradient. loss must be a 1×1 tensor. Parameter gradients accumulate into
// Param.Grad (call Params.ZeroGrad between steps).
func (tp *Tape) Backward(loss *Var) {
	if loss.Value.Rows != 1 || loss.Value.Cols != 1 {
		panic(fmt.Sprintf("nets: Backward of non-scalar %s", loss.Value.Shape()))
	}
	if !loss.needsGrad {
		return
	}
	loss.grad().Data[0] += 1
	for i := len(tp.nodes) - 1; i >= 0; i-- {
		n := tp.nodes[i]
		if n.back != nil && n.Grad != nil {
			n.back()
		}
	}
}

// Op is a fused operation with a hand-written vector-Jacobian product,
// used for solvers whose adjoint is cheaper than differentiating their
// inner steps one by one.
type Op interface {
	// Forward computes the output from the input values. It may keep
	// whatever intermediate state Backward needs in the receiver.
	Forward(inputs []*Tensor) *Tensor
	// Backward accumulates (adds) d loss / d input_i into inGrads[i] given
	// outGrad = d loss / d output. inGrads[i] is nil for inputs that need
	// no gradient.
	Backward(inputs []*Tensor, output, outGrad *Tensor, inGrads []*Tensor)
}

// An IntoOp is an Op that can write its output into storage the tape
// provides: on an inference tape with an arena (NewArenaTape), Apply
// takes the output from the arena instead of the heap.
type IntoOp interface {
	Op
	// OutShape is the output's shape for these inputs.
	OutShape(inputs []*Tensor) (rows, cols int)
	// ForwardInto is Forward writing every value of dst, of OutShape
	// (its contents on entry are arbitrary).
	ForwardInto(dst *Tensor, inputs []*Tensor)
}

// Apply records a custom operation.
func (tp *Tape) Apply(op Op, inputs ...*Var) *Var {
	vals := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		vals[i] = in.Value
	}
	var y *Tensor
	// Only an inference tape writes into the arena: ForwardInto need not
	// keep the state Backward reads.
	if io, ok := op.(IntoOp); ok && tp.arena != nil && tp.noGrad {
		y = tp.allocFull(io.OutShape(vals))
		io.ForwardInto(y, vals)
	} else {
		y = op.Forward(vals)
	}
	return tp.record(y, func(out *Var) {
		grads := make([]*Tensor, len(inputs))
		for i, in := range inputs {
			if in.needsGrad {
				grads[i] = in.grad()
			}
		}
		op.Backward(vals, y, out.Grad, grads)
	}, inputs...)
}
