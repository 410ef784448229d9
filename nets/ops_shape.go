package nets

import "fmt"

// RepeatRows repeats each row of a [R, C] var n times consecutively, giving
// [R·n, C] with row i·n+k equal to a_i. It broadcasts a per-realization
// vector (a latent sample) to that realization's n points. The gradient of
// a_i is the sum of the gradients of its n copies.
func (tp *Tape) RepeatRows(a *Var, n int) *Var {
	if n <= 0 {
		panic(fmt.Sprintf("nets: RepeatRows by %d", n))
	}
	r, c := a.Value.Rows, a.Value.Cols
	y := tp.Alloc(r*n, c)
	for i := range r {
		src := a.Value.Data[i*c : (i+1)*c]
		for k := range n {
			copy(y.Data[(i*n+k)*c:], src)
		}
	}
	return tp.record(y, func(out *Var) {
		ga, g := a.grad().Data, out.Grad.Data
		for i := range r {
			dst := ga[i*c : (i+1)*c]
			for k := range n {
				accumulate(dst, g[(i*n+k)*c:(i*n+k+1)*c])
			}
		}
	}, a)
}

// TileRows stacks the whole [R, C] var times times, giving [R·times, C]
// with row k·R+q equal to a_q: the same query points for every
// realization. The gradient of a_q sums over the copies.
func (tp *Tape) TileRows(a *Var, times int) *Var {
	if times <= 0 {
		panic(fmt.Sprintf("nets: TileRows %d times", times))
	}
	n := a.Value.Len()
	y := tp.Alloc(a.Value.Rows*times, a.Value.Cols)
	for k := range times {
		copy(y.Data[k*n:(k+1)*n], a.Value.Data)
	}
	return tp.record(y, func(out *Var) {
		ga, g := a.grad().Data, out.Grad.Data
		for k := range times {
			accumulate(ga, g[k*n:(k+1)*n])
		}
	}, a)
}

// ConcatCols joins vars with equal row counts side by side, giving
// [R, ΣC_i].
func (tp *Tape) ConcatCols(vs ...*Var) *Var {
	if len(vs) == 0 {
		panic("nets: ConcatCols of nothing")
	}
	r := vs[0].Value.Rows
	total := 0
	for _, v := range vs {
		if v.Value.Rows != r {
			panic(fmt.Sprintf("nets: ConcatCols rows %d vs %d", v.Value.Rows, r))
		}
		total += v.Value.Cols
	}
	y := tp.Alloc(r, total)
	off := 0
	for _, v := range vs {
		c := v.Value.Cols
		for i := range r {
			copy(y.Data[i*total+off:i*total+off+c], v.Value.Data[i*c:(i+1)*c])
		}
		off += c
	}
	return tp.record(y, func(out *Var) {
		g := out.Grad.Data
		off := 0
		for _, v := range vs {
			c := v.Value.Cols
			if v.needsGrad {
				gv := v.grad().Data
				for i := range r {
					accumulate(gv[i*c:(i+1)*c], g[i*total+off:i*total+off+c])
				}
			}
			off += c
		}
	}, vs...)
}

// SliceCols returns columns from..to-1 of a, giving [R, to−from].
func (tp *Tape) SliceCols(a *Var, from, to int) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	if from < 0 || to > c || from > to {
		panic(fmt.Sprintf("nets: SliceCols [%d, %d) of %s", from, to, a.Value.Shape()))
	}
	w := to - from
	y := tp.Alloc(r, w)
	for i := range r {
		copy(y.Data[i*w:(i+1)*w], a.Value.Data[i*c+from:i*c+to])
	}
	return tp.record(y, func(out *Var) {
		ga, g := a.grad().Data, out.Grad.Data
		for i := range r {
			accumulate(ga[i*c+from:i*c+to], g[i*w:(i+1)*w])
		}
	}, a)
}

// Reshape reinterprets the row-major data of a as [rows, cols]. The result
// shares a's data (values are never modified in place on a tape).
func (tp *Tape) Reshape(a *Var, rows, cols int) *Var {
	if rows*cols != a.Value.Len() || rows < 0 || cols < 0 {
		panic(fmt.Sprintf("nets: Reshape %s to [%d, %d]", a.Value.Shape(), rows, cols))
	}
	y := &Tensor{Rows: rows, Cols: cols, Data: a.Value.Data}
	return tp.record(y, func(out *Var) {
		accumulate(a.grad().Data, out.Grad.Data)
	}, a)
}

// Transpose returns aᵀ.
func (tp *Tape) Transpose(a *Var) *Var {
	y := tp.Alloc(a.Value.Cols, a.Value.Rows)
	transposeInto(y.Data, a.Value.Data, a.Value.Rows, a.Value.Cols, false)
	return tp.record(y, func(out *Var) {
		// dA = dYᵀ; dY is [C, R].
		transposeInto(a.grad().Data, out.Grad.Data, a.Value.Cols, a.Value.Rows, true)
	}, a)
}

// transposeInto writes (or adds, when add is set) the transpose of the
// [r, c] row-major src into the [c, r] row-major dst, in cache-sized tiles.
func transposeInto(dst, src []float64, r, c int, add bool) {
	const tile = 32
	for i0 := 0; i0 < r; i0 += tile {
		i1 := min(i0+tile, r)
		for j0 := 0; j0 < c; j0 += tile {
			j1 := min(j0+tile, c)
			for i := i0; i < i1; i++ {
				row := src[i*c : (i+1)*c]
				for j := j0; j < j1; j++ {
					if add {
						dst[j*r+i] += row[j]
					} else {
						dst[j*r+i] = row[j]
					}
				}
			}
		}
	}
}

// ConcatRows stacks vars with equal column counts on top of each other,
// giving [ΣR_i, C].
func (tp *Tape) ConcatRows(vs ...*Var) *Var {
	if len(vs) == 0 {
		panic("nets: ConcatRows of nothing")
	}
	c := vs[0].Value.Cols
	rows := 0
	for _, v := range vs {
		if v.Value.Cols != c {
			panic(fmt.Sprintf("nets: ConcatRows cols %d vs %d", v.Value.Cols, c))
		}
		rows += v.Value.Rows
	}
	y := tp.Alloc(rows, c)
	off := 0
	for _, v := range vs {
		off += copy(y.Data[off:], v.Value.Data)
	}
	return tp.record(y, func(out *Var) {
		g := out.Grad.Data
		off := 0
		for _, v := range vs {
			n := v.Value.Len()
			if v.needsGrad {
				accumulate(v.grad().Data, g[off:off+n])
			}
			off += n
		}
	}, vs...)
}
