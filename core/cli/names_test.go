package cli

import (
	"flag"
	"strings"
	"testing"
)

// TestNamesAnyCase: --system Spring was refused while a CSV header T,Y
// was taken; system and backbone names are now taken in any case by
// every command, and reported in their registered spelling.
func TestNamesAnyCase(t *testing.T) {
	code, out, errOut := runCLI(t, "simulate", "--system", "Spring", "--seed", "1")
	if code != 0 || !strings.HasPrefix(out, "Damped spring (spring), seed 1") {
		t.Errorf("simulate --system Spring: exit %d, stderr %q, output %.40q", code, errOut, out)
	}
	data := writeFile(t, t.TempDir(), "obs.csv", "t,y\n0.5,0.3\n1,0.2\n1.5,-0.4\n")
	code, out, errOut = runCLI(t, "calibrate", "--system", "SPRING", "--backbone", "Lnp", "--data", data, "--samples", "2")
	if code != 0 || !strings.Contains(out, "embedded:spring-lnp.safetensors") {
		t.Errorf("calibrate --system SPRING --backbone Lnp: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "simulate", "--system", "Sprung"); code != 2 || !strings.Contains(errOut, `unknown system "Sprung"`) {
		t.Errorf("simulate --system Sprung: exit %d, stderr %q", code, errOut)
	}
}

// TestCanonicalNamesLeavesDefaultsUnset: a default is not marked as
// given (commands tell given flags from defaults), and only names of
// systems and backbones are rewritten.
func TestCanonicalNamesLeavesDefaultsUnset(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	system := fs.String("system", "", "")
	backbone := fs.String("backbone", "lnp", "")
	if err := fs.Parse([]string{"--system", "AdvDiff"}); err != nil {
		t.Fatal(err)
	}
	canonicalNames(fs)
	if *system != "advdiff" || *backbone != "lnp" {
		t.Errorf("system %q, backbone %q; want advdiff, lnp", *system, *backbone)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "backbone" {
			t.Error("the backbone default is marked as given")
		}
	})
}

// TestCanonicalNameASCIIOnly: only ASCII capitals fold; a long s or a
// Kelvin sign, which Unicode folds to s and k, names nothing.
func TestCanonicalNameASCIIOnly(t *testing.T) {
	names := []string{"spring", "lnp"}
	for given, want := range map[string]string{"SPRING": "spring", "Lnp": "lnp", "ſpring": "ſpring", "spring ": "spring ", "\u212Anp": "\u212Anp"} {
		if got := canonicalName(given, names); got != want {
			t.Errorf("canonicalName(%q) = %q, want %q", given, got, want)
		}
	}
}

// TestSweepBackboneValuesAnyCase: a sweep's backbone values are taken
// in any case, as --backbone takes them, so CNP and cnp are one value
// given twice, not two cells of one setting.
func TestSweepBackboneValuesAnyCase(t *testing.T) {
	code, _, errOut := runCLI(t, "sweep", "--system", "spring", "--vary", "backbone=CNP,cnp", "--tasks", "1", "--plan", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errOut, `backbone value "cnp" given twice`) {
		t.Errorf("exit %d, stderr %q; want the value refused as given twice", code, errOut)
	}
}
