package checkpoints

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"apic/core"
)

// atlasValues are the λ values of the atlas's axes (issue 22).
var atlasValues = []string{"0", "0.1", "0.2", "0.5", "1", "2", "5"}

// wantAtlas is the atlas issue 22 asks for: spring on both λ axes and
// the five regularisers; lv and advdiff on both λ axes.
func wantAtlas() []Cell {
	var out []Cell
	add := func(system, axis string, values []string) {
		for _, v := range values {
			out = append(out, Cell{system, axis, v})
		}
	}
	add("advdiff", AxisLambdaTheta, atlasValues)
	add("advdiff", AxisLambdaDelta, atlasValues)
	add("lv", AxisLambdaTheta, atlasValues)
	add("lv", AxisLambdaDelta, atlasValues)
	add("spring", AxisLambdaTheta, atlasValues)
	add("spring", AxisLambdaDelta, atlasValues)
	add("spring", AxisReg, []string{"l1", "l2", "orthogonal", "spectral", "gradpen"})
	return out
}

// atlasFixed is the value a cell's other λ was held at: λδ on the λθ
// axis (lv trains at its own λδ = 100), λθ on the λδ axis.
func atlasFixed(c Cell) (lambdaTheta, lambdaDelta float64) {
	switch {
	case c.Axis == AxisLambdaTheta && c.System == "lv":
		return c.Number(), 100
	case c.Axis == AxisLambdaTheta:
		return c.Number(), 1
	case c.Axis == AxisLambdaDelta:
		return 1, c.Number()
	}
	return 1, 1
}

// TestAtlas is issue 22's atlas test: the atlas holds exactly the cells
// asked for, every file loads, is an lnp model of its system, and
// records the λθ, λδ and regulariser its name says.
func TestAtlas(t *testing.T) {
	got := Atlas()
	if !slices.Equal(got, wantAtlas()) {
		t.Fatalf("the atlas holds %d cells %v,\nwant %d %v", len(got), got, len(wantAtlas()), wantAtlas())
	}
	for _, c := range got {
		t.Run(c.File(), func(t *testing.T) {
			m, info, err := c.Load()
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := c.Config()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Train != m.Config.Train {
				t.Errorf("the header's training config %+v differs from the loaded model's %+v", cfg.Train, m.Config.Train)
			}
			tr := m.Config.Train
			if m.Sys.Name() != c.System || m.Config.Arch.Backbone != core.LNP {
				t.Errorf("holds %s/%s, want %s/lnp", m.Sys.Name(), m.Config.Arch.Backbone, c.System)
			}
			if info.Steps1+info.Steps2 == 0 {
				t.Error("records no training steps")
			}
			lt, ld := atlasFixed(c)
			if tr.LambdaTheta != lt || tr.LambdaDelta != ld {
				t.Errorf("trained at λθ %g, λδ %g; the name says λθ %g, λδ %g", tr.LambdaTheta, tr.LambdaDelta, lt, ld)
			}
			if c.Axis == AxisReg && string(tr.Reg) != c.Value {
				t.Errorf("trained with reg %s; the name says %s", tr.Reg, c.Value)
			}
		})
	}
}

// TestAtlasFileNames: every checkpoint file in the atlas names a cell,
// and a cell is found and read by its name, also as embedded:atlas/FILE.
func TestAtlasFileNames(t *testing.T) {
	names := atlasFileNames()
	if len(names) != len(Atlas()) {
		t.Errorf("%d atlas files, %d of them cells: %v", len(names), len(Atlas()), names)
	}
	for _, c := range Atlas() {
		if f, ok := FindCell(c.System, c.Axis, c.Value); !ok || f != c {
			t.Errorf("FindCell(%s): %v, %v", c.File(), f, ok)
		}
		data, ok, err := FromPath(Prefix + c.Name())
		if !ok || err != nil || len(data) == 0 {
			t.Errorf("%s%s: %d bytes, %v, %v", Prefix, c.Name(), len(data), ok, err)
		}
	}
	if _, _, err := LoadCell("spring", AxisLambdaTheta, "7"); err == nil || !strings.Contains(err.Error(), "no spring cell lambda-theta=7") {
		t.Errorf("a missing cell: %v", err)
	}
	if _, ok, err := FromPath(Prefix + "atlas/../spring-lnp.safetensors"); !ok || err == nil {
		t.Errorf("a path out of the atlas: ok %v, err %v; want an error", ok, err)
	}
}

