package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

func TestEvalGrid(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 2, 2)
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--grid", "--grid-contexts", "5,10", "--grid-noises", "0,0.05", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Cells []struct {
			Context int
			Noise   float64
			Report  *struct{ Context int }
			Misses  []string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	want := [][2]float64{{5, 0}, {5, 0.05}, {10, 0}, {10, 0.05}}
	if len(got.Cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(got.Cells), len(want))
	}
	for i, c := range got.Cells {
		if float64(c.Context) != want[i][0] || c.Noise != want[i][1] || c.Report == nil || c.Report.Context != c.Context {
			t.Errorf("cell %d: %+v, want context %v noise %v with a report", i, c, want[i][0], want[i][1])
		}
	}
	// The default grid: 4 contexts × 4 noises, then contexts 1 and 2.
	code, out, errOut = runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "1", "--samples", "1", "--refine", "0", "--grid")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if rows := len(gridTableRows(out)); rows != 18 {
		t.Errorf("default grid printed %d rows, want 18:\n%s", rows, out)
	}
	for _, w := range []string{"recon ECE", "θ cover95", "obs cover95", "misses", "misses: the targets a cell fails: recon ECE ≤ 0.10"} {
		if !strings.Contains(out, w) {
			t.Errorf("grid table lacks %q:\n%s", w, out)
		}
	}
}

func TestEvalGridErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "5,x"}, `--grid-contexts wants comma-separated context sizes ≥ 1, got "x" as entry 2 of 2`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "1,,2"}, `got "" as entry 2 of 3`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "0"}, "context sizes ≥ 1"},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-noises", "-1"}, `--grid-noises wants comma-separated noise levels 0 ≤ σ ≤ 1000, got "-1"`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-noises", "0,1e300"}, `--grid-noises wants comma-separated noise levels 0 ≤ σ ≤ 1000, got "1e300"`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-noises", "0x1p-4"}, `--grid-noises wants comma-separated noise levels 0 ≤ σ ≤ 1000, got "0x1p-4"`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-noises", "0,1e-400"}, `got "1e-400" as entry 2 of 2: "1e-400" is too small: it is nonzero`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts="}, `--grid-contexts is given as "", which would read as the flag left out: give a value, or leave --grid-contexts out`},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "100"}, "no targets"},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33", "--grid-noises", "0,0.1"}, "grid cells must be between 1 and 64"},
		{[]string{"eval", "--system", "spring", "--grid-noises", "0"}, "need --grid"},
		{[]string{"eval", "--system", "spring", "--grid", "--noise", "0.1"}, "drop --noise"},
		{[]string{"eval", "--system", "spring", "--grid", "--context", "5", "--noise", "0"}, "drop --context and --noise"},
		{[]string{"eval", "--system", "spring", "--grid", "--true-theta"}, "drop --true-theta"},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "5,10,5"}, "--grid-contexts lists context 5 twice"},
		{[]string{"eval", "--system", "spring", "--grid", "--grid-noises", "0,0.1,0.10"}, "--grid-noises lists noise 0.1 twice"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestTrainNoiseRangeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--system", "spring", "--noise-range", "0.1:0.05", "--out", "x.safetensors"}, "--noise-range wants LO:HI with 0 ≤ LO ≤ HI"},
		{[]string{"train", "--system", "spring", "--noise-range", "0.1", "--out", "x.safetensors"}, "--noise-range wants LO:HI"},
		{[]string{"train", "--system", "spring", "--noise-range", "0:inf", "--out", "x.safetensors"}, "0 ≤ LO ≤ HI ≤ 1000"},
		{[]string{"train", "--system", "spring", "--noise-range", "0:1e300", "--out", "x.safetensors"}, `--noise-range wants LO:HI with 0 ≤ LO ≤ HI ≤ 1000 (e.g. 0:0.1), got "0:1e300"`},
		{[]string{"train", "--system", "spring", "--noise-range", "0:0x1p-4", "--out", "x.safetensors"}, `--noise-range wants LO:HI with 0 ≤ LO ≤ HI ≤ 1000 (e.g. 0:0.1), got "0:0x1p-4"`},
		{[]string{"train", "--system", "spring", "--noise-range", "1e-99999:0.1", "--out", "x.safetensors"}, `got "1e-99999:0.1": "1e-99999" is too small: it is nonzero`},
		{[]string{"train", "--system", "spring", "--noise-range", "0:0.1", "--noise", "0.05", "--out", "x.safetensors"}, "drop --noise"},
		{[]string{"train", "--system", "spring", "--noise", "0.05", "--noise-low-share", "0.5", "--out", "x.safetensors"}, "--noise-low-share needs a noise range"},
		{[]string{"train", "--system", "spring", "--noise-low-share", "1.5", "--out", "x.safetensors"}, "noise-low-share must be between 0 and 1, got 1.5"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

// An unfinished run's file is warned about in the grid too, as in a
// single evaluation: on the table and under "warnings" in JSON.
func TestEvalGridWarnsUnfinished(t *testing.T) {
	dir := t.TempDir()
	m, info, err := core.LoadCheckpoint(tinyCheckpoint(t, dir, "spring", 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	info.Unfinished = true
	partial := filepath.Join(dir, "m.partial.safetensors")
	if err := core.SaveCheckpoint(partial, m, info, nets.F32); err != nil {
		t.Fatal(err)
	}
	args := []string{"eval", "--checkpoint", partial, "--tasks", "1", "--samples", "1", "--grid", "--grid-contexts", "5", "--grid-noises", "0"}
	code, out, errOut := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "warning: ") || !strings.Contains(out, "unfinished") {
		t.Errorf("table: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, append(args, "--json")...)
	var got struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "unfinished") {
		t.Errorf("JSON: exit %d, warnings %q (%v)", code, got.Warnings, err)
	}
}

// TestCellMissesNameTheColumn: a missed θ coverage is named as its
// column is, θ cover95 (it once read "θ cover" beside that head).
func TestCellMissesNameTheColumn(t *testing.T) {
	cell := func(cover float64) core.GridCell {
		return core.GridCell{Report: &core.Report{Metrics: map[string]core.Summary{
			core.KeyThetaCover: {Mean: cover}, core.KeyReconLL: {Mean: 0}, core.KeyReconECE: {Mean: 0}, core.KeyDeltaECE: {Mean: 0}}}}
	}
	for _, small := range []bool{false, true} {
		if got := cellMisses(cell(0.5), small); !reflect.DeepEqual(got, []string{"θ cover95"}) {
			t.Errorf("small %v, coverage 0.5: misses %q, want [θ cover95]", small, got)
		}
		if got := cellMisses(cell(0.95), small); len(got) != 0 {
			t.Errorf("small %v, coverage 0.95: misses %q, want none", small, got)
		}
	}
}

// TestEvalGridReconLLAsEval: the grid prints recon LL with eval's four
// decimals (it once printed three significant digits, "4.82").
func TestEvalGridReconLLAsEval(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 2, 2)
	args := []string{"eval", "--checkpoint", ckpt, "--tasks", "1", "--samples", "1", "--grid", "--grid-contexts", "5", "--grid-noises", "0"}
	code, out, errOut := runCLI(t, append(args, "--json")...)
	var got struct {
		Cells []struct {
			Report struct{ Metrics map[string]core.Summary }
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Cells) != 1 {
		t.Fatalf("JSON: exit %d, stderr %q, %v", code, errOut, err)
	}
	want := fmt.Sprintf(" %10.4f ", got.Cells[0].Report.Metrics[core.KeyReconLL].Mean)
	code, out, errOut = runCLI(t, args...)
	rows := gridTableRows(out)
	if code != 0 || len(rows) != 1 || !strings.Contains(rows[0], want) {
		t.Errorf("exit %d, stderr %q: the row lacks recon LL as %q:\n%s", code, errOut, want, out)
	}
}

// gridTableRows are the rows of eval --grid's table in out: the lines
// after its head ("context  noise …") up to the first blank one.
func gridTableRows(out string) []string {
	_, table, _ := strings.Cut(out, "\ncontext  noise")
	_, table, _ = strings.Cut(table, "\n")
	table, _, _ = strings.Cut(table, "\n\n")
	return strings.Split(strings.TrimRight(table, "\n"), "\n")
}

// TestEvalGridListsCellWarnings: the text grid prints each cell's
// warnings below the table, as eval does for one condition, so that a
// model whose θ̂ says no more than the prior's centre does not look
// sound there; a text several cells share is printed once, naming them.
func TestEvalGridListsCellWarnings(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 2, 2)
	args := []string{"eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "1", "--grid", "--grid-contexts", "5,30", "--grid-noises", "0,0.05"}
	code, out, errOut := runCLI(t, append(args, "--json")...)
	var got struct {
		Cells []struct {
			Report struct{ Warnings []string }
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Cells) != 4 {
		t.Fatalf("JSON: exit %d, stderr %q, %v", code, errOut, err)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, listed, ok := strings.Cut(out, "\nwarnings, in ")
	if !ok {
		t.Fatalf("no warnings below the table:\n%s", out)
	}
	for i, c := range got.Cells {
		for _, w := range c.Report.Warnings {
			if !strings.Contains(listed, ": "+w+"\n") {
				t.Errorf("cell %d's warning %q is not listed:\n%s", i, w, out)
			}
		}
	}
	// The range warning of context 5 holds at both noises: one line.
	if n := strings.Count(listed, "only 5 context points"); n != 1 {
		t.Errorf("context 5's range warning printed %d times, want once:\n%s", n, listed)
	}
	if !strings.Contains(listed, "context 5 (noise 0, 0.05): only 5 context points") {
		t.Errorf("the shared warning does not name both cells:\n%s", listed)
	}
}

// TestEvalGridCellsBoundInHelp: the bound on --grid's cells, refused
// before any evaluation, is one the help of the list flags gives.
func TestEvalGridCellsBoundInHelp(t *testing.T) {
	_, help, _ := runCLI(t, "help", "eval")
	bound := fmt.Sprintf("contexts × noises at most %d cells", maxGridCells.Max)
	for _, name := range []string{"grid-contexts", "grid-noises"} {
		if m := regexp.MustCompile(`(?m)^  --` + name + ` string\n\s+(.*)$`).FindStringSubmatch(help); m == nil || !strings.Contains(m[1], bound) {
			t.Errorf("--%s's help %q lacks %q", name, m, bound)
		}
	}
	code, _, stderr := runCLI(t, "eval", "--system", "spring", "--grid", "--grid-contexts", "1,2,3,4,5,6,7,8,9", "--grid-noises", "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7")
	if want := fmt.Sprintf("grid cells must be between 1 and %d", maxGridCells.Max); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("72 cells: exit %d, stderr %q; want %q", code, stderr, want)
	}
}
