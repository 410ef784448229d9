package nets

import (
	"math"
	"testing"
)

// quadratic sets the gradient of ½‖p − target‖² into p.Grad and returns
// the loss.
func quadratic(p *Param, target []float64) float64 {
	l := 0.0
	for i, v := range p.Value.Data {
		d := v - target[i]
		p.Grad.Data[i] = d
		l += 0.5 * d * d
	}
	return l
}

func TestAdamMinimizesQuadratic(t *testing.T) {
	var ps Params
	p := NewParam("p", 2, 3)
	ps.Add(p)
	target := []float64{1, -2, 3, 0.5, -0.25, 10}
	opt := NewAdam(0.05)
	start := quadratic(p, target)
	for range 2000 {
		quadratic(p, target)
		opt.Step(&ps)
	}
	if l := quadratic(p, target); l > 1e-8*start {
		t.Errorf("loss %g after 2000 steps (start %g); p = %v", l, start, p.Value.Data)
	}
	if opt.Steps() != 2000 {
		t.Errorf("Steps() = %d", opt.Steps())
	}
}

// TestAdamFirstStep checks the bias correction: the first update is
// −LR·g/(|g| + ε) ≈ −LR·sign(g) whatever the gradient's scale.
func TestAdamFirstStep(t *testing.T) {
	var ps Params
	p := NewParam("p", 1, 3)
	ps.Add(p)
	copy(p.Grad.Data, []float64{3, -1e-3, 200})
	opt := NewAdam(0.1)
	if n := opt.Step(&ps); math.Abs(n-math.Sqrt(9+1e-6+40000)) > 1e-9 {
		t.Errorf("returned norm %g", n)
	}
	for i, want := range []float64{-0.1, 0.1, -0.1} {
		if math.Abs(p.Value.Data[i]-want) > 1e-6 {
			t.Errorf("p[%d] = %g, want %g", i, p.Value.Data[i], want)
		}
	}
}

// TestAdamClipping checks that clipping rescales the gradient before the
// moments see it (so a huge gradient is equivalent to its clipped version),
// returns the pre-clip norm, and caps the step after an outlier gradient.
func TestAdamClipping(t *testing.T) {
	newRun := func(clip float64) (*Adam, *Params, *Param) {
		var ps Params
		p := NewParam("p", 1, 2)
		ps.Add(p)
		a := NewAdam(0.01)
		a.ClipNorm = clip
		return a, &ps, p
	}
	// Equivalence: clipped huge gradients vs. the same gradients pre-scaled.
	clipped, cps, cp := newRun(1)
	plain, pps, pp := newRun(0)
	grads := [][]float64{{300, -400}, {0.3, 0.1}, {-60, 80}, {0.2, -0.2}}
	for _, g := range grads {
		copy(cp.Grad.Data, g)
		norm := math.Hypot(g[0], g[1])
		if got := clipped.Step(cps); math.Abs(got-norm) > 1e-12 {
			t.Fatalf("Step returned %g, want pre-clip norm %g", got, norm)
		}
		s := min(1, 1/norm)
		pp.Grad.Data[0], pp.Grad.Data[1] = g[0]*s, g[1]*s
		plain.Step(pps)
	}
	assertClose(t, "clipped vs pre-scaled", cp.Value, pp.Value, 1e-15)

	// Cap: after a long run of unit gradients an outlier 1e4 times larger
	// moves an unclipped Adam by about LR(1−β1)/√(1−β2) ≈ 3.2 LR, a
	// clipped one by at most about LR.
	capped, caps, capp := newRun(math.Sqrt2)
	free, fps, fp := newRun(0)
	for range 3000 {
		for _, p := range []*Param{capp, fp} {
			p.Grad.Data[0], p.Grad.Data[1] = 1, 1
		}
		capped.Step(caps)
		free.Step(fps)
	}
	before, beforeFree := capp.Value.Data[0], fp.Value.Data[0]
	capp.Grad.Data[0], capp.Grad.Data[1] = 1e4, 1e4
	fp.Grad.Data[0], fp.Grad.Data[1] = 1e4, 1e4
	capped.Step(caps)
	free.Step(fps)
	stepCapped := math.Abs(capp.Value.Data[0] - before)
	stepFree := math.Abs(fp.Value.Data[0] - beforeFree)
	if stepCapped > 1.01*capped.LR || stepFree < 3*free.LR {
		t.Errorf("outlier step: clipped %g, unclipped %g (LR %g)", stepCapped, stepFree, free.LR)
	}
}

func TestAdamWeightDecay(t *testing.T) {
	var ps Params
	p := NewParam("p", 1, 1)
	ps.Add(p)
	p.Value.Data[0] = 2
	opt := NewAdam(0.1)
	opt.WeightDecay = 0.5
	opt.Step(&ps) // zero gradient: only the decay acts
	if want := 2 * (1 - 0.1*0.5); math.Abs(p.Value.Data[0]-want) > 1e-15 {
		t.Errorf("decayed value %g, want %g", p.Value.Data[0], want)
	}
}

func TestAdamSkipsNonFinite(t *testing.T) {
	var ps Params
	p := NewParam("p", 1, 2)
	ps.Add(p)
	p.Value.Data[0], p.Value.Data[1] = 1, 2
	p.Grad.Data[0], p.Grad.Data[1] = math.NaN(), 1
	opt := NewAdam(0.1)
	opt.ClipNorm = 1
	if n := opt.Step(&ps); !math.IsNaN(n) {
		t.Errorf("norm %g, want NaN", n)
	}
	if p.Value.Data[0] != 1 || p.Value.Data[1] != 2 || opt.Steps() != 0 {
		t.Errorf("non-finite step changed the state: %v, steps %d", p.Value.Data, opt.Steps())
	}
}
