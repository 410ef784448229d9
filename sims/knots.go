package sims

import (
	"fmt"
	"sort"

	"apic/nets"
)

// knotInterpolation is the [len(knots), len(times)] matrix A of
// piecewise-linear interpolation from values at ascending knot times to
// the given times, v(times) = v(knots)·A:
//
//	v(τ) = (1 − w)·v_k + w·v_{k+1},   w = (τ − t_k)/(t_{k+1} − t_k),   t_k ≤ τ ≤ t_{k+1}
//
// Times outside [t_0, t_last] take the nearest knot's value. A closure
// that evaluates f_ψ at a few knots instead of every grid state divides
// f_ψ's work by the ratio; for a smooth correction the interpolation
// loses O(Δt²·f”/8).
func knotInterpolation(knots, times []float64) *nets.Tensor {
	if len(knots) == 0 || !sort.Float64sAreSorted(knots) {
		panic(fmt.Sprintf("sims: knot times %v must be non-empty and ascending", knots))
	}
	a := nets.NewTensor(len(knots), len(times))
	last := len(knots) - 1
	for m, tau := range times {
		switch {
		case tau <= knots[0]:
			a.Set(0, m, 1)
		case tau >= knots[last]:
			a.Set(last, m, 1)
		default:
			k := sort.SearchFloat64s(knots, tau) // knots[k-1] < τ ≤ knots[k]
			if knots[k] == tau {
				a.Set(k, m, 1)
				continue
			}
			w := (tau - knots[k-1]) / (knots[k] - knots[k-1])
			a.Set(k-1, m, 1-w)
			a.Set(k, m, w)
		}
	}
	return a
}
