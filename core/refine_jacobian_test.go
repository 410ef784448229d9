package core

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/nets"
	"apic/sims"
)

// shippedModel loads a shipped checkpoint and n of its system's seeded
// test realizations.
func shippedModel(t testing.TB, sys string, bb Backbone, n int) (*Model, []sims.Task) {
	t.Helper()
	m, _, err := LoadCheckpoint(filepath.Join("..", "checkpoints", sys+"-"+string(bb)+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: n, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return m, tasks
}

// centralJacobians is J = ∂residuals/∂v by central differences of step h.
func (r *refiner) centralJacobians(v *nets.Tensor, h float64) []*mat.Dense {
	res := func(vp *nets.Tensor) [][]float64 {
		pred, _, _ := r.decode(vp, 1)
		out := make([][]float64, r.b)
		for b := range out {
			out[b] = r.residuals(b, vp.Row(b), pred.Row(b))
		}
		return out
	}
	base := res(v)
	js := make([]*mat.Dense, r.b)
	for b := range js {
		js[b] = mat.NewDense(len(base[b]), r.n, nil)
	}
	for c := range r.n {
		plus, minus := v.Clone(), v.Clone()
		for b := range r.b {
			plus.Set(b, c, v.At(b, c)+h)
			minus.Set(b, c, v.At(b, c)-h)
		}
		rp, rm := res(plus), res(minus)
		for b := range r.b {
			for i := range rp[b] {
				js[b].Set(i, c, (rp[b][i]-rm[b][i])/(2*h))
			}
		}
	}
	return js
}

// TestExactJacobianMatchesDifferences: refinement's exact Jacobian (f_ψ's
// reverse pass and the closure's tangent) equals central differences of
// the residuals on the shipped checkpoints of every system and backbone,
// for a batch of two realizations at the encoders' starting point and at
// a point moved off it; and linearizing one realization of the batch
// gives its part of the whole batch's.
func TestExactJacobianMatchesDifferences(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, bb := range Backbones {
			m, tasks := shippedModel(t, sys, bb, 2)
			bt, err := NewBatch(m.Sys, []sims.Context{tasks[0].Context, tasks[1].Context}, [][]float64{tasks[0].Real.Side, tasks[1].Real.Side}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, v, err := m.newRefiner(bt)
			if err != nil {
				t.Fatal(err)
			}
			tc, ok := r.tangentClosure()
			if !ok {
				t.Fatalf("%s/%s: no exact Jacobian", sys, bb)
			}
			moved := v.Clone()
			for i := range moved.Data {
				moved.Data[i] += 0.05 * math.Sin(float64(3*i+1))
			}
			for name, at := range map[string]*nets.Tensor{"start": v, "moved": moved} {
				exact, num := r.linearize(tc, at, nil).js, r.centralJacobians(at, 1e-5)
				for b := range exact {
					if err := sameJacobian(exact[b], num[b], 1e-6); err != nil {
						t.Errorf("%s/%s %s, realization %d: %v", sys, bb, name, b, err)
					}
				}
				// Linearizing realization 1 alone gives its part of the batch's.
				one := r.linearize(tc, at, []int{1})
				if one.js[0] != nil || !mat.Equal(one.js[1], exact[1]) {
					t.Errorf("%s/%s %s: realization 1 alone has another Jacobian", sys, bb, name)
				}
			}
		}
	}
}

// sameJacobian checks every entry of got against want within tol times
// the largest entry of want's column (at least 1).
func sameJacobian(got, want *mat.Dense, tol float64) error {
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		return fmt.Errorf("Jacobian %d×%d, differences give %d×%d", gr, gc, wr, wc)
	}
	for c := range wc {
		scale := 1.0
		for i := range wr {
			scale = math.Max(scale, math.Abs(want.At(i, c)))
		}
		for i := range wr {
			if d := math.Abs(got.At(i, c) - want.At(i, c)); d > tol*scale || math.IsNaN(d) {
				return fmt.Errorf("entry (%d, %d) = %.10g, central difference %.10g (column scale %.3g)", i, c, got.At(i, c), want.At(i, c), scale)
			}
		}
	}
	return nil
}

// TestExactRefinementMatchesDifferences: refinement with exact Jacobians
// (every step run, refineTol 0) gives the θ and the prediction that
// forward differences gave, on
// three seeded realizations with every shipped checkpoint: θ within 1e-6
// relative, the mean within 1e-6 of the grid's scale, the deviations
// within 1e-3 relative (measured: at most 1e-7, 1e-8 and, for the
// deviations, 4.5e-4 on advdiff/anp, 6.1e-5 on advdiff/lnp and under
// 1e-6 on the other files). The two differ
// only by the difference step's error in J (about 1e-6 relative),
// which moves the Levenberg–Marquardt steps a little, and the Laplace
// covariance (JᵀJ)⁻¹ magnifies that error where JᵀJ is ill-conditioned. Both
// decode their Laplace samples here: the exact path's linearized samples
// (refineLinearSamples) are the subject of TestLinearSamplesFirstOrder,
// and where a file's spread reads the samples' variance (spring lnp and
// anp, SpreadContext) decoding them through the ReLU f_ψ gives other
// deviations than linearizing.
func TestExactRefinementMatchesDifferences(t *testing.T) {
	type run struct {
		sys string
		bb  Backbone
	}
	var runs []run
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		for _, bb := range Backbones {
			runs = append(runs, run{sys, bb})
		}
	}
	for _, rn := range runs {
		m, tasks := shippedModel(t, rn.sys, rn.bb, 3)
		ctxs, sides := make([]sims.Context, len(tasks)), make([][]float64, len(tasks))
		for i, tk := range tasks {
			ctxs[i], sides[i] = tk.Context, tk.Real.Side
		}
		predict := func(fd bool) []Prediction {
			defer func(old, lin bool, tol float64) {
				refineFD, refineLinearSamples, refineTol = old, lin, tol
			}(refineFD, refineLinearSamples, refineTol)
			refineFD, refineLinearSamples, refineTol = fd, false, 0
			ps, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 16, Seed: 3, Refine: -1})
			if err != nil {
				t.Fatal(err)
			}
			return ps
		}
		exact, fd := predict(false), predict(true)
		for i := range exact {
			name := fmt.Sprintf("%s/%s realization %d", rn.sys, rn.bb, i)
			for q := range exact[i].Theta {
				if d := math.Abs(exact[i].Theta[q] - fd[i].Theta[q]); d > 1e-6*math.Abs(fd[i].Theta[q]) {
					t.Errorf("%s: θ_%d = %.8g, with differences %.8g", name, q, exact[i].Theta[q], fd[i].Theta[q])
				}
			}
			scale := 0.0
			for _, y := range fd[i].Mean {
				scale = math.Max(scale, math.Abs(y))
			}
			for g := range exact[i].Mean {
				if d := math.Abs(exact[i].Mean[g] - fd[i].Mean[g]); d > 1e-6*scale {
					t.Errorf("%s: mean at %d = %.8g, with differences %.8g", name, g, exact[i].Mean[g], fd[i].Mean[g])
					break
				}
				if d := math.Abs(exact[i].Std[g] - fd[i].Std[g]); d > 1e-3*fd[i].Std[g] {
					t.Errorf("%s: deviation at %d = %.8g, with differences %.8g", name, g, exact[i].Std[g], fd[i].Std[g])
					break
				}
			}
		}
	}
}

