package cli

import (
	"math"
	"math/rand/v2"

	"apic/nets"
	"apic/sims"
)

// fakeSys is a tiny system for testing the command line without the real
// benchmarks. Three flavours cover the shapes simulate must handle:
//
//	testsys:   1-D grid of 5 times, channels (a, b), side info (a0, b0)
//	testfield: 3 × 4 (t, x) product grid, one channel, side field of 4
//	testplain: 1-D grid of 6 times, one channel, no side info
//
// Nominal a/b = p·t + side[c]; true adds q·t². testplain's truth is
// exp(p)·t, which overflows for huge p (a runtime failure to test).
type fakeSys struct {
	name    string
	grid    sims.Grid
	side    sims.SideInfo
	product bool
}

func init() {
	sims.Register(newFake("testsys"))
	sims.Register(newFake("testfield"))
	sims.Register(newFake("testplain"))
}

func newFake(name string) *fakeSys {
	f := &fakeSys{name: name}
	switch name {
	case "testsys":
		f.grid = sims.Grid{StateNames: []string{"t"}, Channels: []string{"a", "b"}, Lo: []float64{0}, Hi: []float64{1}}
		for j := range 5 {
			f.grid.States = append(f.grid.States, []float64{float64(j) / 4})
		}
		f.side = sims.SideInfo{Name: "u0", Len: 2, Labels: []string{"a0", "b0"}, Lo: 0, Hi: 2}
	case "testfield":
		f.product = true
		f.grid = sims.Grid{StateNames: []string{"t", "x"}, Channels: []string{"u"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Shape: []int{3, 4}}
		for n := range 3 {
			for i := range 4 {
				f.grid.States = append(f.grid.States, []float64{float64(n) / 2, float64(i) / 4})
			}
		}
		f.side = sims.SideInfo{Name: "u0", Len: 4, Lo: 0, Hi: 1}
	case "testplain":
		f.grid = sims.Grid{StateNames: []string{"t"}, Channels: []string{"y"}, Lo: []float64{0}, Hi: []float64{1}}
		for j := range 6 {
			f.grid.States = append(f.grid.States, []float64{float64(j) / 5})
		}
	}
	return f
}

func (f *fakeSys) Name() string  { return f.name }
func (f *fakeSys) Title() string { return "Fake " + f.name }
func (f *fakeSys) Formulas() []string {
	return []string{"F = a fake nominal", "G = a fake truth"}
}
func (f *fakeSys) Params() []sims.Param {
	return []sims.Param{{Name: "p", Lo: 0, Hi: 1}, {Name: "q", Lo: -1, Hi: 1}}
}
func (f *fakeSys) Grid() sims.Grid                                     { return f.grid }
func (f *fakeSys) Side() sims.SideInfo                                 { return f.side }
func (f *fakeSys) TrainContext() (lo, hi int)                          { return 1, 2 }
func (f *fakeSys) TestContext() int                                    { return 2 }
func (f *fakeSys) Valid([]float64) bool                                { return true }
func (f *fakeSys) Closure() sims.Closure                               { return nil }
func (f *fakeSys) FeatureLen() int                                     { return 1 }
func (f *fakeSys) QueryFeatureLen() int                                { return 1 }
func (f *fakeSys) QueryFeatures(dst, s []float64)                      {}
func (f *fakeSys) EncodeContext(*nets.Tensor, sims.Context, []float64) {}
func (f *fakeSys) NominalOp(*nets.Tape, *nets.Var, *nets.Tensor) *nets.Var {
	panic("fakeSys: NominalOp not needed by the CLI")
}

func (f *fakeSys) SampleTheta(rng *rand.Rand) []float64 {
	return []float64{rng.Float64(), 2*rng.Float64() - 1}
}

func (f *fakeSys) SampleSide(rng *rand.Rand) []float64 {
	side := make([]float64, f.side.Len)
	for i := range side {
		side[i] = rng.Float64()
	}
	return side
}

// sideAt is the side value channel c (or, on the product grid, column i
// of the initial field) starts from.
func (f *fakeSys) sideAt(side []float64, g, c int) float64 {
	switch {
	case f.side.Len == 0:
		return 0
	case f.product:
		return side[g%f.grid.Shape[1]]
	default:
		return side[c]
	}
}

func (f *fakeSys) Nominal(theta, side []float64) []float64 {
	nc := len(f.grid.Channels)
	out := make([]float64, f.grid.Size())
	for g, st := range f.grid.States {
		for c := range nc {
			out[g*nc+c] = theta[0]*st[0] + f.sideAt(side, g, c)
		}
	}
	return out
}

func (f *fakeSys) True(theta, side []float64) []float64 {
	out := f.Nominal(theta, side)
	nc := len(f.grid.Channels)
	for g, st := range f.grid.States {
		for c := range nc {
			if f.name == "testplain" {
				out[g*nc+c] = math.Exp(theta[0]) * st[0]
				continue
			}
			out[g*nc+c] += theta[1] * st[0] * st[0]
		}
	}
	return out
}
