package core

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"apic/nets"
	"apic/sims"
)

// TestPredictShapes: every field has the grid's or the parameters'
// length, every value is finite and every deviation positive.
func TestPredictShapes(t *testing.T) {
	for _, sys := range sims.All() {
		for _, b := range Backbones {
			m := tinyModel(t, sys.Name(), b, func(c *Config) { c.Arch.Hidden, c.Arch.DecHidden = 16, 16 })
			perturb(m, 6, 0.02)
			ctxs, sides := contextsOf(testTasks(t, sys, 2, 0, 4))
			preds, err := m.Predict(ctxs, sides, 3, 1)
			if err != nil {
				t.Fatalf("%s/%s: %v", sys.Name(), b, err)
			}
			g, P := sys.Grid().Size(), len(sys.Params())
			for i, p := range preds {
				for name, xs := range predictionFields(p) {
					want := g
					if strings.HasPrefix(name, "Theta") {
						want = P
					}
					if len(xs) != want || !allFinite(xs) {
						t.Errorf("%s/%s pred %d: %s has %d values (want %d), finite %v", sys.Name(), b, i, name, len(xs), want, allFinite(xs))
					}
				}
				for j := range p.Std {
					if !(p.Std[j] > 0) || !(p.DeltaStd[j] > 0) {
						t.Fatalf("%s/%s pred %d: Std %v, DeltaStd %v at %d, want > 0", sys.Name(), b, i, p.Std[j], p.DeltaStd[j], j)
					}
				}
				for q, th := range p.Theta {
					if prm := sys.Params()[q]; !(th >= prm.Lo && th <= prm.Hi) {
						t.Errorf("%s/%s: θ̂ %s = %v outside the prior [%v, %v]", sys.Name(), b, prm.Name, th, prm.Lo, prm.Hi)
					}
				}
				// The discrepancy is the prediction minus the nominal.
				for j := range p.Mean {
					if d := p.Mean[j] - p.Nominal[j] - p.DeltaMean[j]; math.Abs(d) > 1e-9*math.Max(1, math.Abs(p.Mean[j])) {
						t.Fatalf("%s/%s: Mean − Nominal − DeltaMean = %v at %d", sys.Name(), b, d, j)
					}
				}
			}
		}
	}
}

// TestPredictThetaOverride: the given θ is the θ of the prediction, and
// the nominal part is the simulator at that θ.
func TestPredictThetaOverride(t *testing.T) {
	for _, c := range []struct {
		system string
		b      Backbone
		k      int
	}{{"spring", LNP, 5}, {"spring", CNP, 7}, {"lv", ANP, 3}, {"advdiff", LNP, 3}} {
		sys, _ := sims.Lookup(c.system)
		m := tinyModel(t, c.system, c.b, func(cfg *Config) { cfg.Arch.Hidden, cfg.Arch.DecHidden = 16, 16 })
		perturb(m, 7, 0.02)
		tasks := testTasks(t, sys, 2, 0, 8)
		ctxs, sides := contextsOf(tasks)
		theta := [][]float64{tasks[1].Real.Theta, tasks[0].Real.Theta} // deliberately swapped
		preds, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: c.k, Seed: 2, Theta: theta})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range preds {
			for q := range p.Theta {
				if p.Theta[q] != theta[i][q] {
					t.Errorf("%s/%s k=%d: Theta[%d] = %v, want exactly %v", c.system, c.b, c.k, q, p.Theta[q], theta[i][q])
				}
				if p.ThetaStd[q] > 1e-12*theta[i][q] {
					t.Errorf("%s/%s: ThetaStd %v with a fixed θ", c.system, c.b, p.ThetaStd[q])
				}
			}
			// (The differentiable simulators may integrate differently from
			// the reference ones: lv agrees to ~1e-9.)
			nom := sys.Nominal(theta[i], sides[i])
			for j := range nom {
				if math.Abs(p.Nominal[j]-nom[j]) > 1e-6*math.Max(1, math.Abs(nom[j])) {
					t.Fatalf("%s/%s: Nominal[%d] = %v, simulator at θ gives %v", c.system, c.b, j, p.Nominal[j], nom[j])
				}
			}
		}
	}
}

