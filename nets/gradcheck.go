package nets

import (
	"fmt"
	"math"
)

// CheckGrad compares the tape's gradients of the scalar f(inputs) with
// central finite differences (step eps) for every element of every input.
// It returns an error naming the first element whose analytic and numeric
// derivatives differ by more than tol·max(1, |numeric|).
//
// f must be deterministic and must not modify its inputs.
func CheckGrad(f func(tp *Tape, in []*Var) *Var, inputs []*Tensor, eps, tol float64) error {
	tp := NewTape()
	vars := make([]*Var, len(inputs))
	for i, t := range inputs {
		vars[i] = tp.Input(t)
	}
	loss := f(tp, vars)
	if loss.Value.Len() != 1 {
		return fmt.Errorf("gradcheck: f returned %s, want a scalar", loss.Value.Shape())
	}
	tp.Backward(loss)
	eval := func() float64 {
		t2 := NewTape()
		v2 := make([]*Var, len(inputs))
		for i, t := range inputs {
			v2[i] = t2.Input(t)
		}
		return f(t2, v2).Value.Data[0]
	}
	for i, t := range inputs {
		for j := range t.Data {
			orig := t.Data[j]
			t.Data[j] = orig + eps
			fp := eval()
			t.Data[j] = orig - eps
			fm := eval()
			t.Data[j] = orig
			num := (fp - fm) / (2 * eps)
			ana := 0.0
			if vars[i].Grad != nil {
				ana = vars[i].Grad.Data[j]
			}
			if math.IsNaN(ana) || math.Abs(ana-num) > tol*math.Max(1, math.Abs(num)) {
				return fmt.Errorf("gradcheck: input %d element %d: analytic %.10g, numeric %.10g", i, j, ana, num)
			}
		}
	}
	return nil
}
