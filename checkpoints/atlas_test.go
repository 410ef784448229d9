package checkpoints

import (
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
