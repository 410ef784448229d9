package sims

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLVRegression checks the trajectory regression on 30-point contexts
// (the test protocol's size): on nominal data it recovers all of θ, on
// the truth the predator parameters (whose equation the forcing leaves
// alone).
func TestLVRegression(t *testing.T) {
	lv := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(50, 51))
	const draws = 100
	var nomErr, trueErr [4]float64
	for range draws {
		r := Draw(lv, rng)
		sp := NewSplit(lv, rng)
		nom, err := sp.Task(lv, r, r.Nominal, 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		tru, err := sp.Task(lv, r, r.True, 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		en, et := lvRegression(nom.Context, r.Side), lvRegression(tru.Context, r.Side)
		for p := range 4 {
			nomErr[p] += math.Abs(en[p]-r.Theta[p]) / draws
			trueErr[p] += math.Abs(et[p]-r.Theta[p]) / draws
		}
	}
	t.Logf("MAE nominal %.4f, truth %.4f", nomErr, trueErr)
	for p := range 4 {
		if nomErr[p] > 0.01 {
			t.Errorf("nominal: parameter %d MAE %.4f", p, nomErr[p])
		}
	}
	if trueErr[2] > 0.01 || trueErr[3] > 0.01 {
		t.Errorf("truth: η MAE %.4f, γ MAE %.4f", trueErr[2], trueErr[3])
	}
	// The forcing biases the prey fit: α̂, β̂ are off on the truth.
	if trueErr[0] < 2*nomErr[0] {
		t.Errorf("truth: α MAE %.4f not above the nominal %.4f", trueErr[0], nomErr[0])
	}
}

func TestLVRegressionDegenerate(t *testing.T) {
	lv := newLotkaVolterra()
	side := []float64{1, 1.2}
	ctx := Context{
		States: [][]float64{{1}, {2}, {2}, {3}, {4}},
		Values: [][]float64{{1.1, 1.3}, {-0.2, 1}, {1.2, math.NaN()}, {1.3, 1.1}, {math.Inf(1), 1}},
		Mask:   [][]bool{{true, true}, {true, true}, {true, true}, {true, false}, {true, true}},
	}
	// Only t = 1 survives (non-positive, NaN, masked and infinite values
	// are left out): too few points.
	est := lvRegression(ctx, side)
	for p, v := range est {
		if !math.IsNaN(v) {
			t.Errorf("parameter %d estimated %v from one observation", p, v)
		}
	}
	dst := []float64{9, 9, 9, 9}
	lvRegressionFeatures(dst, est, lv.Params())
	for p, v := range dst {
		if v != 0 {
			t.Errorf("missing estimate %d gave feature %v, want 0", p, v)
		}
	}
	lvRegressionFeatures(dst, [4]float64{-1, 1e9, 1, 0.5}, lv.Params())
	if dst[0] != -1.5 || dst[1] != 1.5 || math.Abs(dst[2]-(math.Log(2)/math.Log(3)-0.5)) > 1e-15 || math.Abs(dst[3]+0.5) > 1e-15 {
		t.Errorf("features %v", dst)
	}
}

func TestLVThetaHint(t *testing.T) {
	lv := newLotkaVolterra()
	var h ThetaHinter = lv
	rng := rand.New(rand.NewPCG(52, 53))
	r := Draw(lv, rng)
	task, err := NewTask(lv, r, 30, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	s, sd := h.ThetaHint(task.Context, r.Side)
	for p, param := range lv.Params() {
		if p < 2 {
			if !math.IsNaN(s[p]) || !math.IsNaN(sd[p]) {
				t.Errorf("%s hinted (%v ± %v): its equation carries the forcing", param.Name, s[p], sd[p])
			}
			continue
		}
		lo, hi := math.Log(param.Lo), math.Log(param.Hi)
		want := (math.Log(r.Theta[p]) - lo) / (hi - lo)
		if math.Abs(s[p]-want) > 3*sd[p] || !(sd[p] > 0) {
			t.Errorf("%s: hint %v ± %v, true %v", param.Name, s[p], sd[p], want)
		}
	}
}

// TestLVThetaHintSD: the hint's spread grows with noisy observations and
// covers the truth; two observations (an exact fit) give no hint.
func TestLVThetaHintSD(t *testing.T) {
	lv := newLotkaVolterra()
	rng := rand.New(rand.NewPCG(54, 55))
	covered, total := 0, 0
	for range 50 {
		r := Draw(lv, rng)
		clean, err := NewTask(lv, r, 30, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		noisy, err := NewTask(lv, r, 30, 0.05, rng)
		if err != nil {
			t.Fatal(err)
		}
		_, sdClean := lv.ThetaHint(clean.Context, r.Side)
		s, sdNoisy := lv.ThetaHint(noisy.Context, r.Side)
		for _, p := range []int{2, 3} {
			if sdClean[p] < lvHintFloor(len(clean.Context.States)+1) || !(sdNoisy[p] > sdClean[p]) {
				t.Fatalf("parameter %d: sd %v clean, %v with noise 0.05", p, sdClean[p], sdNoisy[p])
			}
			lo, hi := math.Log(lv.Params()[p].Lo), math.Log(lv.Params()[p].Hi)
			if math.Abs(s[p]-(math.Log(r.Theta[p])-lo)/(hi-lo)) <= 3*sdNoisy[p] {
				covered++
			}
			total++
		}
	}
	if covered < total*9/10 {
		t.Errorf("noisy hints cover the truth within 3 sd for %d of %d", covered, total)
	}
	two := Context{States: [][]float64{{1}, {2}}, Values: [][]float64{{1.1, 1.2}, {1.3, 1.1}}, Mask: [][]bool{{true, true}, {true, true}}}
	s, _ := lv.ThetaHint(two, []float64{1, 1})
	if !math.IsNaN(s[2]) || !math.IsNaN(s[3]) {
		t.Errorf("two observations gave hints %v", s)
	}
}

// TestLVThetaHintCoverage: the hint's deviation is honest at every
// noise level and context size, its ±1.96 sd interval holding at least
// 0.90 of η and γ; on noise-free contexts of 30 and 60 points (the
// calibration grid's largest), where the floor lvHintFloor sets most
// deviations, its ±0.674 sd interval holds at most 0.80 (a floor of 30
// points' size held all at 60; at 100 points the h⁴ floor holds 0.83).
// `go test ./sims -run TestLVThetaHintCoverage -v` logs every cell.
func TestLVThetaHintCoverage(t *testing.T) {
	lv := newLotkaVolterra()
	params := lv.Params()
	for _, noise := range []float64{0, 0.01, 0.05, 0.1} {
		for _, c := range []int{10, 30, 60, 100} {
			rng := rand.New(rand.NewPCG(uint64(c), uint64(noise*1000)))
			var z []float64
			floored := 0
			for range 200 {
				r := Draw(lv, rng)
				task, err := NewTask(lv, r, c, noise, rng)
				if err != nil {
					t.Fatal(err)
				}
				est, sd := lv.ThetaHint(task.Context, r.Side)
				_, _, n := lvRegressionSE(task.Context, r.Side)
				for _, p := range []int{2, 3} {
					if math.IsNaN(est[p]) {
						continue
					}
					z = append(z, math.Abs(est[p]-normLog(params[p], r.Theta[p]))/sd[p])
					if sd[p] == lvHintFloor(n) {
						floored++
					}
				}
			}
			c50, c95 := shareWithin(z, 0.6745), shareWithin(z, 1.96)
			t.Logf("σ = %-4g C = %-3d: %3.0f%% at the floor, ±0.674 sd holds %.2f, ±1.96 sd %.2f", noise, c, 100*float64(floored)/float64(len(z)), c50, c95)
			if c95 < 0.90 {
				t.Errorf("σ = %g, C = %d: the hints' 95%% intervals hold %.2f", noise, c, c95)
			}
			if noise == 0 && (c == 30 || c == 60) && c50 > 0.80 {
				t.Errorf("σ = 0, C = %d: the hints' 50%% intervals hold %.2f", c, c50)
			}
		}
	}
}

// shareWithin is the share of z at most k.
func shareWithin(z []float64, k float64) float64 {
	n := 0
	for _, v := range z {
		if v <= k {
			n++
		}
	}
	return float64(n) / float64(len(z))
}

// TestLVHintFloor: the floor falls with the points as h⁴ and is capped
// at lvHintSD.
func TestLVHintFloor(t *testing.T) {
	if got := lvHintFloor(31); math.Abs(got-0.003) > 1e-15 {
		t.Errorf("floor at 31 points %v, want 0.003", got)
	}
	if got, want := lvHintFloor(62), 0.003/16; math.Abs(got-want) > 1e-15 {
		t.Errorf("floor at 62 points %v, want %v", got, want)
	}
	for _, n := range []int{3, 10, 20} {
		if got := lvHintFloor(n); got != lvHintSD {
			t.Errorf("floor at %d points %v, want the cap %v", n, got, lvHintSD)
		}
	}
}
