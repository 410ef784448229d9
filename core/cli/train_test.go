package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// tinyTrainArgs are the flags of a small, fast training run.
var tinyTrainArgs = []string{"train", "--system", "spring", "--backbone", "cnp", "--hidden", "8", "--latent", "4",
	"--dec-hidden", "8", "--batch", "4", "--steps1", "2", "--steps2", "2", "--val-every", "2", "--val-tasks", "2",
	"--recalibrate", "2", "--lr", "2e-3", "--lambda-delta", "0.3", "--seed", "7"}

// trainTinyTo trains the tiny model of tinyTrainArgs into out, failing
// the test when train does.
func trainTinyTo(t *testing.T, out string) {
	t.Helper()
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", out)...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
}

func TestTrainWritesCheckpoint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.safetensors")
	code, stdout, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	m, info, err := core.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Config.Train
	if info.Steps1 != 2 || info.Steps2 != 2 || tr.LR != 2e-3 || tr.LambdaDelta != 0.3 || tr.Seed != 7 || m.Config.Arch.Hidden != 8 {
		t.Errorf("recorded steps %d+%d, train config %+v, hidden %d", info.Steps1, info.Steps2, tr, m.Config.Arch.Hidden)
	}
	if info.Metrics == nil || info.Metrics.Tasks != 2 {
		t.Errorf("validation %+v, want 2 realizations", info.Metrics)
	}
	if !strings.Contains(stderr+stdout, "recalibrated predictive spread") {
		t.Errorf("no recalibration note in output:\n%s\n%s", stdout, stderr)
	}
}

// TestTrainOutGetsExtension: --out NAME without an extension writes
// NAME.safetensors, as the explorer's save does, and the wrote line
// names it; a bare name a file holds is taken as typed, never saved
// beside under another, and refused, --force or not, as no
// checkpoint's name (TestTrainRefusesOtherExtension).
func TestTrainOutGetsExtension(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "m")
	code, stdout, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", bare)...)
	if want := "wrote " + bare + ".safetensors ("; code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	if _, _, err := core.LoadCheckpoint(bare + ".safetensors"); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(bare); err == nil {
		t.Errorf("%s was written too", bare)
	}
	// Again: the name it gets is taken now, and refused by that name.
	code, _, stderr = runCLI(t, argsWith(tinyTrainArgs, "--out", bare)...)
	if want := "--out " + bare + ".safetensors already exists"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("second run: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	taken := filepath.Join(dir, "taken")
	if err := os.Rename(bare+".safetensors", taken); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, argsWith(tinyTrainArgs, "--out", taken, "--force")...)
	if want := "--out " + taken + ": a checkpoint's name ends in .safetensors (try " + taken + ".safetensors)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--out %s --force: exit %d, stderr %q; want 2 and %q", taken, code, stderr, want)
	}
	if _, err := os.Lstat(taken + ".safetensors"); err == nil {
		t.Errorf("%s.safetensors was written beside the file named", taken)
	}
}

// TestTrainRefusesOtherExtension: train used to write --out m.ckpt (or
// fig.png) as a checkpoint, which the explorer's save refused. Now a
// name with an extension other than .safetensors is refused before any
// training, naming the value and the name to use, and nothing is
// written; so it is for a recalibration (--init … --recalibrate-only),
// before its --init file is read.
func TestTrainRefusesOtherExtension(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.ckpt")
	missing := filepath.Join(dir, "nosuch.safetensors")
	for _, args := range [][]string{
		argsWith(tinyTrainArgs, "--out", out),
		{"train", "--init", missing, "--steps1", "0", "--steps2", "0", "--recalibrate", "2", "--recalibrate-only", "theta", "--out", out},
	} {
		code, stdout, stderr := runCLI(t, args...)
		want := "--out " + out + ": a checkpoint's name ends in .safetensors (try " + filepath.Join(dir, "m.safetensors") + ")"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
		if strings.Contains(stderr+stdout, "training ") {
			t.Errorf("%v: trained before refusing --out:\n%s", args, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: the directory holds %v, want nothing", args, entries)
		}
	}
}

// TestTrainInitKeepsRecipe: fine-tuning (here zero steps, which only
// recalibrates) keeps the --init file's training settings and step
// counts, except the flags given.
func TestTrainInitKeepsRecipe(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	trainTinyTo(t, first)
	code, _, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "0", "--lambda-theta", "0.5", "--recalibrate", "2", "--out", second)
	if code != 0 {
		t.Fatalf("train --init: %s", stderr)
	}
	m, info, err := core.LoadCheckpoint(second)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Config.Train
	if tr.LR != 2e-3 || tr.LambdaDelta != 0.3 || tr.Seed != 7 || tr.LambdaTheta != 0.5 {
		t.Errorf("train config after --init %+v: want lr 2e-3, λδ 0.3, seed 7 kept and λθ 0.5 given", tr)
	}
	if info.Steps1 != 2 || info.Steps2 != 2 {
		t.Errorf("steps done %d+%d, want the init file's 2+2", info.Steps1, info.Steps2)
	}
	if code, stdout, _ := runCLI(t, "inspect", second); code != 0 || !strings.Contains(stdout, "steps 2+2 done in all runs (the last planned 0+0: it trained no steps)") {
		t.Errorf("inspect after --init: exit %d\n%s", code, stdout)
	}
	// The file names its parent, as given and by its bytes; inspect says so.
	parent := fileSHA256(t, first)
	if info.Init != first || info.InitSHA256 != parent {
		t.Errorf("recorded parent %q (sha256 %s), want %q (%s)", info.Init, info.InitSHA256, first, parent)
	}
	if got := jsonField(t, "init_sha256", "inspect", second, "--json"); got != parent {
		t.Errorf("inspect --json init_sha256 %v, want %s", got, parent)
	}
	if _, stdout, _ := runCLI(t, "inspect", second); !strings.Contains(stdout, "fine-tuned from "+first+" (sha256 "+parent+")") {
		t.Errorf("inspect does not name the parent:\n%s", stdout)
	}
	if _, stdout, _ := runCLI(t, "inspect", first); strings.Contains(stdout, "fine-tuned") {
		t.Errorf("inspect of a run from scratch names a parent:\n%s", stdout)
	}
}

