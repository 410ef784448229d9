package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

// validatedCheckpoint saves an untrained spring model in dir whose file
// records rep as its validation at training time.
func validatedCheckpoint(t *testing.T, dir string, rep *core.Report) string {
	t.Helper()
	m, info, err := core.LoadCheckpoint(tinyCheckpoint(t, dir, "spring", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	info.Metrics = rep
	path := filepath.Join(dir, "validated.safetensors")
	if err := core.SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCalibrateShowsCheckpointValidation: calibrate shows the failures
// and warnings the checkpoint recorded when validated at training time,
// the ones inspect prints, below its own warnings in the text and as
// checkpoint_validation in --json, leaving "warnings" the calibration's.
func TestCalibrateShowsCheckpointValidation(t *testing.T) {
	dir := t.TempDir()
	const warning = "omega: θ̂'s MAE is no better than the prior's centre"
	ckpt := validatedCheckpoint(t, dir, &core.Report{
		System: "spring", Tasks: 8, Context: 30,
		Failures: core.Failures{Count: 1, Realizations: []core.Failure{{Index: 3, Reason: "the model diverged"}}},
		Warnings: []string{warning},
	})
	obs := goodObservations(t, dir)["spring"]
	code, out, errOut := runCLI(t, append([]string{"calibrate", "--checkpoint", ckpt}, obs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"the checkpoint's validation at training time (8 realizations; apic inspect " + shellQuote(ckpt) + " shows it):\n",
		"  ! failures: 1 of 8 realizations",
		"  ! " + warning + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%.1500s", want, out)
		}
	}
	res, raw := calibrateJSON(t, append([]string{"--checkpoint", ckpt}, obs...)...)
	for _, w := range res.Warnings {
		if w == warning {
			t.Errorf("the checkpoint's warning is among the calibration's own: %q", res.Warnings)
		}
	}
	v, ok := raw["checkpoint_validation"].(map[string]any)
	if !ok {
		t.Fatalf("checkpoint_validation %v, want an object", raw["checkpoint_validation"])
	}
	failures, _ := v["failures"].(map[string]any)
	warnings, _ := v["warnings"].([]any)
	if v["tasks"] != float64(8) || failures["count"] != float64(1) || len(warnings) != 1 || warnings[0] != warning {
		t.Errorf("checkpoint_validation %v", v)
	}
}

// TestCalibrateCleanValidationSaysNothing: a file that records no
// validation, or a clean one, adds no lines to the text; --json says
// null for none and empty lists for a clean one.
func TestCalibrateCleanValidationSaysNothing(t *testing.T) {
	dir := t.TempDir()
	obs := goodObservations(t, dir)["spring"]
	unrecorded := tinyCheckpoint(t, dir, "spring", 0, 0)
	_, raw := calibrateJSON(t, append([]string{"--checkpoint", unrecorded}, obs...)...)
	if v, ok := raw["checkpoint_validation"]; !ok || v != nil {
		t.Errorf("no record: checkpoint_validation %v (present %v), want null", v, ok)
	}
	clean := validatedCheckpoint(t, dir, &core.Report{System: "spring", Tasks: 8, Context: 30})
	_, raw = calibrateJSON(t, append([]string{"--checkpoint", clean}, obs...)...)
	v, _ := raw["checkpoint_validation"].(map[string]any)
	failures, _ := v["failures"].(map[string]any)
	if w, ok := v["warnings"].([]any); !ok || len(w) != 0 || failures["realizations"] == nil {
		t.Errorf("clean record: checkpoint_validation %v, want empty lists", v)
	}
	for _, ckpt := range []string{unrecorded, clean} {
		code, out, errOut := runCLI(t, append([]string{"calibrate", "--checkpoint", ckpt}, obs...)...)
		if code != 0 || strings.Contains(out, "validation at training time") {
			t.Errorf("%s: exit %d, stderr %q; text mentions a validation:\n%.800s", ckpt, code, errOut, out)
		}
	}
}
