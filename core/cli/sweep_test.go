package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"apic/core"
)

// sweepMainEnv makes the test binary act as apic (TestMain), so that
// --plan lines can run in a shell.
const sweepMainEnv = "APIC_SWEEP_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(sweepMainEnv) == "1" {
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// tinySweepArgs is a 2 × 2 evaluation grid with 2 seeds of tiny evals.
func tinySweepArgs(out string) []string {
	return []string{"sweep", "--system", "spring", "--vary", "context=10,30", "--vary", "noise=0,0.05",
		"--seeds", "2", "--tasks", "2", "--fix", "samples=2", "--out", out}
}

func runSweepOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, stdout, stderr)
	}
	return stdout
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSweepEvalGridWritesResults(t *testing.T) {
	out := t.TempDir()
	stdout := runSweepOK(t, tinySweepArgs(out)...)
	lines := strings.Split(strings.TrimSpace(readText(t, filepath.Join(out, "results.csv"))), "\n")
	if len(lines) != 9 {
		t.Fatalf("results.csv has %d lines, want a header and 8 rows:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if want := "context,noise,seed,recon_mae,delta_mae,theta_mae,recon_ece,delta_ece,recon_ll,theta_cover95"; lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	var keys []string
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		keys = append(keys, strings.Join(f[:3], ","))
	}
	want := "10,0,1 10,0,2 10,0.05,1 10,0.05,2 30,0,1 30,0,2 30,0.05,1 30,0.05,2"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	sum := readText(t, filepath.Join(out, "summary.json"))
	if strings.Count(sum, `"seeds": 2`) != 4 || !strings.Contains(sum, "ci95_lo") {
		t.Errorf("summary.json lacks 4 cells of 2 seeds with intervals:\n%s", sum)
	}
	if !strings.Contains(stdout, "recon MAE against context") || !strings.Contains(stdout, "(values evenly spaced)") {
		t.Errorf("no curves on stdout:\n%s", stdout)
	}
}

func TestSweepCellEqualsEvalAlone(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	cell := filepath.Join(out, "cells", "context=10_noise=0.05_seed=2")
	cmd := readText(t, filepath.Join(cell, "cmd.txt"))
	args := []string{"eval", "--system", "spring", "--samples=2", "--context=10", "--noise=0.05", "--seed", "2", "--tasks", "2", "--json"}
	if !strings.HasPrefix(cmd, "apic "+strings.Join(args, " ")+" > ") {
		t.Errorf("cmd.txt %q, want the eval line %v", cmd, args)
	}
	alone := runSweepOK(t, args...)
	if got := readText(t, filepath.Join(cell, "eval.json")); got != alone {
		t.Errorf("cell's eval.json differs from apic eval alone:\n%s\nalone:\n%s", got, alone)
	}
}

func TestSweepResumesAfterInterrupt(t *testing.T) {
	whole := t.TempDir()
	runSweepOK(t, tinySweepArgs(whole)...)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := 0
	sweepCellHook = func(string) { finished++; cancel() }
	defer func() { sweepCellHook = nil }()
	var stdout, stderr bytes.Buffer
	if code := Run(ctx, tinySweepArgs(out), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "rerun") {
		t.Fatalf("interrupted sweep: exit %d, stderr %s", code, stderr.String())
	}
	done, _ := filepath.Glob(filepath.Join(out, "cells", "*", "eval.json"))
	if finished != 1 || len(done) != 1 {
		t.Fatalf("%d cells finished, %d eval.json files; want 1 each", finished, len(done))
	}
	sweepCellHook = nil
	runSweepOK(t, tinySweepArgs(out)...)
	if got, want := readText(t, filepath.Join(out, "results.csv")), readText(t, filepath.Join(whole, "results.csv")); got != want {
		t.Errorf("resumed results.csv\n%s\nwant\n%s", got, want)
	}
}

// runPlan runs the --plan lines of args with runner (a shell command
// reading the lines on stdin), then --collect.
func runPlan(t *testing.T, out string, runner string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	planProgram = exe
	defer func() { planProgram = "apic" }()
	plan := runSweepOK(t, append(tinySweepArgs(out), "--plan")...)
	if n := strings.Count(plan, "\n"); n != 8 {
		t.Fatalf("plan has %d lines, want 8:\n%s", n, plan)
	}
	sh := exec.Command("bash", "-c", runner)
	sh.Stdin = strings.NewReader(plan)
	sh.Env = append(os.Environ(), sweepMainEnv+"=1")
	if msg, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", runner, err, msg)
	}
	runSweepOK(t, "sweep", "--collect", out)
	return readText(t, filepath.Join(out, "results.csv"))
}

