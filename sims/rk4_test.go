package sims

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"apic/nets"
)

// slvDot is the scalar loss Σ w_i y_i with fixed weights: it turns an op's
// output into a scalar for gradient checks, exercising every output entry.
type slvDot struct{ w []float64 }

func (d slvDot) Forward(in []*nets.Tensor) *nets.Tensor {
	var s float64
	for i, v := range in[0].Data {
		s += d.w[i] * v
	}
	return nets.Scalar(s)
}

func (d slvDot) Backward(_ []*nets.Tensor, _, og *nets.Tensor, g []*nets.Tensor) {
	if g[0] != nil {
		for i, w := range d.w {
			g[0].Data[i] += og.Data[0] * w
		}
	}
}

// slvLoss reduces v to Σ w_i v_i with weights w_i ~ U(−1, 1) from a fixed
// seed, so repeated evaluations use the same weights.
func slvLoss(tp *nets.Tape, v *nets.Var) *nets.Var {
	rng := rand.New(rand.NewPCG(7, 11))
	w := make([]float64, v.Value.Len())
	for i := range w {
		w[i] = 2*rng.Float64() - 1
	}
	return tp.Apply(slvDot{w: w}, v)
}

// slvUniform returns a [rows, cols] tensor of U(lo, hi) draws.
func slvUniform(rng *rand.Rand, rows, cols int, lo, hi float64) *nets.Tensor {
	t := nets.NewTensor(rows, cols)
	for i := range t.Data {
		t.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

// lvBatch draws B prior parameter sets and initial states.
func lvBatch(rng *rand.Rand, b int) (theta, u0 *nets.Tensor) {
	return slvUniform(rng, b, 4, 0.5, 1.5), slvUniform(rng, b, 2, 0.7, 1.8)
}

func TestLVRK4GradShortGrid(t *testing.T) {
	for _, substeps := range []int{1, 2} {
		rng := rand.New(rand.NewPCG(1, uint64(substeps)))
		newOp := func() *LVRK4 { return newLVRK4(substeps, 4, 0.4) }
		theta, u0 := lvBatch(rng, 2)
		forcing := slvUniform(rng, 2, newOp().ForcingLen(), 0, 0.3)
		f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
			return slvLoss(tp, tp.Apply(newOp(), in...))
		}
		if err := nets.CheckGrad(f, []*nets.Tensor{theta, u0, forcing}, 1e-6, 1e-7); err != nil {
			t.Errorf("substeps %d, with forcing: %v", substeps, err)
		}
		if err := nets.CheckGrad(f, []*nets.Tensor{theta, u0}, 1e-6, 1e-7); err != nil {
			t.Errorf("substeps %d, no forcing: %v", substeps, err)
		}
	}
}

func TestLVRK4GradFullGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	theta, u0 := lvBatch(rng, 2)
	op := NewLVRK4(LVModelSubsteps)
	forcing := slvUniform(rng, 2*op.ForcingLen(), 1, 0, 0.2) // the closure's [B·M, 1] layout
	f := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, tp.Apply(NewLVRK4(LVModelSubsteps), in...))
	}
	if err := nets.CheckGrad(f, []*nets.Tensor{theta, u0, forcing}, 1e-6, 1e-6); err != nil {
		t.Error(err)
	}
}

// TestLVRK4PartialGrads checks that inputs needing no gradient are skipped
// and the others still get theirs.
func TestLVRK4PartialGrads(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	theta, u0 := lvBatch(rng, 3)
	op := NewLVRK4(1)
	forcing := slvUniform(rng, 3, op.ForcingLen(), 0, 0.2)

	full := nets.NewTape()
	vf := []*nets.Var{full.Input(theta), full.Input(u0), full.Input(forcing)}
	full.Backward(slvLoss(full, full.Apply(NewLVRK4(1), vf...)))

	part := nets.NewTape()
	th := part.Input(theta)
	part.Backward(slvLoss(part, part.Apply(NewLVRK4(1), th, part.Const(u0), part.Const(forcing))))
	for i, g := range th.Grad.Data {
		if g != vf[0].Grad.Data[i] {
			t.Fatalf("theta grad %d: %g alone, %g with all inputs", i, g, vf[0].Grad.Data[i])
		}
	}
}

func TestLVStageTimes(t *testing.T) {
	for _, s := range []int{1, 2, 16} {
		ts := LVStageTimes(s)
		if len(ts) != 2*s*99+1 || len(ts) != NewLVRK4(s).ForcingLen() {
			t.Fatalf("substeps %d: %d stage times", s, len(ts))
		}
		if ts[0] != 0 || math.Abs(ts[len(ts)-1]-10) > 1e-12 {
			t.Errorf("substeps %d: lattice [%g, %g], want [0, 10]", s, ts[0], ts[len(ts)-1])
		}
		// Every 2·substeps-th lattice time is a grid time.
		for j := 0; j <= 99; j++ {
			if math.Abs(ts[2*s*j]-10*float64(j)/99) > 1e-12 {
				t.Fatalf("substeps %d: τ_%d = %g, want grid time %g", s, 2*s*j, ts[2*s*j], 10*float64(j)/99)
			}
		}
	}
}

