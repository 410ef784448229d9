package nets

import (
	"math"
	"testing"
)

// sameBitsTensor fails unless got and want hold the same bits.
func sameBitsTensor(t *testing.T, name string, got, want *Tensor) {
	t.Helper()
	for i, w := range want.Data {
		if math.Float64bits(got.Data[i]) != math.Float64bits(w) {
			t.Fatalf("%s: element %d = %.17g, want %.17g", name, i, got.Data[i], w)
		}
	}
}

// TestPackCacheExact: a product with op(B)'s panels from the cache,
// first packing them and then reusing them, equals the product that
// packs them per call, bit for bit, for every kernel, transpose and
// edge.
func TestPackCacheExact(t *testing.T) {
	rng := newRNG(4411)
	for _, kern := range gemmKernels {
		for _, s := range [][3]int{{12, 1, 64}, {12, 64, 64}, {12, 17, 64}, {100, 36, 128}, {30, 30, 16}, {1, 1, 7}, {13, 33, 5}, {7, 4, 300}} {
			m, n, k := s[0], s[1], s[2]
			for tr := range 4 {
				transA, transB := tr&1 != 0, tr&2 != 0
				for _, beta := range []float64{0, 1, 0.75} {
					a, b, c := gemmOperands(rng, transA, transB, m, n, k, beta)
					want := c.Clone()
					gemmTensorsFor(1, kern, true, nil, transA, transB, 1.25, a, b, beta, want)
					var cache packCache
					for range 3 {
						got := c.Clone()
						gemmTensorsFor(1, kern, true, &cache, transA, transB, 1.25, a, b, beta, got)
						sameBitsTensor(t, kern.name, got, want)
					}
				}
			}
		}
	}
}

// TestPackCacheNeverStale: after any write to a weight (an element, a
// sign of zero, a NaN, a whole restore), the next cached product uses
// the new values: it equals the uncached product on them.
func TestPackCacheNeverStale(t *testing.T) {
	rng := newRNG(4412)
	kern := gemmDefault
	if kern == nil {
		kern = &genericKernel
	}
	for _, transB := range []bool{false, true} {
		m, n, k := 12, 17, 64
		a, b, _ := gemmOperands(rng, false, transB, m, n, k, 0)
		p := &Param{Name: "w", Value: b}
		product := func(cache *packCache) *Tensor {
			y := NewTensor(m, n)
			gemmTensorsFor(1, kern, true, cache, false, transB, 1, a, p.Value, 0, y)
			return y
		}
		check := func(what string) {
			t.Helper()
			sameBitsTensor(t, what, product(&p.packs), product(nil))
		}
		check("first")
		check("cached")
		edits := []struct {
			name string
			edit func()
		}{
			{"one element", func() { p.Value.Data[len(p.Value.Data)-1] += 1 }},
			{"first element", func() { p.Value.Data[0] = 3 }},
			{"negative zero", func() {
				for i := range p.Value.Data {
					p.Value.Data[i] = 0
				}
			}},
			{"sign of zero", func() { p.Value.Data[5] = math.Copysign(0, -1) }},
			{"NaN", func() { p.Value.Data[7] = math.NaN() }},
			{"restore", func() {
				snap := map[string]*Tensor{"w": randSigned(rng, p.Value.Rows, p.Value.Cols, 0, 1)}
				ps := new(Params)
				ps.Add(p)
				if err := ps.Restore(snap); err != nil {
					t.Fatal(err)
				}
			}},
			{"Adam step", func() {
				ps := new(Params)
				ps.Add(p)
				for i := range p.Grad.Data {
					p.Grad.Data[i] = rng.NormFloat64()
				}
				NewAdam(0.1).Step(ps)
			}},
		}
		for _, e := range edits {
			if e.name == "Adam step" && p.Grad == nil {
				p.Grad = NewTensor(p.Value.Rows, p.Value.Cols)
			}
			e.edit()
			check(e.name)
			check(e.name + ", cached")
		}
	}
}

// TestPackCacheLayers: an MLP's inference paths (ForwardTiled,
// TiledInputGrad) give the same values after its weights change as a
// fresh copy of the network with those weights, whose caches are empty.
func TestPackCacheLayers(t *testing.T) {
	rng := newRNG(4413)
	ps := new(Params)
	m := NewMLP("f", []int{9, 32, 17, 1}, ActSiLU, ps, rng)
	xq, xr := randSigned(rng, 5, 4, 0, 1), randSigned(rng, 3, 5, 0, 1)
	run := func(m *MLP) (*Tensor, []*Tensor, *Tensor) {
		y, g := m.TiledInputGrad(xq, xr, nil, 2, 6, 1)
		tp := NewInferenceTape()
		f := m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), nil).Value
		return y, g, f
	}
	for range 3 {
		y, g, f := run(m)
		ps2 := new(Params)
		fresh := NewMLP("f", []int{9, 32, 17, 1}, ActSiLU, ps2, rng)
		if err := ps2.Restore(ps.Snapshot()); err != nil {
			t.Fatal(err)
		}
		y2, g2, f2 := run(fresh)
		sameBitsTensor(t, "TiledInputGrad y", y, y2)
		for o := range g {
			sameBitsTensor(t, "TiledInputGrad g", g[o], g2[o])
		}
		sameBitsTensor(t, "ForwardTiled", f, f2)
		for _, p := range ps.List() { // change every weight in place
			for i := range p.Value.Data {
				p.Value.Data[i] *= 1 + 0.1*rng.NormFloat64()
			}
		}
	}
}
