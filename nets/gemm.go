package nets

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
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
//	pc over kc-deep slices of k        (pack the op(B)[pc, jc] block),
//	ic over mc-tall row blocks of C     (pack the op(A)[ic, pc] block),
//	jr over nr-wide slivers of the B block,
//	ir over mr-tall slivers of the A block: one micro-kernel call.
//
// A kc×nr B sliver (32 KiB at kc = 256, nr = 16) stays in L1 while the
// ir loop sweeps the mc×kc A block (288 KiB at mc = 144) from L2.
//
// Large products run on GOMAXPROCS goroutines that take work items from
// a shared counter, so that a core busy elsewhere does not hold the others
// up: row blocks of C when M is the long side (op(B) packed once and
// shared), column blocks when N is (op(A) shared), and slices of k, each
// into its own partial C summed in a fixed order, when k dwarfs both. Every
// element of C is summed in an order fixed by the shape and GOMAXPROCS, so
// results are reproducible.

// Blocking limits, in elements.
const (
	gemmKC = 256
	gemmMC = 144
	gemmNC = 4080
)

// gemmSmallWork is the m·n·k below which gonum's unpacked Dgemm is used:
// there packing costs more than it saves.
const gemmSmallWork = 256

// gemmParallelWork is the m·n·k from which the product is split across
// goroutines: about 50 µs of one core's work, well above the cost of
// waking an idle one.
const gemmParallelWork = 1 << 22

// gemmSharedLimit caps, in elements, an operand packed whole for all
// workers to share (8 MiB), and the partial products of a k split.
const gemmSharedLimit = 1 << 20

// gemmKernel is a micro-kernel with its register tile. run computes
//
//	C[0:mr, 0:nr] = alpha · Σ_p a[mr·p : mr·p+mr] ⊗ b[nr·p : nr·p+nr] + beta · C
//
// over p < k, where C has row stride ldc, as alpha·Σ + beta·C rounded once
// (a fused multiply-add); beta = 0 must not read C (it may hold NaN).
type gemmKernel struct {
	name   string
	mr, nr int
	run    func(k int, a, b, c []float64, ldc int, alpha, beta float64)
	// strided, when set, is run reading A(r, p) at a[r·aRow + p·aStep]
	// and B(p, 0:nr) at b[p·bStep:], unpacked, with the same sums in the
	// same order (gemmProblem.direct).
	strided func(k int, a []float64, aRow, aStep int, b []float64, bStep int, c []float64, ldc int, alpha, beta float64)
	// half, when set, is strided for mr/2 rows: a last row sliver of at
	// most mr/2 rows runs on it instead of being padded to mr.
	half func(k int, a []float64, aRow, aStep int, b []float64, bStep int, c []float64, ldc int, alpha, beta float64)
}

// gemmDefault is the kernel gemm uses: the portable one unless an
// architecture file (gemm_amd64.go) chooses otherwise; nil sends every
// product to gonum.
var gemmDefault = &genericKernel

// gemmKernels lists every kernel this build and CPU can run, for tests.
var gemmKernels = []*gemmKernel{&genericKernel}

// gemm computes dst = alpha · op(a) · op(b) + beta · dst, where op
// transposes when the flag is set. beta = 0 overwrites dst (NaNs included)
// and an empty inner dimension gives dst = beta · dst.
func gemm(transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmTensors(gemmDefault, transA, transB, alpha, a, b, beta, dst)
}

// gemmRowsOn is gemm on up to procs goroutines computing every row of
// dst by the same arithmetic whatever the number of rows and of
// goroutines: small products go to the packed kernel too, not to
// gonum's, which rounds differently (it does not fuse the multiply and
// add) and which gemm picks by m·n·k, so by the row count, and k is
// never split across goroutines. Inference uses it, so that a
// realization's products do not depend on the size of its batch, its
// piece or its block, nor on the cores (an anp's attention can still
// round a realization differently alone than in a batch: see
// docs/baselines.md on compare and eval).
func gemmRowsOn(procs int, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmRowsCached(procs, nil, transA, transB, alpha, a, b, beta, dst)
}