// TestTrainHelpGivesTheBoundsItChecks: each bounded number flag of
// train states in its help the bound its refusal gives, so that the
// limit is found before a run is refused. The real-valued ones had a
// lower bound alone: --lr 1e9 trained.
func TestTrainHelpGivesTheBoundsItChecks(t *testing.T) {
	_, help, _ := runCLI(t, "train", "--help")
	for _, tc := range []struct{ flag, value, bound string }{
		{"lr", "-1", "in (0, 1]"},
		{"lr", "1e9", "in (0, 1]"}, // took, and trained a diverged model
		{"lr-final", "-1", "in [0, 1]"},
		{"lr-final", "2", "in [0, 1]"},
		{"lambda-theta", "-1", "in [0, 10000]"},
		{"lambda-theta", "1e5", "in [0, 10000]"},
		{"lambda-delta", "-1", "in [0, 10000]"},
		{"lambda-delta", "10000.5", "in [0, 10000]"},
		{"clip", "-1", "in [0, 1000000]"},
		{"clip", "1e300", "in [0, 1000000]"},
		{"noise-low-share", "2", "between 0 and 1"},
		{"noise-range", "0:5000", "0 ≤ LO ≤ HI ≤ 1000"},
		{"context-range", "0:5", "1 ≤ MIN ≤ MAX ≤"},
	} {
		_, after, ok := strings.Cut(help, "\n  --"+tc.flag+" ")
		line, _, _ := strings.Cut(strings.SplitN(after, "\n", 2)[1], "\n")
		if !ok || !strings.Contains(line, tc.bound) {
			t.Errorf("train --help's --%s line %q does not give the bound %q", tc.flag, strings.TrimSpace(line), tc.bound)
		}
		code, _, stderr := runCLI(t, "train", "--system", "spring", "--out", filepath.Join(t.TempDir(), "m.safetensors"), "--"+tc.flag, tc.value)
		if code != 2 || !strings.Contains(stderr, tc.bound) {
			t.Errorf("train --%s %s: exit %d, stderr %q; want the bound %q", tc.flag, tc.value, code, stderr, tc.bound)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.safetensors")
	if err := os.WriteFile(junk, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.safetensors")
	// --refine -1 is the documented "keep the default", not an error.
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--refine", "-1", "--out", good)...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--system", "spring"}, "--out"},
		{[]string{"train", "--out", filepath.Join(dir, "x")}, "--system"},
		{[]string{"train", "--system", "nosuch", "--out", filepath.Join(dir, "x")}, "nosuch"},
		{[]string{"train", "--system", "spring", "--dtype", "f16", "--out", filepath.Join(dir, "x")}, "dtype"},
		{[]string{"train", "--init", junk, "--out", filepath.Join(dir, "x")}, "junk.safetensors"},
		{[]string{"train", "--init", good, "--system", "lv", "--out", filepath.Join(dir, "x")}, "disagrees"},
		{[]string{"train", "--system", "spring", "--lr", "-1", "--out", filepath.Join(dir, "x")}, "--lr must be in (0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got -1"},
		{[]string{"train", "--system", "spring", "--clip", "-1", "--out", filepath.Join(dir, "x")}, "--clip must be in [0, 1000000] (the shipped models clip at 10, and a gradient norm of a million is a diverged step; 0 turns clipping off), got -1"},
		{[]string{"train", "--system", "spring", "--lambda-delta", "NaN", "--out", filepath.Join(dir, "x")}, "--lambda-delta must be in [0, 10000] (100 times the largest a shipped model uses: beyond, the other loss terms vanish beside it), got NaN"},
		{[]string{"train", "--system", "spring", "--hidden", "100000", "--out", filepath.Join(dir, "x")}, "--hidden must be between 1 and 4096"},
		{[]string{"train", "--system", "spring", "--steps2", "100000001", "--out", filepath.Join(dir, "x")}, "--steps2 must be between 0 and 100000000"},
		{[]string{"train", "--system", "spring", "--latent-delta", "5000", "--out", filepath.Join(dir, "x")}, "--latent-delta must be between 1 and 4096"},
		{[]string{"train", "--system", "spring", "--dec-layers", "99", "--out", filepath.Join(dir, "x")}, "--dec-layers must be between 1 and 32"},
		{[]string{"train", "--system", "spring", "--batch", "100000000", "--out", filepath.Join(dir, "x")}, "--batch must be between 1 and 4096"},
		{[]string{"train", "--system", "spring", "--val-every", "100000001", "--hidden", "8", "--batch", "2", "--steps1", "1", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")},
			"--val-every must be between 0 and 100000000 (the most steps a stage takes), got 100000001"},
		{[]string{"train", "--system", "spring", "--lr", "Inf", "--steps1", "2", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")}, "--lr must be in (0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got +Inf"},
		{[]string{"train", "--system", "spring", "--lr", "NaN", "--steps1", "2", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")}, "--lr must be in (0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got NaN"},
		{[]string{"train", "--system", "spring", "--lr", "0", "--out", filepath.Join(dir, "x")}, "--lr must be in (0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got 0"},
		{[]string{"train", "--system", "spring", "--lr-final", "Inf", "--steps1", "2", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")}, "--lr-final must be in [0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got +Inf"},
		{[]string{"train", "--system", "spring", "--lr-final", "-1e-4", "--out", filepath.Join(dir, "x")}, "--lr-final must be in [0, 1]"},
		{[]string{"train", "--system", "spring", "--context-range", "20-40", "--out", filepath.Join(dir, "x")}, "MIN:MAX"},
		{[]string{"train", "--system", "spring", "--context-range", "20:x", "--out", filepath.Join(dir, "x")}, `--context-range "20:x": MAX "x" is not a whole number`},
		{[]string{"train", "--system", "spring", "--context-range", "20:40.0", "--out", filepath.Join(dir, "x")}, `MAX "40.0" is not a whole number: context sizes are integers`},
		{[]string{"train", "--system", "spring", "--context-range", "40:20", "--out", filepath.Join(dir, "x")}, `--context-range "40:20": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"train", "--system", "spring", "--context-range", "0:0", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")}, `--context-range "0:0": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"train", "--system", "spring", "--context-range", "0:5", "--out", filepath.Join(dir, "x")}, `--context-range "0:5": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"train", "--system", "lv", "--context-range", "0:10", "--out", filepath.Join(dir, "x")}, `--context-range "0:10": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (lv's grid states)`},
		{[]string{"train", "--system", "spring", "--context-range", "5:100000", "--out", filepath.Join(dir, "x")}, `--context-range "5:100000": must satisfy 1 ≤ MIN ≤ MAX ≤ 100 (spring's grid states)`},
		{[]string{"train", "--system", "advdiff", "--basis", "4", "--out", filepath.Join(dir, "x")}, "basis"},
		{[]string{"train", "--init", good, "--backbone", "anp", "--out", filepath.Join(dir, "x")}, "--backbone cannot change"},
		{[]string{"train", "--init", good, "--basis", "3", "--out", filepath.Join(dir, "x")}, "--basis cannot change"},
		{[]string{"train", "--init", good, "--hidden", "16", "--out", filepath.Join(dir, "x")}, "whose --hidden is 8"},
		{[]string{"train", "--init", filepath.Join(dir, "nosuch.safetensors"), "--backbone", "cnp", "--out", filepath.Join(dir, "x")}, "nosuch.safetensors"},
		{[]string{"train", "--system", "spring", "--steps1", "-5", "--out", filepath.Join(dir, "x")}, "--steps1 must be ≥ 0"},
		{[]string{"train", "--system", "spring", "--batch", "-1", "--out", filepath.Join(dir, "x")}, "--batch must be ≥ 1"},
		{[]string{"train", "--system", "spring", "--hidden", "0", "--out", filepath.Join(dir, "x")}, "--hidden must be ≥ 1, got 0"},
		{[]string{"train", "--system", "spring", "--refine", "-3", "--out", filepath.Join(dir, "x")}, "--refine must be ≥ 0, or -1 to keep the default, got -3"},
		{[]string{"train", "--system", "spring", "--refine", "1001", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "x")}, "--refine must be between 0 and 1000 (refinement stops within a few steps, once a step lowers its cost by under 1%), got 1001"},
		{[]string{"train", "--system", "spring", "--noise", "nan", "--out", filepath.Join(dir, "x")}, "--noise must be between 0 and 1000 (the data are of order 1), got NaN"},
		{[]string{"train", "--system", "spring", "--noise", "1e400", "--out", filepath.Join(dir, "x")}, "--noise must be between 0 and 1000 (the data are of order 1), got +Inf"},
		{[]string{"train", "--system", "spring", "--noise-low-share", "-inf", "--out", filepath.Join(dir, "x")}, "--noise-low-share must be between 0 and 1, got -Inf"},
		{[]string{"train", "--system", "spring", "--out", filepath.Join(dir, "nosuchdir", "x")}, "--out"},
		{[]string{"train", "--system", "spring", "--out", dir}, "is a directory"},
		{[]string{"train", "--system", "spring", "--basis", "-2", "--out", filepath.Join(dir, "x")}, "basis"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
			t.Fatalf("%v wrote a file despite the error", tc.args)
		}
	}
}

// TestTrainRefusesRisingRateAndNoValTasks: a --lr-final above the
// learning rate (the cosine schedule would climb to it) and --val-tasks
// 0 (once silently the default 32) are usage errors, exit 2, with the
// values and the range, before anything is trained.
// train --context-range and sweep's context-range axis refuse the same
// values for the same reason, each naming the value.
func TestContextRangeOneRule(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	for _, v := range []string{"0:0", "0:3", "5:2", "-1:4", "5:x", "5", "5:200"} {
		_, _, trainErr := runCLI(t, "train", "--system", "spring", "--context-range", v, "--out", out)
		_, _, sweepErr := runCLI(t, "sweep", "--system", "spring", "--vary", "context-range="+v, "--out", out, "--plan")
		quoted := fmt.Sprintf("%q: ", v)
		_, why, ok := strings.Cut(strings.SplitN(trainErr, "\n", 2)[0], quoted)
		if !ok || why == "" || !strings.Contains(sweepErr, "context-range value "+quoted+why) {
			t.Errorf("%s: train says %q, sweep %q: want the same reason after the value", v, trainErr, sweepErr)
		}
	}
}

func TestTrainRefusesRisingRateAndNoValTasks(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.safetensors")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lr-final", "1e-3"}, "--lr-final 0.001 is above the learning rate 0.0005 (--lr's default)"},
		{[]string{"--lr", "1e-4", "--lr-final", "2e-4"}, "--lr-final 0.0002 is above the learning rate 0.0001 (--lr)"},
		{[]string{"--val-tasks", "0"}, "--val-tasks must be between 1 and 2000 (every validation realization is held in memory), got 0"},
		{[]string{"--val-tasks", "-3"}, "--val-tasks must be between 1 and 2000"},
	} {
		// A tiny run, should the check be missing.
		args := append([]string{"train", "--system", "spring", "--backbone", "cnp", "--hidden", "8", "--latent", "4", "--dec-hidden", "8",
			"--batch", "4", "--steps1", "2", "--steps2", "2", "--val-every", "2", "--recalibrate", "0"}, tc.args...)
		code, _, stderr := runCLI(t, append(args, "--out", out)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", tc.args, out)
		}
	}
	// The rates may be equal: a constant rate by another name.
	code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--lr", "1e-3", "--lr-final", "1e-3", "--val-tasks", "1", "--recalibrate", "0", "--out", out)...)
	if code != 0 {
		t.Errorf("--lr-final = --lr, --val-tasks 1: exit %d, %s", code, stderr)
	}
}

// TestTrainInitSameArch: architecture flags beside --init that repeat
// the checkpoint's values are accepted (only a change is refused).
func TestTrainInitSameArch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.safetensors")
	trainTinyTo(t, good)
	out := filepath.Join(dir, "again.safetensors")
	args := []string{"train", "--init", good, "--backbone", "cnp", "--hidden", "8", "--latent", "4", "--dec-hidden", "8", "--dec-act", "silu",
		"--steps1", "0", "--steps2", "1", "--batch", "4", "--val-every", "0", "--recalibrate", "0", "--out", out}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Errorf("the checkpoint's own architecture refused: %s", stderr)
	}
}

func TestTrainHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "train", "--help")
	if code != 0 || !strings.Contains(stdout+stderr, "--lambda-delta") {
		t.Errorf("train --help: exit %d, output %q", code, stdout+stderr)
	}
}

// TestInspectShowsRecipeAndSpread: inspect prints the training settings
// and the fitted spread of a trained file; --json carries the config.
func TestInspectShowsRecipeAndSpread(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.safetensors")
	trainTinyTo(t, out)
	code, stdout, stderr := runCLI(t, "inspect", out)
	if code != 0 {
		t.Fatalf("inspect: %s", stderr)
	}
	for _, want := range []string{"spring/cnp", "lr 0.002", "λδ 0.3", "inference: 5 refinement steps (z_θ prior ×", "noise, ", "spread ×", "(reconstruction)", "one pass:", "conditions: 24 cells, context [1 2 5 10 30 60] × noise [0 0.01 0.05 0.1], Gaussian θ intervals", "one-pass conditions: 24 cells, context [1 2 5 10 30 60] × noise [0 0.01 0.05 0.1], Gaussian θ intervals, θ deviation floors", "validation (2 realizations"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, stdout)
		}
	}
	for _, args := range [][]string{{"inspect", "--json", out}, {"inspect", out, "--json"}} {
		code, stdout, _ = runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, `"one_pass"`) {
			t.Errorf("%v: exit %d, no one_pass spread in\n%s", args, code, stdout)
		}
	}
	if code, _, stderr := runCLI(t, "inspect", out, out); code != 2 || !strings.Contains(stderr, "one FILE, got 2") {
		t.Errorf("inspect with two files: exit %d, stderr %q", code, stderr)
	}
	basis := filepath.Join(t.TempDir(), "b.safetensors")
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--basis", "3", "--latent-delta", "2", "--out", basis)...); code != 0 {
		t.Fatalf("train --basis 3 --latent-delta 2: %s", stderr)
	}
	code, stdout, stderr = runCLI(t, "inspect", basis)
	for _, want := range []string{"f_ψ on 3 basis functions", "latents θ 4 δ 2"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("inspect of a basis model: exit %d, stderr %q, no %q in\n%s", code, stderr, want, stdout)
		}
	}
}

// TestSpreadWords: the noise mode is always named, the evolution profile
// only when it is not flat.
func TestSpreadWords(t *testing.T) {
	for _, tc := range []struct {
		fit  core.SpreadFit
		want string
	}{
		{core.SpreadFit{}, "model noise"},
		{core.SpreadFit{Spread: core.SpreadResidual, StdScale: 2}, "residual noise"},
		{core.SpreadFit{Spread: core.SpreadContext, Shape: 0.3}, "context noise, evolution profile ^0.3"},
	} {
		if got := spreadWords(tc.fit); got != tc.want {
			t.Errorf("spreadWords(%+v) = %q, want %q", tc.fit, got, tc.want)
		}
	}
}

// TestTrainInterruptedDuringRecalibration: an interruption after the
// training steps, in the final recalibration, says so and that nothing
// was written.
func TestTrainInterruptedDuringRecalibration(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	trainTinyTo(t, first)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(dir, "second.safetensors")
	var stdout bytes.Buffer
	// Cancelled once the checkpoint is read and the (empty) run begins.
	stderr := &cancelOnWrite{cancel: cancel, when: "training spring/"}
	code := Run(ctx, []string{"train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate", "2", "--out", out}, &stdout, stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted during the final recalibration") || !strings.Contains(stderr.String(), "nothing was written") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted run wrote its file")
	}
}

