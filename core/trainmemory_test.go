package core

import (
	"apic/nets"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/sims"
)

// TestParamCountMatchesNewModel: the count made without allocating is
// the model's, on every system and backbone, with and without the grid
// summary, a basis, another form and other depths.
func TestParamCountMatchesNewModel(t *testing.T) {
	edits := map[string]func(*Config){
		"default":  func(*Config) {},
		"deep":     func(c *Config) { c.Arch.Layers, c.Arch.DecLayers, c.Arch.LatentDelta = 3, 1, 5 },
		"grid":     func(c *Config) { c.Arch.GridSummary = true },
		"basis":    func(c *Config) { c.Arch.Basis = 6 },
		"additive": func(c *Config) { c.Arch.Form = Additive },
	}
	checked := 0
	for _, system := range sims.Names() {
		for _, b := range []Backbone{CNP, LNP, ANP} {
			for name, edit := range edits {
				cfg := tinyConfig(t, system, b)
				edit(&cfg)
				if cfg.Validate() != nil {
					continue // a basis where the system has none
				}
				m, err := NewModel(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := ParamCount(cfg), m.Params.Count(); got != want {
					t.Errorf("%s/%s %s: ParamCount %d, the model has %d", system, b, name, got, want)
				}
				checked++
			}
		}
	}
	if checked < 36 { // every system and backbone, the basis on some
		t.Errorf("only %d configurations checked", checked)
	}
}

// laptopBudget is the budget the tests check against: 4 GB, a small
// laptop's free memory.
const laptopBudget = 4e9

// defaultConfig is sys's default configuration for backbone b, edited.
func defaultConfig(t *testing.T, system string, b Backbone, edit func(*Config)) Config {
	t.Helper()
	sys, err := sims.Lookup(system)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(sys, b)
	edit(&cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestTrainMemoryRefusesOversizedRuns: runs whose flags are each within
// their bounds but which together need tens of gigabytes (they ended
// in Go's fatal out-of-memory error) are refused from the configuration
// alone, before anything is allocated, with the estimate, the budget and
// the flags to lower.
func TestTrainMemoryRefusesOversizedRuns(t *testing.T) {
	cases := map[string]struct {
		system string
		edit   func(*Config)
	}{
		"advdiff --batch 4096":             {"advdiff", func(c *Config) { c.Train.Batch = 4096 }},
		"advdiff --hidden 4096":            {"advdiff", func(c *Config) { c.Arch.Hidden = 4096 }},
		"spring --layers 32 --hidden 4096": {"spring", func(c *Config) { c.Arch.Layers, c.Arch.Hidden = 32, 4096 }},
	}
	for name, c := range cases {
		e := EstimateTrainMemory(defaultConfig(t, c.system, LNP, c.edit))
		err := e.Check(laptopBudget, "the test's budget")
		if err == nil {
			t.Errorf("%s: estimate %s passes a budget of %s", name, ByteSize(e.Total()), ByteSize(laptopBudget))
			continue
		}
		for _, want := range []string{"at least " + ByteSize(e.Total()), "4.0 GB available (the test's budget)", "lower --batch", MemoryBudgetEnv} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", name, err, want)
			}
		}
	}
}

// TestTrainMemoryPassesShippedRuns: the training runs of
// checkpoints/train-all.sh pass the check, measured, on 4 GB.
func TestTrainMemoryPassesShippedRuns(t *testing.T) {
	cases := []struct {
		system                           string
		b                                Backbone
		hidden, latent, decHidden, batch int
	}{
		{"spring", LNP, 64, 8, 64, 32}, {"spring", CNP, 64, 8, 64, 32}, {"spring", ANP, 64, 8, 64, 16},
		{"lv", LNP, 128, 16, 128, 8}, {"lv", CNP, 128, 16, 128, 8}, {"lv", ANP, 128, 16, 128, 8},
		{"advdiff", LNP, 64, 16, 64, 16}, {"advdiff", CNP, 64, 16, 64, 16}, {"advdiff", ANP, 64, 16, 64, 16},
	}
	for _, c := range cases {
		cfg := defaultConfig(t, c.system, c.b, func(cfg *Config) {
			a := &cfg.Arch
			a.Hidden, a.LatentTheta, a.LatentDelta, a.DecHidden = c.hidden, c.latent, c.latent, c.decHidden
			cfg.Train.Batch = c.batch
		})
		_, e := probedModel(t, cfg)
		if err := e.Check(laptopBudget, "the test's budget"); err != nil {
			t.Errorf("%s/%s: %v", c.system, c.b, err)
		}
	}
}

// TestProbeMatchesTrainingStep: the probe's step, scaled from one
// realization to the batch, is within 10% of what a real training step
// of that batch at the largest context takes from its arena (a step's
// values grow in proportion to the batch), and the estimate made from
// the configuration alone is below it, as a lower bound must be.
func TestProbeMatchesTrainingStep(t *testing.T) {
	for _, system := range sims.Names() {
		for _, b := range []Backbone{CNP, LNP, ANP} {
			cfg := tinyConfig(t, system, b)
			cfg.Train.Batch, cfg.Train.Steps2 = 6, 1
			m, e := probedModel(t, cfg)
			tc := cfg.Train
			tc.ContextMin, tc.ContextMax = e.Context, e.Context
			tr := &trainer{m: m, t: tc, s: newSampler(m.Sys, tc), physOnly: m.physicsParams()}
			arena := new(nets.Arena)
			if _, err := tr.step(nets.NewAdam(tc.LR), arena, 2, 0, 1); err != nil {
				t.Fatal(err)
			}
			real := float64(arenaSlack * arena.Used() * 8)
			if r := float64(e.StepBytes) / real; r < 1 || r > 1.1 {
				t.Errorf("%s/%s: probe %s, a real step of batch %d %s (ratio %.2f)", system, b, ByteSize(e.StepBytes), tc.Batch, ByteSize(int64(real)), r)
			}
			if lower := EstimateTrainMemory(cfg).StepBytes; lower > e.StepBytes {
				t.Errorf("%s/%s: lower bound %s above the probe's %s", system, b, ByteSize(lower), ByteSize(e.StepBytes))
			}
		}
	}
}

// TestProbeLeavesTrainingUnchanged: a run probed before it trains ends
// with the weights of one that was not, bit for bit.
func TestProbeLeavesTrainingUnchanged(t *testing.T) {
	edit := func(cfg *Config) { cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.Batch = 2, 3, 4 }
	probed := tinyModel(t, "lv", ANP, edit)
	plain := tinyModel(t, "lv", ANP, edit)
	if _, err := probed.ProbeTrainMemory(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{probed, plain} {
		if _, err := m.Train(context.Background(), Hooks{}); err != nil {
			t.Fatal(err)
		}
	}
	if name := sameWeights(probed, plain.Params.Snapshot()); name != "" {
		t.Errorf("%s differs after the probe", name)
	}
}

// TestMemoryBudget: the budget is $APIC_MEMORY_BUDGET megabytes when
// set (a bad value is an error naming it), else MemAvailable.
func TestMemoryBudget(t *testing.T) {
	t.Setenv(MemoryBudgetEnv, "1500")
	if b, where, err := MemoryBudget(); err != nil || b != 1.5e9 || where != MemoryBudgetEnv {
		t.Errorf("%s=1500: budget %d from %q, error %v", MemoryBudgetEnv, b, where, err)
	}
	t.Setenv(MemoryBudgetEnv, "lots")
	if _, _, err := MemoryBudget(); err == nil || !strings.Contains(err.Error(), `"lots"`) {
		t.Errorf("%s=lots: error %v", MemoryBudgetEnv, err)
	}
	// Beyond the bound, the refusal gives it.
	t.Setenv(MemoryBudgetEnv, "2000000000000")
	if _, _, err := MemoryBudget(); err == nil || !strings.Contains(err.Error(), `"2000000000000": want a whole number of megabytes from 0 (no memory check) to 1099511627776`) {
		t.Errorf("%s=2000000000000: error %v", MemoryBudgetEnv, err)
	}
	// Set empty (a script passing on an unset variable), it is unset.
	t.Setenv(MemoryBudgetEnv, " ")
	if _, where, err := MemoryBudget(); err != nil || where == MemoryBudgetEnv {
		t.Errorf("%s empty: budget from %q, error %v; want MemAvailable's", MemoryBudgetEnv, where, err)
	}
	path := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(path, []byte("MemTotal:       24684084 kB\nMemAvailable:    2000000 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := memAvailable(path); got != 2000000<<10 {
		t.Errorf("memAvailable: %d, want %d", got, 2000000<<10)
	}
	if got := memAvailable(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Errorf("memAvailable of a missing file: %d, want 0 (no check)", got)
	}
}

// probedModel builds the model of cfg and probes its training step's
// memory.
func probedModel(t *testing.T, cfg Config) (*Model, TrainMemory) {
	t.Helper()
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.ProbeTrainMemory()
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}
