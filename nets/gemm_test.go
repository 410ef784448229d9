package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
)

// gemmTol is the relative tolerance of gemm against the naive product,
// relative to |alpha|·Σ|a||b| + |beta||c| element by element.
const gemmTol = 1e-12

// naiveProduct returns op(a)·op(b) by the triple loop and, element by
// element, Σ|op(a)||op(b)| as the scale of its rounding error.
func naiveProduct(transA, transB bool, a, b *Tensor, m, n int) (prod, abs *Tensor) {
	k := a.Cols
	if transA {
		k = a.Rows
	}
	prod, abs = NewTensor(m, n), NewTensor(m, n)
	for i := range m {
		for j := range n {
			var s, sa float64
			for p := range k {
				var x, y float64
				if transA {
					x = a.Data[p*a.Cols+i]
				} else {
					x = a.Data[i*a.Cols+p]
				}
				if transB {
					y = b.Data[j*b.Cols+p]
				} else {
					y = b.Data[p*b.Cols+j]
				}
				s += x * y
				sa += math.Abs(x * y)
			}
			prod.Set(i, j, s)
			abs.Set(i, j, sa)
		}
	}
	return prod, abs
}

// naiveGemm returns alpha·prod + beta·c0 (beta = 0 ignoring c0) and its
// per-element error scale |alpha|·abs + |beta c0|.
func naiveGemm(alpha float64, prod, abs *Tensor, beta float64, c0 *Tensor) (want, scale *Tensor) {
	want, scale = NewTensor(c0.Rows, c0.Cols), NewTensor(c0.Rows, c0.Cols)
	for i := range want.Data {
		want.Data[i] = alpha * prod.Data[i]
		scale.Data[i] = math.Abs(alpha) * abs.Data[i]
		if beta != 0 {
			want.Data[i] += beta * c0.Data[i]
			scale.Data[i] += math.Abs(beta * c0.Data[i])
		}
	}
	return want, scale
}

// gemmOperands returns random a, b for op(a) m×k, op(b) k×n and a random
// dst (all NaN when beta = 0, which must overwrite it).
func gemmOperands(rng *rand.Rand, transA, transB bool, m, n, k int, beta float64) (a, b, c *Tensor) {
	a = randSigned(rng, m, k, 0, 1)
	if transA {
		a = randSigned(rng, k, m, 0, 1)
	}
	b = randSigned(rng, k, n, 0, 1)
	if transB {
		b = randSigned(rng, n, k, 0, 1)
	}
	c = randSigned(rng, m, n, 0, 1)
	if beta == 0 {
		for i := range c.Data {
			c.Data[i] = math.NaN()
		}
	}
	return a, b, c
}

func checkGemmClose(t *testing.T, name string, got, want, scale *Tensor) {
	t.Helper()
	for i := range got.Data {
		d := math.Abs(got.Data[i] - want.Data[i])
		if !(d <= gemmTol*scale.Data[i]) {
			t.Fatalf("%s: element %d (row %d) = %.17g, want %.17g (scale %.3g)",
				name, i, i/max(got.Cols, 1), got.Data[i], want.Data[i], scale.Data[i])
		}
	}
}

// gemmShapes are (m, n, k) covering tiles, edges, blocking and the
// parallel split.
func gemmShapes(rng *rand.Rand) [][3]int {
	shapes := [][3]int{
		{1, 1, 1}, {0, 5, 3}, {5, 0, 3}, {5, 3, 0}, {0, 0, 0},
		{1, 17, 9}, {13, 1, 9}, {7, 9, 1}, {1, 1, 700},
		{6, 8, 256}, {12, 16, 16}, {4, 4, 4}, {13, 17, 300}, {97, 33, 5},
		{5, 4100, 3}, {100, 50, 600}, {193, 70, 129}, {9, 11, 2000},
		{130, 70, 40}, {20, 300, 60}, {7, 9, 5000}, {40, 40, 200},
		{301, 3, 256}, {3, 301, 256},
	}
	for range 20 {
		shapes = append(shapes, [3]int{1 + rng.IntN(70), 1 + rng.IntN(70), 1 + rng.IntN(70)})
	}
	return shapes
}

