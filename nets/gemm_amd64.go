package nets

import "golang.org/x/sys/cpu"

// avx2Kernel is the AVX2+FMA micro-kernel of gemm_amd64.s: a 6×8 tile
// held in twelve 4-wide registers.
var avx2Kernel = gemmKernel{name: "avx2fma6x8", mr: 6, nr: 8, run: kernel6x8AVX2}

// hasAVX2FMA reports whether the CPU (and OS) support the AVX2 kernel.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func init() {
	if hasAVX2FMA {
		gemmDefault = &avx2Kernel
		gemmKernels = append(gemmKernels, &avx2Kernel)
	}
}

// dgemmKernel6x8 computes C[0:6, 0:8] = alpha·Σ_p a[6p:6p+6] ⊗ b[8p:8p+8]
// + beta·C over p < k, C of row stride ldc; beta = 0 does not read C.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kernel6x8AVX2 checks the slice bounds the assembly relies on.
func kernel6x8AVX2(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	if k == 0 {
		// The kernel would store alpha·0 + beta·C; keep it simple and
		// read no operand.
		scaleRows(6, 8, beta, c, ldc)
		return
	}
	_ = a[6*k-1]
	_ = b[8*k-1]
	_ = c[5*ldc+7]
	dgemmKernel6x8(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}
