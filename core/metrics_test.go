package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

func TestMAE(t *testing.T) {
	mu := []float64{1, 2, 3, 4}
	truth := []float64{2, 100, 1, 8}
	// Index 1 is not a target: its huge error must not count.
	if got, want := MAE(mu, truth, []int{0, 2, 3}), 7.0/3; math.Abs(got-want) > 1e-15 {
		t.Errorf("MAE = %v, want %v", got, want)
	}
	if got := MAE(mu, truth, []int{3}); got != 4 {
		t.Errorf("MAE of one point = %v, want 4", got)
	}
	if got := MAE(mu, truth, nil); !math.IsNaN(got) {
		t.Errorf("MAE over no targets = %v, want NaN", got)
	}
}

func TestGaussianLL(t *testing.T) {
	mu := []float64{0, 1, 5}
	sd := []float64{1, 2, 1}
	truth := []float64{0, 3, 0}
	// Point 0: −½ log 2π. Point 1: −½ log 8π − 4/8.
	want := (-0.5*math.Log(2*math.Pi) - 0.5*math.Log(8*math.Pi) - 0.5) / 2
	if got := GaussianLL(mu, sd, truth, []int{0, 1}); math.Abs(got-want) > 1e-14 {
		t.Errorf("GaussianLL = %v, want %v", got, want)
	}
	// Five standard deviations off: −½ log 2π − 12.5.
	if got, want := GaussianLL(mu, sd, truth, []int{2}), -0.5*math.Log(2*math.Pi)-12.5; math.Abs(got-want) > 1e-14 {
		t.Errorf("GaussianLL of an outlier = %v, want %v", got, want)
	}
	if got := GaussianLL(mu, sd, truth, []int{}); !math.IsNaN(got) {
		t.Errorf("GaussianLL over no targets = %v, want NaN", got)
	}
}

func TestECEHandMade(t *testing.T) {
	mu := []float64{0, 0}
	sd := []float64{1, 1}
	truth := []float64{0, 10}
	// A point at the mean lies inside every central interval: the shares
	// are all 1 and ECE = mean(1 − p) = 0.5.
	if got := ECE(mu, sd, truth, []int{0}); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("ECE of a point at the mean = %v, want 0.5", got)
	}
	// A point ten deviations away lies outside all: ECE = mean(p) = 0.5.
	if got := ECE(mu, sd, truth, []int{1}); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("ECE of a far point = %v, want 0.5", got)
	}
	// Both: every share is ½, ECE = mean |½ − p| = (0.4+0.3+0.2+0.1+0+…)/9.
	if got, want := ECE(mu, sd, truth, []int{0, 1}), 2.0/9; math.Abs(got-want) > 1e-15 {
		t.Errorf("ECE of both = %v, want %v", got, want)
	}
	// A point exactly on the p = 0.5 boundary counts as inside the
	// intervals p ≥ 0.5 and outside the others:
	// ECE = (0.1+0.2+0.3+0.4 + 0.5+0.4+0.3+0.2+0.1)/9.
	z := eceZ[4]
	if got, want := ECE([]float64{0}, []float64{2}, []float64{2 * z}, []int{0}), 2.5/9; math.Abs(got-want) > 1e-15 {
		t.Errorf("ECE on the 0.5 boundary = %v, want %v", got, want)
	}
	if got := ECE(mu, sd, truth, nil); !math.IsNaN(got) {
		t.Errorf("ECE over no targets = %v, want NaN", got)
	}
}

// calibrationSample draws n points y ~ N(μ_i, s_i²) with varied μ_i, s_i
// and returns the predictive with the reported deviation s_i·factor.
func calibrationSample(n int, factor float64) (mu, sd, truth []float64, idx []int) {
	rng := rand.New(rand.NewPCG(7, 11))
	mu, sd, truth, idx = make([]float64, n), make([]float64, n), make([]float64, n), make([]int, n)
	for i := range n {
		mu[i] = 4 * (rng.Float64() - 0.5)
		s := 0.05 + 2*rng.Float64()
		truth[i] = mu[i] + s*rng.NormFloat64()
		sd[i] = s * factor
		idx[i] = i
	}
	return mu, sd, truth, idx
}

func TestECECalibratedGaussian(t *testing.T) {
	mu, sd, truth, idx := calibrationSample(100_000, 1)
	if e := ECE(mu, sd, truth, idx); e > 0.01 {
		t.Errorf("ECE of a calibrated Gaussian = %v, want ≈ 0 (< 0.01)", e)
	}
}

