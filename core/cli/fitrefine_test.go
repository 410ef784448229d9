package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

// refineRun runs train on init with --steps1 0 --steps2 0 --refine
// refine --recalibrate recal into out and loads what it wrote, failing
// the test where either fails; it returns train's stdout and stderr.
func refineRun(t *testing.T, init, out, refine, recal string) (*core.Model, core.Info, string, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, "train", "--init", init, "--steps1", "0", "--steps2", "0", "--refine", refine, "--recalibrate", recal, "--force", "--out", out)
	if code != 0 {
		t.Fatalf("--refine %s --recalibrate %s: exit %d, stderr %q", refine, recal, code, stderr)
	}
	m, info, err := core.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	return m, info, stdout, stderr
}

// inspectText is inspect's text for path, failing the test where
// inspect fails.
func inspectText(t *testing.T, path string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "inspect", path)
	if code != 0 {
		t.Fatalf("inspect %s: exit %d, stderr %q", path, code, stderr)
	}
	return stdout
}

// wantFitCount asserts the file's recorded fit count and refinement
// count, and that its validation was measured with the latter.
func wantFitCount(t *testing.T, what string, m *core.Model, info core.Info, fitFor, refine int) {
	t.Helper()
	in := m.Config.Infer
	if n, known := in.FitRefineKnown(); !known || n != fitFor || in.Refine != refine {
		t.Errorf("%s: refine %d, fit made for %d (recorded %t); want %d and %d", what, in.Refine, n, known, refine, fitFor)
	}
	if info.Metrics == nil || info.Metrics.Refine != refine {
		t.Errorf("%s: validation %+v, want one measured with %d refinement steps", what, info.Metrics, refine)
	}
}

// A round trip through --refine 0 without recalibration leaves the
// one-pass fit serving the refined predictions: the file records that
// its default fit was made for one pass, inspect says so, and each
// change of the count validates again, so that the record inspect
// prints was measured with the file's count.
func TestRefineRoundTripRecordsOnePassFit(t *testing.T) {
	dir := t.TempDir()
	one, back, three := filepath.Join(dir, "one.safetensors"), filepath.Join(dir, "back.safetensors"), filepath.Join(dir, "three.safetensors")
	m, info, stdout, _ := refineRun(t, "embedded:spring-cnp.safetensors", one, "0", "0")
	wantFitCount(t, "--refine 0", m, info, 0, 0)
	if !strings.Contains(stdout, "validation redone for --refine 0 (") {
		t.Errorf("stdout %q does not say the validation was redone", stdout)
	}
	if text := inspectText(t, one); strings.Contains(text, "  fit: ") || strings.Contains(text, "not current") {
		t.Errorf("inspect of a one-pass file with its one-pass fit flags a mismatch:\n%s", text)
	}
	m, info, _, _ = refineRun(t, one, back, "5", "0")
	wantFitCount(t, "--refine 0, then 5", m, info, 0, 5)
	text := inspectText(t, back)
	want := "  fit: the default spread was fitted to one-pass predictions by the last whole recalibration and serves 5-step refined ones now (apic train --init " + back + " --steps1 0 --steps2 0 --out NEW refits it; refined bands widened by the fit's move, as spring's shipped files have them, then take --recalibrate-only disagreement and then band-shape on NEW)\n"
	if !strings.Contains(text, want) || strings.Contains(text, "not current") {
		t.Errorf("inspect lacks %q, or flags its validation:\n%s", want, text)
	}
	// Another refining count: the note names the fit the file has, not
	// one made for its old count.
	m, info, _, stderr := refineRun(t, back, three, "3", "0")
	wantFitCount(t, "then 3", m, info, 0, 3)
	if note := "default spread, fitted to one-pass predictions, serves its 3-step refined ones now, not refitted"; !strings.Contains(stderr, note) || strings.Contains(stderr, "5-step refined predictions (their spread") {
		t.Errorf("stderr %q lacks %q", stderr, note)
	}
}

