package nets

import (
	"math"
	"slices"
	"testing"
)

// TestReLUPasses: the vector passes give reluBits's values bit for bit,
// signed zeros and NaNs included, at every length around the vector
// width, and never touch values past the slice.
func TestReLUPasses(t *testing.T) {
	rng := newRNG(911)
	special := []float64{math.Copysign(0, -1), 0, math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), -1e-310, 1e-310}
	for n := range 13 {
		x, y := make([]float64, n+1), make([]float64, n+1)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
			if i < len(special) && n > 4 {
				x[i] = special[i]
			}
		}
		x[n], y[n] = 7, 7 // a sentinel past the slice
		d := append([]float64(nil), x...)
		reluInPlace(d[:n])
		s := append([]float64(nil), x...)
		addReLU(s[:n], y)
		a := make([]float64, n+1)
		a[n] = 5
		addInto(a[:n], x, y)
		for i := range n {
			if math.Float64bits(d[i]) != math.Float64bits(reluBits(x[i])) {
				t.Fatalf("n=%d: relu(%v) = %v, want %v", n, x[i], d[i], reluBits(x[i]))
			}
			if want := reluBits(x[i] + y[i]); math.Float64bits(s[i]) != math.Float64bits(want) {
				t.Fatalf("n=%d: relu(%v + %v) = %v, want %v", n, x[i], y[i], s[i], want)
			}
			if want := x[i] + y[i]; math.Float64bits(a[i]) != math.Float64bits(want) {
				t.Fatalf("n=%d: %v + %v = %v", n, x[i], y[i], a[i])
			}
		}
		if d[n] != 7 || s[n] != 7 || a[n] != 5 {
			t.Fatalf("n=%d: wrote past the slice", n)
		}
	}
}

// TestTrainingPasses: the tape's ReLU and SiLU passes give, bit for bit,
// the scalar loops they replace, signed zeros included (a NaN for a NaN:
// which operand's payload an operation keeps differs between the scalar
// and vector instructions), at every length around the vector width,
// in their adding and their setting forms.
func TestTrainingPasses(t *testing.T) {
	rng := newRNG(913)
	special := []float64{math.Copysign(0, -1), 0, math.NaN(), math.Copysign(math.NaN(), -1), math.Inf(1), math.Inf(-1), -1e-310, 1e-310}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for n := range 13 {
		x, g, ga, s := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], g[i], ga[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			if i < len(special) && n > 4 {
				x[i] = special[i]
			}
			s[i] = sigmoid(x[i])
		}
		y := make([]float64, n)
		reluForward(y, x)
		gr := append([]float64(nil), ga...)
		reluBackward(gr, g, y, false)
		gs := append([]float64(nil), ga...)
		siluBackward(gs, g, x, s, false)
		// The set forms write what they would add, whatever was there.
		gr0, gs0 := slices.Repeat([]float64{math.NaN()}, n), slices.Repeat([]float64{math.NaN()}, n)
		reluBackward(gr0, g, y, true)
		siluBackward(gs0, g, x, s, true)
		m := make([]float64, n)
		mulTo(m, x, s)
		rx, rd := append([]float64(nil), x...), make([]float64, n)
		reluDeriv(rx, rd)
		sx, sd := append([]float64(nil), x...), append([]float64(nil), s...)
		siluDeriv(sx, sd)
		for i, v := range x {
			wd := 0.0
			if v > 0 {
				wd = 1
			}
			if !same(rx[i], reluBits(v)) || rd[i] != wd {
				t.Fatalf("n=%d, x=%v: relu %v, derivative %v", n, v, rx[i], rd[i])
			}
			if ws := s[i] * (1 + v*(1-s[i])); !same(sx[i], v*s[i]) || !same(sd[i], ws) {
				t.Fatalf("n=%d, x=%v: silu %v/%v, derivative %v/%v", n, v, sx[i], v*s[i], sd[i], ws)
			}
			wy := 0.0
			if !(v <= 0) {
				wy = v
			}
			mask := uint64(-int64(math.Float64bits(wy)) >> 63)
			wr := ga[i] + math.Float64frombits(math.Float64bits(g[i])&mask)
			ws := ga[i] + g[i]*s[i]*(1+v*(1-s[i]))
			wr0 := math.Float64frombits(math.Float64bits(g[i]) & mask)
			ws0 := g[i] * s[i] * (1 + v*(1-s[i]))
			if !same(gr0[i], wr0) || !same(gs0[i], ws0) {
				t.Fatalf("n=%d, x=%v: set relu′ %v/%v, set silu′ %v/%v", n, v, gr0[i], wr0, gs0[i], ws0)
			}
			if !same(y[i], wy) || !same(gr[i], wr) || !same(gs[i], ws) || !same(m[i], v*s[i]) {
				t.Fatalf("n=%d, x=%v: relu %v/%v, relu′ %v/%v, silu′ %v/%v, x·σ %v/%v",
					n, v, y[i], wy, gr[i], wr, gs[i], ws, m[i], v*s[i])
			}
		}
	}
}