// TestPredictCNPDeterministic: the CNP has no latent spread: ThetaStd is
// 0 and the number of samples does not matter.
func TestPredictCNPDeterministic(t *testing.T) {
	m := tinyModel(t, "lv", CNP, nil)
	perturb(m, 8, 0.02)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 3, 0, 9))
	a, err := m.Predict(ctxs, sides, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Predict(ctxs, sides, 16, 99)
	if err != nil {
		t.Fatal(err)
	}
	comparePredictions(t, a, b, 0)
	// One pass, θ̂ has no spread but the hinted η's and γ's
	// (hintThetaStd, TestThetaHint; refinement reports its Laplace
	// deviation instead: TestRefinedCNPThetaStd).
	one, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 16, Seed: 5, Refine: 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range one {
		for q, s := range p.ThetaStd[:2] {
			if s != 0 {
				t.Fatalf("one-pass CNP ThetaStd of unhinted parameter %d: %v, want 0", q, s)
			}
		}
	}
	// The latent samples of the LNP spread θ̂.
	l := tinyModel(t, "lv", LNP, nil)
	preds, err := l.Predict(ctxs, sides, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	if preds[0].ThetaStd[0] <= 0 {
		t.Errorf("LNP ThetaStd %v with 16 samples, want > 0", preds[0].ThetaStd)
	}
}

// TestPredictMixedContextSizes: one call with contexts of several sizes
// gives, in order, what separate calls give.
func TestPredictMixedContextSizes(t *testing.T) {
	for _, b := range []Backbone{CNP, ANP} {
		m := tinyModel(t, "spring", b, nil)
		perturb(m, 9, 0.02)
		var tasks []sims.Task
		for i, n := range []int{10, 30, 10, 20, 30} {
			tasks = append(tasks, testTasks(t, m.Sys, 1, n, uint64(20+i))...)
		}
		ctxs, sides := contextsOf(tasks)
		all, err := m.Predict(ctxs, sides, 1, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tasks {
			one, err := m.Predict(ctxs[i:i+1], sides[i:i+1], 1, 5)
			if err != nil {
				t.Fatal(err)
			}
			if b == CNP {
				// Batch composition may change the matrix kernels' summation
				// order, hence the tolerance.
				comparePredictions(t, one, all[i:i+1], 1e-7)
			} else if len(all[i].Mean) != len(one[0].Mean) || !allFinite(all[i].Mean) {
				t.Errorf("%s: prediction %d malformed", b, i)
			}
		}
	}
	// The LNP draws its latent noise in context-size groups; with the
	// seed fixed the whole call is reproducible.
	m := tinyModel(t, "spring", LNP, nil)
	var tasks []sims.Task
	for i, n := range []int{15, 5, 15} {
		tasks = append(tasks, testTasks(t, m.Sys, 1, n, uint64(40+i))...)
	}
	ctxs, sides := contextsOf(tasks)
	a, err := m.Predict(ctxs, sides, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Predict(ctxs, sides, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	comparePredictions(t, a, b, 0)
}

// TestPredictOffGrid: observations between grid points work.
func TestPredictOffGrid(t *testing.T) {
	for _, sys := range sims.All() {
		m := tinyModel(t, sys.Name(), LNP, nil)
		tk := testTasks(t, sys, 1, 0, 12)[0]
		g := sys.Grid()
		c := len(g.Channels)
		var ctx sims.Context
		for i := 0; i+1 < g.Points() && ctx.Len() < 25; i += 7 {
			a, b := g.States[i], g.States[i+1]
			st := make([]float64, len(a))
			for d := range a {
				st[d] = (a[d] + b[d]) / 2
			}
			vals := make([]float64, c)
			mask := make([]bool, c)
			for ch := range vals {
				vals[ch] = (tk.Real.True[i*c+ch] + tk.Real.True[(i+1)*c+ch]) / 2
				mask[ch] = true
			}
			ctx.States = append(ctx.States, st)
			ctx.Values = append(ctx.Values, vals)
			ctx.Mask = append(ctx.Mask, mask)
			ctx.GridIndex = append(ctx.GridIndex, -1)
		}
		preds, err := m.Predict([]sims.Context{ctx}, [][]float64{tk.Real.Side}, 2, 1)
		if err != nil {
			t.Fatalf("%s: %v", sys.Name(), err)
		}
		if !allFinite(preds[0].Mean) || !allFinite(preds[0].Theta) {
			t.Errorf("%s: off-grid prediction not finite", sys.Name())
		}
	}
}

func TestPredictErrors(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 2, 0, 1))
	good := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}
	empty := sims.Context{}
	cases := []struct {
		name  string
		ctxs  []sims.Context
		sides [][]float64
		opt   PredictOptions
		want  string
	}{
		{"fewer sides", ctxs, sides[:1], PredictOptions{Samples: 2}, "side"},
		{"short side", ctxs, [][]float64{sides[0], sides[1][:1]}, PredictOptions{Samples: 2}, "side values"},
		{"zero samples", ctxs, sides, PredictOptions{Samples: 0}, "sample"},
		{"empty context", []sims.Context{ctxs[0], empty}, sides, PredictOptions{Samples: 2}, "empty context"},
		{"θ rows", ctxs, sides, PredictOptions{Samples: 2, Theta: good[:1]}, "θ overrides"},
		{"θ length", ctxs, sides, PredictOptions{Samples: 2, Theta: [][]float64{{1, 1, 1}, {1, 1, 1, 1}}}, "3 values, want 4"},
		{"θ negative", ctxs, sides, PredictOptions{Samples: 2, Theta: [][]float64{{1, 1, 1, 1}, {1, -1, 1, 1}}}, "positive"},
		{"θ NaN", ctxs, sides, PredictOptions{Samples: 2, Theta: [][]float64{{1, 1, 1, 1}, {1, math.NaN(), 1, 1}}}, "positive"},
		{"θ Inf", ctxs, sides, PredictOptions{Samples: 2, Theta: [][]float64{{math.Inf(1), 1, 1, 1}, {1, 1, 1, 1}}}, "finite"},
	}
	for _, c := range cases {
		_, err := m.PredictWith(c.ctxs, c.sides, c.opt)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	if preds, err := m.Predict(nil, nil, 2, 1); err != nil || len(preds) != 0 {
		t.Errorf("no contexts: %v, %v", preds, err)
	}
}

// TestCollapseSkipsDivergedSamples: a sample with a non-finite value is
// left out of the mean and spread; the others decide them.
func TestCollapseSkipsDivergedSamples(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	gc := m.Sys.Grid().Size()
	P := len(m.Sys.Params())
	pred, nom := nets.NewTensor(3, gc), nets.NewTensor(3, gc)
	theta := nets.NewTensor(3, P)
	for j := range 3 {
		for g := range gc {
			pred.Set(j, g, float64(j+1))
			nom.Set(j, g, 0.5)
		}
		for q := range P {
			theta.Set(j, q, float64(j+1))
		}
	}
	pred.Set(1, 7, math.Inf(1))
	f := nets.NewTensor(3, 1)
	p := m.collapse(1, 3, pred, nom, theta, f, nil, 0)[0]
	if p.Mean[0] != 2 || p.Mean[7] != 2 || p.Theta[0] != 2 {
		t.Errorf("mean %v at 0, %v at 7, θ %v: want 2 (samples 1 and 3)", p.Mean[0], p.Mean[7], p.Theta[0])
	}
	if !allFinite(p.Std) {
		t.Error("non-finite deviations")
	}
}

// TestPredictDivergedModel: a model whose every sample is non-finite
// gives an error, not NaN predictions.
func TestPredictDivergedModel(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	m := tinyModel(t, "spring", LNP, nil)
	for _, p := range m.Params.List() {
		for i := range p.Value.Data {
			p.Value.Data[i] = math.NaN()
		}
	}
	ctxs, sides := contextsOf(testTasks(t, sys, 2, 0, 4))
	for _, refine := range []int{0, 2} {
		_, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 4, Seed: 1, Refine: refine})
		if err == nil || !strings.Contains(err.Error(), "non-finite") {
			t.Errorf("refine %d: err = %v, want a non-finite prediction error", refine, err)
		}
	}
}

