package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// copyFile copies the file from to the new file to, making its folder.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkRefused runs apic with args and wants exit 2, nothing on stdout
// and each of want on stderr.
func checkRefused(t *testing.T, args []string, want ...string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	ok := code == 2 && stdout == ""
	for _, w := range want {
		ok = ok && strings.Contains(stderr, w)
	}
	if !ok {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, stdout, stderr, want)
	}
}

// checkUnchanged fails where dir's files are not before's.
func checkUnchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := folderFiles(t, dir)
	if len(after) != len(before) {
		t.Errorf("the refused sweeps left %d files in %s, not %d", len(after), dir, len(before))
	}
	for path, text := range before {
		if after[path] != text {
			t.Errorf("the refused sweeps changed %s", path)
		}
	}
}

// TestSweepRefusesAValueOfAnotherCellsFolder: a value whose cell folder
// name is that of an existing cell of another value (the two differ
// only in characters a folder name does not keep) is refused before any
// cell runs, by a run, --plan and --only, naming both values and the
// folder: the sweep would otherwise skip it as finished and show the
// other value's results.
func TestSweepRefusesAValueOfAnotherCellsFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	for i, c := range []struct{ first, second, id string }{
		{"m 1.safetensors", "m_1.safetensors", "checkpoint=m_1.safetensors_seed=1"},
		{filepath.Join("runs", "a.safetensors"), "runs_a.safetensors", "checkpoint=runs_a.safetensors_seed=1"},
	} {
		copyFile(t, ckpt, c.first)
		copyFile(t, ckpt, c.second)
		out := filepath.Join(dir, "coll"+string(rune('0'+i)))
		sweep := func(value string, mode ...string) []string {
			return append([]string{"sweep", "--vary", "checkpoint=" + value, "--fix", "samples=2", "--tasks", "2", "--out", out}, mode...)
		}
		runSweepOK(t, sweep(c.first)...)
		before := folderFiles(t, out)
		for _, mode := range [][]string{nil, {"--plan"}, {"--only", c.id}} {
			checkRefused(t, sweep(c.second, mode...),
				`holds the cell `+c.id+` of checkpoint="`+c.first+`", seed 1 (`+filepath.Join(out, "cells", c.id, "cell.json")+`)`,
				`for checkpoint="`+c.second+`", seed 1`, "Give this sweep's value another name")
		}
		checkUnchanged(t, out, before)
		runSweepOK(t, sweep(c.first)...)
	}
}

// TestSweepRefusesAFinishedCellMissingAFile: a finished cell (eval.json)
// without its cmd.txt, whose settings cannot then be checked, or its
// cell.json, which names its values, is refused before any cell runs,
// whether it is one of this sweep's cells or not, naming the cell and
// what to do; --collect says what to do too.
func TestSweepRefusesAFinishedCellMissingAFile(t *testing.T) {
	id := "context=10_noise=0.05_seed=1"
	for _, missing := range []string{"cmd.txt", "cell.json"} {
		out := t.TempDir()
		runSweepOK(t, tinySweepArgs(out)...)
		cell := filepath.Join(out, "cells", id)
		if err := os.Remove(filepath.Join(cell, missing)); err != nil {
			t.Fatal(err)
		}
		before := folderFiles(t, out)
		other := []string{"sweep", "--system", "spring", "--vary", "context=20", "--vary", "noise=0.1", "--tasks", "2", "--fix", "samples=2", "--out", out}
		for _, args := range [][]string{tinySweepArgs(out), append(tinySweepArgs(out), "--only", id), other} {
			checkRefused(t, args, "--out "+out+": the cell "+id+" is finished (eval.json) but has no "+missing,
				"remove that cell's folder ("+cell+") to run it again")
		}
		checkUnchanged(t, out, before)
		if missing == "cell.json" {
			code, _, stderr := runCLI(t, "sweep", "--collect", out)
			if code == 0 || !strings.Contains(stderr, "has no cell.json") || !strings.Contains(stderr, "remove that cell's folder ("+cell+")") {
				t.Errorf("--collect without %s: exit %d, stderr %q", missing, code, stderr)
			}
		}
	}
}