func TestParseCell(t *testing.T) {
	for file, want := range map[string]Cell{
		"spring-lambda-theta-0.1.safetensors": {"spring", AxisLambdaTheta, "0.1"},
		"lv-lambda-delta-100.safetensors":     {"lv", AxisLambdaDelta, "100"},
		"spring-reg-gradpen.safetensors":      {"spring", AxisReg, "gradpen"},
		"spring-lambda-theta-x.safetensors":   {},
		"spring-noise-0.1.safetensors":        {},
		"spring-reg-.safetensors":             {},
		"-reg-l1.safetensors":                 {},
		"spring-reg-l1.json":                  {},
	} {
		got, ok := parseCell(file)
		if ok != (want != Cell{}) || got != want {
			t.Errorf("%s: %v, %v; want %v", file, got, ok, want)
		}
	}
}

// TestAtlasSize: the atlas's files together stay within MaxAtlasBytes,
// each within 2 MB (the explorer loads one per keypress).
func TestAtlasSize(t *testing.T) {
	total := 0
	for _, c := range Atlas() {
		b, err := c.Data()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 2<<20 {
			t.Errorf("%s is %d bytes, over 2 MB", c.File(), len(b))
		}
		total += len(b)
	}
	t.Logf("atlas: %d files, %s", len(Atlas()), fmt.Sprintf("%.1f MB", float64(total)/(1<<20)))
	if total > MaxAtlasBytes {
		t.Errorf("the atlas's files total %d bytes, over the %d-byte bound", total, MaxAtlasBytes)
	}
}

// TestAtlasOnePassUncertainty: the explorer shows an atlas file's one-pass
// prediction while its sliders move, so the file carries its own table of
// one-pass scales, as the shipped files do (checkpoints/atlas.sh, last
// block). With a single scale at every condition, the one-pass bands of
// 17 of spring's 19 cells and all 14 of advdiff's pooled a recon ECE of
// 0.20–0.31 at noise 0.05 on this test's sets, and those cells' θ
// intervals at two clean points covered 0.42–0.72. A small
// seeded set per file (64 realizations: a pooled ECE's standard error is
// about 0.02, a coverage's 0.03), so the bounds are looser than
// docs/uncertainty.md's targets.
func TestAtlasOnePassUncertainty(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every atlas file at two conditions")
	}
	for _, c := range Atlas() {
		t.Run(c.File(), func(t *testing.T) {
			m, _, err := c.Load()
			if err != nil {
				t.Fatal(err)
			}
			noisy := core.Condition{Context: 30, Noise: 0.05}
			if c.System == "advdiff" {
				noisy.Context = 256
			}
			ece := evalOnePass(t, m, noisy).Pooled.Recon
			cover := evalOnePass(t, m, core.Condition{Context: 2}).Metrics[core.KeyThetaCover].Mean
			t.Logf("%s one pass: pooled recon ECE %.3f at context %d, σ %g; θ cover95 %.3f at context 2, σ 0", c.System, ece, noisy.Context, noisy.Noise, cover)
			if !(ece <= atlasMaxPooledECE) {
				t.Errorf("context %d, σ %g: one-pass pooled recon ECE %.3f, want ≤ %v", noisy.Context, noisy.Noise, ece, atlasMaxPooledECE)
			}
			if !(cover >= atlasMinSparseCover) {
				t.Errorf("context 2, σ 0: one-pass θ 95%% coverage %.3f, want ≥ %v", cover, atlasMinSparseCover)
			}
		})
	}
}

// The bounds of TestAtlasOnePassUncertainty.
const (
	atlasMaxPooledECE   = 0.15
	atlasMinSparseCover = 0.85
)

// evalOnePass evaluates m's one-pass predictions at c on a small seeded
// set.
func evalOnePass(t *testing.T, m *core.Model, c core.Condition) core.Report {
	t.Helper()
	rep, _, err := core.Evaluate(context.Background(), m, core.EvalOptions{Tasks: 64, Seed: 5, Samples: 8, Refine: 0, Context: c.Context, Noise: c.Noise})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
