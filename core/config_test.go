package core

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"apic/sims"
)

func TestDefaultConfigValid(t *testing.T) {
	for _, sys := range sims.All() {
		h := sims.HintsFor(sys)
		for _, b := range Backbones {
			cfg := DefaultConfig(sys, b)
			if err := cfg.Validate(); err != nil {
				t.Errorf("%s/%s: default config invalid: %v", sys.Name(), b, err)
			}
			a, tr := cfg.Arch, cfg.Train
			if a.System != sys.Name() || a.Backbone != b || a.Form != Native || tr.Reg != RegL2 {
				t.Errorf("%s/%s: default %+v", sys.Name(), b, a)
			}
			if a.Hidden != h.Hidden || a.DecHidden != h.DecHidden || a.LatentTheta != h.Latent || tr.Steps1 != h.Steps1 || tr.Steps2 != h.Steps2 || tr.Batch != h.Batch {
				t.Errorf("%s/%s: default does not follow the hints %+v: %+v", sys.Name(), b, h, cfg)
			}
			if tr.LR != 5e-4 || tr.LambdaTheta != 1 || tr.LambdaDelta != 1 {
				t.Errorf("%s/%s: lr %v, λθ %v, λδ %v; the paper's defaults are 5e-4, 1, 1", sys.Name(), b, tr.LR, tr.LambdaTheta, tr.LambdaDelta)
			}
		}
	}
}

func TestConfigValidateRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown system", func(c *Config) { c.Arch.System = "pendulum" }, "pendulum"},
		{"unknown backbone", func(c *Config) { c.Arch.Backbone = "gp" }, "backbone"},
		{"θ floors for 2 of 1 parameters", func(c *Config) { c.Infer.OnePass = &SpreadFit{ThetaFloor: []float64{1, 1}} }, "θ deviation floors for 2 parameters"},
		{"θ factors for 3 of 1 parameters", func(c *Config) {
			c.Infer.Conditions = []ConditionScale{{Context: 30, Recon: 1, Delta: 1, Theta: 1, ThetaParam: []float64{1, 1, 1}}}
		}, "θ deviation factors for 3 parameters"},
		{"unknown form", func(c *Config) { c.Arch.Form = "exotic" }, "form"},
		{"unknown regularizer", func(c *Config) { c.Train.Reg = "l3" }, "regulariser"},
		{"hidden 0", func(c *Config) { c.Arch.Hidden = 0 }, "hidden"},
		{"layers 0", func(c *Config) { c.Arch.Layers = 0 }, "layers"},
		{"latent-theta 0", func(c *Config) { c.Arch.LatentTheta = 0 }, "latent-theta"},
		{"latent-delta negative", func(c *Config) { c.Arch.LatentDelta = -1 }, "latent-delta"},
		{"dec-hidden 0", func(c *Config) { c.Arch.DecHidden = 0 }, "dec-hidden"},
		{"dec-layers 0", func(c *Config) { c.Arch.DecLayers = 0 }, "dec-layers"},
		{"batch 0", func(c *Config) { c.Train.Batch = 0 }, "batch"},
		{"heads not dividing hidden", func(c *Config) { c.Arch.Backbone, c.Arch.Heads = ANP, 5 }, "heads"},
		{"heads 0", func(c *Config) { c.Arch.Backbone, c.Arch.Heads = ANP, 0 }, "heads must be ≥ 1, got 0"},
		{"negative heads", func(c *Config) { c.Arch.Backbone, c.Arch.Heads = ANP, -4 }, "heads must be ≥ 1, got -4"},
		{"negative steps1", func(c *Config) { c.Train.Steps1 = -1 }, "steps"},
		{"negative steps2", func(c *Config) { c.Train.Steps2 = -5 }, "steps"},
		{"steps beyond the bound", func(c *Config) { c.Train.Steps2 = LimitTrainSteps.Max + 1 }, "between 0 and 100000000"},
		{"zero lr", func(c *Config) { c.Train.LR = 0 }, "train.lr: lr must be in (0, 1]"},
		{"NaN lr", func(c *Config) { c.Train.LR = math.NaN() }, "train.lr: lr must be in (0, 1]"},
		{"lr beyond the bound", func(c *Config) { c.Train.LR = 1.5 }, "train.lr: lr must be in (0, 1]"},
		{"negative final lr", func(c *Config) { c.Train.LRFinal = -1e-4 }, "train.lr_final: lr-final must be in [0, 1]"},
		{"infinite lr", func(c *Config) { c.Train.LR = math.Inf(1) }, "train.lr: lr must be in (0, 1]"},
		{"infinite final lr", func(c *Config) { c.Train.LRFinal = math.Inf(1) }, "train.lr_final: lr-final must be in [0, 1]"},
		{"NaN final lr", func(c *Config) { c.Train.LRFinal = math.NaN() }, "train.lr_final: lr-final must be in [0, 1]"},
		{"λθ beyond the bound", func(c *Config) { c.Train.LambdaTheta = 1e5 }, "train.lambda_theta: lambda-theta must be in [0, 10000]"},
		{"clip beyond the bound", func(c *Config) { c.Train.ClipNorm = 2e6 }, "train.clip_norm: clip must be in [0, 1000000]"},
		{"negative λθ", func(c *Config) { c.Train.LambdaTheta = -1 }, "lambda"},
		{"negative λδ", func(c *Config) { c.Train.LambdaDelta = -0.5 }, "lambda"},
		{"negative noise", func(c *Config) { c.Train.Noise = -0.1 }, "noise"},
		{"NaN noise", func(c *Config) { c.Train.Noise = math.NaN() }, "noise"},
		{"noise 1e300", func(c *Config) { c.Train.Noise = 1e300 }, "training noise σ must be at most 1000"},
		{"noise range to 1e300", func(c *Config) { c.Train.NoiseMax = 1e300 }, "training noise σ must be at most 1000"},
		{"noise low share 1.5", func(c *Config) { c.Train.NoiseLowShare = 1.5 }, "noise-low-share must be between 0 and 1"},
		{"NaN noise low share", func(c *Config) { c.Train.NoiseLowShare = math.NaN() }, "noise-low-share"},
		{"infinite λδ", func(c *Config) { c.Train.LambdaDelta = math.Inf(1) }, "lambda"},
		{"NaN clip", func(c *Config) { c.Train.ClipNorm = math.NaN() }, "clip"},
		{"negative trajectories", func(c *Config) { c.Train.Trajectories = -3 }, "trajectories"},
		{"negative clip", func(c *Config) { c.Train.ClipNorm = -1 }, "clip"},
		{"context range reversed", func(c *Config) { c.Train.ContextMin, c.Train.ContextMax = 9, 4 }, "context range"},
		{"context range from 0", func(c *Config) { c.Train.ContextMin, c.Train.ContextMax = 0, 4 }, "context range"},
		{"negative basis", func(c *Config) { c.Arch.Basis = -1 }, "basis"},
		{"basis on a one-query closure", func(c *Config) { c.Arch.System, c.Arch.Basis = "advdiff", 4 }, "basis"},
		{"context range past the grid", func(c *Config) { c.Train.ContextMin, c.Train.ContextMax = 5, 101 }, "training context range 5:101 (train.context_min:context_max) must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)"},
		// The resource limits, the same as the flags': a checkpoint's
		// config is read by train --init, eval and the explorer.
		{"val_tasks 1e9", func(c *Config) { c.Train.ValTasks = 1e9 }, "train.val_tasks: val-tasks must be between 0 and 2000"},
		{"trajectories 1e9", func(c *Config) { c.Train.Trajectories = 1e9 }, "train.trajectories: trajectories must be between 0 and 200000"},
		{"advdiff trajectories beyond memory", func(c *Config) { c.Arch.System, c.Train.Trajectories = "advdiff", 30000 }, "got 30000"},
		{"refine 1001", func(c *Config) { c.Infer.Refine = 1001 }, "infer.refine: refine must be between 0 and 1000"},
		{"refine 1e9", func(c *Config) { c.Infer.Refine = 1e9 }, "got 1000000000"},
		{"negative refine", func(c *Config) { c.Infer.Refine = -1 }, "refine"},
	}
	for _, c := range cases {
		cfg := tinyConfig(t, "spring", LNP)
		c.edit(&cfg)
		err := cfg.Validate()
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
		if _, err := NewModel(cfg); err == nil {
			t.Errorf("%s: NewModel accepted the invalid config", c.name)
		}
	}
	// Heads are only constrained for the attentive backbone, and zero
	// lambdas, noise, pool and clipping mean "off".
	cfg := tinyConfig(t, "spring", LNP)
	cfg.Arch.Heads = 5
	cfg.Train.LambdaTheta, cfg.Train.LambdaDelta, cfg.Train.Noise, cfg.Train.Trajectories, cfg.Train.ClipNorm = 0, 0, 0, 0, 0
	if err := cfg.Validate(); err != nil {
		t.Errorf("valid edge config refused: %v", err)
	}
	// The limits' maxima themselves are accepted.
	cfg.Train.ValTasks, cfg.Train.Trajectories, cfg.Infer.Refine = LimitValTasks.Max, 30000, LimitRefine.Max
	if err := cfg.Validate(); err != nil {
		t.Errorf("the limits' maxima refused: %v", err)
	}
}