func TestSweepPlanThroughShellEqualsSweep(t *testing.T) {
	whole := t.TempDir()
	runSweepOK(t, tinySweepArgs(whole)...)
	got := runPlan(t, t.TempDir(), "while IFS= read -r line; do bash -c \"$line\" || exit 1; done")
	if want := readText(t, filepath.Join(whole, "results.csv")); got != want {
		t.Errorf("--plan then --collect gave\n%s\nwant\n%s", got, want)
	}
}

func TestSweepPlanWithGNUParallel(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed")
	}
	whole := t.TempDir()
	runSweepOK(t, tinySweepArgs(whole)...)
	got := runPlan(t, t.TempDir(), "parallel --will-cite --halt now,fail=1 -j 2")
	if want := readText(t, filepath.Join(whole, "results.csv")); got != want {
		t.Errorf("--plan | parallel then --collect gave\n%s\nwant\n%s", got, want)
	}
}

func TestSweepTrainingAxis(t *testing.T) {
	out := t.TempDir()
	args := tinyTrainingSweep("lambda-theta=0,0.5", 2, out)
	// Stopped after the first cell, the second's training is
	// interrupted and leaves no eval.json; the rerun finishes it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sweepCellHook = func(string) { cancel() }
	defer func() { sweepCellHook = nil }()
	var stdout, stderr bytes.Buffer
	if code := Run(ctx, args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "rerun") {
		t.Fatalf("interrupted training sweep: exit %d, stderr %s", code, stderr.String())
	}
	if done, _ := filepath.Glob(filepath.Join(out, "cells", "*", "eval.json")); len(done) != 1 {
		t.Fatalf("%d cells finished before the rerun, want 1", len(done))
	}
	sweepCellHook = nil
	runSweepOK(t, args...)
	for _, lt := range []float64{0, 0.5} {
		cell := filepath.Join(out, "cells", "lambda-theta="+map[float64]string{0: "0", 0.5: "0.5"}[lt]+"_seed=1")
		m, _, err := core.LoadCheckpoint(filepath.Join(cell, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		if tr := m.Config.Train; tr.LambdaTheta != lt || tr.Seed != 1 || tr.Steps2 != 2 {
			t.Errorf("cell λθ %v: trained with %+v", lt, tr)
		}
		if cmd := readText(t, filepath.Join(cell, "cmd.txt")); !strings.HasPrefix(cmd, "apic train --system spring --backbone cnp ") || strings.Count(cmd, "\n") != 3 || !strings.Contains(cmd, "--refine 0 --json > ") {
			t.Errorf("cmd.txt %q, want the train line and the one-pass and default eval lines", cmd)
		}
		if _, err := os.Stat(filepath.Join(cell, "eval-onepass.json")); err != nil {
			t.Errorf("training cell without its one-pass evaluation: %v", err)
		}
	}
	csvText := readText(t, filepath.Join(out, "results.csv"))
	if lines := strings.Count(csvText, "\n"); lines != 3 {
		t.Errorf("results.csv has %d lines, want 3", lines)
	}
	if !strings.Contains(csvText, ",onepass_recon_mae,onepass_delta_mae,onepass_theta_mae\n") {
		t.Errorf("results.csv of a training sweep lacks the one-pass columns:\n%s", csvText)
	}
}

func TestSweepUsageErrors(t *testing.T) {
	out := t.TempDir()
	base := []string{"sweep", "--system", "spring", "--out", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "colour=1,2"}, `unknown axis "colour"; evaluation axes: context,`},
		{[]string{"--vary", "contxt=1,2"}, `unknown axis "contxt"; did you mean context? evaluation axes: context,`},
		{[]string{"--fix", "lamda-theta=0", "--vary", "context=10"}, `unknown axis "lamda-theta"; did you mean lambda-theta? evaluation axes:`},
		{[]string{"--vary", "context="}, "empty value"},
		{[]string{"--vary", "context=10,,20"}, "empty value"},
		{[]string{"--vary", "context=ten"}, "is not a whole number"},
		// A number too small to read says so, not "not a number".
		{[]string{"--vary", "lr=1e-99999"}, `lr value "1e-99999" is too small: it is nonzero`},
		{[]string{"--vary", "noise-range=0:1e-400"}, `(e.g. 0:0.1): "1e-400" is too small`},
		// A cell directory name beyond a file name's 255 bytes failed
		// every cell as it started; it is refused before the first.
		{[]string{"--vary", "noise=0." + strings.Repeat("0", 280) + "1"}, "(283 bytes) would be 296 bytes, beyond the 255 a file name can take: shorten that --vary value"},
		{[]string{"--vary", "context=5,10", "--vary", "checkpoint=" + strings.Repeat("d/", 130) + "m.safetensors"}, "(link the file under a shorter path, or run the sweep in its folder)"},
		{[]string{"--vary", "noise=0,0"}, "given twice"},
		{[]string{"--vary", "context=10", "--vary", "context=20"}, "given twice"},
		{[]string{"--vary", "context=10", "--fix", "context=20"}, "both varied and fixed"},
		{[]string{}, "at least one --vary"},
		{[]string{"--vary", "context=10,20", "--seeds", "0"}, "seeds must be between 1 and 100"},
		{[]string{"--vary", "context=1,2,3,4,5,6,7,8,9,10,11", "--seeds", "100"}, "sweep cells × seeds must be between 1 and 1000"},
		{[]string{"--vary", "context=10", "--only", "nope"}, "no cell of this sweep"},
		{[]string{"--vary", "checkpoint=a.safetensors", "--vary", "lambda-theta=0"}, "drop the checkpoint axis"},
	} {
		code, _, stderr := runCLI(t, append(append([]string{}, base...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCLI(t, "sweep", "--vary", "context=10", "--system", "spring"); code != 2 || !strings.Contains(stderr, "--out") {
		t.Errorf("no --out: exit %d, stderr %q", code, stderr)
	}
}

// TestSweepCollectErrors: --collect of something that is no sweep's
// folder is a usage error (exit 2) naming the folder; a sweep folder it
// cannot write to is still summarised, with a warning.
func TestSweepCollectErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "good.csv", "a,b\n")
	missing := filepath.Join(dir, "nonexist")
	for _, c := range []struct{ arg, want string }{
		{missing, "--collect " + missing + ": no such folder"},
		{file, "--collect " + file + " is a file, not a folder"},
		{filepath.Join(file, "sub"), "--collect " + filepath.Join(file, "sub") + ": "},
		{dir, "--collect " + dir + " has no cells folder"},
	} {
		code, _, stderr := runCLI(t, "sweep", "--collect", c.arg)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "cells has") {
			t.Errorf("--collect %s: exit %d, stderr %q; want exit 2 and %q", c.arg, code, stderr, c.want)
		}
	}

	out := filepath.Join(dir, "sw")
	runSweepOK(t, tinySweepArgs(out)...)
	// A folder this user cannot write to: a results.csv that cannot be
	// replaced stands for it even for root, which chmod does not stop.
	csvPath := filepath.Join(out, "results.csv")
	if err := os.Remove(csvPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(csvPath, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sweep", "--collect", out)
	if code != 0 || !strings.Contains(stdout, "recon MAE against context") || !strings.Contains(stdout, "not saved") ||
		!strings.Contains(stderr, "warning: results.csv and summary.json could not be written in "+out) {
		t.Errorf("--collect of a folder it cannot write: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if code, stdout, _ := runCLI(t, "sweep", "--collect", out, "--json"); code != 0 || !strings.Contains(stdout, `"axes"`) {
		t.Errorf("--collect --json of a folder it cannot write: exit %d, stdout %q", code, stdout)
	}
	// A sweep that runs took every cell in its folder: a results.csv it
	// cannot write is an error, found before any cell runs.
	if code, _, stderr := runCLI(t, tinySweepArgs(out)...); code != 2 || !strings.Contains(stderr, "results.csv is a directory") {
		t.Errorf("sweep that cannot write results.csv: exit %d, stderr %q; want exit 2", code, stderr)
	}

	if os.Geteuid() == 0 {
		return // root writes through chmod
	}
	ro := filepath.Join(dir, "ro")
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=5,10", "--tasks", "2", "--out", ro)
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	if code, stdout, stderr := runCLI(t, "sweep", "--collect", ro); code != 0 || !strings.Contains(stdout, "θ MAE") || !strings.Contains(stderr, "could not be written") {
		t.Errorf("--collect of a read-only sweep: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestSweepSummaryReplacesOnlyItsOwnFiles: results.csv and summary.json
// are replaced only when the sweep wrote them; a link from results.csv
// to the user's own table, or notes saved as summary.json, are left as
// they are, refused before a run's cells and warned of by --collect.
func TestSweepSummaryReplacesOnlyItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sw")
	args := []string{"sweep", "--system", "spring", "--vary", "context=5,10", "--tasks", "2", "--out", out}
	runSweepOK(t, args...)
	runSweepOK(t, args...) // its own files are replaced
	data := writeFile(t, dir, "data.csv", "t,y\n1,2\n")
	for _, tc := range []struct {
		name, kind string
		place      func(path string) error
	}{
		{"results.csv", "a sweep's results table", func(path string) error { return os.Symlink(data, path) }},
		{"summary.json", "a sweep's summary", func(path string) error { return os.WriteFile(path, []byte("notes\n"), 0o644) }},
	} {
		path := filepath.Join(out, tc.name)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := tc.place(path); err != nil {
			t.Fatal(err)
		}
		before := readText(t, path)
		want := "exists and is not " + tc.kind + ": refusing to replace it"
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "--out "+path) || !strings.Contains(stderr, want) {
			t.Errorf("sweep over a foreign %s: exit %d, stderr %q; want 2 and %q", tc.name, code, stderr, want)
		}
		code, stdout, stderr := runCLI(t, "sweep", "--collect", out)
		if code != 0 || !strings.Contains(stdout, "not saved") || !strings.Contains(stderr, "--collect "+path) || !strings.Contains(stderr, want) {
			t.Errorf("--collect over a foreign %s: exit %d, stderr %q, stdout:\n%s", tc.name, code, stderr, stdout)
		}
		if after := readText(t, path); after != before {
			t.Errorf("%s was replaced: %q, want %q", tc.name, after, before)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	if got := readText(t, data); got != "t,y\n1,2\n" {
		t.Errorf("the linked table was changed: %q", got)
	}
}

func TestSweepRefusesCellsOfOtherSettings(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	args := tinySweepArgs(out)
	args[len(args)-3] = "samples=3" // --fix samples=2 → 3
	code, _, stderr := runCLI(t, args...)
	if code != 2 || !strings.Contains(stderr, `ran with "--samples=2" where this sweep has "--samples=3"`) {
		t.Errorf("rerun with other --fix: exit %d, stderr %q", code, stderr)
	}
}

// TestSweepRefusesUpFront: values a cell's command would refuse, and an
// --out that cannot be a directory, are refused before any cell runs,
// so no cell directory is written.
func TestSweepRefusesUpFront(t *testing.T) {
	// A training sweep's cells train this little, should a check fail to
	// stop them.
	tinyTraining := []string{"--fix", "steps1=1", "--fix", "steps2=1", "--fix", "batch=2", "--fix", "recalibrate=0", "--fix", "val-every=0",
		"--fix", "val-tasks=1", "--fix", "latent=2", "--fix", "dec-hidden=8", "--fix", "samples=2"}
	dir := t.TempDir()
	file := writeFile(t, dir, "results.csv", "kept\n")
	out := filepath.Join(dir, "sw")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "context=-1"}, "context value -1 is below 1"},
		{[]string{"--vary", "noise=NaN"}, "noise value NaN is not finite"},
		{[]string{"--vary", "noise=-0.1"}, "noise value -0.1 is below 0"},
		{[]string{"--vary", "samples=0"}, "samples value 0 is below 1"},
		{[]string{"--vary", "lambda-theta=1,-2"}, "lambda-theta value -2 is below 0"},
		{[]string{"--vary", "steps1=-5"}, "steps1 value -5 is below 0"},
		{[]string{"--vary", "val-tasks=0"}, "val-tasks value 0 is below 1"},
		{append([]string{"--vary", "hidden=8,5000"}, tinyTraining...), "hidden value 5000 is above 4096, the most its flag takes"},
		{[]string{"--vary", "lr=1e-3,1e9"}, "lr value 1e9 is above 1, the most its flag takes"},
		{[]string{"--vary", "lr=0"}, "lr value 0 must be above 0"},
		{[]string{"--vary", "z-theta-prior=-0.5"}, "z-theta-prior value -0.5 is below 0 (-1: the checkpoint's setting)"},
		{[]string{"--vary", "reg=l1,l3"}, `reg value "l3" is none of l1, l2, orthogonal, spectral, gradpen, spread`},
		// Values only train or eval can judge, checked in every cell's
		// commands before the first cell runs (and by --plan).
		{append([]string{"--vary", "heads=4,48", "--backbone", "anp"}, tinyTraining...), "cell heads=48_seed=1: apic train: --heads 48 must divide"},
		{[]string{"--vary", "context=5,10,30,100"}, "cell context=100_seed=1: apic eval: --context 100 leaves no targets (grid has 100 points: at most 99)"},
		{[]string{"--vary", "context=5,100", "--plan"}, "cell context=100_seed=1: apic eval: --context 100 leaves no targets"},
		{append([]string{"--vary", "context=5,100"}, tinyTraining...), "cell context=100_seed=1: apic eval: --context 100 leaves no targets"},
		{append([]string{"--vary", "lr=1e-3,1e-5", "--fix", "lr-final=1e-4"}, tinyTraining...), "cell lr=1e-5_seed=1: apic train: --lr-final 0.0001 is above the learning rate 1e-05"},
		{append([]string{"--vary", "hidden=8", "--vary", "heads=3", "--backbone", "anp"}, tinyTraining...), "cell hidden=8_heads=3_seed=1: apic train: --heads 3 must divide --hidden 8"},
		// Two spellings of one number would be two cells of one setting.
		{[]string{"--vary", "noise=0.1,0.10"}, `noise values "0.1" and "0.10" are the same number`},
		{[]string{"--vary", "noise=0.1,1e-1"}, `noise values "0.1" and "1e-1" are the same number`},
		{[]string{"--vary", "context=5,05"}, `context values "5" and "05" are the same number`},
		// Int flags read plain decimal: 010 is 10, and 0x10 none.
		{[]string{"--vary", "samples=010,10"}, `samples values "010" and "10" are the same number`},
		{[]string{"--vary", "samples=0x10"}, `samples value "0x10" is not a whole number (decimal digits only: 0x, 0o and 0b prefixes are not read)`},
		{[]string{"--vary", "context=10,1e1"}, `context value "1e1" is not a whole number (decimal digits only: exponent notation is not read; write 10)`},
		{[]string{"--vary", "context-range=1e1:20"}, `MIN "1e1" is not a whole number: context sizes are integers (decimal digits only: exponent notation is not read; write 10)`},
		{[]string{"--vary", "noise=0x1p-4"}, `noise value "0x1p-4" is not a number (decimal or exponent notation, e.g. 0.05 or 5e-2)`},
		{[]string{"--vary", "noise=NaN"}, `noise value NaN is not finite`},
		// Beyond float64's range reads as Inf does, as the float flags read it.
		{[]string{"--vary", "noise=1e400"}, `noise value 1e400 is not finite`},
		{[]string{"--vary", "grid-summary=true,1"}, `grid-summary values "true" and "1" are the same value`},
		{[]string{"--vary", "noise-range=0:0.1,0:.1,0.0:0.10"}, `noise-range values "0:0.1" and "0:.1" are the same range`},
		{[]string{"--vary", "context-range=5:10,05:10"}, `context-range values "5:10" and "05:10" are the same range`},
		// Two spellings of one file's path would evaluate one model twice.
		{[]string{"--vary", "checkpoint=m.safetensors,./m.safetensors"}, `checkpoint values "m.safetensors" and "./m.safetensors" are the same file`},
		// Context sizes are integers, and the message says so.
		{[]string{"--vary", "context-range=5:10.0"}, `context-range value "5:10.0": MAX "10.0" is not a whole number: context sizes are integers`},
		{[]string{"--fix", "context-range=5", "--vary", "noise=0"}, `context-range value "5": not MIN:MAX`},
		{[]string{"--vary", "context-range=0:3", "--plan"}, `--vary: context-range value "0:3": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"--fix", "context-range=5:200", "--vary", "lr=1e-3", "--plan"}, `--fix: context-range value "5:200": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"--vary", "noise-range=0.2:0.1"}, `noise-range value "0.2:0.1" is not LO:HI`},
	} {
		args := append([]string{"sweep", "--system", "spring", "--tasks", "2", "--out", out}, tc.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and %q, no plan", tc.args, code, stderr, stdout, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v created %s", tc.args, out)
		}
	}
	for _, bad := range []string{file, filepath.Join(file, "sub")} {
		code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--tasks", "2", "--vary", "context=5", "--out", bad)
		if code != 2 || !strings.Contains(stderr, "not a directory") {
			t.Errorf("--out %s: exit %d, stderr %q, want 2 and 'not a directory'", bad, code, stderr)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "kept\n" {
		t.Errorf("the file given as --out was changed: %q, %v", b, err)
	}
}

// TestSweepInterruptedTrainingLeavesNoPartials: train keeps an
// interrupted run's steps in model.partial*.safetensors and says how to
// resume from it, but the sweep restarts the cell from step 0. So the
// sweep says that alone, each interruption leaves no file behind, and
// the cell's stale partial files go once its model is trained.
func TestSweepInterruptedTrainingLeavesNoPartials(t *testing.T) {
	out := t.TempDir()
	args := tinyTrainingSweep("lambda-theta=0.5", 30, out)
	cell := filepath.Join(out, "cells", "lambda-theta=0.5_seed=1")
	defer func() { sweepSubStderr = nil }()
	for range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		// Stopped once train reports a step of stage 1: there are
		// completed steps, which train alone keeps.
		trainErr := &cancelOnWrite{cancel: cancel, when: "stage 1 step"}
		sweepSubStderr = trainErr
		var stdout, stderr bytes.Buffer
		code := Run(ctx, args, &stdout, &stderr)
		cancel()
		if !strings.Contains(trainErr.String(), "stage 1 step") {
			t.Fatalf("train reported no step before the interruption: %q", trainErr.String())
		}
		msg := stderr.String()
		if code != 1 || !strings.Contains(msg, "rerun the same command") || !strings.Contains(msg, "its training from step 0") ||
			strings.Contains(msg, "--init") || strings.Contains(msg, "partial") {
			t.Fatalf("interrupted training sweep: exit %d, stderr %q; want one instruction, to rerun the sweep", code, msg)
		}
		if left, _ := filepath.Glob(filepath.Join(cell, "model.partial*")); len(left) != 0 {
			t.Fatalf("the interruption left %v", left)
		}
	}
	sweepSubStderr = nil
	// A partial file from elsewhere (an older apic, train run by hand
	// from cmd.txt) is of no use once the cell's model is trained.
	stale := writeFile(t, cell, "model.partial.safetensors", "stale")
	runSweepOK(t, args...)
	if _, err := os.Stat(filepath.Join(cell, "model.safetensors")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s kept after the cell's model was trained", stale)
	}
}

// TestSweepOnlyInterruptedSaysRestart: an interrupted --only line (a
// plan's) says the cell starts again, without train's resume hint.
func TestSweepOnlyInterruptedSaysRestart(t *testing.T) {
	out := t.TempDir()
	args := []string{"sweep", "--system", "spring", "--backbone", "cnp", "--vary", "lambda-theta=0.5",
		"--fix", "hidden=8", "--fix", "latent=4", "--fix", "dec-hidden=8", "--fix", "batch=4", "--fix", "steps1=30",
		"--fix", "steps2=2", "--fix", "val-tasks=2", "--tasks", "2", "--out", out, "--only", "lambda-theta=0.5_seed=1"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sweepSubStderr = &cancelOnWrite{cancel: cancel, when: "stage 1 step"}
	defer func() { sweepSubStderr = nil }()
	var stdout, stderr bytes.Buffer
	code := Run(ctx, args, &stdout, &stderr)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, "interrupted while running cell lambda-theta=0.5_seed=1") ||
		!strings.Contains(msg, "its training from step 0") || strings.Contains(msg, "partial") {
		t.Errorf("interrupted --only: exit %d, stderr %q", code, msg)
	}
	if left, _ := filepath.Glob(filepath.Join(out, "cells", "*", "model.partial*")); len(left) != 0 {
		t.Errorf("the interruption left %v", left)
	}
}

// TestSweepPlanWarnsWithoutApicOnPath: the plan's lines call apic from
// PATH; where PATH has none, piping them to bash fails line by line,
// so --plan warns, once, on stderr, and its lines stay as they are.
func TestSweepPlanWarnsWithoutApicOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "sw")
	code, stdout, stderr := runCLI(t, append(tinySweepArgs(out), "--plan")...)
	if code != 0 || !strings.HasPrefix(stdout, "apic sweep ") || strings.Count(stderr, "warning: the plan's lines call apic from PATH, and PATH has none") != 1 {
		t.Errorf("--plan without apic on PATH: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = runCLI(t, "sweep", "--preset", "appendix-b", "--out", out, "--plan")
	if n := strings.Count(stderr, "call apic from PATH"); code != 0 || n != 1 {
		t.Errorf("preset --plan without apic on PATH: exit %d, %d warnings, stderr %q; want one", code, n, stderr)
	}

	bin := t.TempDir()
	writeFile(t, bin, "apic", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(bin, "apic"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if code, _, stderr := runCLI(t, append(tinySweepArgs(out), "--plan")...); code != 0 || stderr != "" {
		t.Errorf("--plan with apic on PATH: exit %d, stderr %q; want no warning", code, stderr)
	}
}

// tinyTrainingSweep is a sweep over the training axis vary with a tiny
// spring/cnp model, steps1 stage-1 steps and two of everything else.
func tinyTrainingSweep(vary string, steps1 int, out string) []string {
	return []string{"sweep", "--system", "spring", "--backbone", "cnp", "--vary", vary,
		"--fix", "hidden=8", "--fix", "latent=4", "--fix", "dec-hidden=8", "--fix", "batch=4", "--fix", "steps1=" + strconv.Itoa(steps1),
		"--fix", "steps2=2", "--fix", "val-every=2", "--fix", "val-tasks=2", "--fix", "recalibrate=2",
		"--fix", "samples=2", "--tasks", "2", "--out", out}
}

// TestSweepRerunSkipsFinishedCellsChecks: the up-front check of the
// cells' commands skips finished cells (eval.json), which run nothing:
// a rerun, or --only, still works once a finished cell's checkpoint has
// been moved. --plan still checks every cell it prints.
func TestSweepRerunSkipsFinishedCellsChecks(t *testing.T) {
	dir := t.TempDir()
	c1, c2 := filepath.Join(dir, "c1.safetensors"), filepath.Join(dir, "c2.safetensors")
	trainTinyTo(t, c1)
	data, err := os.ReadFile(c1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sw")
	args := []string{"sweep", "--vary", "checkpoint=" + c1 + "," + c2, "--tasks", "2", "--fix", "samples=2", "--out", out}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if err := os.Rename(c2, c2+".bak"); err != nil {
		t.Fatal(err)
	}
	cells, err := filepath.Glob(filepath.Join(out, "cells", "*"))
	if err != nil || len(cells) != 2 {
		t.Fatalf("cells %v (%v)", cells, err)
	}
	if code, _, stderr := runCLI(t, args...); code != 0 || !strings.Contains(stderr, "2 of 2 cells already finished") {
		t.Errorf("rerun: exit %d, stderr %q", code, stderr)
	}
	for _, cell := range cells {
		id := filepath.Base(cell)
		if code, _, stderr := runCLI(t, append(append([]string{}, args...), "--only", id)...); code != 0 {
			t.Errorf("--only %s: exit %d, stderr %q", id, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, append(append([]string{}, args...), "--plan")...); code == 0 || !strings.Contains(stderr, c2) {
		t.Errorf("--plan with %s gone: exit %d, stderr %q; want its load error", c2, code, stderr)
	}
}

// TestCommandDifferenceLineMissing: where one cmd.txt has a command the
// other lacks (a one-pass evaluation), the refusal names that command
// against nothing, not against the next, unrelated line.
func TestCommandDifferenceLineMissing(t *testing.T) {
	for _, tc := range []struct {
		old, want, was, now string
	}{
		{"apic train --x 1\napic eval", "apic train --x 2\napic eval", "--x 1", "--x 2"},
		{"apic train\napic eval --refine 0\napic eval", "apic train\napic eval", "apic eval --refine 0", ""},
		{"apic train\napic eval", "apic train\napic eval --refine 0\napic eval", "", "apic eval --refine 0"},
	} {
		was, now := commandDifference(tc.old, tc.want)
		if strings.Join(was, " ") != tc.was || strings.Join(now, " ") != tc.now {
			t.Errorf("commandDifference(%q, %q) = %q, %q; want %q, %q", tc.old, tc.want, was, now, tc.was, tc.now)
		}
	}
}

// A cell that fails at run time (here every realization of noise 1000
// fails) does not stop the sweep: the cells after it run, the summary
// of the finished ones is printed (valid JSON with --json), and the
// command exits 1 naming the failed cell.
func TestSweepGoesOnPastAFailedCell(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "noise=1000,0", "--tasks", "2", "--out", out, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
	}
	for _, w := range []string{"cell noise=1000_seed=1: apic eval:", "the other cells go on", "1 of 2 cells failed (noise=1000_seed=1;", "rerun the same command to retry them"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	var sum sweepSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("stdout is not the summary JSON (%v):\n%s", err, stdout)
	}
	if len(sum.Cells) != 1 || sum.Cells[0].Values["noise"] != "0" {
		t.Errorf("summary cells %+v, want the one of noise 0", sum.Cells)
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); err != nil {
		t.Errorf("results.csv of the finished cell: %v", err)
	}
	// Nothing finished: the failure alone, and no summary.
	code, stdout, stderr = runCLI(t, "sweep", "--system", "spring", "--vary", "noise=500,1000", "--tasks", "2", "--out", t.TempDir(), "--json")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "2 of 2 cells failed") {
		t.Errorf("every cell failing: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

// A finished cell whose evaluation left out failed realizations (3 of
// 4 at noise 20) is named in a warning with the count: results.csv and
// the summary carry only the means. A preset says it once per study,
// with the summary, not also as the study finishes.
func TestSweepWarnsOfFailedRealizations(t *testing.T) {
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "noise=0,20", "--tasks", "4", "--out", t.TempDir(), "--json")
	want := "realizations failed and are left out of the means of: noise=20_seed=1: 3 of 4 (each cell's eval.json lists them)"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
	}
	sweepPresets["noisy"] = []sweepStudy{{"noisy-noise", []string{"--system", "spring", "--vary", "noise=0,20"}}}
	t.Cleanup(func() { delete(sweepPresets, "noisy") })
	code, _, stderr = runCLI(t, "sweep", "--preset", "noisy", "--out", t.TempDir(), "--seeds", "1", "--tasks", "4")
	if n := strings.Count(stderr, want); code != 0 || n != 1 {
		t.Errorf("preset: exit %d, the warning %d times, want once:\n%s", code, n, stderr)
	}
}

// TestSweepRefusesFlagsPlanAndOnlyIgnore: --only beside --plan (whose
// lines carry their own), and --json or --png beside --plan or --only,
// which write no summary, are refused before any cell runs, naming the
// flag, where they were once ignored.
func TestSweepRefusesFlagsPlanAndOnlyIgnore(t *testing.T) {
	t.Chdir(t.TempDir())
	base := []string{"sweep", "--system", "spring", "--vary", "context=5", "--tasks", "2", "--fix", "samples=2", "--out", "sw"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--plan", "--only", "context=5_seed=1"}, `--plan prints an --only line for every cell: drop --only "context=5_seed=1"`},
		{[]string{"--plan", "--json"}, "--json shapes the sweep's summary, and --plan prints the cells' command lines without one: drop --json"},
		{[]string{"--only", "context=5_seed=1", "--png"}, "--png shapes the sweep's summary, and --only runs one cell without one: drop --png (once the cells have run, apic sweep --collect DIR --png summarises them)"},
		{[]string{"--only", "context=5_seed=1", "--json"}, "drop --json"},
	} {
		code, stdout, stderr := runCLI(t, append(base[:len(base):len(base)], tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat("sw"); err == nil {
		t.Errorf("a refused sweep made its --out")
	}
	code, _, stderr := runCLI(t, "sweep", "--preset", "appendix-b", "--out", "pre", "--plan", "--png")
	if code != 2 || !strings.Contains(stderr, "drop --png") {
		t.Errorf("--preset --plan --png: exit %d, stderr %q; want it refused", code, stderr)
	}
}

// TestSweepRefusesOversizedCellFiles: a cell file larger than
// core.LimitSweepCellFile (here sparse, so the test writes nothing) is
// refused by --collect and by a rerun with an error naming the file and
// the bound, before it is read whole into memory.
func TestSweepRefusesOversizedCellFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw"}
	runSweepOK(t, args...)
	cell := filepath.Join("sw", "cells", "context=10_seed=1")
	limit := core.LimitSweepCellFile
	for _, c := range []struct {
		file string
		run  []string
	}{
		{"eval.json", []string{"sweep", "--collect", "sw"}},
		{"cell.json", []string{"sweep", "--collect", "sw"}},
		{"cmd.txt", args},
	} {
		path := filepath.Join(cell, c.file)
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, int64(limit.Max)+1); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s is larger than %d bytes (16 MiB), the %s limit", path, limit.Max, limit.Name)
		if code, _, stderr := runCLI(t, c.run...); code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%s of %d bytes: exit %d, stderr %q; want an error containing %q", c.file, limit.Max+1, code, stderr, want)
		}
		if err := os.WriteFile(path, saved, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runSweepOK(t, "sweep", "--collect", "sw")
	if help := runSweepOK(t, "sweep", "--help"); !strings.Contains(strings.Join(strings.Fields(help), " "), fmt.Sprintf("over %d MiB", limit.Max>>20)) {
		t.Errorf("sweep --help does not state the bound on a cell's files, %d MiB", limit.Max>>20)
	}
}

// TestSweepPlanDropsPlanSpelledAnyWay: --plan=1 (or =TRUE, -plan=t) was
// kept in the plan's lines, which dropped only --plan and --plan=true,
// and every line was refused ("--plan prints an --only line for every
// cell: drop --only"). Each spelling is dropped, and the lines run.
func TestSweepPlanDropsPlanSpelledAnyWay(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, plan := range []string{"--plan=1", "--plan=TRUE", "-plan=t", "--plan"} {
		out := runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=5", "--tasks", "1", "--fix", "samples=1", "--out", "sw", plan)
		line := strings.TrimSpace(out)
		if strings.Contains(line, "plan") || !strings.HasSuffix(line, "--only context=5_seed=1") {
			t.Errorf("%s: plan %q; want one line without --plan", plan, out)
			continue
		}
		args := strings.Fields(strings.TrimPrefix(line, "apic "))
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%s: the plan's line %q: exit %d, %s", plan, line, code, stderr)
		}
	}
}