// TestTrainKeepsPartialWeights: a run that stops early (here: Ctrl-C,
// as a cancelled context, once stage 1 reports) keeps the weights of its
// completed steps beside --out, never over it: an existing --out file
// stays byte for byte, and so does an earlier partial file.
func TestTrainKeepsPartialWeights(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.safetensors")
	earlier := filepath.Join(dir, "model.partial.safetensors")
	// Shaped as safetensors files are, which --force may replace.
	const keep = "\x08\x00\x00\x00\x00\x00\x00\x00{\"k\":{}}keep me"
	for _, p := range []string{out, earlier} {
		if err := os.WriteFile(p, []byte(keep), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel, when: "stage 1 step"}
	// --force: even a run allowed to replace --out leaves it alone
	// when it does not finish.
	args := argsWith(tinyTrainArgs, "--steps1", "30", "--force", "--out", out)
	code := Run(ctx, append(args, "--dtype", "f64"), io.Discard, stderr)
	partial := filepath.Join(dir, "model.partial-2.safetensors")
	if code != 1 || !strings.Contains(stderr.String(), "interrupted after") || !strings.Contains(stderr.String(), partial) {
		t.Fatalf("exit %d, stderr %q; want an interruption and the partial file %s", code, stderr.String(), partial)
	}
	// The partial file keeps the storage type, which the resume
	// command's --init then keeps.
	if got := storedType(t, partial); got != "f64" {
		t.Errorf("the partial file of a --dtype f64 run is %s", got)
	}
	_, info, err := core.LoadCheckpoint(partial)
	if err != nil || info.Steps1 < 1 || info.Steps2 != 0 {
		t.Fatalf("partial file: %v, %d+%d steps", err, info.Steps1, info.Steps2)
	}
	for _, p := range []string{out, earlier} {
		if b, err := os.ReadFile(p); err != nil || string(b) != keep {
			t.Errorf("%s was changed", p)
		}
	}
}

// storedType is the --dtype that path's tensors are stored as.
func storedType(t *testing.T, path string) string {
	t.Helper()
	file, err := nets.ReadSafetensorsFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return storageType(file)
}

// TestTrainInitKeepsStorageType: a fine-tune stores its weights as its
// --init file does unless --dtype says otherwise, and so does the run
// that the command printed on an interruption resumes.
func TestTrainInitKeepsStorageType(t *testing.T) {
	dir := t.TempDir()
	f64 := filepath.Join(dir, "f64.safetensors")
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--dtype", "f64", "--out", f64)...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	tune := []string{"train", "--init", f64, "--steps1", "0", "--steps2", "1", "--recalibrate", "0"}
	for _, tc := range []struct{ dtype, want string }{{"", "f64"}, {"f32", "f32"}, {"f64", "f64"}} {
		out := filepath.Join(dir, "tuned-"+tc.want+tc.dtype+".safetensors")
		args := append(append([]string{}, tune...), "--out", out)
		if tc.dtype != "" {
			args = append(args, "--dtype", tc.dtype)
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		if got := storedType(t, out); got != tc.want {
			t.Errorf("%v stored %s, want %s", args, got, tc.want)
		}
	}
	// Interrupted, the fine-tune's partial file is f64, and the printed
	// command, without --dtype, finishes it as f64.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel, when: "validation at stage 2 step 2 "}
	out := filepath.Join(dir, "resumed.safetensors")
	args := []string{"train", "--init", f64, "--steps1", "0", "--steps2", "40", "--recalibrate", "0", "--out", out}
	if code := Run(ctx, args, io.Discard, stderr); code != 1 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	_, cmd, ok := strings.Cut(stderr.String(), "): apic ")
	if !ok || strings.Contains(cmd, "--dtype") {
		t.Fatalf("no resume command without --dtype in %q", stderr.String())
	}
	if code, _, errOut := runCLI(t, strings.Fields(cmd)...); code != 0 {
		t.Fatalf("apic %s: %s", cmd, errOut)
	}
	if got := storedType(t, out); got != "f64" {
		t.Errorf("the resumed fine-tune of an f64 file stored %s", got)
	}
}

// cancelOnWrite is a buffer that calls cancel once a write contains
// when.
type cancelOnWrite struct {
	bytes.Buffer
	cancel func()
	when   string
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.when) {
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// TestTrainRecalibrateThetaOnly: --recalibrate-only theta on an --init
// file with no training sets θ's interval scale and nothing else; it is
// refused where it would mean anything else.
func TestTrainRecalibrateThetaOnly(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	lnpArgs := argsWith(tinyTrainArgs, "--backbone", "lnp", "--out", first)
	if code, _, stderr := runCLI(t, lnpArgs...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	before, _, err := core.LoadCheckpoint(first)
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate-only", "theta", "--out", second)
	if code != 0 || !strings.Contains(stderr, "recalibrated θ intervals only") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	after, _, err := core.LoadCheckpoint(second)
	if err != nil {
		t.Fatal(err)
	}
	want := before.Config.Infer
	want.ThetaStdScale = after.Config.Infer.ThetaStdScale
	if want.OnePass != nil && after.Config.Infer.OnePass != nil {
		op := *want.OnePass
		op.ThetaStdScale = after.Config.Infer.OnePass.ThetaStdScale
		want.OnePass = &op
	}
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond θ's scale:\nbefore %+v\nafter  %+v", before.Config.Infer, after.Config.Infer)
	}
	if after.Config.Infer.ThetaStdScale <= 0 {
		t.Errorf("θ scale %v, want one fitted", after.Config.Infer.ThetaStdScale)
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
	for _, args := range [][]string{
		{"train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate-only", "spread", "--out", second},
		{"train", "--init", first, "--steps1", "0", "--steps2", "5", "--recalibrate-only", "theta", "--out", second},
		{"train", "--system", "spring", "--recalibrate-only", "theta", "--out", second},
		{"train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate-only", "theta", "--refine", "0", "--out", second},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "--recalibrate-only") {
			t.Errorf("%v: exit %d, stderr %q", args[1:], code, stderr)
		}
	}
}

// TestTrainRecalibrateThetaShapeOnly: --recalibrate-only theta-shape
// gives every cell of the file's table a valid shape per parameter and
// changes nothing else; a file whose table is not the grid of
// conditions is refused with what to run instead.
func TestTrainRecalibrateThetaShapeOnly(t *testing.T) {
	dir := t.TempDir()
	first, before, info := trainTiny(t, dir)
	second := filepath.Join(dir, "second.safetensors")
	after := recalibrateOnly(t, dir, first, "theta-shape", "48", "recalibrated the shapes of θ's intervals")
	cells := after.Config.Infer.Conditions
	if len(cells) == 0 || len(cells) != len(before.Config.Infer.Conditions) {
		t.Fatalf("%d cells after, %d before", len(cells), len(before.Config.Infer.Conditions))
	}
	want := before.Config.Infer
	want.Conditions = slices.Clone(want.Conditions)
	for i, c := range cells {
		if len(c.ThetaShape) != len(after.Sys.Params()) {
			t.Fatalf("cell %d: shapes for %d parameters", i, len(c.ThetaShape))
		}
		want.Conditions[i].ThetaShape = c.ThetaShape
	}
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond θ's shapes")
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
	before.Config.Infer.Conditions = before.Config.Infer.Conditions[1:]
	odd := filepath.Join(dir, "odd.safetensors")
	if err := core.SaveCheckpoint(odd, before, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "train", "--init", odd, "--steps1", "0", "--steps2", "0", "--recalibrate", "48", "--recalibrate-only", "theta-shape", "--force", "--out", second)
	if code == 0 || !strings.Contains(stderr, "--recalibrate-only conditions") {
		t.Errorf("a table that is not the grid: exit %d, stderr %q", code, stderr)
	}
}

// trainTiny trains the tiny model into dir/first.safetensors and loads
// it.
func trainTiny(t *testing.T, dir string) (string, *core.Model, core.Info) {
	t.Helper()
	first := filepath.Join(dir, "first.safetensors")
	trainTinyTo(t, first)
	m, info, err := core.LoadCheckpoint(first)
	if err != nil {
		t.Fatal(err)
	}
	return first, m, info
}

// recalibrateOnly runs train --recalibrate-only only with n realizations
// on from, writes dir/second.safetensors, checks that stderr says note,
// and loads the result.
func recalibrateOnly(t *testing.T, dir, from, only, n, note string) *core.Model {
	t.Helper()
	second := filepath.Join(dir, "second.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", from, "--steps1", "0", "--steps2", "0", "--recalibrate", n, "--recalibrate-only", only, "--out", second)
	if code != 0 || !strings.Contains(stderr, note) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	m, _, err := core.LoadCheckpoint(second)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameWeightsCLI returns the first parameter whose values differ.
func sameWeightsCLI(a, b *core.Model) string {
	for _, p := range a.Params.List() {
		q := b.Params.Get(p.Name)
		if q == nil || !reflect.DeepEqual(p.Value.Data, q.Value.Data) {
			return p.Name
		}
	}
	return ""
}

// TestKeepPartialUncheckableName: a --out whose directory cannot be read
// (here: a file stands where the directory should be) is an error, not an
// endless search for a free name.
func TestKeepPartialUncheckableName(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	m, err := core.NewModel(core.DefaultConfig(sys, core.CNP))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keepPartial(filepath.Join(file, "model.safetensors"), m, core.Info{}, nets.F32); err == nil {
		t.Error("a partial file under a regular file was reported saved")
	}
}

// TestKeepUnfinishedRefusesUnloadableWeights: weights that a checkpoint
// cannot load back (NaN or Inf after a divergence, or finite values beyond
// float32's range in an F32 file, stored as Inf) are not promised as a
// partial file; nothing is written. The same weights in F64 are kept.
func TestKeepUnfinishedRefusesUnloadableWeights(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value float64
		dtype nets.DType
		kept  bool
	}{{1e39, nets.F32, false}, {math.NaN(), nets.F64, false}, {math.Inf(-1), nets.F32, false}, {1e39, nets.F64, true}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "model.safetensors")
		m, err := core.NewModel(core.DefaultConfig(sys, core.CNP))
		if err != nil {
			t.Fatal(err)
		}
		m.Params.List()[0].Value.Data[0] = tc.value
		msg, path := keepUnfinished(out, m, core.Info{Steps1: 1}, tc.dtype)
		partial := filepath.Join(dir, "model.partial.safetensors")
		if !tc.kept {
			if !strings.Contains(msg, "no usable partial file could be kept") || !strings.Contains(msg, "nothing was written") {
				t.Errorf("%v in %s: %q", tc.value, tc.dtype, msg)
			}
			if path != "" {
				t.Errorf("%v in %s: kept path %q, want none", tc.value, tc.dtype, path)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%v in %s: %d files written", tc.value, tc.dtype, len(entries))
			}
			continue
		}
		if !strings.Contains(msg, partial) || path != partial {
			t.Errorf("%v in %s: %q (path %q), want the weights kept in %s", tc.value, tc.dtype, msg, path, partial)
		}
		if _, _, err := core.LoadCheckpoint(partial); err != nil {
			t.Errorf("%v in %s: the kept file does not load: %v", tc.value, tc.dtype, err)
		}
	}
}

// tinySpringConfig is the configuration of a tiny, untrained CNP model
// of the spring system, for tests that build a checkpoint by hand.
func tinySpringConfig(t *testing.T) core.Config {
	t.Helper()
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig(sys, core.CNP)
	cfg.Arch.Hidden, cfg.Arch.LatentTheta, cfg.Arch.LatentDelta, cfg.Arch.DecHidden = 8, 4, 4, 8
	return cfg
}

// TestTrainSavesBeyondFloat32AsFloat64: a finished model whose weights
// exceed float32's range is saved at --out as float64, with a note,
// instead of failing the save.
func TestTrainSavesBeyondFloat32AsFloat64(t *testing.T) {
	cfg := tinySpringConfig(t)
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Params.List()[0].Value.Data[0] = 1e39
	dir := t.TempDir()
	init := filepath.Join(dir, "init.safetensors")
	if err := core.SaveCheckpoint(init, m, core.Info{Steps1: 1}, nets.F64); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.safetensors")
	var stderr bytes.Buffer
	// --dtype f32: without it the run keeps init's float64.
	code := Run(context.Background(), []string{"train", "--init", init, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--dtype", "f32", "--out", out}, io.Discard, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "saving them as float64") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	got, _, err := core.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Params.List()[0].Value.Data[0]; v != 1e39 {
		t.Errorf("saved weight %g, want 1e39", v)
	}
}

// TestTrainOutRefusesEmbeddedName: an --out of embedded:NAME, in any
// case, is refused before training, since every command reads that name
// as a shipped checkpoint; ./embedded:NAME is a file, written and read.
func TestTrainOutRefusesEmbeddedName(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, out := range []string{"embedded:mine.safetensors", "EMBEDDED:mine"} {
		code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", out)...)
		want := "--out " + core.CheckpointFileName(out) + ": a name beginning embedded: names a shipped checkpoint"
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "training") {
			t.Errorf("--out %s: exit %d, stderr %q; want 2 and %q before training", out, code, stderr, want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("refused --out left %d files", len(entries))
	}
	trainTinyTo(t, "./embedded:mine.safetensors")
	if code, _, stderr := runCLI(t, "inspect", "./embedded:mine.safetensors"); code != 0 {
		t.Errorf("inspect ./embedded:mine.safetensors: exit %d, stderr %q", code, stderr)
	}
}

// TestTrainOutMustTakeAFile: an --out directory that exists but takes no
// new file is refused before training, not after it; the probe leaves
// nothing behind.
func TestTrainOutMustTakeAFile(t *testing.T) {
	var outs []string
	want := map[string]string{} // by out: what stderr says
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		out := "/proc/model.safetensors" // no file can be created there, even by root
		outs = append(outs, out)
		if virtualFileSystem("/proc") == "proc" {
			want[out] = "--out " + out + " cannot be written: /proc is on the kernel's proc file system"
		}
	}
	if os.Geteuid() != 0 { // root writes into read-only directories
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		outs = append(outs, filepath.Join(ro, "model.safetensors"))
	}
	if len(outs) == 0 {
		t.Skip("no directory here refuses new files")
	}
	for _, out := range outs {
		code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", out)...)
		if _, named := want[out]; !named {
			want[out] = "--out " + out + ": cannot create a file in " + filepath.Dir(out)
		}
		if code != 2 || !strings.Contains(stderr, want[out]) {
			t.Errorf("--out %s: exit %d, stderr %q", out, code, stderr)
		}
		if strings.Contains(stderr, "training") {
			t.Errorf("--out %s: trained before refusing: %q", out, stderr)
		}
	}
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "train", "--system", "spring", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", filepath.Join(dir, "m.safetensors")); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the checkpoint alone (no probe left)", len(entries))
	}
}

// removeOnWrite is a buffer that removes dir (and, when cancel is set,
// cancels) once a write contains when: --out's directory vanishing
// during training, as a full disk would make the save fail.
type removeOnWrite struct {
	bytes.Buffer
	dir, when string
	cancel    func()
}

func (r *removeOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), r.when) {
		os.RemoveAll(r.dir)
		if r.cancel != nil {
			r.cancel()
		}
	}
	return r.Buffer.Write(p)
}