// gemmRowsCached is gemmRowsOn with op(B)'s packed panels taken from,
// and kept in, cache (nil: packed per call) when the product packs them:
// for a weight matrix, which inference reads unchanged call after call.
// The values are gemmRowsOn's bit for bit.
func gemmRowsCached(procs int, cache *packCache, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	kern := gemmDefault
	if kern == nil {
		// No assembly kernel (a CPU without AVX2): the portable one, not
		// gonum, whose arithmetic gemm would choose by the row count.
		kern = &genericKernel
	}
	gemmTensorsFor(procs, kern, true, cache, transA, transB, alpha, a, b, beta, dst)
}

// gemmOn is the value product of a tape operation: gemmRowsOn on an
// inference tape, gemm otherwise (training keeps gemm's choice, which
// its recorded recipes were run with).
func (tp *Tape) gemmOn(transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	tp.gemmOnCached(nil, transA, transB, alpha, a, b, beta, dst)
}

// gemmOnCached is gemmOn with an inference tape's packed op(B) panels
// kept in cache (gemmRowsCached), b being a parameter's values.
func (tp *Tape) gemmOnCached(cache *packCache, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	if tp.noGrad {
		gemmRowsCached(tp.procs(), cache, transA, transB, alpha, a, b, beta, dst)
		return
	}
	gemm(transA, transB, alpha, a, b, beta, dst)
}

// gemmSerial is gemm on the calling goroutine only, for callers that
// already run products in parallel.
func gemmSerial(transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmTensorsOn(1, gemmDefault, transA, transB, alpha, a, b, beta, dst)
}

// gemmTensors is gemm with the micro-kernel chosen by the caller (nil:
// gonum), so that tests can compare kernels.
func gemmTensors(kern *gemmKernel, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmTensorsOn(runtime.GOMAXPROCS(0), kern, transA, transB, alpha, a, b, beta, dst)
}

// gemmTensorsOn is gemmTensors on up to procs goroutines.
func gemmTensorsOn(procs int, kern *gemmKernel, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
	gemmTensorsFor(procs, kern, false, nil, transA, transB, alpha, a, b, beta, dst)
}

// gemmTensorsFor is gemmTensorsOn; with rows set, small products use the
// kernel too (gemmRowsOn).
func gemmTensorsFor(procs int, kern *gemmKernel, rows bool, cache *packCache, transA, transB bool, alpha float64, a, b *Tensor, beta float64, dst *Tensor) {
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
	p := gemmProblem{
		kern: kern, rows: rows, cache: cache, transA: transA, transB: transB,
		m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a.Data, b: b.Data, c: dst.Data, lda: a.Cols, ldb: b.Cols, ldc: dst.Cols,
	}
	if p.runHere(procs) {
		return
	}
	// Only the parallel split hands p to other goroutines; a product
	// done here keeps it on the stack.
	q := new(gemmProblem)
	*q = p
	q.split(procs)
}

// gemmProblem is one product c = alpha · op(a) · op(b) + beta · c with
// op(a) m×k, op(b) k×n, and a, b, c row-major with row strides lda, ldb,
// ldc.
type gemmProblem struct {
	kern           *gemmKernel
	rows           bool       // the kernel also for small products (gemmRowsOn)
	cache          *packCache // op(B)'s packed panels for direct (nil: none)
	transA, transB bool
	m, n, k        int
	alpha, beta    float64
	a, b, c        []float64
	lda, ldb, ldc  int
}

// runHere computes the product on the calling goroutine and reports true
// when it is empty, small or below the parallel threshold; otherwise it
// does nothing and reports false.
func (p *gemmProblem) runHere(procs int) bool {
	m, n, k := p.m, p.n, p.k
	if m == 0 || n == 0 {
		return true
	}
	if k == 0 || p.alpha == 0 {
		// As in BLAS, A and B are not read: NaNs there do not propagate.
		scaleRows(m, n, p.beta, p.c, p.ldc)
		return true
	}
	work := m * n * k
	if p.kern == nil || work < gemmSmallWork && !p.rows {
		p.gonum()
		return true
	}
	if procs <= 1 || work < gemmParallelWork {
		p.serial()
		return true
	}
	return false
}