// TestPredictCNPPieces: a one-pass CNP batch large enough to run in
// pieces on several cores gives, bit for bit, what 1, 3, 8 or 16 cores
// and what single-realization calls give (each realization's arithmetic does not
// depend on its batch-mates), for a context spread mode with an
// evolution profile, whose fit runs per realization too.
func TestPredictCNPPieces(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	perturb(m, 3, 0.02)
	m.Config.Infer.SpreadFit = SpreadFit{Spread: SpreadContext, Shape: 0.3, StdScale: 1.2}
	ctxs, sides := contextsOf(testTasks(t, m.Sys, 4*minPiece+3, 0, 5))
	o := PredictOptions{Samples: 1, Seed: 1, Refine: 0}
	par, err := m.PredictWith(ctxs, sides, o)
	if err != nil {
		t.Fatal(err)
	}
	sameOnCores(t, m, ctxs, sides, o, par)
	for i := range ctxs {
		single, err := m.PredictWith(ctxs[i:i+1], sides[i:i+1], o)
		if err != nil {
			t.Fatal(err)
		}
		comparePredictions(t, par[i:i+1], single, 0)
	}
}

// TestPredictBatchIndependence: each realization of a call draws its
// latent and Laplace noise from a stream of its own, so its prediction
// does not depend on the other realizations: moving realization 0 to
// another context size (another batch, processed first) leaves every
// other prediction unchanged bit for bit, and so does running the pieces
// on 1, 3, 8 or 16 cores, or predicting the first realization alone, for
// the stochastic LNP with and without refinement.
func TestPredictBatchIndependence(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	perturb(m, 7, 0.02)
	n := 3*minPiece + 1
	ctxs, sides := contextsOf(testTasks(t, m.Sys, n, 0, 8))
	short, _ := contextsOf(testTasks(t, m.Sys, 1, 12, 9))
	moved := append([]sims.Context{short[0]}, ctxs[1:]...)
	for _, refine := range []int{0, 1} {
		o := PredictOptions{Samples: 6, Seed: 3, Refine: refine}
		all, err := m.PredictWith(ctxs, sides, o)
		if err != nil {
			t.Fatal(err)
		}
		other, err := m.PredictWith(moved, sides, o)
		if err != nil {
			t.Fatal(err)
		}
		comparePredictions(t, all[1:], other[1:], 0)
		sameOnCores(t, m, ctxs, sides, o, all)
		// The first realization alone (on one core: serialAlone) gives
		// what it gives in the batch, drawing from the same stream, the
		// call's first.
		single, err := m.PredictWith(ctxs[:1], sides[:1], o)
		if err != nil {
			t.Fatal(err)
		}
		comparePredictions(t, all[:1], single, 0)
		if all[1].ThetaStd[0] == 0 {
			t.Errorf("refine %d: LNP θ̂ has no spread", refine)
		}
	}
}

