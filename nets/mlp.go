package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Activation names an element-wise nonlinearity.
type Activation string

// The supported activations.
const (
	ActReLU     Activation = "relu"
	ActTanh     Activation = "tanh"
	ActSoftplus Activation = "softplus"
	ActSigmoid  Activation = "sigmoid"
	ActIdentity Activation = "identity"
	ActSiLU     Activation = "silu"
)

// Activations lists the supported activations, in the order the
// errors name them.
var Activations = []Activation{ActReLU, ActTanh, ActSoftplus, ActSigmoid, ActIdentity, ActSiLU}

// ActivationNames are Activations' names.
func ActivationNames() []string {
	names := make([]string, len(Activations))
	for i, a := range Activations {
		names[i] = string(a)
	}
	return names
}

// ParseActivation returns the activation named s, or an error naming the
// supported ones (for configuration files and flags).
func ParseActivation(s string) (Activation, error) {
	if slices.Contains(Activations, Activation(s)) {
		return Activation(s), nil
	}
	return "", fmt.Errorf("nets: unknown activation %q (want relu, tanh, softplus, sigmoid, identity or silu)", s)
}

// Activate applies the activation a to x element-wise. An unknown
// activation panics; validate configured names with ParseActivation.
func (tp *Tape) Activate(a Activation, x *Var) *Var {
	switch a {
	case ActReLU:
		return tp.ReLU(x)
	case ActTanh:
		return tp.Tanh(x)
	case ActSoftplus:
		return tp.Softplus(x)
	case ActSigmoid:
		return tp.Sigmoid(x)
	case ActIdentity:
		return x
	case ActSiLU:
		return tp.SiLU(x)
	}
	panic(fmt.Sprintf("nets: unknown activation %q", string(a)))
}

// MLP is a multilayer perceptron: Linear layers with the activation Act
// after every layer except the last,
//
//	h_0 = x,  h_{k+1} = act(h_k W_k + b_k),  y = h_{L−1} W_{L−1} + b_{L−1}.
type MLP struct {
	Layers []*Linear
	Act    Activation
}

// NewMLP returns an MLP with layer sizes sizes = [in, h_1, …, out] (at
// least two entries), its layers named name+".0", name+".1", … and their
// parameters registered in ps.
func NewMLP(name string, sizes []int, act Activation, ps *Params, rng *rand.Rand) *MLP {
	if len(sizes) < 2 {
		panic(fmt.Sprintf("nets: NewMLP %q needs at least 2 sizes, got %v", name, sizes))
	}
	if _, err := ParseActivation(string(act)); err != nil {
		panic(fmt.Sprintf("nets: NewMLP %q: %v", name, err))
	}
	m := &MLP{Act: act}
	for k := range len(sizes) - 1 {
		m.Layers = append(m.Layers, NewLinear(name+"."+strconv.Itoa(k), sizes[k], sizes[k+1], ps, rng))
	}
	return m
}

// Forward maps x [R, In] through every layer to [R, Out].
func (m *MLP) Forward(tp *Tape, x *Var) *Var {
	return m.Last().Forward(tp, m.ForwardHidden(tp, x))
}

// ForwardHidden applies every layer but the last, each followed by the
// activation, giving the last hidden representation [R, Last().In]. A set
// encoder pools this before the last layer, which is exact for mean
// pooling because the last layer is affine: mean(h W + b) = mean(h) W + b.
func (m *MLP) ForwardHidden(tp *Tape, x *Var) *Var {
	for _, l := range m.Layers[:len(m.Layers)-1] {
		x = tp.activateFresh(m.Act, l.Forward(tp, x))
	}
	return x
}

// activateFresh is Activate for an x that was just computed and is read
// by nothing else: without a gradient to record (inference) it
// overwrites x's values instead of allocating a new tensor.
func (tp *Tape) activateFresh(a Activation, x *Var) *Var {
	if x.needsGrad || !activatesInPlace(a) {
		return tp.Activate(a, x)
	}
	activateInPlace(a, x.Value.Data)
	return x
}

// activatesInPlace reports whether activateInPlace handles a.
func activatesInPlace(a Activation) bool {
	return a == ActReLU || a == ActSiLU || a == ActIdentity
}

// activateInPlace overwrites d with a(d) for the activations of
// activatesInPlace, and falls back to a recorded op's values otherwise.
func activateInPlace(a Activation, d []float64) {
	switch a {
	case ActReLU:
		reluInPlace(d)
	case ActSiLU:
		siluInto(d, d)
	case ActIdentity:
	default:
		tp := NewInferenceTape()
		copy(d, tp.Activate(a, tp.Const(FromSlice(1, len(d), d))).Value.Data)
	}
}

// Last returns the output layer.
func (m *MLP) Last() *Linear { return m.Layers[len(m.Layers)-1] }

// In is the input width.
func (m *MLP) In() int { return m.Layers[0].In }

// Out is the output width.
func (m *MLP) Out() int { return m.Last().Out }

// reluBits is max(v, 0) without a branch: a negative number's sign bit
// becomes an all-ones mask that clears it (half the pre-activations are
// negative, so a branch mispredicts). NaN keeps its bits unless negative.
func reluBits(v float64) float64 {
	b := math.Float64bits(v)
	return math.Float64frombits(b &^ uint64(int64(b)>>63))
}