// split computes a product that runHere declined on up to procs
// goroutines.
func (p *gemmProblem) split(procs int) {
	m, n, k := p.m, p.n, p.k
	mr, nr := p.kern.mr, p.kern.nr
	switch {
	case !p.rows && k >= 2*max(m, n) && m*n <= gemmSharedLimit/(4*procs):
		// Partial sums over k-slices round differently from one pass
		// over k, and the slices follow procs: not for gemmRowsOn, whose
		// values must not depend on the goroutines.
		p.splitK(procs)
	case m >= n && m >= 2*procs*mr || n < 2*procs*nr && m >= 2*procs*mr:
		if k*ceilMul(n, nr) <= gemmSharedLimit {
			p.splitRows(procs)
		} else {
			p.halves(procs, true)
		}
	case n >= 2*procs*nr:
		if ceilMul(m, mr)*k <= gemmSharedLimit {
			p.splitCols(procs)
		} else {
			p.halves(procs, false)
		}
	default:
		p.serial()
	}
}

// gonum hands the product to gonum's Dgemm.
func (p *gemmProblem) gonum() {
	blas64.Gemm(blasTrans(p.transA), blasTrans(p.transB), p.alpha,
		blas64.General{Rows: opRows(p.transA, p.m, p.k), Cols: opCols(p.transA, p.m, p.k), Stride: p.lda, Data: p.a},
		blas64.General{Rows: opRows(p.transB, p.k, p.n), Cols: opCols(p.transB, p.k, p.n), Stride: p.ldb, Data: p.b},
		p.beta, blas64.General{Rows: p.m, Cols: p.n, Stride: p.ldc, Data: p.c})
}

// blocks returns the k, m and n block sizes: near-equal blocks under the
// limits (k = 300 runs as 150+150, not 256+44), m and n ones whole tiles.
func (p *gemmProblem) blocks() (kc, mc, nc int) {
	return blockSize(p.k, gemmKC, 1), blockSize(p.m, gemmMC, p.kern.mr), blockSize(p.n, gemmNC, p.kern.nr)
}

// serial is the single-goroutine blocked product (see the file comment).
func (p *gemmProblem) serial() {
	if p.kern.strided != nil && p.k <= gemmKC {
		p.direct()
		return
	}
	kc0, mc0, nc0 := p.blocks()
	buf := getGemmBuf()
	defer gemmPool.Put(buf)
	pa := aligned(&buf.a, mc0*kc0)
	pb := aligned(&buf.b, nc0*kc0)
	tmp := aligned(&buf.tmp, p.kern.mr*p.kern.nr)
	for jc := 0; jc < p.n; jc += nc0 {
		nc := min(nc0, p.n-jc)
		for pc := 0; pc < p.k; pc += kc0 {
			kc := min(kc0, p.k-pc)
			p.packB(pc, jc, kc, nc, pb)
			for ic := 0; ic < p.m; ic += mc0 {
				mc := min(mc0, p.m-ic)
				p.packA(ic, pc, mc, kc, pa)
				p.macro(ic, jc, mc, nc, kc, pc > 0, pa, pb, tmp)
			}
		}
	}
}

