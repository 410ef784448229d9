package core

import (
	"sync"

	"gonum.org/v1/gonum/mat"
)

// floatPool recycles scratch slices of float64 whose contents are
// overwritten before they are read: the closure tangents' derivatives
// during refinement, the bulk of what a refined calibration allocated,
// and so of its garbage-collection time.
type floatPool struct{ p sync.Pool }

// tangentBuffers holds the scratch of sims.TangentClosure.ApplyTangent.
var tangentBuffers floatPool

// get returns a slice of n values (contents arbitrary) to be handed back
// with put once no longer used.
func (fp *floatPool) get(n int) *[]float64 {
	if b, ok := fp.p.Get().(*[]float64); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]float64, n)
	return &b
}

// put returns a slice from get for reuse.
func (fp *floatPool) put(b *[]float64) { fp.p.Put(b) }

// jacobianPool recycles refinement's residual Jacobians: each
// linearization makes one per realization, and a rejected step's or a
// superseded one is garbage at once.
var jacobianPool sync.Pool

// newJacobian returns a zeroed r×c matrix, reusing a released one's
// storage where it can.
func newJacobian(r, c int) *mat.Dense {
	if j, ok := jacobianPool.Get().(*mat.Dense); ok {
		j.Reset()
		j.ReuseAs(r, c)
		return j
	}
	return mat.NewDense(r, c, nil)
}

// releaseJacobian hands j (nil allowed) back for reuse; the caller must
// hold no other reference to it.
func releaseJacobian(j *mat.Dense) {
	if j != nil {
		jacobianPool.Put(j)
	}
}