// TestRealizationBytesBoundsTheHeap: the per-realization size that
// bounds --trajectories is at least what a drawn realization takes on
// the heap, and not far above it. The heap is the process's: another
// goroutine's allocations or frees (a previous test's stragglers) can
// move one reading either way, so the median of five is taken.
func TestRealizationBytesBoundsTheHeap(t *testing.T) {
	for _, name := range sims.Names() {
		sys, _ := sims.Lookup(name)
		var readings []int
		for range 5 {
			readings = append(readings, heapPerRealization(sys))
		}
		slices.Sort(readings)
		measured := readings[2]
		est := RealizationBytes(sys)
		t.Logf("%s: %d bytes per realization measured, %d estimated, --trajectories at most %d", name, measured, est, TrajectoriesLimit(sys).Max)
		if measured > est || est > 2*measured {
			t.Errorf("%s: estimate %d bytes per realization, measured %d", name, est, measured)
		}
	}
	adv, _ := sims.Lookup("advdiff")
	if most := TrajectoriesLimit(adv).Max; most*RealizationBytes(adv) > trajectoryPoolBytes || most >= LimitTrajectories.Max {
		t.Errorf("advdiff's --trajectories bound %d does not keep the pool within %d bytes", most, trajectoryPoolBytes)
	}
}

// heapPerRealization is the heap growth per drawn realization of sys.
func heapPerRealization(sys sims.System) int {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pool := make([]sims.Realization, 0, n)
	for range n {
		pool = append(pool, sims.Draw(sys, rng))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(pool)
	return (int(after.HeapAlloc) - int(before.HeapAlloc)) / n
}

func TestParseNames(t *testing.T) {
	for _, b := range Backbones {
		if got, err := ParseBackbone(string(b)); err != nil || got != b {
			t.Errorf("ParseBackbone(%q) = %q, %v", b, got, err)
		}
	}
	for _, f := range []Form{Native, Additive, Multiplicative} {
		if got, err := ParseForm(string(f)); err != nil || got != f {
			t.Errorf("ParseForm(%q) = %q, %v", f, got, err)
		}
	}
	for _, r := range Regularizers {
		if got, err := ParseRegularizer(string(r)); err != nil || got != r {
			t.Errorf("ParseRegularizer(%q) = %q, %v", r, got, err)
		}
	}
	if len(Backbones) != 3 || len(Regularizers) != 6 {
		t.Errorf("%d backbones and %d regularizers, want 3 and 6", len(Backbones), len(Regularizers))
	}
	// Unknown names (and case variants) are refused with the valid choices
	// in the message.
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(ParseBackbone("LNP")), "cnp, lnp or anp"},
		{second(ParseBackbone("")), "cnp"},
		{second(ParseForm("additiv")), "native, additive or multiplicative"},
		{second(ParseRegularizer("l0")), "l1, l2, orthogonal, spectral, gradpen"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v does not list %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestConfigJSONRoundTrip: a configuration survives JSON (the checkpoint
// stores it so), with the documented field names.
func TestConfigJSONRoundTrip(t *testing.T) {
	cfg := tinyConfig(t, "advdiff", ANP)
	cfg.Arch.Form, cfg.Train.Reg, cfg.Train.Noise, cfg.Train.LRFinal, cfg.Train.Seed = Additive, RegGradPen, 0.05, 1e-5, 1<<60+3
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("round trip %+v, want %+v", got, cfg)
	}
	for _, k := range []string{`"latent_theta"`, `"lambda_delta"`, `"reg":"gradpen"`, `"form":"additive"`, `"trajectories"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON %s lacks %s", b, k)
		}
	}
}

// TestNewModelDeterministic: the same config builds the same weights; the
// seed changes them; parameter names are unique and stable.
func TestNewModelDeterministic(t *testing.T) {
	a := tinyModel(t, "lv", ANP, nil)
	b := tinyModel(t, "lv", ANP, nil)
	if name := sameWeights(a, b.Params.Snapshot()); name != "" {
		t.Errorf("same config, different weights at %s", name)
	}
	c := tinyModel(t, "lv", ANP, func(cfg *Config) { cfg.Train.Seed = 2 })
	if sameWeights(a, c.Params.Snapshot()) == "" {
		t.Error("another seed gives the same weights")
	}
	if a.Params.Count() == 0 || a.Closure() == nil || a.Closure().Name() != a.Sys.Closure().Name() {
		t.Errorf("model has %d parameters, closure %v", a.Params.Count(), a.Closure())
	}
	for _, f := range []Form{Additive, Multiplicative} {
		m := tinyModel(t, "lv", LNP, func(cfg *Config) { cfg.Arch.Form = f })
		if m.Closure().Name() != string(f) {
			t.Errorf("form %s gives closure %q", f, m.Closure().Name())
		}
	}
}

// TestCheckContextRangeUnknownSystem: without a system there is no
// bound on MAX to state, so none is (not "≤ 0").
func TestCheckContextRangeUnknownSystem(t *testing.T) {
	if err := CheckContextRange("nosuch", 5, 500); err != nil {
		t.Errorf("5:500: %v", err)
	}
	if err := CheckContextRange("nosuch", 0, 5); err == nil || err.Error() != "must satisfy 1 ≤ MIN ≤ MAX" {
		t.Errorf("0:5: %v", err)
	}
}
