package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"apic/core"
	"apic/core/kohgp"
	"apic/sims"
)

// eval, compare and diagnose --help define the metrics they print and
// say which way each is better.
func TestHelpDefinesMetrics(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"eval":     {"recon ECE", "0 is perfect", "δ LL", "higher is better", "recon MAE", "lower is better", "not an interval of the mean"},
		"compare":  {"recon ECE", "0 is perfect", "obs cover95", "0.95 is calibrated", "not an", "interval of the mean"},
		"diagnose": {"cover95", "0.95 if", "verdict", "5% level", "• one, 2–9 that many"},
	} {
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q", cmd, w)
			}
		}
	}
}

// TestGlossaryLabelsStandApart: each metric's label in the glossary is
// followed by at least two spaces or ends its line, so that a label as
// long as the column ("θ at a bound") does not run into its definition.
func TestGlossaryLabelsStandApart(t *testing.T) {
	_, body, _ := strings.Cut(metricGlossary, "realizations):\n")
	body, _, _ = strings.Cut(body, "\n\n")
	for _, line := range strings.Split(body, "\n") {
		label := []rune(line)
		if len(label) < 15 || label[2] == ' ' {
			continue // a continuation line, or a label alone on its line
		}
		if label[13] != ' ' || label[14] != ' ' {
			t.Errorf("glossary line %q: its label runs into its definition", line)
		}
	}
}

// eval's table ends with what its ± is: the spread over realizations.
func TestEvalSaysWhatPlusMinusIs(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--refine", "0")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "± : standard deviation over 2 realizations, not an interval of the mean\n"; !strings.HasSuffix(out, want) {
		t.Errorf("output does not end with %q:\n%s", want, out)
	}
}

// compare's metrics table is followed by what its ± is and which way
// each column is better; where a method scored fewer realizations the
// count is each one's own.
func TestCompareSaysWhatColumnsMean(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	test, err := core.TestTasks(sys, core.EvalOptions{Tasks: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	none := core.Failures{Realizations: []core.Failure{}}
	methods := []compareMethod{
		{Name: kohgp.Name, Run: core.MethodRun{Seconds: []float64{1, 1, 1}}, Report: core.Report{Tasks: 3, Failures: none}, Wall: time.Second, Baseline: true, Workers: 1},
		{Name: "apic-lnp", Source: "x", Run: core.MethodRun{Seconds: []float64{1e-3, 1e-3, 1e-3}}, Report: core.Report{Tasks: 3, Failures: none},
			Batched: core.BatchTiming{Seconds: 1e-3}, OnePass: 1e-3, OnePassBatched: core.BatchTiming{Seconds: 1e-3}},
	}
	opt := core.EvalOptions{Tasks: 3, Seed: 4, Samples: 2}
	var text strings.Builder
	writeCompareText(&text, sys, test, opt, methods, 8, 1, false)
	for _, want := range []string{
		"  ± : standard deviation over 3 realizations, not an interval of the mean\n",
		"  lower is better: recon MAE, recon ECE, δ MAE, δ ECE, θ MAE; higher is better: recon LL, δ LL; obs cover95 targets 0.95\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	methods[0].Report.Failures = core.Failures{Count: 1, Realizations: []core.Failure{{Index: 2, Reason: "no fit"}}}
	text.Reset()
	writeCompareText(&text, sys, test, opt, methods, 8, 1, false)
	if want := "± : standard deviation over each method's scored realizations"; !strings.Contains(text.String(), want) {
		t.Errorf("with a failure, text lacks %q:\n%s", want, text.String())
	}
}

// TestGlossaryDefinesTableLabels: every metric label that eval's and
// compare's tables print (eval --grid prints the same coverage labels)
// starts a definition in the glossary of their --help.
func TestGlossaryDefinesTableLabels(t *testing.T) {
	labels := []string{thetaCoverLabel, obsCoverLabel, thetaBiasLabel}
	for _, l := range metricLabels {
		labels = append(labels, strings.TrimSuffix(l, " (mean)")) // "θ MAE (mean)" averages the θ MAE rows
	}
	for _, l := range compareHeads {
		labels = append(labels, l)
	}
	for _, l := range labels {
		if !strings.Contains(metricGlossary, "\n  "+l+" ") {
			t.Errorf("the glossary does not define %q", l)
		}
	}
}

// The glossary names every key of eval's and compare's --json metrics
// objects, and every top-level key of eval --json it describes, so a
// script's author finds them in --help; a key added to the output
// without a word there fails here.
func TestGlossaryNamesJSONKeys(t *testing.T) {
	code, out, errOut := runCLI(t, "eval", "--system", "spring", "--tasks", "3", "--samples", "2", "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var metrics map[string]any
	if err := json.Unmarshal(rep["metrics"], &metrics); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range metrics {
		keys = append(keys, k)
	}
	keys = append(keys, "theta_mae_per_param", "theta_bias_per_param", "failures", "theta_at_bound", "theta_cover_realizations")
	for _, k := range keys {
		if !regexp.MustCompile(`[\s(]` + k + `[\s,;)]`).MatchString(metricGlossary) {
			t.Errorf("the glossary does not name the JSON key %s", k)
		}
		if _, ok := rep[k]; !ok && metrics[k] == nil {
			t.Errorf("the glossary names %s, which eval --json lacks", k)
		}
	}
}
