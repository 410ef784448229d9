package core

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"apic/nets"
	"apic/sims"
)

// tinyConfig is a small configuration that builds and trains fast: the
// tests check behaviour, not the paper's numbers.
func tinyConfig(t testing.TB, system string, b Backbone) Config {
	t.Helper()
	sys, err := sims.Lookup(system)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(sys, b)
	cfg.Arch.Hidden, cfg.Arch.Layers = 32, 1
	cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 8, 8
	cfg.Arch.DecHidden, cfg.Arch.DecLayers = 32, 1
	cfg.Arch.Heads = 2
	cfg.Train.Batch = 16
	cfg.Train.Steps1, cfg.Train.Steps2 = 0, 0
	cfg.Train.LR = 3e-3
	cfg.Train.ValEvery = 0
	return cfg
}

// tinyModel builds a model from tinyConfig, after edit (may be nil)
// adjusts the configuration.
func tinyModel(t testing.TB, system string, b Backbone, edit func(*Config)) *Model {
	t.Helper()
	cfg := tinyConfig(t, system, b)
	if edit != nil {
		edit(&cfg)
	}
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatalf("NewModel(%s/%s): %v", system, b, err)
	}
	return m
}

// perturb moves every weight by a small seeded amount so that tests do
// not depend on special initial values (f_ψ's last layer starts at zero).
func perturb(m *Model, seed uint64, scale float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	for _, p := range m.Params.List() {
		for i := range p.Value.Data {
			p.Value.Data[i] += scale * rng.NormFloat64()
		}
	}
}

// testTasks draws n test tasks of sys with context size ctx (0: the
// system's test default).
func testTasks(t testing.TB, sys sims.System, n, ctx int, seed uint64) []sims.Task {
	t.Helper()
	tasks, err := TestTasks(sys, EvalOptions{Tasks: n, Context: ctx, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// contextsOf splits tasks into the Predict arguments.
func contextsOf(tasks []sims.Task) ([]sims.Context, [][]float64) {
	ctxs := make([]sims.Context, len(tasks))
	sides := make([][]float64, len(tasks))
	for i, tk := range tasks {
		ctxs[i], sides[i] = tk.Context, tk.Real.Side
	}
	return ctxs, sides
}

// sameWeights reports the first parameter whose values differ (bitwise)
// from snap, or "" when all are equal.
func sameWeights(m *Model, snap map[string]*nets.Tensor) string {
	for _, p := range m.Params.List() {
		s, ok := snap[p.Name]
		if !ok || !s.SameShape(p.Value) {
			return p.Name + " (missing or reshaped)"
		}
		for i, v := range p.Value.Data {
			if math.Float64bits(v) != math.Float64bits(s.Data[i]) {
				return p.Name
			}
		}
	}
	return ""
}

// allFinite reports whether every value in xs is finite.
func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// jsonRoundTrip returns cells written to JSON and read back.
func jsonRoundTrip(t *testing.T, cells []ConditionScale) []ConditionScale {
	t.Helper()
	b, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	var back []ConditionScale
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
