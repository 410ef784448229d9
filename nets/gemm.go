package nets

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file is a packed, blocked, multi-threaded driver for
//
//	C = alpha · op(A) · op(B) + beta · C,
//
// with op(A) m×k, op(B) k×n and C m×n, all row-major with the given row
// strides (the Goto/BLIS scheme). op(B) is copied block by block into
// kc×nr column slivers and op(A) into mr×kc row slivers, so that the
// micro-kernel (an mr×nr register tile, see gemm_amd64.s and
// gemm_generic.go) streams both operands contiguously whatever the
// transposes. The loops, outermost first, are
//
//	jc over nc-wide column blocks of C,
//	pc over kc-deep slices of k        (pack op(B)[pc, jc] block),
//	ic over mc-tall row blocks of C     (pack op(A)[ic, pc] block),
//	jr over nr-wide slivers of the B block,
//	ir over mr-tall slivers of the A block: one micro-kernel call.
//
// A kc×nr B sliver (16 KiB at kc = 256, nr = 8) stays in L1 while the
// ir loop sweeps the mc×kc A block (192 KiB at mc = 96) from L2.

// Blocking limits, in elements.
var (
	gemmKC = 256
	gemmMC = 96
	gemmNC = 4080
)

// gemmSmallWork is the m·n·k below which gonum's unpacked Dgemm is used:
// there packing and pooling cost more than they save.
var gemmSmallWork = 256

// gemmParallelWork is the m·n·k from which the product is split across
// GOMAXPROCS goroutines; below it starting and waking them costs more than
// the work.
var gemmParallelWork = 1 << 18

// gemmKernel is a micro-kernel with its register tile. run computes
//
//	C[0:mr, 0:nr] = alpha · Σ_p a[mr·p : mr·p+mr] ⊗ b[nr·p : nr·p+nr] + beta · C
//
// over p < k, where C has row stride ldc; beta = 0 must not read C (it may
// hold NaN).
type gemmKernel struct {
	name   string
	mr, nr int
	run    func(k int, a, b, c []float64, ldc int, alpha, beta float64)
}

// gemmDefault is the kernel gemm uses: the portable one unless an
// architecture file (gemm_amd64.go) finds a faster one the CPU supports.
var gemmDefault = &genericKernel

// gemmKernels lists every kernel this build and CPU can run, for tests.
var gemmKernels = []*gemmKernel{&genericKernel}

// gemm computes dst = alpha · op(a) · op(b) + beta · dst, where op
// transposes when the flag is set. beta = 0 overwrites dst (NaNs included)
// and an empty inner dimension gives dst = beta · dst.
func gemm(transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmTensors(gemmDefault, transA, transB, alpha, a, b, beta, dst)
}

// gemmTensors is gemm with the micro-kernel chosen by the caller, so that
// tests can compare kernels.
func gemmTensors(kern *gemmKernel, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	m, k := a.Rows, a.Cols
	if transA {
		m, k = k, m
	}
	kb, n := b.Rows, b.Cols
	if transB {
		kb, n = n, kb
	}
	if m != dst.Rows || n != dst.Cols || k != kb {
		panic(fmt.Sprintf("nets: gemm shapes a %s T=%v, b %s T=%v, dst %s",
			a.Shape(), transA, b.Shape(), transB, dst.Shape()))
	}
	gemmStrided(kern, transA, transB, m, n, k, alpha, a.Data, a.Cols, b.Data, b.Cols, beta, dst.Data, dst.Cols)
}

