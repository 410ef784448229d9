package nets

import "testing"

func TestShapeGrad(t *testing.T) {
	rng := newRNG(20)
	x := randSigned(rng, 3, 4, 0.1, 2)
	y := randSigned(rng, 3, 2, 0.1, 2)
	z := randSigned(rng, 2, 4, 0.1, 2)
	w := randSigned(rng, 1, 4, 0.1, 2) // a constant block, not an input
	one := func(name string, op func(tp *Tape, a *Var) *Var) {
		checkGrad(t, name, func(tp *Tape, in []*Var) *Var { return wsum(tp, op(tp, in[0])) }, x)
	}
	one("RepeatRows", func(tp *Tape, a *Var) *Var { return tp.RepeatRows(a, 3) })
	one("TileRows", func(tp *Tape, a *Var) *Var { return tp.TileRows(a, 3) })
	one("SliceCols", func(tp *Tape, a *Var) *Var { return tp.SliceCols(a, 1, 3) })
	one("Reshape", func(tp *Tape, a *Var) *Var { return tp.Reshape(a, 6, 2) })
	one("Transpose", (*Tape).Transpose)
	checkGrad(t, "ConcatCols", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.ConcatCols(in[0], in[1], in[0]))
	}, x, y)
	checkGrad(t, "ConcatCols/const", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.ConcatCols(tp.Const(y), in[0]))
	}, x)
	checkGrad(t, "ConcatRows", func(tp *Tape, in []*Var) *Var {
		return wsum(tp, tp.ConcatRows(in[0], in[1], tp.Const(w)))
	}, x, z)
	// Transpose on a matrix larger than one cache tile.
	big := randSigned(rng, 35, 33, 0.1, 1)
	checkGrad(t, "Transpose/tiled", func(tp *Tape, in []*Var) *Var { return wsum(tp, tp.Transpose(in[0])) }, big)
}

func TestShapeValues(t *testing.T) {
	tp := NewTape()
	// Rows: (1 2) (3 4).
	x := tp.Const(FromSlice(2, 2, []float64{1, 2, 3, 4}))
	y := tp.Const(FromSlice(2, 1, []float64{5, 6}))
	cases := []struct {
		name string
		got  *Var
		want *Tensor
	}{
		{"RepeatRows", tp.RepeatRows(x, 2), FromSlice(4, 2, []float64{1, 2, 1, 2, 3, 4, 3, 4})},
		{"TileRows", tp.TileRows(x, 2), FromSlice(4, 2, []float64{1, 2, 3, 4, 1, 2, 3, 4})},
		{"ConcatCols", tp.ConcatCols(x, y), FromSlice(2, 3, []float64{1, 2, 5, 3, 4, 6})},
		{"SliceCols", tp.SliceCols(x, 1, 2), FromSlice(2, 1, []float64{2, 4})},
		{"Reshape", tp.Reshape(x, 1, 4), FromSlice(1, 4, []float64{1, 2, 3, 4})},
		{"Transpose", tp.Transpose(tp.ConcatCols(x, y)), FromSlice(3, 2, []float64{1, 3, 2, 4, 5, 6})},
		{"ConcatRows", tp.ConcatRows(x, tp.Transpose(y)), FromSlice(3, 2, []float64{1, 2, 3, 4, 5, 6})},
	}
	for _, c := range cases {
		assertClose(t, c.name, c.got.Value, c.want, 0)
	}
}

// TestRepeatTileAlign checks the layout contract the NP decoder relies on:
// RepeatRows of per-realization latents lines up with TileRows of shared
// query points, row b·N+q pairing realization b with point q.
func TestRepeatTileAlign(t *testing.T) {
	tp := NewTape()
	const batch, n = 3, 4
	z := NewTensor(batch, 1)
	q := NewTensor(n, 1)
	for b := range batch {
		z.Data[b] = float64(b)
	}
	for i := range n {
		q.Data[i] = float64(10 * i)
	}
	pair := tp.ConcatCols(tp.RepeatRows(tp.Const(z), n), tp.TileRows(tp.Const(q), batch)).Value
	for b := range batch {
		for i := range n {
			if pair.At(b*n+i, 0) != float64(b) || pair.At(b*n+i, 1) != float64(10*i) {
				t.Fatalf("row %d = %v, want (%d, %d)", b*n+i, pair.Row(b*n+i), b, 10*i)
			}
		}
	}
}
