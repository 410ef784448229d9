package nets

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Finite-difference settings shared by the gradient checks of this package.
const (
	gcEps = 1e-6
	gcTol = 1e-5
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// randTensor returns an [r, c] tensor uniform on [lo, hi).
func randTensor(rng *rand.Rand, r, c int, lo, hi float64) *Tensor {
	t := NewTensor(r, c)
	for i := range t.Data {
		t.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

// randSigned returns an [r, c] tensor with magnitudes on [lo, hi) and
// random signs, keeping values away from kinks at zero.
func randSigned(rng *rand.Rand, r, c int, lo, hi float64) *Tensor {
	t := randTensor(rng, r, c, lo, hi)
	for i := range t.Data {
		if rng.IntN(2) == 0 {
			t.Data[i] = -t.Data[i]
		}
	}
	return t
}

// wsum reduces y to a scalar with fixed, distinct weights, so that a
// gradient check sees every output element with its own sensitivity.
func wsum(tp *Tape, y *Var) *Var {
	w := NewTensor(y.Value.Rows, y.Value.Cols)
	for i := range w.Data {
		w.Data[i] = math.Sin(1.7*float64(i)+0.3) + 0.5
	}
	return tp.Sum(tp.Mul(y, tp.Const(w)))
}

// checkGrad runs CheckGrad on f with the package's settings.
func checkGrad(t *testing.T, name string, f func(tp *Tape, in []*Var) *Var, inputs ...*Tensor) {
	t.Helper()
	if err := CheckGrad(f, inputs, gcEps, gcTol); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// assertClose fails when got and want differ by more than tol elementwise.
func assertClose(t *testing.T, name string, got, want *Tensor, tol float64) {
	t.Helper()
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %s, want %s", name, got.Shape(), want.Shape())
	}
	for i := range got.Data {
		if math.Abs(got.Data[i]-want.Data[i]) > tol || math.IsNaN(got.Data[i]) {
			t.Fatalf("%s: element %d = %.12g, want %.12g", name, i, got.Data[i], want.Data[i])
		}
	}
}

func TestUnaryGrad(t *testing.T) {
	rng := newRNG(1)
	cases := []struct {
		name   string
		op     func(tp *Tape, a *Var) *Var
		lo, hi float64
		signed bool
	}{
		{"ReLU", (*Tape).ReLU, 0.05, 2, true},
		{"Tanh", (*Tape).Tanh, 0, 2, true},
		{"Sigmoid", (*Tape).Sigmoid, 0, 3, true},
		{"Softplus", (*Tape).Softplus, 0, 4, true},
		{"SiLU", (*Tape).SiLU, 0, 3, true},
		{"Exp", (*Tape).Exp, 0, 1.5, true},
		{"Log", (*Tape).Log, 0.3, 3, false},
		{"Square", (*Tape).Square, 0, 2, true},
		{"Abs", (*Tape).Abs, 0.05, 2, true},
		{"Sqrt", (*Tape).Sqrt, 0.3, 3, false},
		{"Neg", (*Tape).Neg, 0, 2, true},
		{"Scale", func(tp *Tape, a *Var) *Var { return tp.Scale(a, -2.5) }, 0, 2, true},
		{"AddConst", func(tp *Tape, a *Var) *Var { return tp.AddConst(a, 0.7) }, 0, 2, true},
	}
	for _, c := range cases {
		var x *Tensor
		if c.signed {
			x = randSigned(rng, 3, 4, c.lo, c.hi)
		} else {
			x = randTensor(rng, 3, 4, c.lo, c.hi)
		}
		checkGrad(t, c.name, func(tp *Tape, in []*Var) *Var { return wsum(tp, c.op(tp, in[0])) }, x)
	}
}

func TestUnaryValues(t *testing.T) {
	tp := NewTape()
	x := tp.Const(FromSlice(1, 5, []float64{-2, -0.5, 0, 0.5, 2}))
	want := map[string]struct {
		got  *Var
		want func(float64) float64
	}{
		"ReLU":     {tp.ReLU(x), func(v float64) float64 { return math.Max(v, 0) }},
		"Tanh":     {tp.Tanh(x), math.Tanh},
		"Sigmoid":  {tp.Sigmoid(x), func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		"Softplus": {tp.Softplus(x), func(v float64) float64 { return math.Log(1 + math.Exp(v)) }},
		"SiLU":     {tp.SiLU(x), func(v float64) float64 { return v / (1 + math.Exp(-v)) }},
		"Exp":      {tp.Exp(x), math.Exp},
		"Square":   {tp.Square(x), func(v float64) float64 { return v * v }},
		"Abs":      {tp.Abs(x), math.Abs},
	}
	for name, c := range want {
		for i, v := range x.Value.Data {
			if got := c.got.Value.Data[i]; math.Abs(got-c.want(v)) > 1e-14 {
				t.Errorf("%s(%g) = %.16g, want %.16g", name, v, got, c.want(v))
			}
		}
	}
}

// TestSaturatingStable checks that the sigmoid-like ops neither overflow
// nor lose their gradient for large |x|.
func TestSaturatingStable(t *testing.T) {
	tp := NewTape()
	x := tp.Input(FromSlice(1, 4, []float64{-1000, -40, 40, 1000}))
	sp := tp.Softplus(x)
	sg := tp.Sigmoid(x)
	si := tp.SiLU(x)
	tp.Backward(tp.Sum(tp.Add(tp.Add(sp, sg), si)))
	if !sp.Value.AllFinite() || !sg.Value.AllFinite() || !si.Value.AllFinite() || !x.Grad.AllFinite() {
		t.Fatalf("non-finite: softplus %v sigmoid %v silu %v grad %v", sp.Value.Data, sg.Value.Data, si.Value.Data, x.Grad.Data)
	}
	if sp.Value.Data[3] != 1000 || sp.Value.Data[0] != 0 {
		t.Errorf("softplus(±1000) = %v", sp.Value.Data)
	}
	if math.Abs(sp.Value.Data[1]-math.Exp(-40)) > 1e-30 {
		t.Errorf("softplus(-40) = %g, want %g", sp.Value.Data[1], math.Exp(-40))
	}
	if sg.Value.Data[0] != 0 || sg.Value.Data[3] != 1 {
		t.Errorf("sigmoid(±1000) = %v", sg.Value.Data)
	}
}

func TestBinaryGrad(t *testing.T) {
	rng := newRNG(2)
	ops := []struct {
		name string
		op   func(tp *Tape, a, b *Var) *Var
	}{
		{"Add", (*Tape).Add}, {"Sub", (*Tape).Sub}, {"Mul", (*Tape).Mul}, {"Div", (*Tape).Div},
	}
	shapes := []struct {
		name       string
		ar, ac     int
		br, bc     int
		swapAllows bool // the broadcast operand may come first
	}{
		{"same", 3, 4, 3, 4, false},
		{"row", 3, 4, 1, 4, true},
		{"scalar", 3, 4, 1, 1, true},
		{"column-scalar", 5, 1, 1, 1, true},
		// Large enough to span several broadcast chunks with a partial
		// last chunk.
		{"row-chunks", 700, 2, 1, 2, false},
		{"scalar-chunks", 37, 29, 1, 1, false},
	}
	for _, op := range ops {
		for _, s := range shapes {
			a := randSigned(rng, s.ar, s.ac, 0.5, 2)
			b := randSigned(rng, s.br, s.bc, 0.5, 2)
			name := op.name + "/" + s.name
			checkGrad(t, name, func(tp *Tape, in []*Var) *Var { return wsum(tp, op.op(tp, in[0], in[1])) }, a, b)
			if s.swapAllows && op.name != "Div" {
				checkGrad(t, name+"/swapped", func(tp *Tape, in []*Var) *Var { return wsum(tp, op.op(tp, in[1], in[0])) }, a, b)
			}
		}
		// The same var as both operands.
		x := randSigned(rng, 2, 3, 0.5, 2)
		checkGrad(t, op.name+"/self", func(tp *Tape, in []*Var) *Var { return wsum(tp, op.op(tp, in[0], in[0])) }, x)
		// A constant second operand.
		y := randSigned(rng, 1, 3, 0.5, 2)
		checkGrad(t, op.name+"/const", func(tp *Tape, in []*Var) *Var {
			return wsum(tp, op.op(tp, in[0], tp.Const(y)))
		}, x)
	}
}

func TestBinaryBroadcastValues(t *testing.T) {
	rng := newRNG(3)
	a := randSigned(rng, 300, 3, 0.5, 2)
	row := randSigned(rng, 1, 3, 0.5, 2)
	sc := Scalar(-1.5)
	tp := NewTape()
	f := map[string]func(x, y float64) float64{
		"Add": func(x, y float64) float64 { return x + y },
		"Sub": func(x, y float64) float64 { return x - y },
		"Mul": func(x, y float64) float64 { return x * y },
		"Div": func(x, y float64) float64 { return x / y },
	}
	ops := map[string]func(a, b *Var) *Var{"Add": tp.Add, "Sub": tp.Sub, "Mul": tp.Mul, "Div": tp.Div}
	for name, op := range ops {
		gotRow := op(tp.Const(a), tp.Const(row)).Value
		gotSc := op(tp.Const(a), tp.Const(sc)).Value
		for i := range a.Rows {
			for j := range a.Cols {
				if w := f[name](a.At(i, j), row.At(0, j)); gotRow.At(i, j) != w {
					t.Fatalf("%s row broadcast (%d,%d) = %g, want %g", name, i, j, gotRow.At(i, j), w)
				}
				if w := f[name](a.At(i, j), -1.5); gotSc.At(i, j) != w {
					t.Fatalf("%s scalar broadcast (%d,%d) = %g, want %g", name, i, j, gotSc.At(i, j), w)
				}
			}
		}
	}
	// A broadcast first operand of Sub: row − a.
	got := tp.Sub(tp.Const(row), tp.Const(a)).Value
	if !got.SameShape(a) || got.At(7, 2) != row.At(0, 2)-a.At(7, 2) {
		t.Errorf("Sub(row, a) = %s %g, want %s %g", got.Shape(), got.At(7, 2), a.Shape(), row.At(0, 2)-a.At(7, 2))
	}
}

func TestBinaryShapeMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Add of [2, 3] and [2, 2] did not panic")
		}
	}()
	tp := NewTape()
	tp.Add(tp.Const(NewTensor(2, 3)), tp.Const(NewTensor(2, 2)))
}

func TestBinaryEmpty(t *testing.T) {
	tp := NewTape()
	a := tp.Input(NewTensor(3, 0))
	b := tp.Input(NewTensor(1, 0))
	tp.Backward(tp.Add(tp.Sum(tp.Mul(a, b)), tp.Const(Scalar(1))))
	if y := tp.Mul(a, b).Value; y.Rows != 3 || y.Cols != 0 {
		t.Errorf("Mul of empty: %s", y.Shape())
	}
}

// TestSigmoidForms: sigmoid agrees with the two textbook forms to four
// ulps (below 0 its one form rounds e^−x and the sum where e^x/(1+e^x)
// rounds e^x), keeps NaN, and reaches 0 and 1 at the extremes.
func TestSigmoidForms(t *testing.T) {
	rng := newRNG(90)
	for i := 0; i < 10000; i++ {
		x := 40 * (rng.Float64() - 0.5)
		want := 1 / (1 + math.Exp(-x))
		if x < 0 {
			want = math.Exp(x) / (1 + math.Exp(x))
		}
		if got := sigmoid(x); math.Abs(got-want) > 8.9e-16*want+1e-300 {
			t.Fatalf("sigmoid(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(sigmoid(math.NaN())) || sigmoid(-800) != 0 || sigmoid(800) != 1 || sigmoid(0) != 0.5 {
		t.Errorf("sigmoid(NaN, −800, 800, 0) = %v %v %v %v", sigmoid(math.NaN()), sigmoid(-800), sigmoid(800), sigmoid(0))
	}
}
