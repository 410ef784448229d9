package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Param is a named trainable tensor with its gradient.
type Param struct {
	Name  string
	Value *Tensor
	Grad  *Tensor

	// packs keeps inference products' packed panels of Value, checked
	// against Value's current contents on every use (packCache).
	packs packCache
}

// NewParam returns a zero parameter of shape [rows, cols].
func NewParam(name string, rows, cols int) *Param {
	return &Param{Name: name, Value: NewTensor(rows, cols), Grad: NewTensor(rows, cols)}
}

// Params is an ordered collection of parameters with stable, unique names.
type Params struct {
	list   []*Param
	byName map[string]*Param
}

// Add appends parameters; a duplicate name panics because it is a
// programming error in model construction.
func (ps *Params) Add(p ...*Param) {
	if ps.byName == nil {
		ps.byName = make(map[string]*Param)
	}
	for _, q := range p {
		if _, dup := ps.byName[q.Name]; dup {
			panic(fmt.Sprintf("nets: duplicate parameter name %q", q.Name))
		}
		ps.byName[q.Name] = q
		ps.list = append(ps.list, q)
	}
}

// List returns the parameters in insertion order.
func (ps *Params) List() []*Param { return ps.list }

// Get returns the parameter with the given name, or nil.
func (ps *Params) Get(name string) *Param { return ps.byName[name] }

// Names returns the parameter names sorted.
func (ps *Params) Names() []string {
	names := make([]string, 0, len(ps.list))
	for _, p := range ps.list {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// Count returns the total number of scalar parameters.
func (ps *Params) Count() int {
	n := 0
	for _, p := range ps.list {
		n += p.Value.Len()
	}
	return n
}

// ZeroGrad clears every gradient.
func (ps *Params) ZeroGrad() {
	for _, p := range ps.list {
		if p.Grad != nil {
			p.Grad.Zero()
		}
	}
}

// GradNorm returns the global L2 norm of all gradients.
func (ps *Params) GradNorm() float64 {
	s := 0.0
	for _, p := range ps.list {
		if p.Grad == nil {
			continue
		}
		for _, g := range p.Grad.Data {
			s += g * g
		}
	}
	return math.Sqrt(s)
}

// Snapshot returns a deep copy of all values keyed by name; it is safe to
// hand to another goroutine.
func (ps *Params) Snapshot() map[string]*Tensor {
	m := make(map[string]*Tensor, len(ps.list))
	for _, p := range ps.list {
		m[p.Name] = p.Value.Clone()
	}
	return m
}

// Restore copies values from a snapshot. Every parameter must be present
// with the same shape.
func (ps *Params) Restore(snap map[string]*Tensor) error {
	for _, p := range ps.list {
		t, ok := snap[p.Name]
		if !ok {
			return fmt.Errorf("nets: restore: missing tensor %q", p.Name)
		}
		if !t.SameShape(p.Value) {
			return fmt.Errorf("nets: restore: tensor %q has shape %s, want %s", p.Name, t.Shape(), p.Value.Shape())
		}
		copy(p.Value.Data, t.Data)
	}
	return nil
}

// InitGlorot fills t with uniform Glorot/Xavier values:
// U(-a, a), a = sqrt(6 / (fanIn + fanOut)).
func InitGlorot(t *Tensor, fanIn, fanOut int, rng *rand.Rand) {
	a := math.Sqrt(6 / float64(fanIn+fanOut))
	for i := range t.Data {
		t.Data[i] = (2*rng.Float64() - 1) * a
	}
}