// TestTrainKeepsWeightsWhenSaveFails: when --out can no longer be written
// at the end, the trained weights go to the temporary directory and the
// error says where; so do an interrupted run's, when no partial file can
// be written beside --out.
func TestTrainKeepsWeightsWhenSaveFails(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, interrupted := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &removeOnWrite{dir: dir, when: "stage 2 step"}
		args := argsWith(tinyTrainArgs, "--out", filepath.Join(dir, "model.safetensors"))
		if interrupted {
			stderr.cancel = cancel
			args = argsWith(args, "--steps2", "30")
		}
		code := Run(ctx, args, io.Discard, stderr)
		cancel()
		kept, _ := filepath.Glob(filepath.Join(tmp, "model.*.safetensors"))
		if code != 1 || len(kept) != 1 || !strings.Contains(stderr.String(), kept[0]) {
			t.Fatalf("interrupted %v: exit %d, kept %v, stderr %q", interrupted, code, kept, stderr.String())
		}
		_, info, err := core.LoadCheckpoint(kept[0])
		if err != nil || info.Steps1 != 2 || (!interrupted && info.Steps2 != 2) {
			t.Errorf("interrupted %v: kept file %v, %d+%d steps", interrupted, err, info.Steps1, info.Steps2)
		}
		if interrupted != strings.Contains(kept[0], ".partial.") {
			t.Errorf("interrupted %v: kept as %s", interrupted, kept[0])
		}
		os.Remove(kept[0])
	}
}

