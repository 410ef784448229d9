package nets

import (
	"math"
	"testing"
)

// ulps is how many float64 steps separate a and b (same sign, finite).
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(float64(int64(math.Float64bits(a)) - int64(math.Float64bits(b))))
}

// TestExpInto: the vector exponential gives expScalar's values exactly
// at every position of a slice (the vector part and the tail), within
// two ulps of math.Exp over its range, and the limits of e^x.
func TestExpInto(t *testing.T) {
	forEachExpForm(t, testExpInto)
}

func testExpInto(t *testing.T) {
	rng := newRNG(80)
	x := make([]float64, 100003)
	for i := range x {
		switch i % 3 {
		case 0:
			x[i] = 1416 * (rng.Float64() - 0.5) // [−708, 708]
		case 1:
			x[i] = 4 * rng.NormFloat64()
		default:
			x[i] = 1e-3 * rng.NormFloat64()
		}
	}
	got := make([]float64, len(x))
	expInto(got, x)
	worst := 0.0
	for i, v := range x {
		if s := expScalar(v); got[i] != s {
			t.Fatalf("expInto(%v) = %v, expScalar %v", v, got[i], s)
		}
		worst = math.Max(worst, ulps(got[i], math.Exp(v)))
	}
	if worst > 2 {
		t.Errorf("expInto within %v ulps of math.Exp, want ≤ 2", worst)
	}
	// Four of each, so that the vector form sees them too.
	for _, c := range []struct{ x, want float64 }{
		{0, 1}, {math.Copysign(0, -1), 1}, {1, math.E}, {-1, 1 / math.E},
		{709.78, 1.7928227943945155e308}, // math.Exp on amd64 gives +Inf from 709.44
		{709.79, math.Inf(1)}, {800, math.Inf(1)}, {math.Inf(1), math.Inf(1)},
		{-745.14, 0}, {-800, 0}, {math.Inf(-1), 0},
		{-720, math.Exp(-720)}, {-745.13, math.Exp(-745.13)},
		{math.NaN(), math.NaN()},
	} {
		in := []float64{c.x, c.x, c.x, c.x, c.x}
		expInto(in, in)
		for _, g := range in {
			ok := g == c.want || (math.IsNaN(c.want) && math.IsNaN(g)) || ulps(g, c.want) <= 2
			if c.x < -708 && c.x > -745.13 { // subnormal: rounded twice
				ok = math.Abs(g-c.want) <= 2*math.SmallestNonzeroFloat64
			}
			if !ok {
				t.Errorf("expInto(%v) = %v, want %v", c.x, g, c.want)
				break
			}
		}
	}
	inPlace := append([]float64(nil), x[:37]...)
	expInto(inPlace, inPlace)
	for i := range inPlace {
		if inPlace[i] != got[i] {
			t.Fatalf("in place, value %d: %v, want %v", i, inPlace[i], got[i])
		}
	}
}

// TestSigmoidInto: the slice sigmoids, vector part and tail, give
// sigmoid's values exactly, and siluInto x·σ(x), into another slice and
// in place.
func TestSigmoidInto(t *testing.T) {
	forEachExpForm(t, testSigmoidInto)
}

func testSigmoidInto(t *testing.T) {
	rng := newRNG(81)
	x := make([]float64, 3*256+5)
	for i := range x {
		x[i] = 10 * rng.NormFloat64()
	}
	copy(x, []float64{-800, 800, 0, math.NaN(), math.Inf(1), math.Inf(-1), -745, 745})
	sig, silu := make([]float64, len(x)), make([]float64, len(x))
	sigmoidInto(sig, x)
	siluInto(silu, x)
	inPlace := append([]float64(nil), x...)
	siluInto(inPlace, inPlace)
	for i, v := range x {
		want := sigmoid(v)
		if sig[i] != want && !(math.IsNaN(want) && math.IsNaN(sig[i])) {
			t.Fatalf("sigmoidInto(%v) = %v, want %v", v, sig[i], want)
		}
		if w := v * want; silu[i] != w && !(math.IsNaN(w) && math.IsNaN(silu[i])) {
			t.Fatalf("siluInto(%v) = %v, want %v", v, silu[i], w)
		}
		if w := v * want; inPlace[i] != w && !(math.IsNaN(w) && math.IsNaN(inPlace[i])) {
			t.Fatalf("siluInto(%v) in place = %v, want %v", v, inPlace[i], w)
		}
	}
	if sig[0] != 0 || sig[1] != 1 || sig[2] != 0.5 {
		t.Errorf("sigmoidInto(−800, 800, 0) = %v", sig[:3])
	}
}

// TestSiluBiasInto: SiLU of x + b gives, for rows of every length
// around the vector forms' widths and in place, y·σ(y) of the sum
// y = x + b exactly, as a separate addition and siluInto give it.
func TestSiluBiasInto(t *testing.T) {
	forEachExpForm(t, func(t *testing.T) {
		rng := newRNG(83)
		for _, n := range []int{1, 3, 4, 5, 15, 16, 17, 19, 32, 35, 128, 131} {
			x, b := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], b[i] = 8*rng.NormFloat64(), 3*rng.NormFloat64()
			}
			want := make([]float64, n)
			for i := range x {
				want[i] = x[i] + b[i]
			}
			siluInto(want, want)
			got := make([]float64, n)
			siluBiasInto(got, x, b)
			inPlace := append([]float64(nil), x...)
			siluBiasInto(inPlace, inPlace, b)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(inPlace[i]) != math.Float64bits(want[i]) {
					t.Fatalf("length %d, value %d: silu(%v + %v) = %v (in place %v), want %v", n, i, x[i], b[i], got[i], inPlace[i], want[i])
				}
			}
		}
	})
}

// BenchmarkExp compares the vector exponential, in each form this CPU
// has, with math.Exp on a softmax row's worth of values.
func BenchmarkExp(b *testing.B) {
	rng := newRNG(82)
	x := make([]float64, 4096)
	for i := range x {
		x[i] = -4 * rng.Float64()
	}
	dst := make([]float64, len(x))
	eachExpForm(func(name string) {
		b.Run("expInto/"+name, func(b *testing.B) {
			for b.Loop() {
				expInto(dst, x)
			}
		})
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
	})
}
