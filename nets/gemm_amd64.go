package nets

import "golang.org/x/sys/cpu"

// The x86-64 micro-kernels of gemm_amd64.s. gemm uses the widest one the
// CPU and OS support; tests run all of them (gemmKernels).
var (
	// avx2Kernel holds a 6×8 tile in twelve 4-wide registers.
	avx2Kernel = gemmKernel{name: "avx2fma6x8", mr: 6, nr: 8, run: kernel6x8AVX2}
	// avx512Kernel holds a 12×16 tile in twenty-four 8-wide registers.
	avx512Kernel = gemmKernel{name: "avx512_12x16", mr: 12, nr: 16, run: kernel12x16AVX512, strided: kernel12x16StridedAVX512, half: kernel6x16StridedAVX512}
)

var (
	hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512  = hasAVX2FMA && cpu.X86.HasAVX512F
)

func init() {
	// Without AVX2 and FMA, gonum's SSE2 assembly beats the portable
	// kernel (about 8 against 4 GFLOPS here), as Go keeps fewer than the
	// sixteen accumulators of a 4×4 tile in registers.
	gemmDefault = nil
	if hasAVX2FMA {
		packRunsFast = packRunsAVX2
		packRows4Fast = packRows4AVX2
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

// dgemmKernel12x16Strided is dgemmKernel12x16 reading A(r, p) at
// a[r·aRow + p·aStep] and B(p, ·) at b[p·bStep:], strides in elements.
//
//go:noescape
func dgemmKernel12x16Strided(k int, a *float64, aRow, aStep int, b *float64, bStep int, c *float64, ldc int, alpha, beta float64)

// kernel12x16StridedAVX512 checks the slice bounds the assembly relies
// on.
func kernel12x16StridedAVX512(k int, a []float64, aRow, aStep int, b []float64, bStep int, c []float64, ldc int, alpha, beta float64) {
	if k == 0 {
		scaleRows(12, 16, beta, c, ldc)
		return
	}
	_ = a[11*aRow+(k-1)*aStep]
	_ = b[(k-1)*bStep+15]
	_ = c[11*ldc+15]
	dgemmKernel12x16Strided(k, &a[0], aRow, aStep, &b[0], bStep, &c[0], ldc, alpha, beta)
}

// dgemmKernel6x16Strided is dgemmKernel12x16Strided for six rows.
//
//go:noescape
func dgemmKernel6x16Strided(k int, a *float64, aRow, aStep int, b *float64, bStep int, c *float64, ldc int, alpha, beta float64)

// kernel6x16StridedAVX512 checks the slice bounds the assembly relies on.
func kernel6x16StridedAVX512(k int, a []float64, aRow, aStep int, b []float64, bStep int, c []float64, ldc int, alpha, beta float64) {
	if k == 0 {
		scaleRows(6, 16, beta, c, ldc)
		return
	}
	_ = a[5*aRow+(k-1)*aStep]
	_ = b[(k-1)*bStep+15]
	_ = c[5*ldc+15]
	dgemmKernel6x16Strided(k, &a[0], aRow, aStep, &b[0], bStep, &c[0], ldc, alpha, beta)
}

// packRunsAVX sets dst[p·w + r] = src[p·ld + r] for p < kc, r < w, with w
// one of 6, 8, 12 or 16.
//
//go:noescape
func packRunsAVX(dst, src *float64, kc, ld, w int)

// packRunsAVX2 is packRuns at full width through packRunsAVX, for the
// widths it handles.
func packRunsAVX2(dst, src []float64, base, ld, kc, w int) bool {
	if w != 6 && w != 8 && w != 12 && w != 16 {
		return false
	}
	if kc == 0 {
		return true
	}
	_ = dst[kc*w-1]
	_ = src[base+(kc-1)*ld+w-1]
	packRunsAVX(&dst[0], &src[base], kc, ld, w)
	return true
}

// packRows4AVX sets dst[p·w + r] = src[r·ld + p] for p < kc, r < 4.
//
//go:noescape
func packRows4AVX(dst, src *float64, kc, ld, w int)

// packRows4AVX2 checks the bounds packRows4AVX relies on.
func packRows4AVX2(dst, src []float64, kc, ld, w int) {
	if kc == 0 {
		return
	}
	_ = dst[(kc-1)*w+3]
	_ = src[3*ld+kc-1]
	packRows4AVX(&dst[0], &src[0], kc, ld, w)
}

// sumRowsAVX adds rows of src (row stride ld) to dst over 16·chunks
// columns, applying reluBits first when relu is set (sumRows).
//
//go:noescape
func sumRowsAVX(dst, src *float64, rows, ld, chunks int, relu bool)

func init() {
	if hasAVX2FMA {
		sumRowsFast = sumRowsAVX2
	}
}

// sumRowsAVX2 checks the bounds sumRowsAVX relies on and leaves the last
// cols mod 16 columns to the caller; it returns how many it did.
func sumRowsAVX2(dst, src []float64, rows, ld int, relu bool) int {
	chunks := len(dst) / 16
	if chunks == 0 || rows == 0 {
		return 0
	}
	_ = dst[16*chunks-1]
	_ = src[(rows-1)*ld+16*chunks-1]
	sumRowsAVX(&dst[0], &src[0], rows, ld, chunks, relu)
	return 16 * chunks
}
