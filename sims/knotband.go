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
// first, the zero rows adding nothing), so a closure's tangent that
// interpolates this way gets the values of its forward pass, which
// multiplies by A on the tape, for finite x.
type knotBand struct {
	k      int
	lo, hi []int // hi = lo+1, or lo for a column with one nonzero in the last row
	w0, w1 []float64
}

// newKnotBand returns a's band form, or nil when some column's nonzeros
// are more than two or not in adjacent rows.
func newKnotBand(a *nets.Tensor) *knotBand {
	m := a.Cols
	b := &knotBand{k: a.Rows, lo: make([]int, m), hi: make([]int, m), w0: make([]float64, m), w1: make([]float64, m)}
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
		b.lo[c], b.w0[c] = first, a.At(first, c)
		b.hi[c] = min(first+1, a.Rows-1)
		if b.hi[c] != first {
			b.w1[c] = a.At(first+1, c)
		}
	}
	return b
}

// mul sets dst [rows·M] to x [rows·K] times A, row by row.
func (b *knotBand) mul(dst, x []float64, rows int) {
	m := len(b.lo)
	for r := range rows {
		xr, d := x[r*b.k:(r+1)*b.k], dst[r*m:(r+1)*m]
		for j := range d {
			d[j] = math.FMA(xr[b.hi[j]], b.w1[j], xr[b.lo[j]]*b.w0[j])
		}
	}
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
