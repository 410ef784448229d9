package nets

import "fmt"

// gemm, dst = alpha·op(a)·op(b) + beta·dst, lives in gemm.go.

// MatMul returns op(a)·op(b), where op transposes when the flag is set:
//
//	Y = op(A) op(B),  dA = dY op(B)ᵀ (or its transpose),  dB likewise.
func (tp *Tape) MatMul(a, b *Var, transA, transB bool) *Var {
	ar, ac := a.Value.Rows, a.Value.Cols
	if transA {
		ar, ac = ac, ar
	}
	br, bc := b.Value.Rows, b.Value.Cols
	if transB {
		br, bc = bc, br
	}
	if ac != br {
		panic(fmt.Sprintf("nets: MatMul inner dims %d vs %d (a %s T=%v, b %s T=%v)", ac, br, a.Value.Shape(), transA, b.Value.Shape(), transB))
	}
	y := tp.allocFull(ar, bc) // β = 0: gemm writes every value (zeros when ac = 0)
	tp.gemmOnCached(b.packs, transA, transB, 1, a.Value, b.Value, 0, y)
	return tp.record(y, func(out *Var) {
		g := out.Grad
		if a.needsGrad {
			// op(A) = G op(B)ᵀ
			if transA {
				gemm(transB, true, 1, b.Value, g, 1, a.grad())
			} else {
				gemm(false, !transB, 1, g, b.Value, 1, a.grad())
			}
		}
		if b.needsGrad {
			// op(B) = op(A)ᵀ G
			if transB {
				gemm(true, transA, 1, g, a.Value, 1, b.grad())
			} else {
				gemm(!transA, false, 1, a.Value, g, 1, b.grad())
			}
		}
	}, a, b)
}

// MatMulInto sets dst = op(a)·op(b), op transposing where the flag is
// set, on the calling goroutine, with the values an inference tape's
// MatMul gives for the same rows (whatever their number): a caller that
// needs a product outside a tape (a closure's tangent beside its forward
// pass, a Gauss–Newton matrix) gets the engine's kernel and numbers.
func MatMulInto(dst, a, b *Tensor, transA, transB bool) {
	gemmRowsOn(1, transA, transB, 1, a, b, 0, dst)
}

// FusedProducts reports whether the engine's products (MatMul on an
// inference tape, MatMulInto) round each multiply-add once, as the
// AVX2 and AVX-512 kernels do, rather than twice, as the portable kernel
// does on CPUs without them. Code that reproduces a product's values by
// other means (sims' banded knot products) rounds the same way.
func FusedProducts() bool { return gemmDefault != nil && gemmDefault != &genericKernel }