// TestSweepRefusesACellJSONOfNoCell: a cell.json that is JSON but no
// cell's description (null, {}, an axis without a name) is refused as
// such, naming it, by a sweep and by --collect.
func TestSweepRefusesACellJSONOfNoCell(t *testing.T) {
	id := "context=10_noise=0.05_seed=1"
	for _, text := range []string{"null", "{}", `{"id":"x","axes":[{"name":"","value":"1"}],"seed":1}`} {
		out := t.TempDir()
		runSweepOK(t, tinySweepArgs(out)...)
		path := filepath.Join(out, "cells", id, "cell.json")
		writeFile(t, filepath.Dir(path), "cell.json", text)
		checkRefused(t, tinySweepArgs(out), path+": ", "not the description of a sweep's cell", "remove that cell's folder")
		code, _, stderr := runCLI(t, "sweep", "--collect", out)
		if code == 0 || !strings.Contains(stderr, path+": ") || !strings.Contains(stderr, "not the description of a sweep's cell") {
			t.Errorf("--collect with cell.json %s: exit %d, stderr %q", text, code, stderr)
		}
	}
}

// TestShellWordsReadsShellLine: shellWords reads back the words that
// shellLine quoted.
func TestShellWordsReadsShellLine(t *testing.T) {
	want := []string{"apic", "eval", "--checkpoint=/a b/m's.safetensors", "--noise=0.1", "", ">"}
	var got []string
	for _, w := range shellWords(shellLine(want) + " > cells/x/eval.json") {
		got = append(got, w.text)
	}
	if strings.Join(got, "|") != strings.Join(want, "|")+"|>|cells/x/eval.json" {
		t.Errorf("words %q of %q", got, shellLine(want))
	}
}

// TestSameSettings: cmd.txt texts that run the same commands are the
// same settings: their --fix settings in another order, numbers spelled
// otherwise, eval's defaults and the default backbone given or not.
// Texts that differ in what the flags read are not.
func TestSameSettings(t *testing.T) {
	eval := "apic eval --system spring %s--seed 1 --tasks 2 --json > cells/x/eval.json\n"
	ckpt := "apic eval --checkpoint=/m.safetensors %s--seed 1 --tasks 2 --json > cells/x/eval.json\n"
	train := "apic train --system spring %s--seed 1 --out cells/x/model.safetensors\n"
	for _, c := range []struct {
		form, a, b string
		same       bool
	}{
		{eval, "--samples=2 --noise=0.01 ", "--noise=0.01 --samples=2 ", true},
		{eval, "--noise=0.01 ", "--noise=1e-2 ", true},
		{eval, "--noise=0.01 ", "--noise=0.010 ", true},
		{eval, "", "--backbone lnp ", true},
		{eval, "", "--backbone=lnp ", true},
		{eval, "", "--noise=0 --samples=32 --refine=-1 --z-theta-prior=-1 ", true},
		{eval, "", "--theta-prior-scale=0 ", true},
		{eval, "", "--theta-prior-scale=10 ", false},
		{eval, "--context=5 ", "--context=05 ", true},
		{train, "--hidden=10 ", "--hidden=010 ", true}, // decimal, as the flags read it
		{train, "", "--backbone lnp ", true},
		{eval, "--backbone cnp ", "--backbone=cnp ", true}, // --backbone B and --fix backbone=B
		{train, "--backbone anp --hidden=8 ", "--hidden=8 --backbone=anp ", true},
		{train, "--backbone anp ", "--backbone=cnp ", false},
		// train's defaults, spring's where they are the system's
		{train, "", "--lambda-delta=1 --lr=5e-4 --reg=l2 --noise-range=0:0.10 --dtype=f32 --recalibrate=64 ", true},
		{train, "--hidden=8 ", "--hidden=8 --layers=2 --heads=4 --dec-hidden=64 --steps1=3000 --context-range=15:100 ", true},
		{train, "--latent=4 ", "--latent=4 --latent-delta=4 ", true}, // z_δ's width is z_θ's
		{train, "", "--latent-delta=8 ", true},
		{train, "", "--latent-delta=4 ", false},
		{train, "", "--hidden=128 ", false},    // another system's
		{eval, "", "--lambda-delta=1 ", false}, // not eval's
		{train, "--noise-range=0:0.1 ", "--noise-range=0:.1 ", true},
		{eval, "--noise=0.01 ", "--noise=0.02 ", false},
		{eval, "", "--backbone cnp ", false},
		{eval, "", "--samples=2 ", false},
		{ckpt, "", "--backbone=lnp ", false}, // a check of the file's backbone
		{train, "--hidden=8 ", "--hidden=010 ", false},
		{train, "", "--noise=0 ", false}, // train at noise 0, not the range
		{train, "--lambda-theta=1 --lambda-delta=2 ", "--lambda-theta=2 --lambda-delta=1 ", false},
	} {
		a, b := strings.Replace(c.form, "%s", c.a, 1), strings.Replace(c.form, "%s", c.b, 1)
		if got := sameSettings(a, b); got != c.same {
			t.Errorf("sameSettings(%q, %q) = %v, want %v", a, b, got, c.same)
		}
	}
}

