package nets

import "fmt"

// Sum returns the sum of every element of a as a [1, 1] var.
func (tp *Tape) Sum(a *Var) *Var { return tp.sumAll(a, 1) }

// Mean returns the mean of every element of a as a [1, 1] var.
func (tp *Tape) Mean(a *Var) *Var {
	n := a.Value.Len()
	if n == 0 {
		panic("nets: Mean of an empty tensor")
	}
	return tp.sumAll(a, 1/float64(n))
}

// sumAll returns s·Σ a; the gradient is s·dY at every element.
func (tp *Tape) sumAll(a *Var, s float64) *Var {
	t := 0.0
	for _, v := range a.Value.Data {
		t += v
	}
	y := Scalar(s * t)
	return tp.record(y, func(out *Var) {
		d := s * out.Grad.Data[0]
		ga := a.grad().Data
		for i := range ga {
			ga[i] += d
		}
	}, a)
}

// SumRows sums over the rows of a [R, C] var, giving [1, C]:
// y_j = Σ_i a_ij.
func (tp *Tape) SumRows(a *Var) *Var { return tp.sumRows(a, 1) }

// MeanRows averages over the rows of a [R, C] var, giving [1, C].
func (tp *Tape) MeanRows(a *Var) *Var {
	if a.Value.Rows == 0 {
		panic("nets: MeanRows of a tensor with no rows")
	}
	return tp.sumRows(a, 1/float64(a.Value.Rows))
}

// sumRows returns s·Σ_i a_ij as [1, C]; dA_ij = s·dY_j.
func (tp *Tape) sumRows(a *Var, s float64) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	y := tp.Alloc(1, c)
	for i := range r {
		accumulate(y.Data, a.Value.Data[i*c:(i+1)*c])
	}
	if s != 1 {
		for j := range y.Data {
			y.Data[j] *= s
		}
	}
	return tp.record(y, func(out *Var) {
		ga := a.grad().Data
		g := out.Grad.Data
		for i := range r {
			accumulateScaled(ga[i*c:(i+1)*c], s, g)
		}
	}, a)
}

// SumCols sums over the columns of a [R, C] var, giving [R, 1]:
// y_i = Σ_j a_ij.
func (tp *Tape) SumCols(a *Var) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	y := tp.Alloc(r, 1)
	for i := range r {
		t := 0.0
		for _, v := range a.Value.Data[i*c : (i+1)*c] {
			t += v
		}
		y.Data[i] = t
	}
	return tp.record(y, func(out *Var) {
		ga := a.grad().Data
		for i, g := range out.Grad.Data {
			row := ga[i*c : (i+1)*c]
			for j := range row {
				row[j] += g
			}
		}
	}, a)
}

// SegmentSum sums consecutive groups of n rows of a [R, C] var (R a
// multiple of n), giving [R/n, C]: y_k = Σ_{i<n} a_{k·n+i}. This is the
// set-pooling step of a batch-first set of R/n sets of n points each.
func (tp *Tape) SegmentSum(a *Var, n int) *Var { return tp.segment("SegmentSum", a, n, 1) }

// SegmentMean averages consecutive groups of n rows of a [R, C] var,
// giving [R/n, C]: y_k = (1/n) Σ_{i<n} a_{k·n+i}.
func (tp *Tape) SegmentMean(a *Var, n int) *Var {
	return tp.segment("SegmentMean", a, n, 1/float64(n))
}

// segment returns s·Σ over groups of n rows; dA_{k·n+i} = s·dY_k.
func (tp *Tape) segment(op string, a *Var, n int, s float64) *Var {
	r, c := a.Value.Rows, a.Value.Cols
	if n <= 0 || r%n != 0 {
		panic(fmt.Sprintf("nets: %s: %d rows do not split into groups of %d", op, r, n))
	}
	groups := r / n
	y := tp.Alloc(groups, c)
	procs := tp.procs()
	forRange(procs, groups, n*c, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			yk := y.Data[k*c : (k+1)*c]
			sumRows(yk, a.Value.Data[k*n*c:], n, c, false)
			if s != 1 {
				for j := range yk {
					yk[j] *= s
				}
			}
		}
	})
	return tp.record(y, func(out *Var) {
		gat, fresh := a.gradToSet()
		ga, g := gat.Data, out.Grad.Data
		spread := accumulateScaled
		if fresh {
			spread = scaleTo // the first gradient to reach a: write it
		}
		forRange(procs, r, c, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				spread(ga[i*c:(i+1)*c], s, g[i/n*c:(i/n+1)*c])
			}
		})
	}, a)
}