// direct is serial for a product with one k-block on a kernel that reads
// its operands in place: full tiles take A and an untransposed B where
// they lie, and only a transposed B, the last partial sliver of B and the
// last partial sliver of A are packed. For a small product (a layer of
// one realization's inference) the packing costs as much as the
// arithmetic. Every element gets the sums that serial's packed path gives.
func (p *gemmProblem) direct() {
	mr, nr, k := p.kern.mr, p.kern.nr, p.k
	buf := getGemmBuf()
	defer gemmPool.Put(buf)
	tmp := aligned(&buf.tmp, mr*nr)
	pb, cached := p.cache.packedB(p)
	switch {
	case cached:
	case p.transB:
		pb = aligned(&buf.b, ceilMul(p.n, nr)*k)
		packB(true, p.b, p.ldb, 0, 0, k, p.n, nr, pb)
	case p.n%nr != 0:
		rest := p.n % nr
		pb = aligned(&buf.b, nr*k)
		packB(false, p.b, p.ldb, 0, p.n-rest, k, rest, nr, pb)
	}
	// The last row sliver runs on the half-height kernel when it fits
	// there (30 rows: 12 + 12 + 6, not 12 + 12 + 12), read in place when
	// it fills the kernel's rows and packed, zero-padded, otherwise.
	full := p.m - p.m%mr
	tail, tailMR := p.kern.strided, mr
	if rest := p.m - full; rest > 0 && rest <= mr/2 && p.kern.half != nil {
		tail, tailMR = p.kern.half, mr/2
	}
	var pa []float64
	if rest := p.m - full; rest > 0 && rest < tailMR {
		pa = aligned(&buf.a, tailMR*k)
		packA(p.transA, p.a, p.lda, full, 0, rest, k, tailMR, pa)
	}
	for jr := 0; jr < p.n; jr += nr {
		nrr := min(nr, p.n-jr)
		bs, bStep := p.b[min(jr, len(p.b)):], p.ldb
		switch {
		case p.transB:
			bs, bStep = pb[jr*k:(jr+nr)*k], nr
		case nrr < nr:
			bs, bStep = pb, nr
		}
		for ir := 0; ir < p.m; ir += mr {
			mrr := min(mr, p.m-ir)
			kern, rows := p.kern.strided, mr
			if mrr < mr {
				kern, rows = tail, tailMR
			}
			var as []float64
			var aRow, aStep int
			switch {
			case mrr < rows:
				as, aRow, aStep = pa, 1, tailMR
			case p.transA:
				as, aRow, aStep = p.a[ir:], 1, p.lda
			default:
				as, aRow, aStep = p.a[ir*p.lda:], p.lda, 1
			}
			c := p.c[ir*p.ldc+jr:]
			if mrr == rows && nrr == nr {
				kern(k, as, aRow, aStep, bs, bStep, c, p.ldc, p.alpha, p.beta)
				continue
			}
			kern(k, as, aRow, aStep, bs, bStep, tmp, nr, p.alpha, 0)
			addEdge(c, p.ldc, tmp, nr, mrr, nrr, p.beta)
		}
	}
}

// splitRows packs op(B) whole, then workers take row blocks of C, each
// packing its own blocks of op(A).
func (p *gemmProblem) splitRows(procs int) {
	kc0, mc0, nc0 := p.blocks()
	mr, nr := p.kern.mr, p.kern.nr
	// Blocks small enough to balance the workers.
	mc0 = min(mc0, ceilMul(ceilDiv(p.m, 4*procs), mr))
	shared := getGemmBuf()
	defer gemmPool.Put(shared)
	// Block (jc, pc) of the whole packed op(B) starts at jc·k + pc·⌈nc⌉.
	pb := aligned(&shared.b, p.k*ceilMul(p.n, nr))
	for jc := 0; jc < p.n; jc += nc0 {
		nc := min(nc0, p.n-jc)
		for pc := 0; pc < p.k; pc += kc0 {
			p.packB(pc, jc, min(kc0, p.k-pc), nc, pb[jc*p.k+pc*ceilMul(nc, nr):])
		}
	}
	var next atomic.Int64
	Parallel(procs, func() {
		buf := getGemmBuf()
		defer gemmPool.Put(buf)
		pa := aligned(&buf.a, mc0*kc0)
		tmp := aligned(&buf.tmp, mr*nr)
		for {
			ic := int(next.Add(1)-1) * mc0
			if ic >= p.m {
				return
			}
			mc := min(mc0, p.m-ic)
			for jc := 0; jc < p.n; jc += nc0 {
				nc := min(nc0, p.n-jc)
				for pc := 0; pc < p.k; pc += kc0 {
					kc := min(kc0, p.k-pc)
					p.packA(ic, pc, mc, kc, pa)
					p.macro(ic, jc, mc, nc, kc, pc > 0, pa, pb[jc*p.k+pc*ceilMul(nc, nr):], tmp)
				}
			}
		}
	})
}

