package cli

import (
	"flag"
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
	if err := refuseEmptyPaths(fs, "csv", "png"); err != nil {
		t.Errorf("defaults and a name: %v", err)
	}
}