// With a recalibration each way, the fit is made for the count it
// serves, and inspect says nothing of a mismatch; --refine N alone then
// keeps the fit made for the count before, and inspect says which.
func TestRefineRoundTripWithRecalibration(t *testing.T) {
	dir := t.TempDir()
	tiny, one, back, three := filepath.Join(dir, "tiny.safetensors"), filepath.Join(dir, "one.safetensors"), filepath.Join(dir, "back.safetensors"), filepath.Join(dir, "three.safetensors")
	trainTinyTo(t, tiny)
	m, info, err := core.LoadCheckpoint(tiny)
	if err != nil {
		t.Fatal(err)
	}
	wantFitCount(t, "trained", m, info, m.Config.Infer.Refine, m.Config.Infer.Refine)
	m, info, _, _ = refineRun(t, tiny, one, "0", "2")
	wantFitCount(t, "--refine 0 --recalibrate 2", m, info, 0, 0)
	m, info, _, _ = refineRun(t, one, back, "5", "2")
	wantFitCount(t, "then --refine 5 --recalibrate 2", m, info, 5, 5)
	if text := inspectText(t, back); strings.Contains(text, "  fit: ") || strings.Contains(text, "not current") {
		t.Errorf("inspect of a file recalibrated for its count flags a mismatch:\n%s", text)
	}
	m, info, _, _ = refineRun(t, back, three, "3", "0")
	wantFitCount(t, "then --refine 3", m, info, 5, 3)
	if want := "  fit: the default spread was fitted to 5-step refined predictions by the last whole recalibration and serves 3-step refined ones now"; !strings.Contains(inspectText(t, three), want) {
		t.Errorf("inspect lacks %q", want)
	}
}

// --refine with the file's own count changes nothing and validates
// nothing again: train says the validation is the one the file
// recorded.
func TestRefineSameCountKeepsValidation(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.safetensors")
	before, beforeInfo, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	m, info, stdout, _ := refineRun(t, "embedded:spring-cnp.safetensors", same, "5", "0")
	if !reflect.DeepEqual(m.Config.Infer, before.Config.Infer) || !reflect.DeepEqual(info.Metrics, beforeInfo.Metrics) {
		t.Errorf("the same count changed the inference settings or the validation")
	}
	if !strings.Contains(stdout, "validation as embedded:spring-cnp.safetensors recorded it (") {
		t.Errorf("stdout %q does not say the validation is the file's", stdout)
	}
}

// The shipped files, written before the fit count was recorded, load
// and inspect without a line about it or about their validation, whose
// count is theirs.
func TestInspectShippedSaysNoMismatch(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		for _, b := range []string{"cnp", "lnp", "anp"} {
			path := filepath.Join("..", "..", "checkpoints", name+"-"+b+".safetensors")
			text := inspectText(t, path)
			if strings.Contains(text, "  fit: ") || strings.Contains(text, "not current") {
				t.Errorf("%s: inspect flags a mismatch:\n%s", path, text)
			}
		}
	}
}

// A file whose count an older program changed without validating
// again keeps a record measured with the old count: inspect says it is
// not the file's current predictions'. A record too old to say its
// count gets no such line.
func TestInspectMarksValidationOfAnotherCount(t *testing.T) {
	dir := t.TempDir()
	m, info, err := core.LoadCheckpoint(filepath.Join("..", "..", "checkpoints", "spring-cnp.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	measured := info.Metrics.Refine
	m.Config.Infer.Refine = 2 // as --refine 2 --recalibrate 0 left it
	stale := filepath.Join(dir, "stale.safetensors")
	if err := core.SaveCheckpoint(stale, m, info, nets.F32); err != nil {
		t.Fatal(err)
	}
	want := "  not current: measured on " + predictionWords(measured) + " predictions, but the file makes 2-step refined ones now (apic eval --checkpoint " + stale + " scores those)\n"
	if text := inspectText(t, stale); !strings.Contains(text, want) {
		t.Errorf("inspect lacks %q:\n%s", want, text)
	}
	old := *info.Metrics
	old.Samples, old.Refine = 0, 0 // a record from before reports said their count
	info.Metrics = &old
	oldFile := filepath.Join(dir, "old.safetensors")
	if err := core.SaveCheckpoint(oldFile, m, info, nets.F32); err != nil {
		t.Fatal(err)
	}
	if text := inspectText(t, oldFile); strings.Contains(text, "not current") {
		t.Errorf("a record that does not say its count is flagged:\n%s", text)
	}
}
