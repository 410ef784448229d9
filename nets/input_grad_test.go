package nets

import (
	"fmt"
	"math"
	"testing"
)

// TestTiledInputGrad: the per-row input derivatives of TiledInputGrad
// match central differences of the tiled forward pass, for every
// activation, one to three layers, one or two outputs, with and without
// a full part, for a column range across the per-query, per-group and
// full parts; its values equal ForwardTiled's.
func TestTiledInputGrad(t *testing.T) {
	acts := []Activation{ActReLU, ActSiLU, ActTanh, ActSigmoid, ActSoftplus, ActIdentity}
	for _, act := range acts {
		for _, sizes := range [][]int{{0, 2}, {0, 9}, {0, 6, 1}, {0, 7, 6, 2}} {
			for _, withFull := range []bool{false, true} {
				name := fmt.Sprintf("%s/%v/full=%v", act, sizes, withFull)
				checkTiledInputGrad(t, name, act, sizes, withFull)
			}
		}
	}
}

func checkTiledInputGrad(t *testing.T, name string, act Activation, sizes []int, withFull bool) {
	t.Helper()
	rng := newRNG(75)
	q, r, kq, kr, kf := 4, 3, 2, 3, 0
	if withFull {
		kf = 2
	}
	sizes = append([]int{kq + kr + kf}, sizes[1:]...)
	var ps Params
	m := NewMLP("m", sizes, act, &ps, rng)
	randomBiases(m, rng)
	xq, xr := randSigned(rng, q, kq, 0, 1), randSigned(rng, r, kr, 0, 1)
	var xf *Tensor
	if withFull {
		xf = randSigned(rng, r*q, kf, 0, 1)
	}
	forward := func() *Tensor {
		tp := NewTape()
		var xfv *Var
		if xf != nil {
			xfv = tp.Const(xf)
		}
		return m.ForwardTiled(tp, tp.Const(xq), tp.Const(xr), xfv).Value
	}
	lo, n := 1, kq+kr+kf-1 // every column but the first
	y, g := m.TiledInputGrad(xq, xr, xf, lo, n, 2)
	assertClose(t, name+"/value", y, forward(), 1e-13)
	if len(g) != m.Out() {
		t.Fatalf("%s: %d derivative blocks, want %d", name, len(g), m.Out())
	}
	// Perturb one input column of one row: a per-query or per-group
	// column moves every row sharing it, so the row's own derivative is
	// read off that row only.
	const eps = 1e-6
	kinks, checks := 0, 0
	for c := lo; c < lo+n; c++ {
		for row := range r * q {
			i, j := row/q, row%q
			cell := func() *float64 {
				switch {
				case c < kq:
					return &xq.Data[j*kq+c]
				case c < kq+kr:
					return &xr.Data[i*kr+c-kq]
				default:
					return &xf.Data[row*kf+c-kq-kr]
				}
			}()
			orig := *cell
			*cell = orig + eps
			yp := forward()
			*cell = orig - eps
			ym := forward()
			*cell = orig
			for o := range m.Out() {
				num := (yp.At(row, o) - ym.At(row, o)) / (2 * eps)
				got := g[o].At(row, c-lo)
				checks++
				if act == ActReLU && math.Abs(num-got) > 1e-6 {
					// A kink within eps of the point is the only excuse,
					// and a rare one.
					kinks++
					continue
				}
				if math.Abs(num-got) > 1e-7*math.Max(1, math.Abs(num)) {
					t.Fatalf("%s: ∂y[%d,%d]/∂x[%d] = %.10g, central difference %.10g", name, row, o, c, got, num)
				}
			}
		}
	}
	if kinks > checks/50 {
		t.Fatalf("%s: %d of %d derivatives differ from central differences", name, kinks, checks)
	}
}
