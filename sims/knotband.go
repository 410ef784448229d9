package sims

import (
	"math"

	"apic/nets"
)

// knotBand is a knot interpolation matrix A [K, M] whose every column
// has its nonzeros in at most two adjacent rows lo, lo+1 (every matrix
// knotInterpolation and lvKnotInterpolation build), kept as those rows
// and weights, so that
//
//	(x·A)_m = x_lo·w0_m + x_{lo+1}·w1_m
//
// costs two products per column instead of K. The sum is rounded as the
// engine's matrix product rounds it (the second product fused onto the
// first where the engine fuses, the zero rows adding nothing), so a
// closure's tangent that interpolates this way gets the values of its
// forward pass, which multiplies by A on the tape, for finite x.
type knotBand struct {
	k      int
	w0, w1 []float64 // column c: the weights of rows lo and hi of its run
	runs   []bandRun
	lo     []int // column c's row lo
	fused  bool  // the engine's products fuse multiply-adds (nets.FusedProducts)
}

// bandRun is a range of consecutive columns [c0, c1) that read the same
// two rows: lo, and hi = lo+1 (or lo, weight 0, where lo is the last
// row). The product's inner loop then reads no indices.
type bandRun struct{ c0, c1, lo, hi int }

// newKnotBand returns a's band form, or nil when some column's nonzeros
// are more than two or not in adjacent rows.
func newKnotBand(a *nets.Tensor) *knotBand {
	m := a.Cols
	b := &knotBand{k: a.Rows, w0: make([]float64, m), w1: make([]float64, m), fused: nets.FusedProducts()}
	for c := range m {
		first := -1
		for r := range a.Rows {
			if a.At(r, c) == 0 {
				continue
			}
			if first < 0 {
				first = r
			}
			if r > first+1 {
				return nil
			}
		}
		if first < 0 {
			first = 0 // an empty column: x_0·0
		}
		hi := min(first+1, a.Rows-1)
		b.lo = append(b.lo, first)
		b.w0[c] = a.At(first, c)
		if hi != first {
			b.w1[c] = a.At(hi, c)
		}
		if n := len(b.runs); n > 0 && b.runs[n-1].lo == first {
			b.runs[n-1].c1 = c + 1
		} else {
			b.runs = append(b.runs, bandRun{c0: c, c1: c + 1, lo: first, hi: hi})
		}
	}
	return b
}

// mul sets dst [rows·M] to x [rows·K] times A, row by row.
func (b *knotBand) mul(dst, x []float64, rows int) {
	m := len(b.w0)
	for r := range rows {
		xr, d := x[r*b.k:(r+1)*b.k], dst[r*m:(r+1)*m]
		for _, run := range b.runs {
			b.fill(d[run.c0:run.c1], run, xr[run.lo], xr[run.hi])
		}
	}
}

// fill sets d [c1 − c0] to run's columns for knot values x0 (row lo)
// and x1 (row hi), rounded as the engine's products round them, the
// rounding chosen once per run rather than per column.
func (b *knotBand) fill(d []float64, run bandRun, x0, x1 float64) {
	w0, w1 := b.w0[run.c0:run.c1], b.w1[run.c0:run.c1]
	w1 = w1[:len(w0)]
	d = d[:len(w0)]
	if b.fused {
		for i, a := range w0 {
			d[i] = math.FMA(x1, w1[i], x0*a)
		}
		return
	}
	for i, a := range w0 {
		d[i] = x0*a + x1*w1[i]
	}
}

// col is column c of x [K] times A, as mul computes it.
func (b *knotBand) col(c int, x []float64) float64 {
	lo := b.lo[c]
	hi := min(lo+1, b.k-1)
	if b.fused {
		return math.FMA(x[hi], b.w1[c], x[lo]*b.w0[c])
	}
	return x[lo]*b.w0[c] + x[hi]*b.w1[c]
}

// interpolate sets dst [rows·M] = x [rows·K]·a, through band when a has
// one (nil: the engine's product).
func interpolate(band *knotBand, a *nets.Tensor, dst, x []float64, rows int) {
	if rows == 0 {
		return
	}
	if band != nil {
		band.mul(dst, x, rows)
		return
	}
	nets.MatMulInto(nets.FromSlice(rows, a.Cols, dst), nets.FromSlice(rows, a.Rows, x), a, false, false)
}

// mulT is mul with dst [M·rows] stage-major: dst[c·rows + r] = (x_r·A)_c.
// Each run's columns are computed for all rows at once, from its two
// knots' values gathered across the rows, so that the writes are
// contiguous.
func (b *knotBand) mulT(dst, x []float64, rows int) {
	var stack [2 * 64]float64
	var x0s, x1s []float64
	if rows <= 64 {
		x0s, x1s = stack[:rows], stack[64:64+rows]
	} else {
		x0s, x1s = make([]float64, rows), make([]float64, rows)
	}
	for _, run := range b.runs {
		for r := range rows {
			x0s[r], x1s[r] = x[r*b.k+run.lo], x[r*b.k+run.hi]
		}
		for c := run.c0; c < run.c1; c++ {
			w0, w1 := b.w0[c], b.w1[c]
			d := dst[c*rows : (c+1)*rows]
			x0s, x1s := x0s[:len(d)], x1s[:len(d)]
			if b.fused {
				for r, x1 := range x1s {
					d[r] = math.FMA(x1, w1, x0s[r]*w0)
				}
			} else {
				for r, x1 := range x1s {
					d[r] = x0s[r]*w0 + x1*w1
				}
			}
		}
	}
}

// interpolateT is interpolate with dst [M·rows] stage-major.
func interpolateT(band *knotBand, a *nets.Tensor, dst, x []float64, rows int) {
	if band != nil {
		band.mulT(dst, x, rows)
		return
	}
	tmp := make([]float64, rows*a.Cols)
	interpolate(nil, a, tmp, x, rows)
	for r := range rows {
		for c, v := range tmp[r*a.Cols : (r+1)*a.Cols] {
			dst[c*rows+r] = v
		}
	}
}