// TestPartialDropsTheOldFit: the partial file of an interrupted
// fine-tuning run keeps the new weights with the uncalibrated spread and z_θ
// fixed in refinement, not the --init file's fit of its own weights.
func TestPartialDropsTheOldFit(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	trainTinyTo(t, first)
	m, info, err := core.LoadCheckpoint(first)
	if err != nil {
		t.Fatal(err)
	}
	// A fit the partial file must not carry.
	m.Config.Infer.SpreadFit = core.SpreadFit{StdScale: 3, DeltaStdScale: 3, ThetaStdScale: 3}
	m.Config.Infer.ZThetaPrior = 10
	if err := core.SaveCheckpoint(filepath.Join(dir, "fitted.safetensors"), m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel, when: "stage 2 step"}
	out := filepath.Join(dir, "tuned.safetensors")
	code := Run(ctx, []string{"train", "--init", filepath.Join(dir, "fitted.safetensors"), "--steps1", "0", "--steps2", "30", "--out", out}, io.Discard, stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted after") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	p, _, err := core.LoadCheckpoint(filepath.Join(dir, "tuned.partial.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if in := p.Config.Infer; !reflect.DeepEqual(in.SpreadFit, core.SpreadFit{}) || in.OnePass != nil || in.ZThetaPrior != 0 {
		t.Errorf("partial file's inference settings %+v, want the uncalibrated spread and z_θ prior 0", in)
	}
}

// BenchmarkTrainLV times 200 lv/cnp training steps at batch 8 (the
// shipped lv/cnp's size) without train's GC ballast, then with it (the
// ballast, once held, stays for the process):
//
//	go test -run XXX -bench TrainLV -benchtime 3x ./core/cli/
func BenchmarkTrainLV(b *testing.B) {
	sys, _ := sims.Lookup("lv")
	for _, name := range []string{"none", "ballast"} {
		b.Run(name, func(b *testing.B) {
			if name == "ballast" {
				holdGCBallast()
			} else if gcBallast != nil {
				b.Skip("the ballast is already held")
			}
			cfg := core.DefaultConfig(sys, core.CNP)
			cfg.Arch.Hidden, cfg.Arch.LatentTheta, cfg.Arch.LatentDelta, cfg.Arch.DecHidden = 128, 16, 16, 128
			cfg.Train.Batch, cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.ValEvery = 8, 0, 200, 0
			cfg.Train.Reg, cfg.Train.LambdaDelta = core.RegSpread, 100
			m, err := core.NewModel(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := m.Train(context.Background(), core.Hooks{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*cfg.Train.Steps2), "ms/step")
		})
	}
}

// TestTrainNoiseDefaults: a fresh model trains over the explorer's noise
// range unless --noise names one level; a fine-tuned one keeps its
// checkpoint's noise unless told, and --noise replaces a range.
func TestTrainNoiseDefaults(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	noise := func(args ...string) [3]float64 {
		t.Helper()
		runs++
		out := filepath.Join(dir, fmt.Sprintf("m%d.safetensors", runs))
		if code, _, stderr := runCLI(t, append(args, "--out", out)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		m, _, err := core.LoadCheckpoint(out)
		if err != nil {
			t.Fatal(err)
		}
		return [3]float64{m.Config.Train.Noise, m.Config.Train.NoiseMax, m.Config.Train.NoiseLowShare}
	}
	fresh := filepath.Join(dir, "fresh.safetensors")
	trainTinyTo(t, fresh)
	initArgs := []string{"train", "--init", fresh, "--steps1", "0", "--steps2", "0", "--recalibrate", "0"}
	for _, c := range []struct {
		name string
		args []string
		want [3]float64
	}{
		{"fresh", tinyTrainArgs, [3]float64{0, 0.1, 0}},
		{"fresh --noise", append(slices.Clone(tinyTrainArgs), "--noise", "0.02"), [3]float64{0.02, 0, 0}},
		{"fresh --noise-range", append(slices.Clone(tinyTrainArgs), "--noise-range", "0.01:0.05"), [3]float64{0.01, 0.05, 0}},
		{"fresh --noise-low-share", append(slices.Clone(tinyTrainArgs), "--noise-low-share", "0.5"), [3]float64{0, 0.1, 0.5}},
		{"init keeps", initArgs, [3]float64{0, 0.1, 0}},
		{"init --noise 0", append(slices.Clone(initArgs), "--noise", "0"), [3]float64{0, 0, 0}},
	} {
		if got := noise(c.args...); got != c.want {
			t.Errorf("%s: noise %v:%v (low share %v), want %v:%v (%v)", c.name, got[0], got[1], got[2], c.want[0], c.want[1], c.want[2])
		}
	}
}

// --recalibrate-only one-pass refits the one-pass predictions' table and
// θ floors and nothing else; a model without a one-pass fit of its own
// is refused.
func TestTrainRecalibrateOnePassOnly(t *testing.T) {
	dir := t.TempDir()
	_, before, info := trainTiny(t, dir)
	if before.Config.Infer.OnePass == nil {
		t.Fatal("the tiny model has no one-pass fit to refit")
	}
	// An old file: its one-pass fit has no table.
	before.Config.Infer.OnePass.Conditions, before.Config.Infer.OnePass.ThetaFloor = nil, nil
	old := filepath.Join(dir, "old.safetensors")
	if err := core.SaveCheckpoint(old, before, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.safetensors")
	after := recalibrateOnly(t, dir, old, "one-pass", "16", "recalibrated the one-pass predictions' scales at 24 conditions")
	op := after.Config.Infer.OnePass
	if op == nil || len(op.Conditions) != 24 || len(op.ThetaFloor) != 1 {
		t.Fatalf("one-pass fit after: %+v", op)
	}
	want := before.Config.Infer
	wantOP := *want.OnePass
	wantOP.Conditions, wantOP.ThetaFloor = op.Conditions, op.ThetaFloor
	want.OnePass = &wantOP
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond the one-pass table")
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
	before.Config.Infer.Refine, before.Config.Infer.OnePass = 0, nil
	if err := core.SaveCheckpoint(old, before, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "train", "--init", old, "--steps1", "0", "--steps2", "0", "--recalibrate", "16", "--recalibrate-only", "one-pass", "--force", "--out", second)
	if code == 0 || !strings.Contains(stderr, "no one-pass fit of its own") {
		t.Errorf("a model that does not refine: exit %d, stderr %q", code, stderr)
	}
}

// --recalibrate-only disagreement fits only the default table's
// disagreement weights (core/disagree.go), each one the fit tries, and
// changes nothing else; a model that predicts in one pass by default is
// refused with advice to refine.
func TestTrainRecalibrateDisagreementOnly(t *testing.T) {
	dir := t.TempDir()
	first, before, info := trainTiny(t, dir)
	after := recalibrateOnly(t, dir, first, "disagreement", "16", "fitted the refined bands' disagreement weights at 24 conditions")
	want := before.Config.Infer
	want.Conditions = slices.Clone(want.Conditions)
	for i, c := range after.Config.Infer.Conditions {
		if !slices.Contains([]float64{0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1}, c.Disagree) {
			t.Errorf("cell %d: weight %g is not one the fit tries", i, c.Disagree)
		}
		want.Conditions[i].Disagree = c.Disagree
	}
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond the disagreement weights")
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
	before.Config.Infer.Refine, before.Config.Infer.OnePass = 0, nil
	old := filepath.Join(dir, "one-pass.safetensors")
	if err := core.SaveCheckpoint(old, before, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "train", "--init", old, "--steps1", "0", "--steps2", "0", "--recalibrate", "16", "--recalibrate-only", "disagreement", "--force", "--out", filepath.Join(dir, "third.safetensors"))
	if code == 0 || !strings.Contains(stderr, "--refine") {
		t.Errorf("a model that does not refine: exit %d, stderr %q", code, stderr)
	}
}

// --recalibrate-only band-shape fits the bands' shapes of both tables
// and changes nothing else.
func TestTrainRecalibrateBandShapeOnly(t *testing.T) {
	dir := t.TempDir()
	first, before, _ := trainTiny(t, dir)
	after := recalibrateOnly(t, dir, first, "band-shape", "48", "recalibrated the shapes of the reconstruction's and δ's bands")
	want := before.Config.Infer
	want.Conditions = slices.Clone(want.Conditions)
	op := *want.OnePass
	op.Conditions = slices.Clone(op.Conditions)
	want.OnePass = &op
	for _, tc := range []struct{ got, want []core.ConditionScale }{
		{after.Config.Infer.Conditions, want.Conditions}, {after.Config.Infer.OnePass.Conditions, op.Conditions},
	} {
		for i, c := range tc.got {
			if c.ReconShape == nil || c.DeltaShape == nil {
				t.Fatalf("cell %d has no band shapes", i)
			}
			tc.want[i].ReconShape, tc.want[i].DeltaShape = c.ReconShape, c.DeltaShape
		}
	}
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond the bands' shapes")
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
}

// TestTrainWarnsFewRecalibrationTasks: a --recalibrate too small for
// the table's cells is warned about; no recalibration, or the default's
// share per cell, is not.
func TestTrainWarnsFewRecalibrationTasks(t *testing.T) {
	f := trainFlags{recalibrate: 2}
	if w := f.recalibrationWarning(); !strings.Contains(w, "--recalibrate 2 fits each condition's scales on 8 validation realizations, fewer than 16") {
		t.Errorf("--recalibrate 2: %q", w)
	}
	for _, ok := range []trainFlags{{recalibrate: 0}, {recalibrate: 64}, {recalibrate: 16, recalibrateOnly: "conditions"}, {recalibrate: 2, recalibrateOnly: "theta"}} {
		if w := ok.recalibrationWarning(); w != "" {
			t.Errorf("--recalibrate %d --recalibrate-only %q: %q, want no warning", ok.recalibrate, ok.recalibrateOnly, w)
		}
	}
	if w := (&trainFlags{recalibrate: 8, recalibrateOnly: "one-pass"}).recalibrationWarning(); !strings.Contains(w, "on 8 validation") {
		t.Errorf("--recalibrate-only one-pass with 8: %q", w)
	}
	dir := t.TempDir()
	_, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", filepath.Join(dir, "m.safetensors"))...)
	if !strings.Contains(stderr, "fewer than 16") {
		t.Errorf("train --recalibrate 2: stderr %q lacks the warning", stderr)
	}
}

// TestTrainRefusesExistingOut: a trained file at --out is not replaced
// without --force, and stays byte for byte; --force replaces it, and so
// does continuing a file into itself (--init FILE --out FILE).
func TestTrainRefusesExistingOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.safetensors")
	trainTinyTo(t, out)
	before, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--seed", "8", "--out", out)...)
	if code != 2 || !strings.Contains(stderr, out+" already exists") || !strings.Contains(stderr, "--force") {
		t.Errorf("an existing --out: exit %d, stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, before) {
		t.Error("the refused run changed --out")
	}
	// Another bad flag is named first: a new --out would not fix it.
	code, _, stderr = runCLI(t, argsWith(tinyTrainArgs, "--reg", "bogus", "--out", out)...)
	if code != 2 || !strings.Contains(stderr, `unknown regulariser "bogus"`) {
		t.Errorf("--reg bogus with an existing --out: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{
		argsWith(tinyTrainArgs, "--seed", "8", "--force", "--out", out),
		{"train", "--init", out, "--steps1", "0", "--steps2", "1", "--recalibrate", "0", "--out", out},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	if after, _ := os.ReadFile(out); bytes.Equal(after, before) {
		t.Error("--force did not replace --out")
	}
}

// TestTrainForceReplacesOnlyCheckpoints: --force replaces a checkpoint,
// not a data file, nor the file a link leads to; those stay byte for
// byte. An empty file may go. A data file's name (obs.csv) is refused
// as no checkpoint's before its content is looked at.
func TestTrainForceReplacesOnlyCheckpoints(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,y\n0.5,0.3\n1,0.2\n")
	link := filepath.Join(dir, "link.safetensors")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		data: "a checkpoint's name ends in .safetensors",
		link: "is not a safetensors checkpoint: refusing to replace it",
	} {
		code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--force", "--out", out)...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--force --out %s: exit %d, stderr %q, want %q", out, code, stderr, want)
		}
	}
	if got, _ := os.ReadFile(data); string(got) != "t,y\n0.5,0.3\n1,0.2\n" {
		t.Errorf("the data file changed: %q", got)
	}
	empty := writeFile(t, dir, "empty.safetensors", "")
	if code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--force", "--out", empty)...); code != 0 {
		t.Errorf("--force over an empty file: exit %d, %s", code, stderr)
	}
}

func TestIsSafetensors(t *testing.T) {
	for _, c := range []struct {
		head string
		size int64
		want bool
	}{
		{"\x02\x00\x00\x00\x00\x00\x00\x00{}", 10, true},
		{"\x02\x00\x00\x00\x00\x00\x00\x00{}", 9, false}, // header longer than the file
		{"\x00\x00\x00\x00\x00\x00\x00\x00{", 9, false},  // empty header
		{"t,y\n0.5,0.3", 11, false},
		{"\x02\x00", 2, false},
	} {
		head := []byte(c.head)[:min(9, len(c.head))]
		if got := isSafetensors(head, c.size); got != c.want {
			t.Errorf("isSafetensors(%q, %d) = %v, want %v", c.head, c.size, got, c.want)
		}
	}
}

// TestTrainInitStoresRefine: --refine is stored with --init as without
// (it used to be dropped, the checkpoint's own count kept).
func TestTrainInitStoresRefine(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	trainTinyTo(t, first)
	for _, refine := range []int{0, 3} {
		args := []string{"train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--refine", strconv.Itoa(refine), "--force", "--out", second}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		m, _, err := core.LoadCheckpoint(second)
		if err != nil || m.Config.Infer.Refine != refine {
			t.Errorf("--init with --refine %d: stored %d (%v)", refine, m.Config.Infer.Refine, err)
		}
	}
}

// TestInterruptedRunSaysHowToFinish: the interruption names the command
// that trains the remaining steps from the partial file, and the file
// says it is unfinished and at which step its validation was measured.
func TestInterruptedRunSaysHowToFinish(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.safetensors")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel, when: "validation at stage 2 step 2 "}
	args := argsWith(tinyTrainArgs, "--steps2", "50", "--out", out)
	if code := Run(ctx, args, io.Discard, stderr); code != 1 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	partial := filepath.Join(dir, "model.partial.safetensors")
	pm, info, err := core.LoadCheckpoint(partial)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("apic train --init %s --steps1 0 --steps2 %d --recalibrate 2 --out %s", partial, 50-info.Steps2, out)
	// The partial's plan is the rest of the run's: --init alone trains it.
	if tr := pm.Config.Train; tr.Steps1 != 0 || tr.Steps2 != 50-info.Steps2 {
		t.Errorf("the partial file plans %d+%d, want the remaining 0+%d", tr.Steps1, tr.Steps2, 50-info.Steps2)
	}
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	if !info.Unfinished || info.Metrics == nil || info.ValidationStep < 2 || info.ValidationStep > info.Steps2 {
		t.Errorf("partial file: unfinished %v, validation at step %d of %d, metrics %v", info.Unfinished, info.ValidationStep, info.Steps2, info.Metrics != nil)
	}
	code, stdout, _ := runCLI(t, "inspect", partial)
	remain := fmt.Sprintf("(0+%d of the stopped run remain; --init alone trains them)", 50-info.Steps2)
	if code != 0 || !strings.Contains(stdout, "unfinished") || !strings.Contains(stdout, fmt.Sprintf("at stage 2 step %d", info.ValidationStep)) || !strings.Contains(stdout, remain) {
		t.Errorf("inspect of the partial file:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, "eval", "--checkpoint", partial, "--tasks", "2", "--samples", "2")
	if code != 0 || !strings.Contains(stdout, "warning: "+partial+" is unfinished") {
		t.Errorf("eval of the partial file does not warn:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--samples", "2", "--methods", "apic", "--checkpoint", partial, "--json")
	if code != 0 || !strings.Contains(stdout, partial+" is unfinished") {
		t.Errorf("compare --json of the partial file carries no warning:\n%s", stdout)
	}
	// The printed command runs as printed, and the partial file it
	// resumed from goes once --out holds the finished model.
	code, _, errOut := runCLI(t, strings.Fields(want)[1:]...)
	if code != 0 {
		t.Errorf("%s: exit %d, %s", want, code, errOut)
	}
	if _, err := os.Stat(partial); err == nil || !strings.Contains(errOut, "removed "+partial) {
		t.Errorf("after the resumed run: %s still there (%v), stderr %q", partial, err, errOut)
	}
}

// TestTrainLeavesOtherPartialFiles: a run that writes --out removes no
// partial file it did not resume from (another run's, perhaps of another
// system), and names those it leaves in one line, quoted as the resume
// command quotes them; with --init one of them, only that one goes.
func TestTrainLeavesOtherPartialFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.safetensors")
	trainTinyTo(t, src)
	m, _, err := core.LoadCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	save := func(name string, unfinished bool) string {
		path := filepath.Join(dir, name)
		if err := core.SaveCheckpoint(path, m, core.Info{Steps1: 1, Unfinished: unfinished}, nets.F32); err != nil {
			t.Fatal(err)
		}
		return path
	}
	partials := []string{save("model.partial.safetensors", true), save("model.partial-2.safetensors", true), save("model.partial-12.safetensors", true)}
	others := []string{
		save("model.partial-3.safetensors", false), // finished: a model someone named so
		save("model.partial-1.safetensors", true), save("model.partial-x.safetensors", true),
		save("other.partial.safetensors", true), writeFile(t, dir, "model.partial-4.safetensors", "notes, not weights\n"),
	}
	out := filepath.Join(dir, "model.safetensors")
	code, _, stderr := runCLI(t, argsWith(tinyTrainArgs, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	for _, p := range append(append([]string{}, partials...), others...) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed by a run that did not resume from it; stderr %q", p, stderr)
		}
	}
	// In the directory's order: partial-12, partial-2, partial.
	want := fmt.Sprintf("left %s %s %s: unfinished runs' weights (apic train --init NAME … resumes one); remove them when no longer needed", partials[2], partials[1], partials[0])
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "removed") {
		t.Errorf("stderr %q, want the line %q and nothing removed", stderr, want)
	}
	for _, p := range others {
		if strings.Contains(stderr, p) {
			t.Errorf("%s, not a partial file of %s, named: %q", p, out, stderr)
		}
	}

	// Resuming from one removes that one, and names the rest.
	code, _, stderr = runCLI(t, "train", "--init", partials[1], "--steps1", "0", "--steps2", "1", "--recalibrate", "0", "--force", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if _, err := os.Lstat(partials[1]); err == nil || !strings.Contains(stderr, "removed "+partials[1]+": the partial weights this run resumed from") {
		t.Errorf("the resumed %s: still there (%v), stderr %q", partials[1], err, stderr)
	}
	for _, p := range []string{partials[0], partials[2]} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	if want := fmt.Sprintf("left %s %s: ", partials[2], partials[0]); !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
}

// TestResumeChainLeavesNoPartial: train, interrupt, resume from the
// partial file, interrupt again, finish: each partial file goes once the
// next file of the chain (a partial file, then --out) holds its steps,
// so none is left; another run's partial file stays throughout.
func TestResumeChainLeavesNoPartial(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.safetensors")
	other := filepath.Join(dir, "model.partial-7.safetensors")
	trainTinyTo(t, other) // finished: then marked unfinished, as another run's
	m, info, err := core.LoadCheckpoint(other)
	if err != nil {
		t.Fatal(err)
	}
	info.Unfinished = true
	if err := core.SaveCheckpoint(other, m, info, nets.F32); err != nil {
		t.Fatal(err)
	}
	interrupt := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stderr := &cancelOnWrite{cancel: cancel, when: "validation at stage 2 step 2 "}
		if code := Run(ctx, args, io.Discard, stderr); code != 1 {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
		return stderr.String()
	}
	interrupt(argsWith(tinyTrainArgs, "--steps2", "50", "--out", out)...)
	first, second := filepath.Join(dir, "model.partial.safetensors"), filepath.Join(dir, "model.partial-2.safetensors")
	msg := interrupt("train", "--init", first, "--recalibrate", "0", "--out", out)
	if _, err := os.Stat(first); err == nil || !strings.Contains(msg, "removed "+first+": the partial weights this run resumed from, which "+second+" now supersedes") {
		t.Errorf("after the second interruption %s is still there (%v), stderr %q", first, err, msg)
	}
	code, _, msg := runCLI(t, "train", "--init", second, "--recalibrate", "0", "--out", out)
	if code != 0 || !strings.Contains(msg, "removed "+second+": ") {
		t.Fatalf("exit %d, stderr %q", code, msg)
	}
	names, err := partialNamesOf(out)
	if err != nil || !reflect.DeepEqual(names, []string{other}) || !strings.Contains(msg, "left "+other+": ") {
		t.Errorf("partial files left: %v (%v), want only %s; stderr %q", names, err, other, msg)
	}
}

// TestAfterPartialKeepsOnFailure: the partial file a run resumed from
// goes when an interruption's partial file beside --out supersedes it,
// and stays, said so, after a failure (a diverged loss: the resumed
// file may be the better start) or when the new weights went elsewhere.
func TestAfterPartialKeepsOnFailure(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.safetensors")
	trainTinyTo(t, src)
	m, _, err := core.LoadCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		interrupted bool // else failed, as a diverged loss fails
		newPath     func(dir string) string
		removed     bool
	}{
		{"interrupted", true, func(dir string) string { return filepath.Join(dir, "m.partial-2.safetensors") }, true},
		{"diverged", false, func(dir string) string { return filepath.Join(dir, "m.partial-2.safetensors") }, false},
		{"kept in the temporary directory", true, func(string) string { return filepath.Join(t.TempDir(), "m.partial.1.safetensors") }, false},
		{"nothing kept", true, func(string) string { return "" }, false},
	} {
		dir := t.TempDir()
		out, resumed := filepath.Join(dir, "m.safetensors"), filepath.Join(dir, "m.partial.safetensors")
		if err := core.SaveCheckpoint(resumed, m, core.Info{Unfinished: true}, nets.F32); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Lstat(resumed)
		from := resumedRun{init: resumed, stat: st, start: time.Now().Add(time.Second)}
		newPath := tc.newPath(dir)
		if newPath != "" {
			if err := core.SaveCheckpoint(newPath, m, core.Info{Unfinished: true}, nets.F32); err != nil {
				t.Fatal(err)
			}
		}
		var stderr strings.Builder
		words := from.afterPartial(out, newPath, tc.interrupted, &Env{Stdout: io.Discard, Stderr: &stderr})
		_, err := os.Lstat(resumed)
		switch {
		case tc.removed && (err == nil || words != "" || !strings.Contains(stderr.String(), "removed "+resumed)):
			t.Errorf("%s: %s still there (%v), words %q, stderr %q", tc.name, resumed, err, words, stderr.String())
		case !tc.removed && (err != nil || stderr.Len() > 0):
			t.Errorf("%s: %s removed (%v), stderr %q", tc.name, resumed, err, stderr.String())
		case !tc.removed && newPath != "" && words != "; "+resumed+", the partial file this run resumed from, stays":
			t.Errorf("%s: words %q do not say that %s stays", tc.name, words, resumed)
		}
	}
}

// TestSettlePartialFiles: the --init file goes only when it is a partial
// file of out, a regular file, still the file the run started from, and
// not modified after the run started; a name that needs quoting is
// quoted as the resume command quotes it.
func TestSettlePartialFiles(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.safetensors")
	trainTinyTo(t, src)
	m, _, err := core.LoadCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		prepare func(dir, partial string) (init string, initStat os.FileInfo, start time.Time)
		removed bool
	}{
		{"resumed", func(dir, p string) (string, os.FileInfo, time.Time) {
			st, _ := os.Lstat(p)
			return p, st, time.Now().Add(time.Second)
		}, true},
		{"modified after the start", func(dir, p string) (string, os.FileInfo, time.Time) {
			st, _ := os.Lstat(p)
			return p, st, time.Now().Add(-time.Hour)
		}, false},
		{"replaced since the start", func(dir, p string) (string, os.FileInfo, time.Time) {
			st, _ := os.Lstat(src)
			return p, st, time.Now().Add(time.Second)
		}, false},
		{"through a link", func(dir, p string) (string, os.FileInfo, time.Time) {
			link := filepath.Join(dir, "link.safetensors")
			if err := os.Symlink(p, link); err != nil {
				t.Fatal(err)
			}
			st, _ := os.Lstat(link)
			return link, st, time.Now().Add(time.Second)
		}, false},
		{"another file", func(dir, p string) (string, os.FileInfo, time.Time) {
			st, _ := os.Lstat(src)
			return src, st, time.Now().Add(time.Second)
		}, false},
		{"no --init", func(dir, p string) (string, os.FileInfo, time.Time) {
			return "", nil, time.Now().Add(time.Second)
		}, false},
	}
	for _, tc := range cases {
		dir := filepath.Join(t.TempDir(), "a b")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "m.safetensors")
		partial := filepath.Join(dir, "m.partial.safetensors")
		if err := core.SaveCheckpoint(partial, m, core.Info{Unfinished: true}, nets.F32); err != nil {
			t.Fatal(err)
		}
		init, st, start := tc.prepare(dir, partial)
		var stderr strings.Builder
		settlePartialFiles(out, resumedRun{init: init, stat: st, start: start}, &Env{Stdout: io.Discard, Stderr: &stderr})
		_, err := os.Lstat(partial)
		q := "'" + partial + "'"
		switch {
		case tc.removed && (err == nil || !strings.Contains(stderr.String(), "removed "+q)):
			t.Errorf("%s: %s still there (%v), stderr %q", tc.name, partial, err, stderr.String())
		case !tc.removed && (err != nil || !strings.Contains(stderr.String(), "left "+q+": an unfinished run's weights (apic train --init "+q+" … resumes it); remove it when no longer needed")):
			t.Errorf("%s: %s removed (%v) or not named, stderr %q", tc.name, partial, err, stderr.String())
		}
	}
}

// A bad flag is the only message: the warning about a small
// --recalibrate waits until every flag is good.
func TestTrainWarnsAfterFlagErrors(t *testing.T) {
	code, _, stderr := runCLI(t, "train", "--system", "spring", "--recalibrate", "4")
	if code != 2 || !strings.Contains(stderr, "--out FILE is required") || strings.Contains(stderr, "warning") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// Fine-tuning without a recalibration drops the --init file's fit,
// which belongs to the weights it started from, says so, and validates
// the model as saved; without training steps nothing is dropped.
func TestTrainFineTuneWithoutRecalibrationDropsFit(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	trainTinyTo(t, first)
	if m, _, err := core.LoadCheckpoint(first); err != nil || !m.Fitted() {
		t.Fatalf("the recalibrated file holds no fit (%v)", err)
	}
	code, stdout, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "2", "--recalibrate", "0", "--out", second)
	if code != 0 || !strings.Contains(stderr, "are dropped; the model uses its uncalibrated spread") || !strings.Contains(stdout, "validation with the uncalibrated spread") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if refit := "--init " + shellQuote(second) + " --steps1 0 --steps2 0 --out " + shellQuote(second) + " refits them"; !strings.Contains(stderr, refit) {
		t.Errorf("the note does not give the refit command %q: %q", refit, stderr)
	}
	if m, _, err := core.LoadCheckpoint(second); err != nil || m.Fitted() {
		t.Errorf("the fine-tuned file keeps the old fit (%v)", err)
	}
	third := filepath.Join(dir, "c.safetensors")
	if code, _, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", third); code != 0 || strings.Contains(stderr, "dropped") {
		t.Errorf("no steps: exit %d, stderr %q", code, stderr)
	}
	if m, _, err := core.LoadCheckpoint(third); err != nil || !m.Fitted() {
		t.Errorf("a run without steps dropped the fit (%v)", err)
	}
}