// splitCols packs op(A) whole, then workers take column blocks of C, each
// packing its own blocks of op(B).
func (p *gemmProblem) splitCols(procs int) {
	kc0, mc0, nc0 := p.blocks()
	mr, nr := p.kern.mr, p.kern.nr
	nc0 = min(nc0, ceilMul(ceilDiv(p.n, 4*procs), nr))
	shared := getGemmBuf()
	defer gemmPool.Put(shared)
	// Block (ic, pc) of the whole packed op(A) starts at ic·k + pc·⌈mc⌉.
	pa := aligned(&shared.a, ceilMul(p.m, mr)*p.k)
	for ic := 0; ic < p.m; ic += mc0 {
		mc := min(mc0, p.m-ic)
		for pc := 0; pc < p.k; pc += kc0 {
			p.packA(ic, pc, mc, min(kc0, p.k-pc), pa[ic*p.k+pc*ceilMul(mc, mr):])
		}
	}
	var next atomic.Int64
	Parallel(procs, func() {
		buf := getGemmBuf()
		defer gemmPool.Put(buf)
		pb := aligned(&buf.b, nc0*kc0)
		tmp := aligned(&buf.tmp, mr*nr)
		for {
			jc := int(next.Add(1)-1) * nc0
			if jc >= p.n {
				return
			}
			nc := min(nc0, p.n-jc)
			for pc := 0; pc < p.k; pc += kc0 {
				kc := min(kc0, p.k-pc)
				p.packB(pc, jc, kc, nc, pb)
				for ic := 0; ic < p.m; ic += mc0 {
					mc := min(mc0, p.m-ic)
					p.macro(ic, jc, mc, nc, kc, pc > 0, pa[ic*p.k+pc*ceilMul(mc, mr):], pb, tmp)
				}
			}
		}
	})
}

// splitK cuts k into 4·procs slices; workers take slices and multiply
// each into its own m×n partial product, and the partials are then added
// into C in slice order.
func (p *gemmProblem) splitK(procs int) {
	kc0, _, _ := p.blocks()
	slices := 4 * procs
	ks := ceilMul(ceilDiv(p.k, slices), kc0) // whole k-blocks per slice
	slices = ceilDiv(p.k, ks)
	mn := p.m * p.n
	shared := getGemmBuf()
	defer gemmPool.Put(shared)
	partial := aligned(&shared.b, slices*mn)
	var next atomic.Int64
	Parallel(procs, func() {
		for {
			s := int(next.Add(1) - 1)
			if s >= slices {
				return
			}
			k0 := s * ks
			sub := *p
			sub.k = min(ks, p.k-k0)
			sub.beta = 0
			sub.c, sub.ldc = partial[s*mn:(s+1)*mn], p.n
			if p.transA {
				sub.a = p.a[k0*p.lda:]
			} else {
				sub.a = p.a[k0:]
			}
			if p.transB {
				sub.b = p.b[k0:]
			} else {
				sub.b = p.b[k0*p.ldb:]
			}
			sub.serial()
		}
	})
	for i := range p.m {
		row := p.c[i*p.ldc : i*p.ldc+p.n]
		sum := partial[i*p.n : (i+1)*p.n]
		for j, v := range sum {
			if p.beta == 0 {
				row[j] = v
			} else {
				row[j] = math.FMA(p.beta, row[j], v)
			}
		}
		for s := 1; s < slices; s++ {
			for j, v := range partial[s*mn+i*p.n : s*mn+(i+1)*p.n] {
				row[j] += v
			}
		}
	}
}

// halves splits C into procs static bands of rows (or columns), each a
// serial product packing its own operands: for shapes whose shared
// packed operand would be too large.
func (p *gemmProblem) halves(procs int, rows bool) {
	unit, total := p.kern.nr, p.n
	if rows {
		unit, total = p.kern.mr, p.m
	}
	chunk := ceilMul(ceilDiv(total, procs), unit)
	var next atomic.Int64
	Parallel(procs, func() {
		for {
			i0 := int(next.Add(1)-1) * chunk
			if i0 >= total {
				return
			}
			p.band(i0, chunk, total, rows)
		}
	})
}

// band is the serial product of the band of C from row (or column) i0,
// chunk wide, of halves.
func (p *gemmProblem) band(i0, chunk, total int, rows bool) {
	sub := *p
	if rows {
		sub.m = min(chunk, total-i0)
		sub.c = p.c[i0*p.ldc:]
		if p.transA {
			sub.a = p.a[i0:]
		} else {
			sub.a = p.a[i0*p.lda:]
		}
	} else {
		sub.n = min(chunk, total-i0)
		sub.c = p.c[i0:]
		if p.transB {
			sub.b = p.b[i0*p.ldb:]
		} else {
			sub.b = p.b[i0:]
		}
	}
	sub.serial()
}

