package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

// TestDeltaTimeProfile: the profile is flat at q = 0, rises as the
// (k + 1)^q of the time slice k, is the same at every location and
// channel of one slice (advdiff's (t, x) grid), and has geometric mean 1.
func TestDeltaTimeProfile(t *testing.T) {
	for _, name := range []string{"lv", "advdiff"} {
		sys, err := sims.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		g := sys.Grid()
		h := make([]float64, g.Size())
		deltaTimeProfile(h, g, 0)
		for j, v := range h {
			if v != 1 {
				t.Fatalf("%s: q = 0 gives h[%d] = %v", name, j, v)
			}
		}
		const q = 0.75
		deltaTimeProfile(h, g, q)
		perSlice := len(g.Channels)
		if len(g.Shape) > 1 {
			perSlice *= g.Points() / g.Shape[0]
		}
		logSum := 0.0
		for j, v := range h {
			logSum += math.Log(v)
			k := j / perSlice
			if v != h[k*perSlice] {
				t.Fatalf("%s: h[%d] = %v differs from its slice's first value %v", name, j, v, h[k*perSlice])
			}
			if k > 0 {
				want := math.Pow(float64(k+1)/float64(k), q)
				if got := v / h[(k-1)*perSlice]; math.Abs(got-want) > 1e-12*want {
					t.Fatalf("%s: slice %d over slice %d: %v, want %v", name, k, k-1, got, want)
				}
			}
		}
		if gm := math.Exp(logSum / float64(len(h))); math.Abs(gm-1) > 1e-12 {
			t.Errorf("%s: geometric mean %v, want 1", name, gm)
		}
	}
}