// TestTrainInitRefusesInheritedZeroPlan: a checkpoint whose last command
// planned 0+0 (every shipped file's: a recalibration) is not fine-tuned
// by a plan taken from it, which would train nothing and refit its
// calibration; 0+0 given outright still recalibrates.
func TestTrainInitRefusesInheritedZeroPlan(t *testing.T) {
	dir := t.TempDir()
	init := tinyCheckpoint(t, dir, "spring", 0, 0)
	out := filepath.Join(dir, "ft.safetensors")
	for extra, why := range map[string]string{
		"":                    "its last command planned 0+0 steps",
		"--noise-range 0:0.2": "its last command planned 0+0 steps",
		"--steps2 0":          "--steps2 0 with stage 1's 0 steps from its plan makes 0+0",
		"--steps1 0":          "--steps1 0 with stage 2's 0 steps from its plan makes 0+0",
	} {
		args := append([]string{"train", "--init", init, "--out", out}, strings.Fields(extra)...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, why) || !strings.Contains(stderr, "give --steps1 and --steps2") {
			t.Errorf("%v: exit %d, %q", extra, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: %s was written", extra, out)
		}
	}
	// A partial file with nothing left of its run's plan (stopped in the
	// final recalibration) says so, not that it only recalibrated.
	m, _, err := core.LoadCheckpoint(init)
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "done.partial.safetensors")
	if err := core.SaveCheckpoint(partial, m, core.Info{Steps2: 3, Unfinished: true}, nets.F32); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "train", "--init", partial, "--out", out); code != 2 || !strings.Contains(stderr, "had done all its steps when it stopped (0+0 remain)") {
		t.Errorf("a partial with 0+0 left: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := runCLI(t, "inspect", partial); code != 0 || !strings.Contains(stdout, "its run stopped after its last step, before the final recalibration") {
		t.Errorf("inspect of a partial with 0+0 left:\n%s", stdout)
	}
	// Training and recalibrating nothing would only drop the mark.
	code, _, stderr := runCLI(t, "train", "--init", partial, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", out)
	if _, err := os.Stat(out); code != 2 || !strings.Contains(stderr, "would only copy them without that mark") || err == nil {
		t.Errorf("a partial copied without training or recalibration: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "train", "--init", init, "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", out)
	if code != 0 {
		t.Errorf("--steps1 0 --steps2 0 given: exit %d, %s", code, stderr)
	}
}

// TestTrainHelpSaysWhatInitChanges: train's help says that --init
// stands in for --system, and gives --batch's default as one number.
func TestTrainHelpSaysWhatInitChanges(t *testing.T) {
	code, stdout, _ := runCLI(t, "help", "train")
	for _, want := range []string{
		"\n       apic train --init FILE --out FILE [flags]\n",
		"(required unless --init, whose file names it)",
		"realizations per step, at most 4096 (default 64 for every system; with --init, the checkpoint's)\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("help train lacks %q (exit %d)", want, code)
		}
	}
}

// TestTrainHugePlanTrains: step counts near the int range's end are a
// plan that trains (each stage's count is checked, not their sum, which
// wraps below 0), not the 0+0 plans that --init refuses.
func TestTrainHugePlanTrains(t *testing.T) {
	huge := core.Train{Steps1: math.MaxInt, Steps2: math.MaxInt}
	f := trainFlags{init: "p.safetensors", initInfo: core.Info{Unfinished: true}, set: map[string]bool{}}
	if err := f.checkUnfinishedNoop(huge); err != nil {
		t.Errorf("checkUnfinishedNoop(%d+%d steps): %v", huge.Steps1, huge.Steps2, err)
	}
	if err := f.checkInheritedPlan(huge, true); err != nil {
		t.Errorf("checkInheritedPlan(%d+%d steps): %v", huge.Steps1, huge.Steps2, err)
	}
	if err := f.checkUnfinishedNoop(core.Train{}); err == nil {
		t.Error("checkUnfinishedNoop(0+0 steps) passed an unfinished file with nothing to do")
	}
}

// TestContextRangeTooLarge: a context size beyond int's range is a
// whole number out of range, not "not a whole number", in train as in
// sweep's context-range axis.
func TestContextRangeTooLarge(t *testing.T) {
	for _, v := range []string{"5:99999999999999999999", "-99999999999999999999:5"} {
		for _, args := range [][]string{
			{"train", "--system", "spring", "--context-range", v, "--out", filepath.Join(t.TempDir(), "x")},
			{"sweep", "--system", "spring", "--vary", "context-range=" + v, "--out", t.TempDir(), "--plan"},
		} {
			_, _, stderr := runCLI(t, args...)
			if !strings.Contains(stderr, "is out of range: context sizes run from 1 to the grid's states") {
				t.Errorf("%s --context-range %s: %q; want the size out of range", args[0], v, stderr)
			}
		}
	}
}

// createOnWrite is a buffer that writes data to path once a write
// contains when: another run finishing the same --out meanwhile.
type createOnWrite struct {
	bytes.Buffer
	path, when string
	data       []byte
}

func (c *createOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.when) {
		if err := os.WriteFile(c.path, c.data, 0o644); err != nil {
			return 0, err
		}
	}
	return c.Buffer.Write(p)
}

// TestTrainLeavesAnOutMadeWhileItTrained: two runs of one --out pass
// its check at the start; the one that ends second must not replace
// the other's model without --force. It keeps its weights beside --out
// and says where; with --force it replaces --out.
func TestTrainLeavesAnOutMadeWhileItTrained(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.safetensors")
	trainTinyTo(t, other)
	theirs, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "model.safetensors")
		args := argsWith(tinyTrainArgs, "--seed", "8", "--out", out)
		if force {
			args = append(args, "--force")
		}
		stderr := &createOnWrite{path: out, when: "stage 2 step", data: theirs}
		code := Run(context.Background(), args, io.Discard, stderr)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if force {
			if code != 0 || bytes.Equal(got, theirs) {
				t.Errorf("--force: exit %d, --out replaced %v; want it replaced\n%s", code, !bytes.Equal(got, theirs), stderr.String())
			}
			continue
		}
		kept, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "model.*.safetensors"))
		if code != 1 || !bytes.Equal(got, theirs) || len(kept) != 1 || !strings.Contains(stderr.String(), "the trained weights are in "+kept[0]) {
			t.Fatalf("exit %d, --out kept %v, files %v, stderr %q; want --out left and the weights beside it", code, bytes.Equal(got, theirs), kept, stderr.String())
		}
		if _, info, err := core.LoadCheckpoint(kept[0]); err != nil || info.Steps1 != 2 || info.Steps2 != 2 || info.Unfinished {
			t.Errorf("kept %s: %v, %+v", kept[0], err, info)
		}
	}
}

// TestSaveOutLeavesAFileMadeSince: without --force, an --out that was
// absent at the start and is there at the save stays as it is
// (errOutTaken); --force, or an --out there from the start (the --init
// file), is replaced.
func TestSaveOutLeavesAFileMadeSince(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.safetensors")
	trainTinyTo(t, src)
	m, info, err := core.LoadCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	theirs := []byte("another run's model")
	for _, tc := range []struct {
		name              string
		force, outAtStart bool
		replaced          bool
	}{
		{"made since", false, false, false},
		{"made since, --force", true, false, true},
		{"there at the start", false, true, true},
	} {
		out := filepath.Join(t.TempDir(), "model.safetensors")
		if err := os.WriteFile(out, theirs, 0o644); err != nil {
			t.Fatal(err)
		}
		f := trainFlags{out: out, force: tc.force}
		err := f.saveOut(tc.outAtStart, m, info, nets.F32)
		got, rerr := os.ReadFile(out)
		if rerr != nil {
			t.Fatal(rerr)
		}
		switch {
		case tc.replaced && (err != nil || bytes.Equal(got, theirs)):
			t.Errorf("%s: %v, replaced %v; want --out replaced", tc.name, err, !bytes.Equal(got, theirs))
		case !tc.replaced && (!errors.Is(err, errOutTaken) || !bytes.Equal(got, theirs)):
			t.Errorf("%s: %v, replaced %v; want errOutTaken and --out left", tc.name, err, !bytes.Equal(got, theirs))
		}
		if names, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(names) != 1 {
			t.Errorf("%s: directory holds %v, want --out alone", tc.name, names)
		}
	}
}

