package nets

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestArenaReuse: tensors from an arena are zeroed and disjoint; after
// Reset the same storage comes back, in the same slabs, zeroed again by
// Tensor and left as it was by the dirty allocation.
func TestArenaReuse(t *testing.T) {
	var a Arena
	x := a.Tensor(3, 4)
	y := a.Tensor(arenaMinSlab, 1) // does not fit beside x: a second slab
	for i := range x.Data {
		x.Data[i] = 7
	}
	for i := range y.Data {
		y.Data[i] = 9
	}
	if x.Data[len(x.Data)-1] != 7 || y.Data[0] != 9 {
		t.Fatal("arena tensors overlap")
	}
	if len(a.slabs) != 2 {
		t.Fatalf("%d slabs, want 2", len(a.slabs))
	}
	c := a.Cap()
	a.Reset()
	if len(a.slabs) != 2 || a.Cap() != c {
		t.Fatalf("after Reset: %d slabs of %d values, want 2 of %d", len(a.slabs), a.Cap(), c)
	}
	z := a.Tensor(3, 4)
	for _, v := range z.Data {
		if v != 0 {
			t.Fatalf("Tensor after Reset not zeroed: %v", z.Data)
		}
	}
	z.Data[0] = 5
	a.Reset()
	if d := a.allocDirty(1); d[0] != 5 {
		t.Errorf("dirty allocation did not reuse the storage: %v", d[0])
	}
	var none *Arena
	if h := none.Tensor(2, 2); h.Rows != 2 || len(h.Data) != 4 {
		t.Errorf("nil arena: %v", h.Shape())
	}
}

// TestArenaRepeatAllocatesNothing: a workload that grew the arena (as a
// training step with a larger context does) runs again after Reset
// without allocating, Reset included, and a larger one adds slabs that
// hold at least everything before them, so a few slabs serve any size.
func TestArenaRepeatAllocatesNothing(t *testing.T) {
	var a Arena
	sizes := []int{100, arenaMinSlab, 3 * arenaMinSlab, 7, 5 * arenaMinSlab}
	fill := func() {
		for _, n := range sizes {
			a.Tensor(n, 1)
		}
	}
	step := func() { fill(); a.Reset() }
	grown := testing.AllocsPerRun(1, func() { a = Arena{}; fill() })
	if got := testing.AllocsPerRun(1, func() { a = Arena{}; step() }); got != grown {
		t.Errorf("Reset after the arena grew allocates %v times, want 0", got-grown)
	}
	slabs, c := len(a.slabs), a.Cap()
	if got := testing.AllocsPerRun(5, step); got != 0 {
		t.Errorf("a repeated workload allocates %v times per step, want 0", got)
	}
	if len(a.slabs) != slabs || a.Cap() != c {
		t.Errorf("a repeated workload changed the arena: %d slabs of %d values, want %d of %d", len(a.slabs), a.Cap(), slabs, c)
	}
	for i := range sizes {
		sizes[i] *= 16
	}
	step()
	total := 0
	for i, s := range a.slabs {
		if i > 0 && len(s) < total {
			t.Errorf("slab %d holds %d values, fewer than the %d before it", i, len(s), total)
		}
		total += len(s)
	}
	if len(a.slabs) > 2*slabs+2 {
		t.Errorf("a workload 16 times larger took %d slabs (the first %d)", len(a.slabs), slabs)
	}
}

// TestArenaTapeMatchesHeap: a network evaluated on an arena tape whose
// storage holds garbage from an earlier use (NaN everywhere) gives the
// values of an ordinary inference tape, bit for bit: every output that
// skips clearing is written in full.
func TestArenaTapeMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var ps Params
	mlp := NewMLP("m", []int{5, 8, 8, 3}, ActReLU, &ps, rng)
	x := randTensor(rng, 20, 5, -1, 1)
	xq, xr := randTensor(rng, 6, 2, -1, 1), randTensor(rng, 4, 3, -1, 1)
	w := randTensor(rng, 3, 4, -1, 1)
	tiled := NewMLP("t", []int{5, 7, 2}, ActSiLU, &ps, rng)
	eval := func(tp *Tape) []*Tensor {
		h := mlp.Forward(tp, tp.Const(x))
		m := tp.MatMul(h, tp.Const(w), false, false)
		f := tiled.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), nil)
		empty := tp.MatMul(tp.Const(NewTensor(3, 0)), tp.Const(NewTensor(0, 2)), false, false) // zeros
		return []*Tensor{h.Value, m.Value, f.Value, empty.Value}
	}
	want := eval(NewInferenceTape())
	var a Arena
	for i, d := 0, a.allocDirty(1<<16); i < len(d); i++ {
		d[i] = math.NaN()
	}
	a.Reset()
	got := eval(NewArenaTape(&a))
	for k := range want {
		for i, v := range want[k].Data {
			if got[k].Data[i] != v {
				t.Fatalf("output %d value %d: %v on the arena, %v on the heap", k, i, got[k].Data[i], v)
			}
		}
	}
}

