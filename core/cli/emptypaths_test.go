package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyPathsRefused: a path flag given as "" (--csv "", --init=)
// passed for not given: simulate wrote no CSV, eval took the embedded
// checkpoint, train a fresh model, all without a word. Every such flag
// now refuses it, naming the flag, before any work.
func TestEmptyPathsRefused(t *testing.T) {
	dir := t.TempDir() // where a command that took "" for not given would write
	obs, model := filepath.Join(dir, "obs.csv"), filepath.Join(dir, "m.safetensors")
	for _, args := range [][]string{
		{"simulate", "--system", "spring", "--csv", ""},
		{"simulate", "--system", "spring", "--csv="},
		{"simulate", "--system", "advdiff", "--theta", "a=1", "--u0-file", ""},
		{"calibrate", "--system", "spring", "--data", ""},
		{"calibrate", "--system", "spring", "--data", obs, "--png", ""},
		{"calibrate", "--system", "spring", "--data", obs, "--checkpoint", ""},
		{"calibrate", "--system", "advdiff", "--data", obs, "--u0-file", ""},
		{"diagnose", "--system", "spring", "--png", ""},
		{"diagnose", "--checkpoint", ""},
		{"eval", "--checkpoint", ""},
		{"compare", "--system", "spring", "--checkpoint", "embedded:spring-lnp.safetensors", "--checkpoint", ""},
		{"train", "--system", "spring", "--out", ""},
		{"train", "--system", "spring", "--out", model, "--init", ""},
		{"sweep", "--system", "spring", "--vary", "noise=0,0.1", "--out", ""},
		{"sweep", "--collect", ""},
	} {
		flagName := strings.TrimSuffix(args[len(args)-2], "=")
		if strings.HasSuffix(args[len(args)-1], "=") {
			flagName = strings.TrimSuffix(args[len(args)-1], "=")
		}
		want := flagName + ` is given as "", which names no file: give a path`
		code, stdout, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, want) || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}
}

// TestRefuseEmptyPathsOnlyGiven: a path flag left at its default ""
// is not given, and passes; one given a name passes too.
func TestRefuseEmptyPathsOnlyGiven(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("csv", "", "")
	fs.String("png", "", "")
	if err := fs.Parse([]string{"--png", "a.png"}); err != nil {
		t.Fatal(err)
	}
	if err := RefuseEmptyPaths(fs, "csv", "png"); err != nil {
		t.Errorf("defaults and a name: %v", err)
	}
}

// TestEmptyValuesRefused: a flag whose "" means "not given", given as
// "" (a variable left empty), passed for left out: sweep --only ""
// ran every cell of the sweep instead of one, train --recalibrate-only
// "" a full recalibration, eval the default backbone. Each now refuses
// it, naming the flag, before any work.
func TestEmptyValuesRefused(t *testing.T) {
	dir := t.TempDir() // where a command that took "" for not given would write
	model := filepath.Join(dir, "m.safetensors")
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"only", []string{"sweep", "--system", "spring", "--vary", "context=5", "--tasks", "2", "--out", dir, "--only", ""}},
		{"backbone", []string{"sweep", "--system", "spring", "--vary", "context=5", "--out", dir, "--plan", "--backbone="}},
		{"preset", []string{"sweep", "--preset", "", "--out", dir}},
		{"recalibrate-only", []string{"train", "--init", "embedded:spring-lnp.safetensors", "--steps1", "0", "--steps2", "0", "--out", model, "--recalibrate-only", ""}},
		{"context-range", []string{"train", "--system", "spring", "--out", model, "--context-range", ""}},
		{"backbone", []string{"eval", "--system", "spring", "--backbone", ""}},
		{"theta-prior", []string{"eval", "--system", "spring", "--theta-prior", ""}},
		{"backbone", []string{"diagnose", "--system", "spring", "--backbone", ""}},
		{"backbone", []string{"calibrate", "--system", "spring", "--data", "-", "--backbone", ""}},
		{"u0", []string{"calibrate", "--system", "lv", "--data", "-", "--u0", ""}},
		{"u0", []string{"simulate", "--system", "lv", "--theta", "alpha=1,beta=1,eta=1,gamma=1", "--u0", ""}},
	} {
		want := "--" + tc.flag + ` is given as "", which would read as the flag left out`
		code, stdout, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, want) || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, want)
		}
	}
	if _, err := os.Stat(model); err == nil {
		t.Errorf("a refused train wrote %s", model)
	}
}

// TestEveryTextFlagRefusesEmpty: --system= passed for left out where
// the command did not list the flag (eval --checkpoint F --system= ran
// F; train --init F --system= trained it; compare and sweep --collect
// too). Every flag of every command that takes a text refuses "" now,
// as it is given, naming the flag.
func TestEveryTextFlagRefusesEmpty(t *testing.T) {
	tested := 0
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect"} {
		_, help, _ := runCLI(t, "help", cmd)
		for _, m := range flagHelpLine.FindAllStringSubmatch(help, -1) {
			name, typ := m[1], m[2]
			if typ == "" || typ == "int" || typ == "uint" || typ == "float" || cmd == "sweep" && (name == "vary" || name == "fix") {
				continue // a switch, a number, an AXIS=VALUES: refused in words of their own
			}
			want := "--" + name + ` is given as "", which `
			code, stdout, stderr := runCLI(t, cmd, "--"+name+"=")
			if code != 2 || !strings.Contains(stderr, want) || stdout != "" {
				t.Errorf("%s --%s=: exit %d, stderr %q; want 2 and %q", cmd, name, code, stderr, want)
			}
			tested++
		}
	}
	if tested < 30 {
		t.Errorf("%d text flags tested: the helps' flags were not found", tested)
	}
	code, _, stderr := runCLI(t, "eval", "--checkpoint", "embedded:spring-lnp.safetensors", "--system=", "--tasks", "1")
	if want := `--system is given as "", which would read as the flag left out`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("eval --checkpoint F --system=: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = runCLI(t, "train", "--system", "spring", "--reg=", "--out", filepath.Join(t.TempDir(), "m"))
	if want := `--reg is given as "", which names nothing: give a value, or leave --reg out for its default, l2`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("train --reg=: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
