package cli

import (
	"flag"
	"io"
	"path/filepath"
	"reflect"
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
// the lists a flag takes are rewritten.
func TestCanonicalNamesLeavesDefaultsUnset(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	fs := env.FlagSet()
	system := fs.String("system", "", "")
	backbone := fs.String("backbone", "lnp", "")
	data := fs.String("data", "", "")
	if err := env.Parse(fs, []string{"--system", "AdvDiff", "--data", "LNP.csv"}); err != nil {
		t.Fatal(err)
	}
	if *system != "advdiff" || *backbone != "lnp" || *data != "LNP.csv" {
		t.Errorf("system %q, backbone %q, data %q; want advdiff, lnp, LNP.csv", *system, *backbone, *data)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "backbone" {
			t.Error("the backbone default is marked as given")
		}
	})
}

// TestNamedFlagsAnyCase: --reg L2 was refused ("unknown regulariser")
// while --system Spring was taken. Every flag that takes a name from a
// fixed list takes it in any case, and the command records the name's
// own spelling: train's --reg, --form, --dec-act, --dtype and
// --recalibrate-only, eval's --theta-prior, sweep's --preset and the
// axes and values of --vary, and a switch's true or false.
func TestNamedFlagsAnyCase(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.safetensors")
	code, _, errOut := runCLI(t, "train", "--system", "SPRING", "--backbone", "CNP", "--reg", "L2", "--form", "Additive", "--dec-act", "ReLU",
		"--dtype", "F64", "--grid-summary=TRUE", "--steps1", "1", "--steps2", "1", "--hidden", "4", "--latent", "2", "--dec-hidden", "4",
		"--batch", "2", "--recalibrate", "0", "--val-every", "0", "--val-tasks", "1", "--out", model)
	if code != 0 {
		t.Fatalf("train: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := runCLI(t, "inspect", "--json", model)
	for _, want := range []string{`"reg": "l2"`, `"form": "additive"`, `"dec_act": "relu"`, `"dtype": "F64"`, `"grid_summary": true`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("inspect: exit %d, stderr %q; want %s in its output", code, errOut, want)
		}
	}
	code, _, errOut = runCLI(t, "train", "--init", model, "--steps1", "0", "--steps2", "0", "--recalibrate", "1", "--recalibrate-only", "Theta", "--out", model)
	if code != 0 {
		t.Errorf("train --recalibrate-only Theta: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runCLI(t, "eval", "--checkpoint", model, "--theta-prior", "LOGIT", "--tasks", "1", "--samples", "1", "--json")
	if code != 0 || !strings.Contains(out, `"theta_prior": "logit"`) {
		t.Errorf("eval --theta-prior LOGIT: exit %d, stderr %q; want theta_prior logit", code, errOut)
	}
	code, out, errOut = runCLI(t, "sweep", "--preset", "Appendix-B", "--out", filepath.Join(dir, "pre"), "--plan")
	if code != 0 || !strings.Contains(out, "--only context=10_refine=0_seed=1\n") {
		t.Errorf("sweep --preset Appendix-B: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runCLI(t, "sweep", "--system", "spring", "--vary", "REG=L1,Spread", "--vary", "Grid-Summary=TRUE", "--fix", "Dec-Act=ReLU", "--out", filepath.Join(dir, "sw"), "--plan")
	if code != 0 || !strings.Contains(out, "--only reg=l1_grid-summary=true_seed=1\n") || !strings.Contains(out, "--only reg=spread_grid-summary=true_seed=1\n") {
		t.Errorf("sweep --vary REG=L1,Spread: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "simulate", "--system", "lv", "--theta", "Alpha=1,BETA=1,eta=1,Gamma=1", "--u0", "1,1", "--json")
	if code != 0 || !strings.Contains(out, `"theta":{"alpha":1,"beta":1,"eta":1,"gamma":1}`) {
		t.Errorf("simulate --theta Alpha=1,BETA=1,…: exit %d, stderr %q; want θ by the parameters' names", code, errOut)
	}
	code, _, errOut = runCLI(t, "sweep", "--system", "spring", "--vary", "reg=L1,l1", "--out", filepath.Join(dir, "sw2"), "--plan")
	if code != 2 || !strings.Contains(errOut, `reg value "l1" given twice`) {
		t.Errorf("sweep --vary reg=L1,l1: exit %d, stderr %q; want the value refused as given twice", code, errOut)
	}
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

// TestCompareMethodsAnyCase: --methods KOH-GP,APIC was refused; method
// names (and all) are now taken in any ASCII case, as --system is; one
// named twice in two spellings is refused (TestCompareMethodTwice).
func TestCompareMethodsAnyCase(t *testing.T) {
	chosen, err := parseCompareMethods("KOH-GP,APIC,Correction-PINN")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"koh-gp": true, "apic": true, "correction-pinn": true}; !reflect.DeepEqual(chosen, want) {
		t.Errorf("chosen %v, want %v", chosen, want)
	}
	if all, err := parseCompareMethods(" ALL "); err != nil || len(all) != len(compareMethodNames) {
		t.Errorf("ALL: %v, %v", all, err)
	}
	if _, err := parseCompareMethods("KOH-ǦP"); err == nil || !strings.Contains(err.Error(), `unknown method "KOH-ǦP"`) {
		t.Errorf("a non-ASCII spelling: %v, want it unknown, as given", err)
	}
}

// TestEmbeddedCheckpointAnyCase: --checkpoint embedded:Spring-LNP.safetensors
// was "no embedded checkpoint"; NAME now folds as --system does, to the
// shipped spelling (an atlas cell's too), and a file path is left as is.
func TestEmbeddedCheckpointAnyCase(t *testing.T) {
	for given, want := range map[string]string{
		"embedded:Spring-LNP.safetensors":          "embedded:spring-lnp.safetensors",
		"embedded:ATLAS/Spring-Reg-L1.safetensors": "embedded:atlas/spring-reg-l1.safetensors",
		"embedded:Sprung-LNP.safetensors":          "embedded:Sprung-LNP.safetensors",
		"Spring-LNP.safetensors":                   "Spring-LNP.safetensors",
	} {
		if got := canonicalCheckpoint(given); got != want {
			t.Errorf("canonicalCheckpoint(%q) = %q, want %q", given, got, want)
		}
	}
	data := writeFile(t, t.TempDir(), "obs.csv", "t,y\n0.5,0.3\n1,0.2\n1.5,-0.4\n")
	code, out, errOut := runCLI(t, "calibrate", "--checkpoint", "embedded:Spring-LNP.safetensors", "--data", data, "--samples", "2")
	if code != 0 || !strings.Contains(out, "embedded:spring-lnp.safetensors") {
		t.Errorf("calibrate --checkpoint embedded:Spring-LNP.safetensors: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "sweep", "--vary", "checkpoint=embedded:spring-lnp.safetensors,embedded:Spring-LNP.safetensors", "--tasks", "1", "--plan", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errOut, `checkpoint value "embedded:spring-lnp.safetensors" given twice`) {
		t.Errorf("sweep: exit %d, stderr %q; want the value refused as given twice", code, errOut)
	}
}

// TestInspectEchoesShippedSpelling: inspect's FILE is a positional
// argument, not a --checkpoint flag, and must still echo embedded:NAME
// in the shipped spelling, as eval, calibrate, compare and diagnose do.
func TestInspectEchoesShippedSpelling(t *testing.T) {
	const want = "embedded:spring-cnp.safetensors"
	code, out, errOut := runCLI(t, "inspect", "embedded:Spring-CNP.safetensors")
	if code != 0 || !strings.HasPrefix(out, want+"\n") {
		t.Errorf("inspect embedded:Spring-CNP.safetensors: exit %d, stderr %q, output opens %q; want %q", code, errOut, strings.SplitN(out, "\n", 2)[0], want)
	}
	code, out, errOut = runCLI(t, "inspect", "--json", "embedded:Spring-CNP.safetensors")
	if code != 0 || !strings.Contains(out, `"checkpoint": "`+want+`"`) || !strings.Contains(out, `"file": "`+want+`"`) {
		t.Errorf("inspect --json: exit %d, stderr %q; want checkpoint and file %q", code, errOut, want)
	}
}