// macro multiplies the packed mc×kc block pa of op(A) by the packed kc×nc
// block pb of op(B) into C[ic:ic+mc, jc:jc+nc], tile by tile, adding onto
// C when accumulate is set (later k-blocks) and applying beta otherwise.
// Edge tiles go through tmp so that the kernel never writes outside C.
func (p *gemmProblem) macro(ic, jc, mc, nc, kc int, accumulate bool, pa, pb, tmp []float64) {
	kern, mr, nr := p.kern, p.kern.mr, p.kern.nr
	beta := p.beta
	if accumulate {
		beta = 1
	}
	c, ldc := p.c[ic*p.ldc+jc:], p.ldc
	for jr := 0; jr < nc; jr += nr {
		nrr := min(nr, nc-jr)
		bs := pb[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			mrr := min(mr, mc-ir)
			as := pa[ir*kc : (ir+mr)*kc]
			if mrr == mr && nrr == nr {
				kern.run(kc, as, bs, c[ir*ldc+jr:], ldc, p.alpha, beta)
				continue
			}
			kern.run(kc, as, bs, tmp, nr, p.alpha, 0)
			addEdge(c[ir*ldc+jr:], ldc, tmp, nr, mrr, nrr, beta)
		}
	}
}

// addEdge sets the mrr×nrr corner of C (row stride ldc) to the tile tmp
// (row stride nr) plus beta·C.
func addEdge(c []float64, ldc int, tmp []float64, nr, mrr, nrr int, beta float64) {
	for i := range mrr {
		crow := c[i*ldc : i*ldc+nrr]
		trow := tmp[i*nr : i*nr+nrr]
		if beta == 0 {
			copy(crow, trow)
			continue
		}
		for j, t := range trow {
			// Fused, like the kernels, so that an element's value
			// does not depend on whether it falls in an edge tile.
			crow[j] = math.FMA(beta, crow[j], t)
		}
	}
}

// packA copies op(A)[ic:ic+mc, pc:pc+kc] into dst (see the function packA).
func (p *gemmProblem) packA(ic, pc, mc, kc int, dst []float64) {
	packA(p.transA, p.a, p.lda, ic, pc, mc, kc, p.kern.mr, dst)
}

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into dst (see the function packB).
func (p *gemmProblem) packB(pc, jc, kc, nc int, dst []float64) {
	packB(p.transB, p.b, p.ldb, pc, jc, kc, nc, p.kern.nr, dst)
}

// packRunsFast, when an architecture file sets it, is packRuns for a full
// width; it reports false for widths it does not handle.
var packRunsFast func(dst, src []float64, base, ld, kc, w int) bool

// packRows4Fast, when an architecture file sets it, sets dst[p·w + r] =
// src[r·ld + p] for p < kc, r < 4.
var packRows4Fast func(dst, src []float64, kc, ld, w int)

// gemmBuf holds one goroutine's packing buffers, recycled through
// gemmPool so that steady-state training allocates nothing here.
type gemmBuf struct {
	a, b, tmp []float64
}

var gemmPool = sync.Pool{New: func() any { return new(gemmBuf) }}

func getGemmBuf() *gemmBuf { return gemmPool.Get().(*gemmBuf) }

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

// packA copies op(A)[ic:ic+mc, pc:pc+kc] into dst as ⌈mc/mr⌉ slivers of
// kc rows of mr values, zero-padding the last sliver.
func packA(transA bool, a []float64, lda, ic, pc, mc, kc, mr int, dst []float64) {
	for i := 0; i < mc; i += mr {
		width := min(mr, mc-i)
		d := dst[i*kc : (i+mr)*kc]
		if transA {
			// op(A)(i, p) = a[p·lda + i]: each p reads a contiguous run.
			packRuns(d, a, pc*lda+ic+i, lda, kc, mr, width)
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
	if width == w && packRunsFast != nil && packRunsFast(dst, src, base, ld, kc, w) {
		return
	}
	for p := range kc {
		d := dst[p*w : p*w+w]
		r := src[base+p*ld : base+p*ld+width]
		// Element by element: a copy() of a few values would be a
		// memmove call each.
		for i, v := range r {
			d[i] = v
		}
		for i := width; i < w; i++ {
			d[i] = 0
		}
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
		if packRows4Fast != nil {
			packRows4Fast(dst[r:], src[o:], kc, ld, w)
			continue
		}
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
