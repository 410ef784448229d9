package core

import (
	"apic/nets"
	"apic/sims"
)

// closureFor returns how the model combines f_ψ with the simulator: the
// system's native closure, or one of the generic output-space forms that
// work for every system.
func closureFor(sys sims.System, form Form) sims.Closure {
	switch form {
	case Additive:
		return outputSpace{sys: sys, mul: false}
	case Multiplicative:
		return outputSpace{sys: sys, mul: true}
	}
	return sys.Closure()
}

// outputSpace evaluates f_ψ at every grid state with one output per
// channel and combines it with the nominal simulator in observation space:
//
//	additive:        ŷ = F(x; θ̂) + f_ψ(x, z)
//	multiplicative:  ŷ = F(x; θ̂) · (1 + f_ψ(x, z))
type outputSpace struct {
	sys sims.System
	mul bool
}

func (o outputSpace) Name() string {
	if o.mul {
		return "multiplicative"
	}
	return "additive"
}

func (o outputSpace) Doc() string {
	if o.mul {
		return "f_ψ(x, z) scales the nominal output: F·(1 + f)"
	}
	return "f_ψ(x, z) is added to the nominal output: F + f"
}

func (o outputSpace) Queries() [][]float64 { return o.sys.Grid().States }

func (o outputSpace) Outputs() int { return len(o.sys.Grid().Channels) }

func (o outputSpace) Apply(tp *nets.Tape, theta *nets.Var, side *nets.Tensor, f *nets.Var) *nets.Var {
	nom := o.sys.NominalOp(tp, theta, side)
	fr := tp.Reshape(f, nom.Value.Rows, nom.Value.Cols)
	if o.mul {
		return tp.Add(nom, tp.Mul(nom, fr))
	}
	return tp.Add(nom, fr)
}

func (o outputSpace) Clipped([]float64) bool { return false }