// TestSweepResumesEquivalentSettings: a rerun that gives the folder's
// settings in another order or spelling, or gives eval's defaults the
// folder's cells left out, resumes the sweep; where a setting differs,
// the message names it alone, whatever the order of the --fix flags.
func TestSweepResumesEquivalentSettings(t *testing.T) {
	out := t.TempDir()
	sweep := func(more ...string) []string {
		return append([]string{"sweep", "--system", "spring", "--vary", "context=10,20", "--tasks", "2", "--out", out}, more...)
	}
	runSweepOK(t, sweep("--fix", "samples=2", "--fix", "noise=0.01")...)
	for _, more := range [][]string{
		{"--fix", "noise=0.01", "--fix", "samples=2"},
		{"--fix", "samples=2", "--fix", "noise=1e-2"},
		{"--fix", "samples=2", "--fix", "noise=0.01", "--backbone", "lnp"},
		{"--fix", "samples=2", "--fix", "noise=0.01", "--fix", "refine=-1"},
	} {
		if code, _, stderr := runCLI(t, sweep(more...)...); code != 0 || !strings.Contains(stderr, "2 of 2 cells already finished") {
			t.Errorf("rerun with %v: exit %d, stderr %q", more, code, stderr)
		}
	}
	checkRefused(t, sweep("--fix", "noise=0.02", "--fix", "samples=2"), `ran with "--noise=0.01" where this sweep has "--noise=0.02"`)
	other := t.TempDir()
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", other)
	if code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--fix", "noise=0", "--out", other); code != 0 {
		t.Errorf("rerun with --fix noise=0, eval's default: exit %d, stderr %q", code, stderr)
	}
}

// TestSweepBackboneFlagIsTheFixSetting: a sweep given --backbone B
// resumes as one given --fix backbone=B and the other way round: the
// two run the same commands.
func TestSweepBackboneFlagIsTheFixSetting(t *testing.T) {
	flag, fix := []string{"--backbone", "cnp"}, []string{"--fix", "backbone=cnp"}
	for _, c := range [][2][]string{{flag, fix}, {fix, flag}} {
		out := t.TempDir()
		sweep := func(backbone []string) []string {
			return append([]string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", out}, backbone...)
		}
		runSweepOK(t, sweep(c[0])...)
		if code, _, stderr := runCLI(t, sweep(c[1])...); code != 0 || !strings.Contains(stderr, "1 of 1 cells already finished") {
			t.Errorf("%v after %v: exit %d, stderr %q; want the sweep resumed", c[1], c[0], code, stderr)
		}
	}
}

// TestDefaultSettingsAreTheCommands: the settings sameSettings takes as
// the commands' defaults are those their help states: eval's
// evalDefaults, and train's backbone lnp (eval's, of the embedded
// models, is loadModel's).
func TestDefaultSettingsAreTheCommands(t *testing.T) {
	defaults := map[string]map[string]string{"eval": evalDefaults, "train": {"backbone": "lnp"}}
	for cmd, flags := range defaults {
		code, help, stderr := runCLI(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d, stderr %q", cmd, code, stderr)
		}
		for flag, def := range flags {
			re := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(flag) + ` \w+\n      .*\(default ` + regexp.QuoteMeta(def) + `\)$`)
			if !re.MatchString(help) {
				t.Errorf("%s --help does not give --%s the default %s", cmd, flag, def)
			}
		}
	}
}