// TestGemm compares every kernel, through the full driver, with the naive
// triple loop and with gonum over shapes, transposes, alpha and beta.
func TestGemm(t *testing.T) {
	rng := newRNG(900)
	shapes := gemmShapes(rng)
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for tr := range 4 {
			transA, transB := tr&1 != 0, tr&2 != 0
			a, b, _ := gemmOperands(rng, transA, transB, m, n, k, 1)
			prod, abs := naiveProduct(transA, transB, a, b, m, n)
			for _, kern := range gemmKernels {
				for _, alpha := range []float64{1, -0.5, 0, 2.5} {
					for _, beta := range []float64{0, 1, -0.5} {
						name := fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v alpha=%g beta=%g",
							kern.name, m, n, k, transA, transB, alpha, beta)
						c := randSigned(rng, m, n, 0, 1)
						if beta == 0 {
							for i := range c.Data {
								c.Data[i] = math.NaN()
							}
						}
						want, scale := naiveGemm(alpha, prod, abs, beta, c)
						got := c.Clone()
						gemmTensors(kern, transA, transB, alpha, a, b, beta, got)
						checkGemmClose(t, name, got, want, scale)

						if m == 0 || n == 0 || k == 0 || beta == 0 {
							continue // gonum rejects empty shapes; NaN·0 differs
						}
						ref := c.Clone()
						blas64.Gemm(blasTrans(transA), blasTrans(transB), alpha, blasGeneral(a), blasGeneral(b), beta, blasGeneral(ref))
						checkGemmClose(t, name+" vs gonum", got, ref, scale)
					}
				}
			}
		}
	}
}

// TestGemmParallelModes runs each way of splitting a product across
// goroutines (whatever this machine's GOMAXPROCS) against the naive loop.
func TestGemmParallelModes(t *testing.T) {
	rng := newRNG(903)
	shapes := [][3]int{{101, 37, 45}, {29, 133, 70}, {23, 31, 700}, {1, 70, 9}}
	modes := []struct {
		name string
		run  func(p *gemmProblem)
	}{
		{"rows", func(p *gemmProblem) { p.splitRows(3) }},
		{"cols", func(p *gemmProblem) { p.splitCols(2) }},
		{"k", func(p *gemmProblem) { p.splitK(2) }},
		{"row halves", func(p *gemmProblem) { p.halves(2, true) }},
		{"column halves", func(p *gemmProblem) { p.halves(3, false) }},
	}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for tr := range 4 {
			transA, transB := tr&1 != 0, tr&2 != 0
			a, b, _ := gemmOperands(rng, transA, transB, m, n, k, 1)
			prod, abs := naiveProduct(transA, transB, a, b, m, n)
			for _, beta := range []float64{0, 1, -0.5} {
				c := randSigned(rng, m, n, 0, 1)
				if beta == 0 {
					for i := range c.Data {
						c.Data[i] = math.NaN()
					}
				}
				want, scale := naiveGemm(-0.5, prod, abs, beta, c)
				for _, kern := range gemmKernels {
					for _, mode := range modes {
						got := c.Clone()
						p := gemmProblem{
							kern: kern, transA: transA, transB: transB, m: m, n: n, k: k, alpha: -0.5, beta: beta,
							a: a.Data, b: b.Data, c: got.Data, lda: a.Cols, ldb: b.Cols, ldc: n,
						}
						mode.run(&p)
						checkGemmClose(t, fmt.Sprintf("%s %s m=%d n=%d k=%d tA=%v tB=%v beta=%g",
							kern.name, mode.name, m, n, k, transA, transB, beta), got, want, scale)
					}
				}
			}
		}
	}
	// Above the parallel threshold through the public path.
	for tr := range 4 {
		transA, transB := tr&1 != 0, tr&2 != 0
		m, n, k := 256, 130, 160
		a, b, c := gemmOperands(rng, transA, transB, m, n, k, 0)
		prod, abs := naiveProduct(transA, transB, a, b, m, n)
		want, scale := naiveGemm(1, prod, abs, 0, c)
		gemm(transA, transB, 1, a, b, 0, c)
		checkGemmClose(t, fmt.Sprintf("gemm m=%d n=%d k=%d tA=%v tB=%v", m, n, k, transA, transB), c, want, scale)
	}
}