// gemmStrided computes c = alpha · op(a) · op(b) + beta · c for op(a) m×k
// and op(b) k×n, a, b and c row-major with row strides lda, ldb and ldc.
func gemmStrided(kern *gemmKernel, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		// As in BLAS, A and B are not read: NaNs there do not propagate.
		scaleRows(m, n, beta, c, ldc)
		return
	}
	work := m * n * k
	if work < gemmSmallWork {
		blas64.Gemm(blasTrans(transA), blasTrans(transB), alpha,
			blas64.General{Rows: opRows(transA, m, k), Cols: opCols(transA, m, k), Stride: lda, Data: a},
			blas64.General{Rows: opRows(transB, k, n), Cols: opCols(transB, k, n), Stride: ldb, Data: b},
			beta, blas64.General{Rows: m, Cols: n, Stride: ldc, Data: c})
		return
	}
	workers := 1
	if work >= gemmParallelWork {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each worker packs its own operands, so splitting over M repacks
	// op(B) (k·n) per extra worker and splitting over N repacks op(A)
	// (m·k): split the longer side, if it holds two tiles per worker.
	splitM := m >= n
	if splitM && m < 2*workers*kern.mr || !splitM && n < 2*workers*kern.nr {
		splitM = !splitM // too thin to split that way: try the other side
	}
	if splitM && m < 2*workers*kern.mr || !splitM && n < 2*workers*kern.nr {
		workers = 1
	}
	if workers <= 1 {
		gemmSerial(kern, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	var wg sync.WaitGroup
	if splitM {
		chunk := ceilMul(ceilDiv(m, workers), kern.mr)
		for i0 := chunk; i0 < m; i0 += chunk {
			rows := min(chunk, m-i0)
			aOff := i0 * lda
			if transA {
				aOff = i0
			}
			wg.Go(func() {
				gemmSerial(kern, transA, transB, rows, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[i0*ldc:], ldc)
			})
		}
		gemmSerial(kern, transA, transB, min(chunk, m), n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	} else {
		chunk := ceilMul(ceilDiv(n, workers), kern.nr)
		for j0 := chunk; j0 < n; j0 += chunk {
			cols := min(chunk, n-j0)
			bOff := j0
			if transB {
				bOff = j0 * ldb
			}
			wg.Go(func() {
				gemmSerial(kern, transA, transB, m, cols, k, alpha, a, lda, b[bOff:], ldb, beta, c[j0:], ldc)
			})
		}
		gemmSerial(kern, transA, transB, m, min(chunk, n), k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	wg.Wait()
}

// gemmBuf holds one goroutine's packing buffers, recycled through
// gemmPool so that steady-state training allocates nothing here.
type gemmBuf struct {
	a, b, tmp []float64
}

var gemmPool = sync.Pool{New: func() any { return new(gemmBuf) }}

// aligned returns a length-n slice of *s starting on a 64-byte boundary,
// growing *s if needed: a packed B row of eight float64 is then one cache
// line.
func aligned(s *[]float64, n int) []float64 {
	const pad = 8 // float64s per cache line
	if cap(*s) < n+pad {
		*s = make([]float64, n+pad)
	}
	buf := (*s)[:cap(*s)]
	off := int(uintptr(unsafe.Pointer(&buf[0]))%64) / 8
	if off != 0 {
		off = pad - off
	}
	return buf[off : off+n]
}

// gemmSerial is the single-goroutine blocked product (see the file
// comment).
func gemmSerial(kern *gemmKernel, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	mr, nr := kern.mr, kern.nr
	// Even blocks: k = 300 runs as 150+150, not 256+44.
	kc0 := blockSize(k, gemmKC, 1)
	mc0 := blockSize(m, gemmMC, mr)
	nc0 := blockSize(n, gemmNC, nr)

	buf := gemmPool.Get().(*gemmBuf)
	defer gemmPool.Put(buf)
	pa := aligned(&buf.a, mc0*kc0)
	pb := aligned(&buf.b, nc0*kc0)
	tmp := aligned(&buf.tmp, mr*nr)

	for jc := 0; jc < n; jc += nc0 {
		nc := min(nc0, n-jc)
		for pc := 0; pc < k; pc += kc0 {
			kc := min(kc0, k-pc)
			// Later k-slices add onto the first one's result.
			bet := beta
			if pc > 0 {
				bet = 1
			}
			packB(transB, b, ldb, pc, jc, kc, nc, nr, pb)
			for ic := 0; ic < m; ic += mc0 {
				mc := min(mc0, m-ic)
				packA(transA, a, lda, ic, pc, mc, kc, mr, pa)
				macroKernel(kern, mc, nc, kc, alpha, pa, pb, bet, c[ic*ldc+jc:], ldc, tmp)
			}
		}
	}
}

// macroKernel multiplies a packed mc×kc block of op(A) by a packed kc×nc
// block of op(B) into C, tile by tile. Edge tiles go through tmp so that
// the kernel never writes outside C.
func macroKernel(kern *gemmKernel, mc, nc, kc int, alpha float64, pa, pb []float64, beta float64, c []float64, ldc int, tmp []float64) {
	mr, nr := kern.mr, kern.nr
	for jr := 0; jr < nc; jr += nr {
		nrr := min(nr, nc-jr)
		bs := pb[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			mrr := min(mr, mc-ir)
			as := pa[ir*kc : (ir+mr)*kc]
			if mrr == mr && nrr == nr {
				kern.run(kc, as, bs, c[ir*ldc+jr:], ldc, alpha, beta)
				continue
			}
			kern.run(kc, as, bs, tmp, nr, alpha, 0)
			for i := range mrr {
				crow := c[(ir+i)*ldc+jr : (ir+i)*ldc+jr+nrr]
				trow := tmp[i*nr : i*nr+nrr]
				if beta == 0 {
					copy(crow, trow)
					continue
				}
				for j, t := range trow {
					crow[j] = beta*crow[j] + t
				}
			}
		}
	}
}

// packA copies op(A)[ic:ic+mc, pc:pc+kc] into dst as ⌈mc/mr⌉ slivers of
// kc rows of mr values, zero-padding the last sliver.
func packA(transA bool, a []float64, lda, ic, pc, mc, kc, mr int, dst []float64) {
	for i := 0; i < mc; i += mr {
		width := min(mr, mc-i)
		d := dst[i*kc : (i+mr)*kc]
		if transA {
			// op(A)(i, p) = a[p·lda + i]: each p reads a contiguous run.
			packRuns(d, a, (pc)*lda+ic+i, lda, kc, mr, width)
		} else {
			packStrided(d, a, (ic+i)*lda+pc, lda, kc, mr, width)
		}
	}
}

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into dst as ⌈nc/nr⌉ slivers of
// kc rows of nr values, zero-padding the last sliver.
func packB(transB bool, b []float64, ldb, pc, jc, kc, nc, nr int, dst []float64) {
	for j := 0; j < nc; j += nr {
		width := min(nr, nc-j)
		d := dst[j*kc : (j+nr)*kc]
		if transB {
			// op(B)(p, j) = b[j·ldb + p]: each j is a contiguous row.
			packStrided(d, b, (jc+j)*ldb+pc, ldb, kc, nr, width)
		} else {
			packRuns(d, b, pc*ldb+jc+j, ldb, kc, nr, width)
		}
	}
}

// packRuns sets dst[p·w + r] = src[base + p·ld + r] for p < kc, r < width,
// and zero for width ≤ r < w: kc contiguous runs of width values.
func packRuns(dst, src []float64, base, ld, kc, w, width int) {
	if width == w {
		switch w {
		case 4:
			for p := range kc {
				*(*[4]float64)(dst[p*4:]) = *(*[4]float64)(src[base+p*ld:])
			}
			return
		case 6:
			for p := range kc {
				*(*[6]float64)(dst[p*6:]) = *(*[6]float64)(src[base+p*ld:])
			}
			return
		case 8:
			for p := range kc {
				*(*[8]float64)(dst[p*8:]) = *(*[8]float64)(src[base+p*ld:])
			}
			return
		case 12:
			for p := range kc {
				*(*[12]float64)(dst[p*12:]) = *(*[12]float64)(src[base+p*ld:])
			}
			return
		case 16:
			for p := range kc {
				*(*[16]float64)(dst[p*16:]) = *(*[16]float64)(src[base+p*ld:])
			}
			return
		}
	}
	for p := range kc {
		d := dst[p*w : (p+1)*w]
		copy(d, src[base+p*ld:base+p*ld+width])
		clear(d[width:])
	}
}

// packStrided sets dst[p·w + r] = src[base + r·ld + p] for p < kc,
// r < width, and zero for width ≤ r < w: width contiguous rows of kc
// values, interleaved.
func packStrided(dst, src []float64, base, ld, kc, w, width int) {
	dst = dst[:kc*w]
	// Four rows at a time: four sequential read streams, one 32-byte
	// write per p.
	r := 0
	for ; r+4 <= width; r += 4 {
		o := base + r*ld
		r0 := src[o : o+kc]
		r1 := src[o+ld : o+ld+kc]
		r2 := src[o+2*ld : o+2*ld+kc]
		r3 := src[o+3*ld : o+3*ld+kc]
		for p := range r0 {
			d := (*[4]float64)(dst[p*w+r:])
			d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		}
	}
	for ; r < width; r++ {
		for p, v := range src[base+r*ld : base+r*ld+kc] {
			dst[p*w+r] = v
		}
	}
	if width < w {
		for p := range kc {
			clear(dst[p*w+width : (p+1)*w])
		}
	}
}

// scaleRows sets c = beta · c over m rows of n values (stride ldc);
// beta = 0 clears, NaNs included.
func scaleRows(m, n int, beta float64, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// blockSize splits total into ⌈total/limit⌉ near-equal blocks and returns
// the block size rounded up to a multiple of unit.
func blockSize(total, limit, unit int) int {
	nb := ceilDiv(total, limit)
	return ceilMul(ceilDiv(total, nb), unit)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ceilMul rounds a up to a multiple of b.
func ceilMul(a, b int) int { return ceilDiv(a, b) * b }

func blasTrans(trans bool) blas.Transpose {
	if trans {
		return blas.Trans
	}
	return blas.NoTrans
}

// opRows and opCols give the stored shape of an operand whose op is
// rows×cols.
func opRows(trans bool, rows, cols int) int {
	if trans {
		return cols
	}
	return rows
}

func opCols(trans bool, rows, cols int) int {
	if trans {
		return rows
	}
	return cols
}
