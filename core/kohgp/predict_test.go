package kohgp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"apic/sims"
)

// TestPredictMatchesDensePosterior compares the grid posterior with the
// textbook formulas evaluated densely with gonum/mat at the fitted
// hyperparameters:
//
//	mean = F + k_*ᵀ K⁻¹ r,   var = σ_f² − k_*ᵀ K⁻¹ k_* + σ_n² + ν s².
func TestPredictMatchesDensePosterior(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	theta, y := springGPData(sys, 2)
	_, task := springTask(t, theta, y, 20, 0.01, 2)
	f, err := New(sys, Options{}).Fit(context.Background(), task.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Predict()
	ch := f.obj.chans[0]
	h := f.Hyper[0]
	n := len(ch.y)
	F := sys.Nominal(f.Theta, nil)
	K := mat.NewSymDense(n, nil)
	r := mat.NewVecDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := h.Kernel.At(ch.states[i], ch.states[j])
			if i == j {
				v += h.Kernel.Std*h.Kernel.Std*corrJitter + h.NoiseStd*h.NoiseStd + ch.floor
			}
			K.SetSym(i, j, v)
		}
		r.SetVec(i, ch.y[i]-F[ch.values[i]])
	}
	var kinv mat.Dense
	if err := kinv.Inverse(K); err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	for gp := range g.Points() {
		ks := mat.NewVecDense(n, nil)
		for i := range n {
			ks.SetVec(i, h.Kernel.At(ch.states[i], g.States[gp]))
		}
		var a mat.VecDense
		a.MulVec(&kinv, ks)
		mean := F[gp] + mat.Dot(&a, r)
		sd := math.Sqrt(math.Max(0, h.Kernel.Std*h.Kernel.Std-mat.Dot(&a, ks)) + h.NoiseStd*h.NoiseStd + ch.floor)
		if math.Abs(p.Mean[gp]-mean) > 1e-8 || math.Abs(p.Std[gp]-sd) > 1e-6 {
			t.Fatalf("grid point %d: mean %v std %v, dense %v %v", gp, p.Mean[gp], p.Std[gp], mean, sd)
		}
		if math.Abs(p.DeltaMean[gp]-(mean-F[gp])) > 1e-8 || p.DeltaStd[gp] != p.Std[gp] {
			t.Fatalf("grid point %d: δ %v ± %v, want %v ± %v", gp, p.DeltaMean[gp], p.DeltaStd[gp], mean-F[gp], p.Std[gp])
		}
		if math.Abs(p.Nominal[gp]-F[gp]) > 1e-12 {
			t.Fatalf("grid point %d: nominal %v, want %v", gp, p.Nominal[gp], F[gp])
		}
	}
	if p.Theta[0] != f.Theta[0] || p.ThetaStd[0] != f.ThetaStd[0] {
		t.Errorf("prediction θ %v ± %v, fit %v ± %v", p.Theta, p.ThetaStd, f.Theta, f.ThetaStd)
	}
}