// TestProgressSaysWhoseETA: the progress lines, plain and redrawn on a
// terminal, give the time left as the stage's ("stage 1 ETA 3s"), not
// a bare ETA that read as the whole run's.
func TestProgressSaysWhoseETA(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		var stderr bytes.Buffer
		p := newProgressReporter(&Env{Stderr: &stderr, StderrTerminal: terminal}, 10, 20)
		p.report(core.Progress{Stage: 1, Step: 10, Steps: 10, ETA: 9 * time.Second})
		p.report(core.Progress{Stage: 2, Step: 5, Steps: 20, ETA: 7 * time.Second, StageETA: 7 * time.Second})
		p.report(core.Progress{Stage: 2, Step: 20, Steps: 20})
		text := stderr.String()
		for _, want := range []string{"stage 1 ETA 0s", "stage 2 ETA 0s"} {
			if !strings.Contains(text, want) {
				t.Errorf("terminal %v: progress lacks %q:\n%q", terminal, want, text)
			}
		}
		if strings.Contains(text, "ETA 9s") {
			t.Errorf("terminal %v: stage 1's end gives both stages' ETA as if the stage's:\n%q", terminal, text)
		}
	}
}

// TestTrainHelpGivesTheSystemsDefaults: train's help states the
// defaults the systems' hints set, and credits the paper's appendix A
// only with the step counts and batch, not with the smaller widths.
func TestTrainHelpGivesTheSystemsDefaults(t *testing.T) {
	hints := map[string]sims.Hints{}
	for _, name := range []string{"spring", "lv", "advdiff"} {
		sys, err := sims.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		hints[name] = sims.HintsFor(sys)
	}
	spring, lv, advdiff := hints["spring"], hints["lv"], hints["advdiff"]
	if lv.Hidden != advdiff.Hidden || lv.Latent != advdiff.Latent || lv.Steps1 != spring.Steps1 || lv.Steps2 != spring.Steps2 ||
		lv.Batch != spring.Batch || advdiff.Batch != spring.Batch || spring.DecHidden != spring.Hidden || lv.DecHidden != lv.Hidden || advdiff.DecHidden != advdiff.Hidden {
		t.Fatalf("the help groups the systems' defaults as the hints no longer do; hints %+v", hints)
	}
	code, stdout, _ := runCLI(t, "help", "train")
	help := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{
		fmt.Sprintf("Step counts and batch default to the paper's appendix A (spring and lv %d+%d steps, advdiff %d+%d; batch %d).",
			spring.Steps1, spring.Steps2, advdiff.Steps1, advdiff.Steps2, spring.Batch),
		fmt.Sprintf("2 hidden layers of %d (spring) or %d (lv, advdiff) in the encoders and f_ψ, latents of %d or %d,",
			spring.Hidden, lv.Hidden, spring.Latent, lv.Latent),
	} {
		if code != 0 || !strings.Contains(help, want) {
			t.Errorf("help train lacks %q (exit %d)", want, code)
		}
	}
	if strings.Contains(help, "widths and steps come from the system (the paper's appendix A)") {
		t.Error("help train still credits the paper's appendix A with the widths")
	}
}

// TestTrainRecalibrateThetaPriorOnOnePass: a file whose inference
// default is one pass has no refinement for θ's prior to shape, and
// --recalibrate-only theta-prior on it is refused up front, writing
// nothing.
func TestTrainRecalibrateThetaPriorOnOnePass(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "one.safetensors")
	args := argsWith(tinyTrainArgs, "--refine", "0", "--out", first)
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	second := filepath.Join(dir, "two.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "0", "--recalibrate", "16", "--recalibrate-only", "theta-prior", "--out", second)
	if code != 2 || !strings.Contains(stderr, "does not refine") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(second); err == nil {
		t.Error("a file was written")
	}
}

// TestTrainHeadsOnlyForAnp: --heads given for a backbone without
// attention (cnp, lnp: given, by default, or an --init file's) is
// refused, naming the flag and the backbone, where it was once ignored;
// an anp model takes it, fresh or (repeating its value) from --init, and
// a sweep that varies it refuses its plan unless its backbone is anp.
func TestTrainHeadsOnlyForAnp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.safetensors")
	// A tiny run, should the check be missing.
	tiny := []string{"--hidden", "8", "--batch", "2", "--steps1", "1", "--steps2", "0", "--recalibrate", "0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"train", "--system", "spring", "--backbone", "cnp", "--heads", "2", "--out", out}, tiny...),
			"--heads 2: --backbone cnp has no attention, so heads would change nothing (only anp attends): drop --heads, or train --backbone anp"},
		{append([]string{"train", "--system", "spring", "--heads", "4", "--out", out}, tiny...), "--heads 4: the default backbone, lnp, has no attention"},
		{[]string{"train", "--init", "embedded:spring-lnp.safetensors", "--heads", "4", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", out},
			"--heads 4: --init embedded:spring-lnp.safetensors, whose backbone is lnp, has no attention, so heads would change nothing (only anp attends): drop --heads\n"},
		{[]string{"sweep", "--system", "spring", "--vary", "heads=2,4", "--out", filepath.Join(dir, "sw"), "--plan"},
			"cell heads=2_seed=1: apic train: --heads 2: the default backbone, lnp, has no attention"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", tc.args, out)
		}
	}
	for _, args := range [][]string{
		{"train", "--init", "embedded:spring-anp.safetensors", "--heads", "4", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", out},
		{"sweep", "--system", "spring", "--backbone", "anp", "--vary", "heads=2,4", "--out", filepath.Join(dir, "sw"), "--plan"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d, stderr %q, want it accepted", args, code, stderr)
		}
	}
}

// TestTrainRefusalsNameTheFlag: a value of --backbone, --form, --reg or
// --dec-act that names nothing, and anp heads that do not divide the
// encoder width, are refused naming the flags (or the defaults) that
// set them, not in the configuration's own words ("heads must divide
// hidden (8 % 3)", "dec-act: nets: unknown activation").
func TestTrainRefusalsNameTheFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.safetensors")
	tiny := []string{"--system", "spring", "--batch", "2", "--steps1", "1", "--steps2", "0", "--recalibrate", "0", "--out", out}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--backbone", "xnp"}, `--backbone: unknown backbone "xnp" (want cnp, lnp or anp)`},
		{[]string{"--form", "sum"}, `--form: unknown discrepancy form "sum"`},
		{[]string{"--reg", "l3"}, `--reg: unknown regulariser "l3"`},
		{[]string{"--dec-act", "gelu"}, `--dec-act: unknown activation "gelu" (want relu, tanh, softplus, sigmoid, identity or silu)`},
		{[]string{"--backbone", "anp", "--hidden", "8", "--heads", "3"}, "--heads 3 must divide --hidden 8, the width they split"},
		{[]string{"--backbone", "anp", "--hidden", "6"}, "anp's 4 attention heads (--heads' default) must divide --hidden 6"},
		{[]string{"--backbone", "anp", "--heads", "5"}, "--heads 5 must divide spring's encoder width 64 (--hidden's default)"},
	} {
		code, _, stderr := runCLI(t, append(append([]string{"train"}, tiny...), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, "apic train: "+tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := runCLI(t, "train", "--init", "embedded:spring-lnp.safetensors", "--backbone", "xnp", "--out", out)
	if want := `--backbone: unknown backbone "xnp"`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--init … --backbone xnp: exit %d, stderr %q, want exit 2 and %q", code, stderr, want)
	}
}

// TestTrainWarnsOfAnUntrainedModel: no steps in either stage on a fresh
// model writes random weights, and train says so; with --init (a
// recalibration) or any step it says nothing.
func TestTrainWarnsOfAnUntrainedModel(t *testing.T) {
	fresh := &trainFlags{steps1: 0, steps2: 0, out: "m.safetensors"}
	if w := fresh.untrainedWarning(nil); !strings.Contains(w, "m.safetensors will hold untrained, random weights") {
		t.Errorf("fresh model, no steps: warning %q", w)
	}
	if w := fresh.untrainedWarning(&core.Model{}); w != "" {
		t.Errorf("--init model, no steps: warning %q, want none", w)
	}
	for _, f := range []*trainFlags{{steps1: 1, steps2: 0}, {steps1: 0, steps2: 1}, {steps1: -1, steps2: -1}} {
		if w := f.untrainedWarning(nil); w != "" {
			t.Errorf("steps %d+%d: warning %q, want none", f.steps1, f.steps2, w)
		}
	}
}

// TestTrainWarnsOfAPoolSmallerThanABatch: --trajectories below --batch
// repeats realizations within each batch, and train says so, end to end
// on stderr; a pool of a batch or more, or none, gets no warning.
func TestTrainWarnsOfAPoolSmallerThanABatch(t *testing.T) {
	for _, tc := range []struct {
		traj, batch int
		warn        bool
	}{{1, 64, true}, {63, 64, true}, {64, 64, false}, {0, 64, false}, {500, 64, false}} {
		w := smallPoolWarning(core.Train{Trajectories: tc.traj, Batch: tc.batch})
		if got := w != ""; got != tc.warn {
			t.Errorf("--trajectories %d --batch %d: warning %q, want one: %v", tc.traj, tc.batch, w, tc.warn)
		}
	}
	out := filepath.Join(t.TempDir(), "m.safetensors")
	code, _, stderr := runCLI(t, "train", "--system", "spring", "--steps1", "1", "--steps2", "1", "--batch", "4", "--trajectories", "2",
		"--hidden", "8", "--val-every", "0", "--recalibrate", "0", "--out", out)
	if want := "--trajectories 2 is a pool smaller than a batch (4)"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("train --trajectories 2 --batch 4: exit %d, stderr %q, want exit 0 and %q", code, stderr, want)
	}
}

// TestTrainPrintsValidationWarnings: train's text prints the final
// validation's failures and warnings after its metrics line, as eval
// does: a run too short to learn θ (its intervals the prior's own) says
// so when it finishes.
func TestTrainPrintsValidationWarnings(t *testing.T) {
	wide := "omega: its std is at least 0.9 of the prior's own (1.44) in 32 of 32 realizations"
	rep := core.Report{Tasks: 32, Context: 30, Metrics: map[string]core.Summary{}, Warnings: []string{wide}}
	rep.Failures.Count, rep.Failures.Realizations = 1, []core.Failure{{Index: 3, Reason: "not finite"}}
	var out strings.Builder
	env := &Env{Stdout: &out, Stderr: io.Discard}
	f := &trainFlags{out: "m.safetensors", recalibrate: 64}
	if err := reportTrained(env, f, core.Config{}, core.TrainResult{}, core.Info{Metrics: &rep}, false, "after recalibration"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"validation after recalibration (32 realizations): ", "\nvalidation failures: 1 of 32 realizations", "\nwarning: " + wide + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("train's text lacks %q:\n%s", want, out.String())
		}
	}
}

// --recalibrate-only delta-theta fits θ's share in the one-pass δ band
// and refits the one-pass table under it, and changes nothing else: not
// the weights, not the default predictions' settings.
func TestTrainRecalibrateDeltaThetaOnly(t *testing.T) {
	dir := t.TempDir()
	before, _, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "lv-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	after := recalibrateOnly(t, dir, "embedded:lv-cnp.safetensors", "delta-theta", "16", "fitted the one-pass δ band's share of θ's uncertainty only: factors ")
	d := after.Config.Infer.OnePass.DeltaTheta
	if d == nil || len(d.Factor) != 4 || len(d.Cells) != 24 {
		t.Fatalf("θ term after: %+v", d)
	}
	want := before.Config.Infer
	want.OnePass = after.Config.Infer.OnePass
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond the one-pass fit")
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
}