// TestGemmDeterministic checks that a parallel product repeats bit for
// bit and that splitting rows or columns does not change any element.
func TestGemmDeterministic(t *testing.T) {
	rng := newRNG(904)
	a, b, c := gemmOperands(rng, false, true, 211, 96, 300, -0.5)
	for _, kern := range gemmKernels {
		var ref *Tensor
		for _, mode := range []func(p *gemmProblem){
			(*gemmProblem).serial,
			func(p *gemmProblem) { p.splitRows(2) },
			func(p *gemmProblem) { p.splitRows(2) },
			func(p *gemmProblem) { p.splitCols(3) },
			func(p *gemmProblem) { p.halves(2, true) },
		} {
			got := c.Clone()
			p := gemmProblem{
				kern: kern, transB: true, m: 211, n: 96, k: 300, alpha: 0.7, beta: -0.5,
				a: a.Data, b: b.Data, c: got.Data, lda: a.Cols, ldb: b.Cols, ldc: 96,
			}
			mode(&p)
			if ref == nil {
				ref = got
				continue
			}
			for i := range got.Data {
				if got.Data[i] != ref.Data[i] {
					t.Fatalf("%s: element %d = %.17g, serial gave %.17g", kern.name, i, got.Data[i], ref.Data[i])
				}
			}
		}
	}
}

func blasGeneral(t *Tensor) blas64.General {
	return blas64.General{Rows: t.Rows, Cols: t.Cols, Stride: max(t.Cols, 1), Data: t.Data}
}

// TestGemmKernelsAgree checks each micro-kernel directly on packed
// operands against the portable one, including a C stride wider than the
// tile and beta = 0 over NaN.
func TestGemmKernelsAgree(t *testing.T) {
	rng := newRNG(901)
	for _, kern := range gemmKernels {
		mr, nr := kern.mr, kern.nr
		for _, k := range []int{0, 1, 2, 3, 4, 5, 7, 8, 33, 256} {
			for _, beta := range []float64{0, 1, -0.5} {
				a := randSigned(rng, k, mr, 0, 1).Data
				b := randSigned(rng, k, nr, 0, 1).Data
				ldc := nr + 3
				c := randSigned(rng, mr, ldc, 0, 1)
				if beta == 0 {
					for i := range c.Data {
						c.Data[i] = math.NaN()
					}
				}
				got := c.Clone()
				kern.run(k, a, b, got.Data, ldc, -0.5, beta)
				for i := range mr {
					for j := range ldc {
						if j >= nr {
							if !sameFloat(got.At(i, j), c.At(i, j)) {
								t.Fatalf("%s k=%d: wrote outside the tile at (%d, %d)", kern.name, k, i, j)
							}
							continue
						}
						var s, sa float64
						for p := range k {
							s += a[p*mr+i] * b[p*nr+j]
							sa += math.Abs(a[p*mr+i] * b[p*nr+j])
						}
						want, scale := -0.5*s, 0.5*sa
						if beta != 0 {
							want += beta * c.At(i, j)
							scale += math.Abs(beta * c.At(i, j))
						}
						if d := math.Abs(got.At(i, j) - want); !(d <= gemmTol*scale) {
							t.Fatalf("%s k=%d beta=%g: C(%d, %d) = %.17g, want %.17g", kern.name, k, beta, i, j, got.At(i, j), want)
						}
					}
				}
			}
		}
	}
	// The driver with each kernel agrees with the portable one on a shape
	// that uses full tiles, edges, several k-blocks and both workers.
	a, b, c := gemmOperands(rng, false, true, 203, 77, 530, 1)
	ref := c.Clone()
	gemmTensors(&genericKernel, false, true, 1.5, a, b, 1, ref)
	prod, abs := naiveProduct(false, true, a, b, 203, 77)
	_, scale := naiveGemm(1.5, prod, abs, 1, c)
	for _, kern := range gemmKernels {
		got := c.Clone()
		gemmTensors(kern, false, true, 1.5, a, b, 1, got)
		checkGemmClose(t, kern.name+" vs generic", got, ref, scale)
	}
}

