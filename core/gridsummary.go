package core

import (
	"math"

	"apic/sims"
)

// gridSummary turns a context set into a fixed-length vector: the
// observations smoothed onto a (possibly coarsened) copy of the system's
// grid with a Gaussian kernel, as in the SetConv layer of convolutional
// neural processes. For summary point a and channel c,
//
//	ρ_ac = Σ_i m_ic w(s_i, a),   v_ac = Σ_i m_ic w(s_i, a) y_ic / (ρ_ac + ε),
//	w(s, a) = exp(−½ Σ_d ((s_d − a_d)/h_d)²)   (truncated at 3h_d),
//
// with h_d the summary grid's spacing. The vector [v, ρ/ρ_0] is a
// permutation-invariant function of the context that works for
// observations anywhere in the domain; on grid-aligned data it is close to
// the flattened trajectory that the paper's encoders read, and an MLP on
// it can form derivative-like features a per-point network cannot.
type gridSummary struct {
	axes     [][]float64 // per state dimension, the summary grid's axis
	h        []float64   // kernel width per state dimension
	channels int
	points   int // number of summary points
}

// summaryMaxPoints caps the number of summary points; larger grids are
// coarsened by an integer stride per dimension.
const summaryMaxPoints = 1024

// summaryEps keeps v finite where no observation is near.
const summaryEps = 1e-2

func newGridSummary(g sims.Grid) gridSummary {
	dims := len(g.StateNames)
	shape := g.Shape
	if shape == nil {
		shape = []int{g.Points()}
	}
	s := gridSummary{channels: len(g.Channels), points: 1}
	stride := 1
	for {
		n := 1
		for _, k := range shape {
			n *= (k + stride - 1) / stride
		}
		if n <= summaryMaxPoints {
			break
		}
		stride++
	}
	for d := 0; d < dims; d++ {
		step := 1
		for _, k := range shape[d+1:] {
			step *= k
		}
		var axis []float64
		for k := 0; k < shape[d]; k += stride {
			axis = append(axis, g.States[k*step][d])
		}
		h := 1.0
		if len(axis) > 1 {
			h = math.Abs(axis[1] - axis[0])
		}
		s.axes = append(s.axes, axis)
		s.h = append(s.h, h)
		s.points *= len(axis)
	}
	return s
}

// Len is the summary vector's length: values and densities per point and
// channel.
func (s gridSummary) Len() int { return 2 * s.points * s.channels }

// Encode writes the summary of ctx into dst (length Len()).
func (s gridSummary) Encode(dst []float64, ctx sims.Context) {
	clear(dst)
	pc := s.points * s.channels
	rho, val := dst[pc:], dst[:pc]
	dims := len(s.axes)
	lo := make([]int, dims)
	hi := make([]int, dims)
	w1 := make([][]float64, dims)
	for i, st := range ctx.States {
		// Per dimension, the axis indices within 3h and their weights.
		for d := 0; d < dims; d++ {
			ax, h := s.axes[d], s.h[d]
			lo[d] = lowerIndex(ax, st[d]-3*h)
			hi[d] = lowerIndex(ax, st[d]+3*h)
			w1[d] = w1[d][:0]
			for k := lo[d]; k < hi[d]; k++ {
				z := (st[d] - ax[k]) / h
				w1[d] = append(w1[d], math.Exp(-0.5*z*z))
			}
		}
		s.scatter(ctx.Values[i], ctx.Mask[i], lo, hi, w1, rho, val)
	}
	// ρ is rescaled by its value for one observation exactly on a point
	// (1), so typical entries are O(1) whatever the context size.
	for k := range rho {
		if rho[k] > 0 {
			val[k] /= rho[k] + summaryEps
		}
	}
}

// scatter adds one observation to every summary point in the box
// lo..hi (product of per-dimension windows).
func (s gridSummary) scatter(y []float64, mask []bool, lo, hi []int, w1 [][]float64, rho, val []float64) {
	dims := len(s.axes)
	idx := make([]int, dims)
	copy(idx, lo)
	for {
		flat, w := 0, 1.0
		for d := 0; d < dims; d++ {
			flat = flat*len(s.axes[d]) + idx[d]
			w *= w1[d][idx[d]-lo[d]]
		}
		for c := 0; c < s.channels; c++ {
			if mask[c] {
				k := flat*s.channels + c
				rho[k] += w
				val[k] += w * y[c]
			}
		}
		d := dims - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < hi[d] {
				break
			}
			idx[d] = lo[d]
		}
		if d < 0 || hi[0] <= lo[0] {
			return
		}
	}
}

// lowerIndex returns the first index k with ax[k] ≥ v (ax increasing).
func lowerIndex(ax []float64, v float64) int {
	lo, hi := 0, len(ax)
	for lo < hi {
		m := (lo + hi) / 2
		if ax[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
