package core

import (
	"sync"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
)

// tangentBuffers holds the scratch of sims.TangentClosure.ApplyTangent,
// the closure tangents' derivatives during refinement: the bulk of what
// a refined calibration allocated, and so of its garbage-collection time.
var tangentBuffers nets.FloatPool

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