// TestForwardHiddenMeanMatchesTape: the block-wise pooled encoder gives
// SegmentMean(ForwardHidden(x)) of the same inference tape bit for bit,
// for widths whose products take gonum's size range, the kernel's, and
// more than one of its k-blocks (300 > 256), with group counts that do
// and do not fill the blocks.
func TestForwardHiddenMeanMatchesTape(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, width := range []int{3, 6, 64, 300} {
		for _, groups := range []int{1, 7, 40} {
			var ps Params
			mlp := NewMLP("m", []int{5, width, width, 2}, ActReLU, &ps, rng)
			n := 4
			x := randTensor(rng, groups*n, 5, -1, 1)
			tp := NewInferenceTape()
			want := tp.SegmentMean(mlp.ForwardHidden(tp, tp.Const(x)), n).Value
			got := mlp.ForwardHiddenMean(NewInferenceTape(), NewInferenceTape().Const(x), n).Value
			for i, v := range want.Data {
				if got.Data[i] != v {
					t.Fatalf("width %d, %d groups, value %d: %v pooled block by block, %v on the tape", width, groups, i, got.Data[i], v)
				}
			}
		}
	}
}

// TestGemmRowsIndependentOfGoroutines: gemmRowsOn gives the same bits on
// one goroutine and on several, for shapes that every parallel split
// would take: a long inner size (where gemm splits k across goroutines),
// many rows, many columns, and transposed operands.
func TestGemmRowsIndependentOfGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3))
	for _, mnk := range [][3]int{{16, 128, 4096}, {4, 64, 32768}, {512, 64, 256}, {24, 512, 256}, {700, 40, 3000}} {
		m, n, k := mnk[0], mnk[1], mnk[2]
		for _, tr := range [][2]bool{{false, false}, {true, true}} {
			ar, ac, br, bc := m, k, k, n
			if tr[0] {
				ar, ac = k, m
			}
			if tr[1] {
				br, bc = n, k
			}
			a, b := randTensor(rng, ar, ac, -1, 1), randTensor(rng, br, bc, -1, 1)
			c0 := randTensor(rng, m, n, -1, 1)
			one, four := c0.Clone(), c0.Clone()
			gemmRowsOn(1, tr[0], tr[1], 0.5, a, b, 1, one)
			gemmRowsOn(4, tr[0], tr[1], 0.5, a, b, 1, four)
			for i, v := range one.Data {
				if math.Float64bits(v) != math.Float64bits(four.Data[i]) {
					t.Fatalf("m %d n %d k %d transposed %v: value %d is %v on 1 goroutine, %v on 4", m, n, k, tr, i, v, four.Data[i])
				}
			}
		}
	}
}

// TestGemmRowsIndependentOfRowCount: gemmRowsOn computes each row of the
// product by the same arithmetic whatever the number of rows, also for
// products small enough that gemm would hand them to gonum.
func TestGemmRowsIndependentOfRowCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	for _, kn := range [][2]int{{3, 1}, {7, 5}, {64, 1}, {40, 33}} {
		k, n := kn[0], kn[1]
		a := randTensor(rng, 50, k, -1, 1)
		b := randTensor(rng, k, n, -1, 1)
		all := NewTensor(50, n)
		gemmRowsOn(runtime.GOMAXPROCS(0), false, false, 1, a, b, 0, all)
		for _, m := range []int{1, 2, 9} {
			part := NewTensor(m, n)
			gemmRowsOn(runtime.GOMAXPROCS(0), false, false, 1, rowRange(a, 3, m), b, 0, part)
			for i := range m {
				for j := range n {
					if part.At(i, j) != all.At(3+i, j) {
						t.Fatalf("k %d n %d: row %d of %d rows %v, of 50 rows %v", k, n, i, m, part.At(i, j), all.At(3+i, j))
					}
				}
			}
		}
	}
}

// TestArenaHeaders: tensor and var headers come from the arena, are
// distinct while live, and are cleared and handed out again after Reset.
func TestArenaHeaders(t *testing.T) {
	var a Arena
	tp := NewArenaTape(&a)
	seen := map[*Tensor]bool{}
	for i := range 3 * headerChunk {
		x := a.Tensor(1, 2)
		if seen[x] {
			t.Fatalf("header %d handed out twice before Reset", i)
		}
		seen[x] = true
		x.Data[0] = float64(i)
	}
	v := tp.Const(a.Tensor(1, 1))
	if v.Value == nil || v.needsGrad {
		t.Fatal("Const on an arena tape")
	}
	a.Reset()
	if v.Value != nil {
		t.Fatal("Reset left a var header holding its tensor")
	}
	x := a.Tensor(2, 3)
	if !seen[x] || x.Rows != 2 || x.Cols != 3 || len(x.Data) != 6 {
		t.Fatalf("after Reset: header %p (reused %v) shape [%d, %d]", x, seen[x], x.Rows, x.Cols)
	}
}

// TestTiledInputGradIn: the arena's outputs hold the heap's values.
func TestTiledInputGradIn(t *testing.T) {
	rng := newRNG(77)
	for _, sizes := range [][]int{{9, 1}, {9, 32, 1}, {9, 32, 17, 2}} {
		m := NewMLP("f", sizes, ActSiLU, new(Params), rng)
		xq, xr, xf := randSigned(rng, 5, 3, -1, 1), randSigned(rng, 4, 4, -1, 1), randSigned(rng, 20, 2, -1, 1)
		var a Arena
		for range 2 {
			y0, g0 := m.TiledInputGrad(xq, xr, xf, 1, 7, 1)
			y1, g1 := m.TiledInputGradIn(&a, xq, xr, xf, 1, 7, 1)
			sameBitsTensor(t, "y", y1, y0)
			for o := range g0 {
				sameBitsTensor(t, "g", g1[o], g0[o])
			}
			a.Reset()
		}
	}
}
