package nets

import (
	"math"
	"testing"
)

func TestReduceGrad(t *testing.T) {
	rng := newRNG(10)
	x := randSigned(rng, 6, 4, 0.1, 2)
	cases := []struct {
		name string
		op   func(tp *Tape, a *Var) *Var
	}{
		{"Sum", (*Tape).Sum},
		{"Mean", (*Tape).Mean},
		{"SumRows", (*Tape).SumRows},
		{"MeanRows", (*Tape).MeanRows},
		{"SumCols", (*Tape).SumCols},
		{"SegmentSum", func(tp *Tape, a *Var) *Var { return tp.SegmentSum(a, 3) }},
		{"SegmentMean", func(tp *Tape, a *Var) *Var { return tp.SegmentMean(a, 2) }},
		{"SegmentMean/all", func(tp *Tape, a *Var) *Var { return tp.SegmentMean(a, 6) }},
		{"SegmentMean/each", func(tp *Tape, a *Var) *Var { return tp.SegmentMean(a, 1) }},
	}
	for _, c := range cases {
		checkGrad(t, c.name, func(tp *Tape, in []*Var) *Var { return wsum(tp, c.op(tp, in[0])) }, x)
	}
}

func TestReduceValues(t *testing.T) {
	tp := NewTape()
	// Rows: (1 2) (3 4) (5 6) (7 8).
	x := tp.Const(FromSlice(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8}))
	want := []struct {
		name string
		got  *Var
		want *Tensor
	}{
		{"Sum", tp.Sum(x), Scalar(36)},
		{"Mean", tp.Mean(x), Scalar(4.5)},
		{"SumRows", tp.SumRows(x), FromSlice(1, 2, []float64{16, 20})},
		{"MeanRows", tp.MeanRows(x), FromSlice(1, 2, []float64{4, 5})},
		{"SumCols", tp.SumCols(x), FromSlice(4, 1, []float64{3, 7, 11, 15})},
		{"SegmentSum", tp.SegmentSum(x, 2), FromSlice(2, 2, []float64{4, 6, 12, 14})},
		{"SegmentMean", tp.SegmentMean(x, 2), FromSlice(2, 2, []float64{2, 3, 6, 7})},
	}
	for _, c := range want {
		assertClose(t, c.name, c.got.Value, c.want, 1e-15)
	}
}

func TestSegmentMeanBadGroupPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SegmentMean of 5 rows in groups of 2 did not panic")
		}
	}()
	tp := NewTape()
	tp.SegmentMean(tp.Const(NewTensor(5, 1)), 2)
}

// TestSegmentMeanMatchesMeanRows checks the pooling against MeanRows of
// each group taken separately.
func TestSegmentMeanMatchesMeanRows(t *testing.T) {
	rng := newRNG(11)
	x := randSigned(rng, 12, 3, 0, 1)
	tp := NewTape()
	pooled := tp.SegmentMean(tp.Const(x), 4).Value
	for g := range 3 {
		part := tp.MeanRows(tp.Const(rowBlock(x, g, 4))).Value
		for j := range 3 {
			if d := math.Abs(pooled.At(g, j) - part.At(0, j)); d > 1e-15 {
				t.Fatalf("group %d col %d: %g vs %g", g, j, pooled.At(g, j), part.At(0, j))
			}
		}
	}
}
