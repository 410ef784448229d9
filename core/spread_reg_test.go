package core

import (
	"math"
	"testing"

	"apic/nets"
)

// TestSpreadPenaltyValue checks L_δ = mean (f − batch mean f)² on a
// hand-computed case: two realizations, two queries, one output each.
// A correction shared by every realization costs nothing.
func TestSpreadPenaltyValue(t *testing.T) {
	f := nets.NewTensor(4, 1) // rows: realization 0 queries 0, 1; realization 1 queries 0, 1
	copy(f.Data, []float64{1, 5, 3, 5})
	got := spreadValue(f, 2)
	// query 0: mean 2, deviations ±1; query 1: mean 5, deviations 0.
	if want := (1.0 + 0 + 1 + 0) / 4; math.Abs(got-want) > 1e-15 {
		t.Errorf("penalty %v, want %v", got, want)
	}
	copy(f.Data, []float64{0.7, -2, 0.7, -2})
	if got := spreadValue(f, 2); got != 0 {
		t.Errorf("a correction shared by both realizations costs %v, want 0", got)
	}
}

// TestSpreadPenaltyGrad checks the penalty's gradient against central
// differences.
func TestSpreadPenaltyGrad(t *testing.T) {
	const b, q, o = 3, 4, 2
	f := nets.NewTensor(b*q, o)
	for i := range f.Data {
		f.Data[i] = math.Sin(1.3*float64(i)) + 0.1*float64(i%3)
	}
	tp := nets.NewTape()
	in := tp.Input(f)
	tp.Backward(spreadPenalty(tp, in, b))
	const h = 1e-6
	for i := range f.Data {
		orig := f.Data[i]
		f.Data[i] = orig + h
		up := spreadValue(f, b)
		f.Data[i] = orig - h
		down := spreadValue(f, b)
		f.Data[i] = orig
		if num := (up - down) / (2 * h); math.Abs(num-in.Grad.Data[i]) > 1e-8 {
			t.Errorf("dL/df[%d] = %v, numerical %v", i, in.Grad.Data[i], num)
		}
	}
}

// spreadValue evaluates the penalty without recording gradients.
func spreadValue(f *nets.Tensor, realizations int) float64 {
	tp := nets.NewTape()
	return spreadPenalty(tp, tp.Const(f), realizations).Value.Data[0]
}