// sameOnCores checks that predicting ctxs with o on 1, 3, 8 and 16 cores
// gives want bit for bit.
func sameOnCores(t *testing.T, m *Model, ctxs []sims.Context, sides [][]float64, o PredictOptions, want []Prediction) {
	t.Helper()
	for _, procs := range []int{1, 3, 8, 16} {
		prev := runtime.GOMAXPROCS(procs)
		got, err := m.PredictWith(ctxs, sides, o)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		comparePredictions(t, want, got, 0)
	}
}

// TestCollapseOneSample: the one-sample pass (momentsOfOne) gives, bit
// for bit, what the sample loop gives for two copies of the sample: the
// same mean, nominal and θ (a −0 sample giving +0, as the sums from +0
// do), no spread beyond the observation noise.
func TestCollapseOneSample(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	gc, P := m.Sys.Grid().Size(), len(m.Sys.Params())
	rng := rand.New(rand.NewPCG(5, 6))
	one, two := nets.NewTensor(1, gc), nets.NewTensor(2, gc)
	nom1, nom2 := nets.NewTensor(1, gc), nets.NewTensor(2, gc)
	th1, th2 := nets.NewTensor(1, P), nets.NewTensor(2, P)
	negZero := math.Copysign(0, -1)
	for g := range gc {
		y, n := rng.NormFloat64(), rng.NormFloat64()
		switch g {
		case 0:
			y = negZero
		case 1:
			n = negZero
		case 2:
			y, n = negZero, negZero
		}
		one.Set(0, g, y)
		nom1.Set(0, g, n)
		for j := range 2 {
			two.Set(j, g, y)
			nom2.Set(j, g, n)
		}
	}
	for q := range P {
		th1.Set(0, q, 4.5)
		th2.Set(0, q, 4.5)
		th2.Set(1, q, 4.5)
	}
	a := m.collapse(1, 1, one, nom1, th1, nets.NewTensor(1, 1), nil, 0)[0]
	b := m.collapse(1, 2, two, nom2, th2, nets.NewTensor(2, 1), nil, 0)[0]
	for name, pair := range map[string][2][]float64{
		"mean": {a.Mean, b.Mean}, "std": {a.Std, b.Std}, "δ mean": {a.DeltaMean, b.DeltaMean},
		"δ std": {a.DeltaStd, b.DeltaStd}, "nominal": {a.Nominal, b.Nominal},
		"θ": {a.Theta, b.Theta}, "θ std": {a.ThetaStd, b.ThetaStd},
		"sample var": {a.sampleVarY, b.sampleVarY}, "δ sample var": {a.sampleVarD, b.sampleVarD},
	} {
		if !slices.EqualFunc(pair[0], pair[1], func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
			t.Errorf("%s: one sample %v, two copies %v", name, pair[0][:3], pair[1][:3])
		}
	}
}
