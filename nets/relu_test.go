package nets

import (
	"math"
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