// TestGemmPortablePacking runs the products with the assembly packing
// routines switched off, as on CPUs without AVX.
func TestGemmPortablePacking(t *testing.T) {
	runs, rows4 := packRunsFast, packRows4Fast
	packRunsFast, packRows4Fast = nil, nil
	defer func() { packRunsFast, packRows4Fast = runs, rows4 }()
	rng := newRNG(905)
	for _, s := range [][3]int{{13, 17, 30}, {29, 35, 9}, {101, 37, 45}, {7, 1, 3}} {
		m, n, k := s[0], s[1], s[2]
		for tr := range 4 {
			transA, transB := tr&1 != 0, tr&2 != 0
			a, b, c := gemmOperands(rng, transA, transB, m, n, k, -0.5)
			prod, abs := naiveProduct(transA, transB, a, b, m, n)
			want, scale := naiveGemm(2, prod, abs, -0.5, c)
			for _, kern := range gemmKernels {
				got := c.Clone()
				gemmTensors(kern, transA, transB, 2, a, b, -0.5, got)
				checkGemmClose(t, fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v", kern.name, m, n, k, transA, transB), got, want, scale)
			}
		}
	}
}

// TestGemmDirectMatchesPacked: a kernel's unpacked path (gemmProblem.direct)
// gives every element of C bit for bit what its packed path gives, for
// every transpose, full and partial tiles, k up to one block and both
// kinds of beta; and a zero k reads neither operand.
func TestGemmDirectMatchesPacked(t *testing.T) {
	rng := newRNG(907)
	tested := false
	for _, kern := range gemmKernels {
		if kern.strided == nil {
			continue
		}
		tested = true
		packed := *kern
		packed.strided = nil
		for _, s := range [][3]int{{12, 16, 1}, {24, 64, 64}, {30, 64, 34}, {13, 17, 30}, {1, 1, 7}, {384, 64, 256}, {5, 33, 3}, {30, 30, 16}, {7, 16, 5}, {18, 48, 9}} {
			m, n, k := s[0], s[1], s[2]
			for tr := range 4 {
				transA, transB := tr&1 != 0, tr&2 != 0
				for _, beta := range []float64{0, 0.75} {
					a, b, c := gemmOperands(rng, transA, transB, m, n, k, beta)
					want, got := c.Clone(), c.Clone()
					pw := gemmProblem{kern: &packed, rows: true, transA: transA, transB: transB, m: m, n: n, k: k, alpha: 1.25, beta: beta,
						a: a.Data, b: b.Data, c: want.Data, lda: a.Cols, ldb: b.Cols, ldc: want.Cols}
					pw.serial()
					pg := pw
					pg.kern, pg.c = kern, got.Data
					pg.serial()
					for i, w := range want.Data {
						if math.Float64bits(got.Data[i]) != math.Float64bits(w) {
							t.Fatalf("%s m=%d n=%d k=%d tA=%v tB=%v beta=%g: C[%d] = %.17g direct, %.17g packed",
								kern.name, m, n, k, transA, transB, beta, i, got.Data[i], w)
						}
					}
				}
			}
		}
	}
	if !tested {
		t.Skip("no kernel with an unpacked path on this CPU")
	}
}

func sameFloat(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }

// TestGemmNaNSemantics pins the BLAS conventions: beta = 0 overwrites NaN
// in dst, alpha = 0 and k = 0 read neither operand.
func TestGemmNaNSemantics(t *testing.T) {
	nan := math.NaN()
	for _, kern := range gemmKernels {
		a := FromSlice(2, 2, []float64{nan, 1, 2, 3})
		b := FromSlice(2, 2, []float64{1, 0, 0, 1})
		dst := FromSlice(2, 2, []float64{1, 2, 3, 4})
		gemmTensors(kern, false, false, 0, a, b, -2, dst)
		assertClose(t, kern.name+" alpha=0", dst, FromSlice(2, 2, []float64{-2, -4, -6, -8}), 0)

		dst = FromSlice(2, 2, []float64{nan, nan, nan, nan})
		gemmTensors(kern, false, false, 0, a, b, 0, dst)
		assertClose(t, kern.name+" alpha=0 beta=0", dst, NewTensor(2, 2), 0)

		dst = FromSlice(2, 3, []float64{nan, nan, nan, nan, nan, nan})
		gemmTensors(kern, false, false, 1, NewTensor(2, 0), NewTensor(0, 3), 0, dst)
		assertClose(t, kern.name+" k=0 beta=0", dst, NewTensor(2, 3), 0)

		dst = FromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6})
		gemmTensors(kern, true, false, 1, NewTensor(0, 2), NewTensor(0, 3), 0.5, dst)
		assertClose(t, kern.name+" k=0 beta=0.5", dst, FromSlice(2, 3, []float64{0.5, 1, 1.5, 2, 2.5, 3}), 0)
	}
}

func TestGemmShapePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("gemm of [2, 3]·[2, 3] did not panic")
		}
	}()
	gemm(false, false, 1, NewTensor(2, 3), NewTensor(2, 3), 0, NewTensor(2, 3))
}

// BenchmarkGemm times gemm and gonum's Dgemm on training shapes and
// reports GFLOPS (2mnk per product).
func BenchmarkGemm(b *testing.B) {
	cases := []struct {
		name           string
		m, n, k        int
		transA, transB bool
	}{
		{"NN_19200x256x256", 19200, 256, 256, false, false},
		{"NT_19200x256x256", 19200, 256, 256, false, true},
		{"TN_256x256x19200", 256, 256, 19200, true, false},
		{"NN_64x512x4096", 64, 512, 4096, false, false},
		{"NN_6400x64x64", 6400, 64, 64, false, false},
		{"NN_1024x128x128", 1024, 128, 128, false, false},
		{"NN_19200x256x3", 19200, 256, 3, false, false},
		{"NT_300x300x32", 300, 300, 32, false, true},
		{"NN_64x64x64", 64, 64, 64, false, false},
	}
	for _, cs := range cases {
		flops := 2 * float64(cs.m) * float64(cs.n) * float64(cs.k)
		run := func(b *testing.B, mul func(a, bb, c *Tensor)) {
			a, bb, c := gemmOperands(newRNG(902), cs.transA, cs.transB, cs.m, cs.n, cs.k, 1)
			start := time.Now()
			for b.Loop() {
				mul(a, bb, c)
			}
			b.ReportMetric(flops*float64(b.N)/time.Since(start).Seconds()/1e9, "GFLOPS")
		}
		b.Run(cs.name+"/nets", func(b *testing.B) {
			run(b, func(a, bb, c *Tensor) { gemm(cs.transA, cs.transB, 1, a, bb, 0, c) })
		})
		b.Run(cs.name+"/gonum", func(b *testing.B) {
			run(b, func(a, bb, c *Tensor) {
				blas64.Gemm(blasTrans(cs.transA), blasTrans(cs.transB), 1, blasGeneral(a), blasGeneral(bb), 0, blasGeneral(c))
			})
		})
	}
}