// TestPickDeltaProfile: the flattest exponent within the LL tolerance of
// the best is kept, an exponent that costs more ECE than allowed is not,
// and NaNs never are.
func TestPickDeltaProfile(t *testing.T) {
	n := len(deltaProfileShapes)
	fill := func(v float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	lls, eces := fill(0), fill(0.1)
	lls[4], lls[3] = 2, 2-deltaProfileTolerance/2 // 1 best, 0.75 near it
	if got := pickDeltaProfile(lls, eces); got != deltaProfileShapes[3] {
		t.Errorf("picked %v, want the flatter near-best %v", got, deltaProfileShapes[3])
	}
	eces[3] = 0.1 + 2*deltaProfileECECost
	if got := pickDeltaProfile(lls, eces); got != deltaProfileShapes[4] {
		t.Errorf("picked %v, want %v once %v costs too much ECE", got, deltaProfileShapes[4], deltaProfileShapes[3])
	}
	lls, eces = fill(math.NaN()), fill(0.1)
	if got := pickDeltaProfile(lls, eces); got != 0 {
		t.Errorf("all NaN: picked %v, want 0", got)
	}
}

// TestTuneDeltaProfileKnownGrowth: δ errors whose deviation grows as the
// time slice's (k + 1)^1 under a flat reported deviation get q = 1 or
// the next flatter exponent (the LL tolerance prefers a flatter profile
// that scores nearly as well: 0.75 here), and
// errors of a constant deviation keep the band flat.
func TestTuneDeltaProfileKnownGrowth(t *testing.T) {
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	for _, c := range []struct {
		growth, lo, hi float64
	}{{1, 0.75, 1}, {0, 0, 0}} {
		rng := rand.New(rand.NewPCG(3, uint64(c.growth)))
		var tasks []sims.Task
		var preds []Prediction
		var deltas [][]float64
		for range 200 {
			task := handTask(sys, rng, 30)
			truth := task.Real.Discrepancy()
			p := Prediction{DeltaMean: make([]float64, g.Size()), DeltaStd: make([]float64, g.Size())}
			for j := range truth {
				k := (j / len(g.Channels))
				sd := 0.01 * math.Pow(float64(k+1), c.growth)
				p.DeltaMean[j] = truth[j] + sd*rng.NormFloat64()
				p.DeltaStd[j] = 1
			}
			tasks, preds, deltas = append(tasks, task), append(preds, p), append(deltas, truth)
		}
		if got := tuneDeltaProfile(sys, tasks, preds, deltas); got < c.lo || got > c.hi {
			t.Errorf("errors growing as (k+1)^%v: profile ^%v, want one in [%v, %v]", c.growth, got, c.lo, c.hi)
		}
	}
}

// handTask is a realization of sys with a context of n random grid
// points and the rest as targets.
func handTask(sys sims.System, rng *rand.Rand, n int) sims.Task {
	r := sims.Draw(sys, rng)
	perm := rng.Perm(sys.Grid().Points())
	return sims.Task{Real: r, Targets: perm[n:]}
}

// TestApplySpreadDeltaProfile: a fit's δ time profile multiplies δ's
// deviations by h and leaves the reconstruction's alone.
func TestApplySpreadDeltaProfile(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	tasks := testTasks(t, m.Sys, 2, 20, 1)
	ctxs := []sims.Context{tasks[0].Context, tasks[1].Context}
	sides := [][]float64{tasks[0].Real.Side, tasks[1].Real.Side}
	o := PredictOptions{Samples: 4, Seed: 1, Refine: 0}
	flat, err := m.predictWith(context.Background(), ctxs, sides, o, &SpreadFit{})
	if err != nil {
		t.Fatal(err)
	}
	shaped, err := m.predictWith(context.Background(), ctxs, sides, o, &SpreadFit{DeltaProfile: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float64, m.Sys.Grid().Size())
	deltaTimeProfile(h, m.Sys.Grid(), 1)
	for b := range flat {
		for j := range h {
			if got, want := shaped[b].DeltaStd[j], h[j]*flat[b].DeltaStd[j]; math.Abs(got-want) > 1e-12*want {
				t.Fatalf("realization %d, value %d: δ deviation %v, want %v", b, j, got, want)
			}
			if shaped[b].Std[j] != flat[b].Std[j] {
				t.Fatalf("realization %d, value %d: reconstruction deviation moved", b, j)
			}
		}
	}
}

// TestDeltaTimeProfileEvensErrors: on the shipped lv/cnp at its test
// context (200 realizations), δ's errors in deviations of a band flat in
// time are several times larger in the last tenth of the time span than
// in the first; the file's time profile brings the two tenths within a
// factor of three of each other. -v prints the root-mean-square
// standardized errors.
func TestDeltaTimeProfileEvensErrors(t *testing.T) {
	m, _ := shippedModel(t, "lv", CNP, 1)
	tasks, err := TestTasks(m.Sys, EvalOptions{Tasks: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	shipped := m.Config.Infer.DeltaProfile
	if shipped == 0 {
		t.Fatal("the shipped lv/cnp has no δ time profile")
	}
	ratio := func(q float64) float64 {
		m.Config.Infer.DeltaProfile = q
		early, late := deltaTenthsRMS(t, m, tasks)
		t.Logf("profile ^%g: RMS standardized δ error %.2f in the first tenth, %.2f in the last", q, early, late)
		return late / early
	}
	flat, profiled := ratio(0), ratio(shipped)
	if flat < 5 {
		t.Errorf("flat band: last tenth's errors %.1f times the first's, want ≥ 5 (the drift the profile is for)", flat)
	}
	if profiled > 3 || profiled < 1.0/3 {
		t.Errorf("profile ^%g: last tenth's errors %.2f times the first's, want within a factor of 3", shipped, profiled)
	}
}

// deltaTenthsRMS is the root-mean-square of (δ − δ̂)/σ_δ over the
// targets of tasks in the first and in the last tenth of the time span,
// predicted by m's default settings.
func deltaTenthsRMS(t *testing.T, m *Model, tasks []sims.Task) (early, late float64) {
	t.Helper()
	var sums, counts [2]float64
	n := m.Sys.Grid().Points()
	c := len(m.Sys.Grid().Channels)
	err := m.predictTasks(context.Background(), tasks, PredictOptions{Samples: 32, Seed: 1, Refine: -1}, false, nil, func(_ int, part []sims.Task, preds []Prediction) {
		for i, task := range part {
			d := task.Real.Discrepancy()
			for _, pt := range task.Targets {
				tenth := -1
				switch {
				case pt < n/10:
					tenth = 0
				case pt >= n-n/10:
					tenth = 1
				}
				for ch := 0; ch < c && tenth >= 0; ch++ {
					j := pt*c + ch
					z := (d[j] - preds[i].DeltaMean[j]) / preds[i].DeltaStd[j]
					sums[tenth] += z * z
					counts[tenth]++
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return math.Sqrt(sums[0] / counts[0]), math.Sqrt(sums[1] / counts[1])
}