func TestECEMiscalibratedGaussian(t *testing.T) {
	for _, c := range []struct {
		name   string
		factor float64
	}{{"over-confident", 1.0 / 3}, {"under-confident", 3}} {
		mu, sd, truth, idx := calibrationSample(20_000, c.factor)
		if e := ECE(mu, sd, truth, idx); e < 0.2 {
			t.Errorf("%s: ECE = %v, want > 0.2", c.name, e)
		}
	}
	// The over-confident predictive is also penalised by the likelihood.
	mu, sd, truth, idx := calibrationSample(20_000, 1)
	_, sdOver, _, _ := calibrationSample(20_000, 1.0/3)
	if a, b := GaussianLL(mu, sd, truth, idx), GaussianLL(mu, sdOver, truth, idx); !(a > b) {
		t.Errorf("GaussianLL calibrated %v not above over-confident %v", a, b)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{1, 2, 3, 4})
	if s.Mean != 2.5 || math.Abs(s.Std-math.Sqrt(1.25)) > 1e-15 {
		t.Errorf("Summarize = %+v, want mean 2.5, std √1.25 (population)", s)
	}
	if s := Summarize([]float64{-3}); s.Mean != -3 || s.Std != 0 {
		t.Errorf("Summarize of one value = %+v, want {-3 0}", s)
	}
	if s := Summarize(nil); !math.IsNaN(s.Mean) || !math.IsNaN(s.Std) {
		t.Errorf("Summarize(nil) = %+v, want NaNs", s)
	}
}

// TestScorePerfectPrediction scores a prediction that is the truth: all
// errors vanish and Summarise reports every key.
func TestScorePerfectPrediction(t *testing.T) {
	for _, sys := range sims.All() {
		tasks := testTasks(t, sys, 2, 0, 3)
		per := make([]TaskMetrics, len(tasks))
		for i, tk := range tasks {
			n := len(tk.Real.True)
			ones := make([]float64, n)
			for j := range ones {
				ones[j] = 1
			}
			p := Prediction{
				Mean: tk.Real.True, Std: ones,
				DeltaMean: tk.Real.Discrepancy(), DeltaStd: ones,
				Theta: tk.Real.Theta,
			}
			per[i] = Score(sys, tk, p)
			if v := per[i].Values; v[KeyReconMAE] != 0 || v[KeyDeltaMAE] != 0 || v[KeyThetaMAE] != 0 {
				t.Errorf("%s: perfect prediction scored %v", sys.Name(), v)
			}
			if got, want := per[i].Values[KeyReconLL], -0.5*math.Log(2*math.Pi); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: recon LL %v, want %v", sys.Name(), got, want)
			}
			if len(per[i].ThetaAE) != len(sys.Params()) {
				t.Errorf("%s: %d θ errors for %d parameters", sys.Name(), len(per[i].ThetaAE), len(sys.Params()))
			}
		}
		rep := Summarise(sys, per)
		for _, k := range MetricKeys {
			if _, ok := rep.Metrics[k]; !ok {
				t.Errorf("%s: report lacks %s", sys.Name(), k)
			}
		}
		for _, prm := range sys.Params() {
			if s, ok := rep.ThetaPerParam[prm.Name]; !ok || s.Mean != 0 {
				t.Errorf("%s: θ per-parameter %s = %+v, %v", sys.Name(), prm.Name, s, ok)
			}
		}
	}
}

// TestThetaBias: the signed θ error keeps its sign, so a constant offset
// shows as the bias and offsets of both signs cancel in it but not in the
// MAE.
func TestThetaBias(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	tasks := testTasks(t, sys, 4, 0, 5)
	per := make([]TaskMetrics, len(tasks))
	for i, tk := range tasks {
		off := 0.1
		if i%2 == 1 {
			off = -0.1
		}
		theta := make([]float64, len(tk.Real.Theta))
		for j, v := range tk.Real.Theta {
			theta[j] = v + off
			if j == 0 {
				theta[j] = v + 0.05 // parameter 0 is always over
			}
		}
		ones := make([]float64, len(tk.Real.True))
		for j := range ones {
			ones[j] = 1
		}
		per[i] = Score(sys, tk, Prediction{Mean: tk.Real.True, Std: ones, DeltaMean: tk.Real.Discrepancy(), DeltaStd: ones, Theta: theta})
	}
	rep := Summarise(sys, per)
	for j, prm := range sys.Params() {
		bias, mae := rep.ThetaBiasPerParam[prm.Name].Mean, rep.ThetaPerParam[prm.Name].Mean
		wantBias, wantMAE := 0.0, 0.1
		if j == 0 {
			wantBias, wantMAE = 0.05, 0.05
		}
		if math.Abs(bias-wantBias) > 1e-12 || math.Abs(mae-wantMAE) > 1e-12 {
			t.Errorf("%s: bias %v, MAE %v; want %v, %v", prm.Name, bias, mae, wantBias, wantMAE)
		}
	}
}