// TestLinearSamplesFirstOrder: the linearized Laplace samples agree with
// decoding the same samples to first order: moved by t along a random
// direction from the mode, their prediction and f_ψ output differ from
// the decoded ones by O(t²), so halving t divides the gap by about four,
// not by the two a first-order error gives (more where the larger step
// crosses a kink of spring's ReLU f_ψ that the smaller does not), and θ
// is exact.
func TestLinearSamplesFirstOrder(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m, tasks := shippedModel(t, sys, LNP, 2)
		bt, err := NewBatch(m.Sys, []sims.Context{tasks[0].Context, tasks[1].Context}, [][]float64{tasks[0].Real.Side, tasks[1].Real.Side}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, v, err := m.newRefiner(bt)
		if err != nil {
			t.Fatal(err)
		}
		tc, _ := r.tangentClosure()
		lin := r.linearize(tc, v, nil)
		const k = 2
		gap := func(step float64) (dy, df, dth float64) {
			samples := nets.NewTensor(r.b*k, r.n)
			for b := range r.b {
				for s := range k {
					row := samples.Row(b*k + s)
					for j := range row {
						row[j] = v.At(b, j) + step*math.Cos(float64(7*j+3*s+b))
					}
				}
			}
			sp, th, f := r.linearSamples(tc, lin, v, samples, k)
			wantY, wantTh, wantF := r.decode(samples, k)
			return maxAbsDiff(sp, wantY), maxAbsDiff(f, wantF), maxAbsDiff(th, wantTh)
		}
		y1, f1, th1 := gap(1e-3)
		y2, f2, th2 := gap(5e-4)
		if th1 > 1e-12 || th2 > 1e-12 {
			t.Errorf("%s: θ of the samples off by %g", sys, max(th1, th2))
		}
		for _, c := range []struct {
			name   string
			g1, g2 float64
		}{{"prediction", y1, y2}, {"f", f1, f2}} {
			if ratio := c.g1 / c.g2; !(ratio > 3) && c.g1 > 1e-10 {
				t.Errorf("%s: %s gap %.3g at t = 0.001, %.3g at 0.0005 (ratio %.3g, want about 4: a first-order error would give 2)", sys, c.name, c.g1, c.g2, ratio)
			}
		}
	}
}

// maxAbsDiff is the largest |a − b| over the elements of two tensors of
// the same size.
func maxAbsDiff(a, b *nets.Tensor) float64 {
	d := 0.0
	for i, x := range a.Data {
		d = math.Max(d, math.Abs(x-b.Data[i]))
	}
	return d
}
