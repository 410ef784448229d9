package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepCollectRefusesHandEdits: --collect trusted what a cell's
// files said: a cell.json value no --vary would take (context -5, lr
// 1e9, a name on no list), a seed past --seeds' bound, keys no sweep
// writes, a value changed after the cell ran; an eval.json whose metric
// no evaluation gives (an MAE of -3, an ECE of 7), whose summary lacks
// its mean (read as 0, a perfect score), whose settings eval's flags
// refuse or differ from the cell's values. Each is refused now, naming
// the file and the value.
func TestSweepCollectRefusesHandEdits(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	dir := filepath.Join("sw", "cells", "context=10_seed=1")
	cellJSON, evalJSON := filepath.Join(dir, "cell.json"), filepath.Join(dir, "eval.json")
	saved := map[string][]byte{}
	for _, p := range []string{cellJSON, evalJSON} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		saved[p] = data
	}
	cell := func(axes, more string) string {
		return `{"id": "context=10_seed=1", "axes": [` + axes + `], "seed": 1` + more + `}`
	}
	for _, tc := range []struct {
		file  string
		plant string               // the file's text, or
		edit  func(map[string]any) // an edit of eval.json
		want  string
	}{
		{file: cellJSON, plant: cell(`{"name": "context", "value": "-5"}`, ""), want: "context value -5 is below 1"},
		{file: cellJSON, plant: cell(`{"name": "context", "value": "abc"}`, ""), want: `context value "abc" is not a whole number`},
		{file: cellJSON, plant: cell(`{"name": "context", "value": 10}`, ""), want: "cannot unmarshal number"},
		{file: cellJSON, plant: cell(`{"name": "lr", "value": "1e9"}`, ""), want: "lr value 1e9 is above 1, the most its flag takes"},
		{file: cellJSON, plant: cell(`{"name": "samples", "value": "20000"}`, ""), want: "samples value 20000 is above 10000"},
		{file: cellJSON, plant: cell(`{"name": "reg", "value": "l3"}`, ""), want: `reg value "l3" is none of l1, l2,`},
		{file: cellJSON, plant: `{"id": "context=10_seed=1000", "axes": [{"name": "context", "value": "10"}], "seed": 1000}`, want: "seed 1000 is beyond --seeds' bound"},
		{file: cellJSON, plant: cell(`{"name": "context", "value": "10"}`, `, "note": "x"`), want: `unknown field "note"`},
		{file: cellJSON, plant: cell(`{"name": "context", "value": "20"}`, ""), want: `its values and seed make the cell ID "context=20_seed=1", not the "context=10_seed=1" it gives`},
		{file: evalJSON, edit: metric("recon_mae", "mean", -3.0), want: "metrics: recon_mae mean -3 is outside [0, +Inf]"},
		{file: evalJSON, edit: metric("recon_ece", "mean", 7.0), want: "metrics: recon_ece mean 7 is outside [0, 1]"},
		{file: evalJSON, edit: metric("delta_mae", "std", -1.0), want: "metrics: delta_mae std -1 is below 0"},
		{file: evalJSON, edit: metric("recon_mae", "mean", nil), want: "no mean: a summary has a mean and a std"},
		{file: evalJSON, edit: func(r map[string]any) { delete(r, "refine") }, want: `no "refine": not the output of apic eval --json`},
		{file: evalJSON, edit: func(r map[string]any) { delete(r["metrics"].(map[string]any), "theta_mae") }, want: `metrics: no "theta_mae"`},
		{file: evalJSON, edit: func(r map[string]any) { r["note"] = "x" }, want: `unknown field "note"`},
		{file: evalJSON, edit: func(r map[string]any) { r["metrics"].(map[string]any)["weird"] = map[string]any{"mean": 1, "std": 0} }, want: `metrics: "weird" is no metric of apic eval`},
		{file: evalJSON, edit: func(r map[string]any) { r["tasks"] = 999999 }, want: "tasks must be between 1 and 2000"},
		{file: evalJSON, edit: func(r map[string]any) { r["samples"] = 20000 }, want: "samples must be between 1 and 10000"},
		{file: evalJSON, edit: func(r map[string]any) { r["backbone"] = "xnp" }, want: `backbone "xnp" is none of cnp, lnp, anp`},
		{file: evalJSON, edit: func(r map[string]any) { r["context"] = 200 }, want: "context 200 is outside 1 to 99, the spring grid's points less one"},
		{file: evalJSON, edit: func(r map[string]any) { r["noise"] = 1e300 }, want: "noise 1e+300 is outside 0 to 1000"},
		{file: evalJSON, edit: func(r map[string]any) { r["context"] = 30 }, want: `it was evaluated with context 30, and the cell's cell.json gives context="10"`},
	} {
		for p, data := range saved {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if tc.edit != nil {
			editJSONFile(t, tc.file, tc.edit)
		} else if err := os.WriteFile(tc.file, []byte(tc.plant), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "sweep", "--collect", "sw")
		if code == 0 || !strings.Contains(stderr, tc.file+": ") || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%s edited (%s): exit %d, stdout %q, stderr %q; want a refusal naming it with %q", tc.file, tc.plant, code, stdout, stderr, tc.want)
		}
	}
}

// metric is an edit of an eval.json that sets the field (mean, std) of
// metric key to v, or removes it where v is nil.
func metric(key, field string, v any) func(map[string]any) {
	return func(rep map[string]any) {
		m := rep["metrics"].(map[string]any)[key].(map[string]any)
		if v == nil {
			delete(m, field)
			return
		}
		m[field] = v
	}
}
