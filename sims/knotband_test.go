package sims

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
)

// TestKnotBandMatchesProduct: the band form of spring's and lv's
// interpolation matrices gives the engine's product x·A bit for bit, so
// the tangents interpolate as the forward passes do; a matrix with a
// column of three nonzeros, or two apart, has no band form.
func TestKnotBandMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	spring := newSpring()
	for name, a := range map[string]*nets.Tensor{
		"spring": spring.Closure().(springEnvelope).interp,
		"lv":     lvKnotInterpolation(LVModelSubsteps),
		"edges":  knotInterpolation([]float64{0.5, 1, 2}, []float64{0, 0.5, 0.75, 2, 3}),
	} {
		band := newKnotBand(a)
		if band == nil {
			t.Fatalf("%s: no band form", name)
		}
		for _, rows := range []int{1, 5, 36} {
			x := make([]float64, rows*a.Rows)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Pow(10, 4*rng.Float64()-2)
			}
			want := nets.NewTensor(rows, a.Cols)
			nets.MatMulInto(want, nets.FromSlice(rows, a.Rows, x), a, false, false)
			got := make([]float64, rows*a.Cols)
			band.mul(got, x, rows)
			for i, w := range want.Data {
				if math.Float64bits(got[i]) != math.Float64bits(w) && !(got[i] == 0 && w == 0) {
					t.Fatalf("%s, %d rows: value %d = %v, product %v", name, rows, i, got[i], w)
				}
			}
			// Stage-major, by the band and by the product's fallback.
			for _, b := range []*knotBand{band, nil} {
				gt := make([]float64, rows*a.Cols)
				interpolateT(b, a, gt, x, rows)
				for r := range rows {
					for c := range a.Cols {
						if g, w := gt[c*rows+r], want.At(r, c); math.Float64bits(g) != math.Float64bits(w) && !(g == 0 && w == 0) {
							t.Fatalf("%s, %d rows, band %v: transposed (%d, %d) = %v, product %v", name, rows, b != nil, r, c, g, w)
						}
					}
				}
			}
		}
	}
	for _, col := range [][]float64{{1, 1, 1}, {1, 0, 1}} {
		if newKnotBand(nets.FromSlice(3, 1, col)) != nil {
			t.Errorf("column %v: a band form", col)
		}
	}
}