// --refine 0 on a refining file keeps its one-pass fit, θ's floors and
// δ's θ term among it, as the default fit, which is what the one pass
// then reads, and says that the refined predictions' fit is dropped: a
// run that trains and fits nothing changes no prediction of the one
// pass, and --refine 5 again gives the one-pass fit back.
func TestTrainRefineZeroKeepsOnePassFit(t *testing.T) {
	dir := t.TempDir()
	before, _, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	op := before.Config.Infer.OnePass
	if op == nil || op.DeltaTheta == nil || len(op.ThetaFloor) == 0 {
		t.Fatal("the shipped file has no one-pass fit with a θ term and floors to keep")
	}
	one := filepath.Join(dir, "one.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", "embedded:spring-cnp.safetensors", "--steps1", "0", "--steps2", "0", "--refine", "0", "--recalibrate", "0", "--out", one)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	dropped := fmt.Sprintf("one-pass fit is its default fit now; the fit of its %d-step refined predictions is not kept", before.Config.Infer.Refine)
	if !strings.Contains(stderr, dropped) {
		t.Errorf("stderr %q does not say that the refined predictions' fit is dropped (%q)", stderr, dropped)
	}
	after, _, err := core.LoadCheckpoint(one)
	if err != nil {
		t.Fatal(err)
	}
	in := after.Config.Infer
	if in.Refine != 0 || in.OnePass != nil || !reflect.DeepEqual(in.SpreadFit, *op) {
		t.Fatalf("refine %d, default θ floors %v and θ term %v, one-pass fit kept apart %t: want the file's one-pass fit as the default", in.Refine, in.ThetaFloor, in.DeltaTheta != nil, in.OnePass != nil)
	}
	sys := before.Sys
	tasks, err := core.TestTasks(sys, core.EvalOptions{Tasks: 4, Seed: 3, Context: 5, Noise: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	ctxs, sides := make([]sims.Context, len(tasks)), make([][]float64, len(tasks))
	for i, task := range tasks {
		ctxs[i], sides[i] = task.Context, task.Real.Side
	}
	want, err := before.PredictWith(ctxs, sides, core.PredictOptions{Samples: 1, Seed: 1, Refine: 0})
	if err != nil {
		t.Fatal(err)
	}
	got, err := after.PredictWith(ctxs, sides, core.PredictOptions{Samples: 1, Seed: 1, Refine: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].ThetaStd, want[i].ThetaStd) || !reflect.DeepEqual(got[i].DeltaStd, want[i].DeltaStd) || !reflect.DeepEqual(got[i].Std, want[i].Std) {
			t.Fatalf("realization %d: the one pass's deviations changed (θ %v, want %v)", i, got[i].ThetaStd, want[i].ThetaStd)
		}
	}
	back := filepath.Join(dir, "back.safetensors")
	code, _, stderr = runCLI(t, "train", "--init", one, "--steps1", "0", "--steps2", "0", "--refine", "5", "--recalibrate", "0", "--out", back)
	if code != 0 || !strings.Contains(stderr, "is its one-pass fit now, and serves its refined predictions until --recalibrate N fits them") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	again, _, err := core.LoadCheckpoint(back)
	if err != nil {
		t.Fatal(err)
	}
	if in := again.Config.Infer; in.Refine != 5 || in.OnePass == nil || !reflect.DeepEqual(*in.OnePass, *op) || in.SpreadFit.DeltaTheta != nil {
		t.Fatalf("refine %d, one-pass fit %t, default θ term %t: want the file's one-pass fit back", in.Refine, in.OnePass != nil, in.SpreadFit.DeltaTheta != nil)
	}
}

// --refine N on a file that refines with another count, without a
// recalibration, keeps the fit made for the file's count and says so
// in one note, with the command that refits it; the same count, or a
// run that trains (whose fit is dropped), says nothing of it.
func TestTrainRefineCountChangeSaysFitSteps(t *testing.T) {
	dir := t.TempDir()
	before, _, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	steps := before.Config.Infer.Refine
	if steps == 2 || steps <= 0 {
		t.Fatalf("the shipped file refines with %d steps: want a count other than 2", steps)
	}
	two := filepath.Join(dir, "two.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", "embedded:spring-cnp.safetensors", "--steps1", "0", "--steps2", "0", "--refine", "2", "--recalibrate", "0", "--out", two)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	made := fmt.Sprintf("--refine 2: the fit of embedded:spring-cnp.safetensors's %d-step refined predictions (their spread, θ scales and z_θ prior) serves 2-step ones now, not refitted", steps)
	refit := fmt.Sprintf("(apic train --init %s --steps1 0 --steps2 0 --out %s refits it for 2)\n", shellQuote(two), shellQuote(two))
	if !strings.Contains(stderr, made+" "+refit) {
		t.Errorf("stderr %q does not say what the fit was made for and how to refit it (%q)", stderr, made+" "+refit)
	}
	after, _, err := core.LoadCheckpoint(two)
	if err != nil {
		t.Fatal(err)
	}
	want := before.Config.Infer
	want.Refine = 2
	if !reflect.DeepEqual(after.Config.Infer, want) {
		t.Errorf("inference settings changed beyond the refinement count")
	}
	for _, tc := range [][]string{
		{"--refine", "2", "--steps1", "0", "--steps2", "0"},
		{"--refine", "3", "--steps1", "0", "--steps2", "1"},
	} {
		args := append([]string{"train", "--init", two, "--recalibrate", "0", "--out", filepath.Join(dir, "again.safetensors"), "--force"}, tc...)
		code, _, stderr := runCLI(t, args...)
		if code != 0 || strings.Contains(stderr, "refined predictions (their spread") {
			t.Errorf("%v: exit %d, stderr %q: want no note of the refined predictions' fit", tc, code, stderr)
		}
	}
}

// A file that does not refine, refined again by a run that trains and
// does not recalibrate, does not say its default fit serves the refined
// predictions: the run drops that fit, and says so.
func TestTrainRefineFromOnePassThatTrainsDropsFit(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", "embedded:spring-cnp.safetensors", "--steps1", "0", "--steps2", "0", "--refine", "0", "--recalibrate", "0", "--out", one)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "train", "--init", one, "--steps1", "0", "--steps2", "1", "--refine", "5", "--recalibrate", "0", "--out", filepath.Join(dir, "five.safetensors"))
	if code != 0 || strings.Contains(stderr, "serves its refined predictions") || !strings.Contains(stderr, "are dropped; the model uses its uncalibrated spread") {
		t.Errorf("exit %d, stderr %q: want only the note that the fit is dropped", code, stderr)
	}
}

// A fine-tune to --refine 0 that trains and recalibrates fits the
// one-pass parts into the default table (θ's floors) and
// keeps δ's θ term, saying that it was fitted to the weights before and
// which command refits it; that command then fits the term of the
// default fit.
func TestTrainRefineZeroRecalibratesOnePassParts(t *testing.T) {
	dir := t.TempDir()
	before, _, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tuned.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", "embedded:spring-cnp.safetensors", "--steps1", "0", "--steps2", "2", "--refine", "0", "--recalibrate", "8", "--val-every", "0", "--out", out)
	if code != 0 || !strings.Contains(stderr, "δ's one-pass θ term was kept as fitted to embedded:spring-cnp.safetensors's weights (apic train --init "+out+" --steps1 0 --steps2 0 --recalibrate N --recalibrate-only delta-theta --out "+out+" refits it)") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	after, _, err := core.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	in := after.Config.Infer
	// spring's one parameter has floors and no factors (those are
	// relative to all parameters together).
	if in.Refine != 0 || in.OnePass != nil || len(in.ThetaFloor) != 1 || len(in.Conditions) != 24 {
		t.Fatalf("refine %d, one-pass fit %t, θ floors %v, %d cells: want the one-pass parts in the default table", in.Refine, in.OnePass != nil, in.ThetaFloor, len(in.Conditions))
	}
	if !reflect.DeepEqual(in.DeltaTheta, before.Config.Infer.OnePass.DeltaTheta) {
		t.Errorf("δ's θ term %v, want the file's kept", in.DeltaTheta)
	}
	refit := recalibrateOnly(t, dir, out, "delta-theta", "8", "fitted the one-pass δ band's share of θ's uncertainty only: ")
	if d := refit.Config.Infer.DeltaTheta; d != nil && len(d.Cells) != 24 {
		t.Errorf("θ term after delta-theta: %+v", d)
	}
	if refit.Config.Infer.OnePass != nil || len(refit.Config.Infer.ThetaFloor) != 1 {
		t.Errorf("delta-theta moved the one-pass parts: one-pass fit %t, θ floors %v", refit.Config.Infer.OnePass != nil, refit.Config.Infer.ThetaFloor)
	}
}

// TestTrainRefusesRunsBeyondMemory: flag values each within its bound
// whose run would need more memory than the budget are refused up
// front, with the estimate and the budget, not left to crash the
// process out of memory.
func TestTrainRefusesRunsBeyondMemory(t *testing.T) {
	t.Setenv(core.MemoryBudgetEnv, "4000")
	for _, args := range [][]string{
		{"--system", "advdiff", "--batch", "4096"},
		{"--system", "advdiff", "--hidden", "4096"},
		{"--system", "spring", "--layers", "32", "--hidden", "4096"},
		// Past the estimate from the flags alone, refused once a step of
		// one realization is measured.
		{"--system", "advdiff", "--batch", "256"},
	} {
		out := filepath.Join(t.TempDir(), "m.safetensors")
		code, _, stderr := runCLI(t, append(append([]string{"train"}, args...), "--out", out)...)
		if code != 2 || !strings.Contains(stderr, "more than the 4.0 GB available ("+core.MemoryBudgetEnv+")") || !strings.Contains(stderr, "lower --batch") {
			t.Errorf("train %v: exit %d, stderr %q; want the memory refusal", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("train %v wrote %s", args, out)
		}
	}
}

// TestTrainRefusesRecalibrationBeyondMemory: a run whose recalibration
// would exceed the budget is refused before it trains (not after hours
// of training, in Go's fatal out-of-memory error), naming --recalibrate
// and an N that fits; a --recalibrate-only run, which trains nothing,
// is checked too, and the --init file is left as it was.
func TestTrainRefusesRecalibrationBeyondMemory(t *testing.T) {
	t.Setenv(core.MemoryBudgetEnv, "2000")
	init := filepath.Join("..", "..", "checkpoints", "advdiff-lnp.safetensors")
	before, err := os.ReadFile(init)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--system", "advdiff", "--recalibrate", "2000"}, "the recalibration after training would need at least"},
		{[]string{"--init", init, "--steps1", "0", "--steps2", "0", "--recalibrate", "576", "--recalibrate-only", "conditions"}, "the recalibration would need at least"},
		{[]string{"--init", init, "--steps1", "0", "--steps2", "0", "--recalibrate", "2000"}, "the recalibration would need at least"},
	} {
		out := filepath.Join(t.TempDir(), "m.safetensors")
		code, stdout, stderr := runCLI(t, append(append([]string{"train"}, c.args...), "--out", out)...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "more than the 2.0 GB available ("+core.MemoryBudgetEnv+")") || !strings.Contains(stderr, "lower --recalibrate to ") {
			t.Errorf("train %v: exit %d, stderr %q; want the recalibration's memory refusal", c.args, code, stderr)
		}
		if strings.Contains(stdout, "step") {
			t.Errorf("train %v trained before the refusal: %q", c.args, stdout)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("train %v wrote %s", c.args, out)
		}
	}
	if after, err := os.ReadFile(init); err != nil || !bytes.Equal(before, after) {
		t.Errorf("%s changed (%v)", init, err)
	}
}

// TestKeepInLongName: an interrupted run whose --out has a long name
// (240 bytes and the extension, within the file system's 255) keeps
// its weights in the temporary folder under a name made of it, which
// ran past that limit, so the weights were lost.
func TestKeepInLongName(t *testing.T) {
	m, err := core.NewModel(tinySpringConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), strings.Repeat("p", 240)+".safetensors")
	path, err := keepIn(t.TempDir(), out, ".partial", m, core.Info{}, nets.F32)
	if err != nil {
		t.Fatalf("keeping the weights of %d-byte --out: %v", len(filepath.Base(out)), err)
	}
	if _, _, err := core.LoadCheckpoint(path); err != nil {
		t.Errorf("the kept file %s: %v", path, err)
	}
}

// TestTrainInitSystemDisagreesNamesFile: a --system that is not the
// --init checkpoint's is refused naming the file and its system, as
// eval's --checkpoint does.
func TestTrainInitSystemDisagreesNamesFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.safetensors")
	code, _, errOut := runCLI(t, "train", "--init", "embedded:spring-lnp.safetensors", "--system", "lv", "--out", out)
	want := "--system lv disagrees with --init checkpoint embedded:spring-lnp.safetensors (system spring)"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}
