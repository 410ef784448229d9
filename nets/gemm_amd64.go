package nets

import "golang.org/x/sys/cpu"

// The x86-64 micro-kernels of gemm_amd64.s. gemm uses the widest one the
// CPU and OS support; tests run all of them (gemmKernels).
var (
	// avx2Kernel holds a 6×8 tile in twelve 4-wide registers.
	avx2Kernel = gemmKernel{name: "avx2fma6x8", mr: 6, nr: 8, run: kernel6x8AVX2}
	// avx512Kernel holds a 12×16 tile in twenty-four 8-wide registers.
	avx512Kernel = gemmKernel{name: "avx512_12x16", mr: 12, nr: 16, run: kernel12x16AVX512}
)

var (
	hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512  = hasAVX2FMA && cpu.X86.HasAVX512F
)

func init() {
	if hasAVX2FMA {
		gemmDefault = &avx2Kernel
		gemmKernels = append(gemmKernels, &avx2Kernel)
	}
	if hasAVX512 {
		gemmDefault = &avx512Kernel
		gemmKernels = append(gemmKernels, &avx512Kernel)
	}
}

// dgemmKernel6x8 computes C[0:6, 0:8] = alpha·Σ_p a[6p:6p+6] ⊗ b[8p:8p+8]
// + beta·C over p < k ≥ 1, C of row stride ldc; beta = 0 does not read C.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64, ldc int, alpha, beta float64)

// dgemmKernel12x16 is dgemmKernel6x8 for a 12×16 tile (AVX-512F).
//
//go:noescape
func dgemmKernel12x16(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kernel6x8AVX2 checks the slice bounds the assembly relies on.
func kernel6x8AVX2(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	if k == 0 {
		scaleRows(6, 8, beta, c, ldc)
		return
	}
	_ = a[6*k-1]
	_ = b[8*k-1]
	_ = c[5*ldc+7]
	dgemmKernel6x8(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

// kernel12x16AVX512 checks the slice bounds the assembly relies on.
func kernel12x16AVX512(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	if k == 0 {
		scaleRows(12, 16, beta, c, ldc)
		return
	}
	_ = a[12*k-1]
	_ = b[16*k-1]
	_ = c[11*ldc+15]
	dgemmKernel12x16(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}
