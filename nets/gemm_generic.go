package nets

// genericKernel is the portable micro-kernel: a 4×4 tile in local
// variables. gemm uses it on architectures without an assembly kernel;
// with 32 floating-point registers (arm64) the compiler keeps the tile in
// registers and fuses the multiply-adds. On x86-64 it would spill (Go
// allocates 15 of the 16 SSE registers), so there gemm falls back to
// gonum when the CPU lacks AVX2 and FMA, and tests still run this kernel.
var genericKernel = gemmKernel{name: "generic4x4", mr: 4, nr: 4, run: kernel4x4}

// kernel4x4 computes, for p < k,
//
//	C[0:4, 0:4] = alpha · Σ_p a[4p:4p+4] ⊗ b[4p:4p+4] + beta · C,
//
// with C of row stride ldc; beta = 0 does not read C.
func kernel4x4(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	var (
		c00, c01, c02, c03 float64
		c10, c11, c12, c13 float64
		c20, c21, c22, c23 float64
		c30, c31, c32, c33 float64
	)
	a, b = a[:4*k], b[:4*k]
	for i := 0; i < len(a); i += 4 {
		ap := (*[4]float64)(a[i:])
		bp := (*[4]float64)(b[i:])
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	storeRow4(c[:4], alpha, beta, c00, c01, c02, c03)
	storeRow4(c[ldc:ldc+4], alpha, beta, c10, c11, c12, c13)
	storeRow4(c[2*ldc:2*ldc+4], alpha, beta, c20, c21, c22, c23)
	storeRow4(c[3*ldc:3*ldc+4], alpha, beta, c30, c31, c32, c33)
}

// storeRow4 sets row = alpha·(s0, s1, s2, s3) + beta·row, not reading row
// when beta = 0.
func storeRow4(row []float64, alpha, beta, s0, s1, s2, s3 float64) {
	r := (*[4]float64)(row)
	if beta == 0 {
		r[0], r[1], r[2], r[3] = alpha*s0, alpha*s1, alpha*s2, alpha*s3
		return
	}
	r[0] = alpha*s0 + beta*r[0]
	r[1] = alpha*s1 + beta*r[1]
	r[2] = alpha*s2 + beta*r[2]
	r[3] = alpha*s3 + beta*r[3]
}