// lvIntegrate runs the full-grid scheme for one realization with the true
// forcing sampled at the scheme's lattice (or none).
func lvIntegrate(substeps int, theta, u0 []float64, forced bool) []float64 {
	s := newLVScheme(substeps, lvIntervals, lvHorizon/lvIntervals)
	var d []float64
	if forced {
		d = LVTrueForcing(theta, u0, s.stageTimes())
	}
	out := make([]float64, s.outLen())
	s.integrate(1, theta, u0, d, out, nil)
	return out
}

func slvMaxDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestLVRK4Convergence compares 4 sub-steps with 256 (a fourth-order
// scheme: the error drops 4096-fold, so 256 is exact to round-off here).
// A wrong forcing lattice would cost first-order accuracy and fail this.
func TestLVRK4Convergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	lv := newLotkaVolterra()
	for range 3 {
		th, u0 := lv.SampleTheta(rng), lv.SampleSide(rng)
		for _, forced := range []bool{false, true} {
			coarse := lvIntegrate(4, th, u0, forced)
			fine := lvIntegrate(256, th, u0, forced)
			if e := slvMaxDiff(coarse, fine); e > 1e-6 {
				t.Errorf("θ %v u0 %v forced %v: 4 vs 256 sub-steps differ by %.3g", th, u0, forced, e)
			}
		}
	}
}

// TestLVModelSubstepsAccuracy bounds the model integrator's error against
// the data integrator over prior draws (documented at LVModelSubsteps).
func TestLVModelSubstepsAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	lv := newLotkaVolterra()
	substeps := []int{1, 2, 4}
	if !slices.Contains(substeps, LVModelSubsteps) {
		substeps = append(substeps, LVModelSubsteps)
	}
	worst := make(map[int]float64)
	for range 100 {
		r := Draw(lv, rng)
		for _, s := range substeps {
			e := max(slvMaxDiff(lvIntegrate(s, r.Theta, r.Side, true), r.True),
				slvMaxDiff(lvIntegrate(s, r.Theta, r.Side, false), r.Nominal))
			worst[s] = max(worst[s], e)
		}
	}
	for _, s := range substeps {
		t.Logf("max |model − data| over 100 draws with %d sub-steps: %.2g", s, worst[s])
	}
	if e := worst[LVModelSubsteps]; e > 1e-5 {
		t.Errorf("model integrator (%d sub-steps) off by %.3g, want ≤ 1e-5", LVModelSubsteps, e)
	}
}

// TestLVRK4Projection: a forcing that drives the prey below zero (as a
// learned forcing can from a noisy context) gives finite, non-negative
// populations with the prey held at zero, where the unprojected scheme
// overflows; the adjoint and the tangent stay exact derivatives of the
// projected trajectory.
func TestLVRK4Projection(t *testing.T) {
	lv, err := Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 13))
	theta, side := lv.SampleTheta(rng), lv.SampleSide(rng)
	c := lv.Closure().(TangentClosure)
	f := make([]float64, len(c.Queries()))
	for i := range f {
		f[i] = -3 + 0.2*rng.Float64()
	}
	pred := applyRow(c, theta, side, f)
	zeros := 0
	for i, v := range pred {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("value %d = %g, want a finite population", i, v)
		}
		if i%2 == 0 && v == 0 {
			zeros++
		}
	}
	if zeros < len(pred)/4 {
		t.Errorf("the prey is zero at %d of %d grid points; the forcing should hold it there", zeros, len(pred)/2)
	}
	checkTangentAt(t, "lv projected", c, theta, side, f, rng)

	op := NewLVRK4(LVModelSubsteps)
	th := nets.FromSlice(1, 4, theta)
	u0 := nets.FromSlice(1, 2, side)
	forcing := slvUniform(rng, 1, op.ForcingLen(), -3, -2.8)
	loss := func(tp *nets.Tape, in []*nets.Var) *nets.Var {
		return slvLoss(tp, tp.Apply(NewLVRK4(LVModelSubsteps), in...))
	}
	if err := nets.CheckGrad(loss, []*nets.Tensor{th, u0, forcing}, 1e-6, 1e-6); err != nil {
		t.Error(err)
	}
}

// TestLVRK4ForwardInto: the arena path (nets.IntoOp) writes exactly
// Forward's values, through an arena tape as prediction records it.
func TestLVRK4ForwardInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	theta, u0 := lvBatch(rng, 3)
	op := NewLVRK4(LVModelSubsteps)
	forcing := slvUniform(rng, 3, op.ForcingLen(), -0.1, 0.3)
	want := op.Forward([]*nets.Tensor{theta, u0, forcing})
	tp := nets.NewArenaTape(new(nets.Arena))
	got := tp.Apply(NewLVRK4(LVModelSubsteps), tp.Const(theta), tp.Const(u0), tp.Const(forcing)).Value
	if !slices.Equal(got.Data, want.Data) {
		t.Fatalf("ForwardInto differs from Forward (max %g)", slvMaxDiff(got.Data, want.Data))
	}
}
