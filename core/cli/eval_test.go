package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"apic/core"
)

func TestEvalJSON(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 2, 2)
	for _, extra := range [][]string{nil, {"--z-theta-prior", "0"}, {"--z-theta-prior", "10", "--refine", "1"}, {"--true-theta"}} {
		args := append([]string{"eval", "--checkpoint", ckpt, "--tasks", "3", "--samples", "4", "--json"}, extra...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", extra, code, errOut)
		}
		var rep core.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", extra, err, out)
		}
		if rep.Tasks != 3 || rep.System != "spring" {
			t.Errorf("%v: report %+v", extra, rep)
		}
		var named struct{ Checkpoint string }
		if json.Unmarshal([]byte(out), &named); named.Checkpoint != ckpt {
			t.Errorf("%v: checkpoint %q, want %q", extra, named.Checkpoint, ckpt)
		}
		for _, k := range append(core.MetricKeys, core.DiagnosticKeys...) {
			if _, ok := rep.Metrics[k]; !ok {
				t.Errorf("%v: metrics lack %q", extra, k)
			}
		}
	}
}

func TestEvalText(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--refine", "0")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"Damped spring", "2 realizations", "0 refinement steps", "recon MAE", "θ MAE omega", "F(θ̂) MAE"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// θ given: no deviations, and the NaN coverage says why.
	code, out, _ = runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--true-theta")
	if code != 0 || !strings.Contains(out, "NaN") || !strings.Contains(out, "no θ̂ had a deviation") {
		t.Errorf("--true-theta: exit %d, output:\n%s", code, out)
	}
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--system", "spring", "--tasks", "0"}, "--tasks must be between 1 and 2000 (every realization is held in memory), got 0"},
		{[]string{"eval", "--system", "spring", "--tasks", "1", "--refine", "1001"}, "--refine must be between 0 and 1000 (refinement stops within a few steps, once a step lowers its cost by under 1%), got 1001"},
		{[]string{"eval", "--system", "advdiff", "--tasks", "100000"}, "--tasks must be between 1 and 2000 (every realization is held in memory), got 100000"},
		{[]string{"eval", "--system", "spring", "--noise", "-1"}, "--noise must be between 0 and 1000 (the data are of order 1), got -1"},
		{[]string{"eval", "--system", "spring", "--noise", "1e300"}, "--noise must be between 0 and 1000 (the data are of order 1), got 1e+300"},
		{[]string{"eval", "--system", "spring", "--z-theta-prior", "-2"}, "--z-theta-prior -2: want a factor in [0, 1000]"},
		{[]string{"eval", "--system", "spring", "--z-theta-prior", "1e300"}, "--z-theta-prior 1e+300: want a factor in [0, 1000]"},
		{[]string{"eval", "--system", "nosuch"}, "nosuch"},
		{[]string{"eval", "--system", "spring", "--true-theta", "--refine", "3"}, "leaves nothing to refine"},
		{[]string{"eval", "--system", "spring", "--true-theta", "--z-theta-prior", "3"}, "drop --z-theta-prior 3"},
		{[]string{"eval", "--system", "spring", "--theta-prior", "flat"}, `--theta-prior "flat": the forms are logit and theta`},
		{[]string{"eval", "--system", "spring", "--true-theta", "--theta-prior", "theta"}, `drop --theta-prior theta`},
		{[]string{"eval", "--system", "spring", "--refine", "0", "--theta-prior", "theta"}, "--refine 0 runs no refinement: drop --theta-prior theta"},
		{[]string{"eval", "--system", "spring", "--true-theta", "--theta-prior", "bogus"}, `--theta-prior "bogus": the forms are`},
		{[]string{"eval", "--system", "spring", "--theta-prior-scale", "2000"}, "--theta-prior-scale 2000: want a factor in [0.01, 1000]"},
		{[]string{"eval", "--system", "spring", "--theta-prior-scale", "NaN"}, "--theta-prior-scale NaN: want a factor"},
		{[]string{"eval", "--system", "spring", "--theta-prior-scale", "-3"}, "--theta-prior-scale -3: want a factor"},
		{[]string{"eval", "--system", "spring", "--true-theta", "--theta-prior-scale", "10"}, "drop --theta-prior-scale 10"},
		{[]string{"eval", "--system", "spring", "--refine", "0", "--theta-prior-scale", "10"}, "--refine 0 runs no refinement: drop --theta-prior-scale 10"},
		{[]string{"eval", "--checkpoint", "/nonexistent/file.safetensors"}, "file.safetensors"},
		{[]string{"eval", "--system", "spring", "--context", "100"}, "no targets"},
		{[]string{"eval", "--system", "spring", "--true-theta=maybe"}, "true-theta"},
		{[]string{"eval", "--system", "spring", "--noise", "nan"}, "--noise must be between 0 and 1000"},
		{[]string{"eval", "--system", "spring", "--noise", "+Inf"}, "--noise must be between 0 and 1000"},
		{[]string{"eval", "--system", "spring", "--refine", "-3"}, "--refine must be ≥ 0, or -1"},
		{[]string{"eval", "--system", "spring", "--samples", "100000000"}, "--samples must be between 1 and 10000"},
		{[]string{"eval", "--checkpoint", "../../checkpoints/spring-lnp.safetensors", "--backbone", "cnp"}, "--backbone cnp disagrees"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestEvalRawSpread scores the embedded spring/lnp file, whose
// recalibrated spread differs from the plain mixture collapse, with and
// without --raw-spread: the means (MAE) stay, the intervals (ECE) move.
func TestEvalRawSpread(t *testing.T) {
	run := func(extra ...string) (core.Report, bool) {
		args := append([]string{"eval", "--system", "spring", "--backbone", "lnp", "--tasks", "4", "--samples", "4", "--json"}, extra...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", extra, code, errOut)
		}
		var rep struct {
			core.Report
			RawSpread bool `json:"raw_spread"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return rep.Report, rep.RawSpread
	}
	cal, calRaw := run()
	raw, rawRaw := run("--raw-spread")
	if calRaw || !rawRaw {
		t.Errorf("raw_spread fields %v (default) and %v (--raw-spread)", calRaw, rawRaw)
	}
	if a, b := cal.Metrics[core.KeyReconMAE].Mean, raw.Metrics[core.KeyReconMAE].Mean; a != b {
		t.Errorf("recon MAE %v with the recalibrated spread, %v raw: the spread must not move the mean", a, b)
	}
	if a, b := cal.Metrics[core.KeyReconECE].Mean, raw.Metrics[core.KeyReconECE].Mean; a == b {
		t.Errorf("recon ECE %v both ways: --raw-spread changed nothing", a)
	}
}

// TestEvalReportsFailures: the realizations an evaluation could not
// score are named on a line of the table and listed under "failures" in
// JSON (an empty list when there are none).
func TestEvalReportsFailures(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	args := []string{"eval", "--checkpoint", ckpt, "--tasks", "3", "--samples", "2", "--refine", "0"}
	_, out, _ := runCLI(t, append(args, "--json")...)
	var none struct {
		Failures *core.Failures `json:"failures"`
	}
	if err := json.Unmarshal([]byte(out), &none); err != nil || none.Failures == nil || none.Failures.Count != 0 || none.Failures.Realizations == nil {
		t.Errorf("no failure: JSON failures %+v (%v), want count 0 and []:\n%s", none.Failures, err, out)
	}
	if _, out, _ := runCLI(t, args...); strings.Contains(out, "failures") {
		t.Errorf("no failure, yet the table has a failures line:\n%s", out)
	}

	defer func(f func(context.Context, *core.Model, core.EvalOptions) (core.Report, []core.TaskMetrics, error)) {
		evaluate = f
	}(evaluate)
	evaluate = func(ctx context.Context, m *core.Model, o core.EvalOptions) (core.Report, []core.TaskMetrics, error) {
		rep, per, err := core.Evaluate(ctx, m, o)
		per[1] = core.TaskMetrics{Failed: core.ErrDiverged.Error()}
		failed := core.Summarise(m.Sys, per)
		rep.Metrics, rep.Failures = failed.Metrics, failed.Failures
		return rep, per, err
	}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "failures: 1 of 3 realizations failed and is left out of the means (realization 1: every latent sample gave a non-finite prediction (the model diverged))"; !strings.Contains(out, want) {
		t.Errorf("table lacks %q:\n%s", want, out)
	}
	_, out, _ = runCLI(t, append(args, "--json")...)
	var rep core.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if f := rep.Failures; f.Count != 1 || len(f.Realizations) != 1 || f.Realizations[0].Index != 1 || !strings.Contains(f.Realizations[0].Reason, "diverged") {
		t.Errorf("JSON failures %+v, want realization 1, diverged", f)
	}
}

func TestFailureLine(t *testing.T) {
	var f core.Failures
	if got := failureLine(f, 5); got != "" {
		t.Errorf("no failure: %q", got)
	}
	for i := range 12 {
		reason := "a"
		if i == 7 {
			reason = "b"
		}
		f.Realizations = append(f.Realizations, core.Failure{Index: 3 * i, Reason: reason})
	}
	f.Count = 12
	want := "12 of 40 realizations failed and are left out of the means (realizations 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, …: a; b)"
	if got := failureLine(f, 40); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Reasons that name their own numbers: the first two, and a count.
	for i := range f.Realizations {
		f.Realizations[i].Reason = fmt.Sprintf("diverged at %d", i)
	}
	want = "12 of 40 realizations failed and are left out of the means (realizations 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, …: diverged at 0; diverged at 1; 10 more reasons (--json lists each))"
	if got := failureLine(f, 40); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestEvalWarnsOutsideTrainingRange: a context smaller than training saw
// (spring trains on 15 to 100 points) and noise beyond its own are
// warned of on the table and listed under "warnings" in JSON; the test
// size at σ = 0 gives an empty list.
func TestEvalWarnsOutsideTrainingRange(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	base := []string{"eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--refine", "0"}
	warnings := func(extra ...string) []string {
		t.Helper()
		code, out, errOut := runCLI(t, append(append(base, extra...), "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", extra, code, errOut)
		}
		var rep struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Warnings == nil {
			t.Fatalf("%v: warnings %v (%v), want a list:\n%s", extra, rep.Warnings, err, out)
		}
		return withoutPriorGuess(rep.Warnings) // an untrained model's θ MAE is the prior's
	}
	if ws := warnings(); len(ws) != 0 {
		t.Errorf("the test condition gives warnings %q", ws)
	}
	ws := warnings("--context", "3", "--noise", "0.3")
	if len(ws) != 2 || !strings.Contains(ws[0], "only 3 context points; the model was trained on 15 to 100") || !strings.Contains(ws[1], "noise σ = 0.3 is more than the model was trained on") {
		t.Errorf("context 3, noise 0.3: warnings %q", ws)
	}
	_, out, _ := runCLI(t, append(base, "--context", "3")...)
	if !strings.Contains(out, "warning: only 3 context points") {
		t.Errorf("the table lacks the warning:\n%s", out)
	}
}

// Row labels pad to their width in terminal columns: θ̂'s combining hat
// takes none, so "F(θ̂) MAE" lines up with "θ MAE omega".
func TestPadLabel(t *testing.T) {
	if a, b := padLabel("F(θ̂) MAE", 14), padLabel("θ MAE omega", 14); len([]rune(a))-1 != len([]rune(b)) {
		t.Errorf("%q and %q are not one combining mark apart", a, b)
	}
	if got := padLabel("a very long label here", 14); got != "a very long label here" {
		t.Errorf("a label beyond the width: %q", got)
	}
}

// TestEvalOneRealization: one scored realization has no spread, so no
// row may state one ("± 0.0000" reads as certainty); two still do.
func TestEvalOneRealization(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "1", "--samples", "2", "--refine", "0")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	spread := regexp.MustCompile(`[0-9] ± [0-9]`)
	if spread.MatchString(out) || !strings.Contains(out, "one realization scored") {
		t.Errorf("--tasks 1 states a spread, or not why it has none:\n%s", out)
	}
	_, out, _ = runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2", "--refine", "0")
	if !spread.MatchString(out) {
		t.Errorf("--tasks 2 lost its spread:\n%s", out)
	}
}

func TestFmtMeanStd(t *testing.T) {
	for _, tc := range []struct {
		s    core.Summary
		n    int
		want string
	}{
		{core.Summary{Mean: 0.0123, Std: 0}, 1, "0.0123"},
		{core.Summary{Mean: 0.0123, Std: 0.002}, 5, "0.0123 ± 0.0020"},
		{core.Summary{Mean: -250.25, Std: 3}, 1, "-250.2"},
		{core.Summary{Mean: -250.25, Std: 3}, 2, "-250.2 ± 3.0"},
		{core.Summary{Mean: -123456.7, Std: 2}, 2, "-123456.7 ± 2.0"},
		// From tableExpBound on, exponent notation (compare's columns).
		{core.Summary{Mean: -1.2e9, Std: 4e8}, 2, "-1.200e+09 ± 4.000e+08"},
		{core.Summary{Mean: -1.2e9, Std: 5}, 1, "-1.200e+09"},
	} {
		if got := fmtMeanStd(tc.s, tc.n); got != tc.want {
			t.Errorf("fmtMeanStd(%v, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestEvalPrintsBoundCoverage prints the at-bound row only when an
// estimate lies at a bound, with its counts, in the mean's column.
func TestEvalPrintsBoundCoverage(t *testing.T) {
	rep := core.Report{Tasks: 450, Metrics: map[string]core.Summary{core.KeyThetaCover: {Mean: 0.95}}, ThetaAtBound: core.BoundCoverage{Estimates: 450}}
	var b strings.Builder
	writeReportTable(&b, rep)
	if strings.Contains(b.String(), thetaAtBoundLabel) {
		t.Errorf("no estimate at a bound, yet printed\n%s", b.String())
	}
	rep.ThetaAtBound = core.BoundCoverage{Estimates: 450, AtBound: 24, Covered: 7}
	b.Reset()
	writeReportTable(&b, rep)
	want := regexp.MustCompile(`(?m)^  θ at a bound +7 of 24 +\(diagnostic: intervals holding θ, of the 24 of 450 θ̂ within 2% of the prior's width of a bound\)$`)
	if !want.MatchString(b.String()) {
		t.Errorf("no at-bound row in\n%s", b.String())
	}
	cover := regexp.MustCompile(`(?m)^  θ cover95 +0\.9500 +\(`).FindStringIndex(b.String())
	if cover == nil {
		t.Fatalf("no θ cover95 row in\n%s", b.String())
	}
}

// TestEvalSaysThetaPrior records the form of θ's prior: in --json
// whenever eval refines, in the header when --theta-prior set it.
func TestEvalSaysThetaPrior(t *testing.T) {
	_, out, _ := runCLI(t, "eval", "--system", "spring", "--backbone", "cnp", "--tasks", "2", "--theta-prior", "logit")
	if !strings.Contains(out, "5 refinement steps, θ prior logit\n") {
		t.Errorf("header does not name the θ prior:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "theta"}, {[]string{"--theta-prior", "logit"}, "logit"}, {[]string{"--refine", "0"}, ""}} {
		args := append([]string{"eval", "--system", "spring", "--backbone", "cnp", "--tasks", "2", "--json"}, c.args...)
		_, out, errOut := runCLI(t, args...)
		var rep struct {
			ThetaPrior string `json:"theta_prior"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v (%s)", c.args, err, errOut)
		}
		if rep.ThetaPrior != c.want {
			t.Errorf("%v: theta_prior %q, want %q", c.args, rep.ThetaPrior, c.want)
		}
	}
}

// TestEvalSaysThetaPriorScale: --theta-prior-scale widens the prior of
// the evaluation (header and --json say so) and moves the fit; without
// it the report says 1.
func TestEvalSaysThetaPriorScale(t *testing.T) {
	_, out, _ := runCLI(t, "eval", "--system", "advdiff", "--backbone", "cnp", "--tasks", "2", "--theta-prior-scale", "10")
	if !strings.Contains(out, "refinement steps, θ prior theta ×10\n") {
		t.Errorf("header does not name the θ prior's scale:\n%s", out)
	}
	thetaMAE := map[float64]float64{}
	for _, k := range []float64{0, 10} {
		args := []string{"eval", "--system", "advdiff", "--backbone", "cnp", "--tasks", "4", "--json", "--theta-prior-scale", fmt.Sprint(k)}
		_, out, errOut := runCLI(t, args...)
		var rep struct {
			Scale   float64 `json:"theta_prior_scale"`
			Metrics map[string]struct {
				Mean float64 `json:"mean"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v (%s)", args, err, errOut)
		}
		if want := max(k, 1); rep.Scale != want {
			t.Errorf("%v: theta_prior_scale %g, want %g", args, rep.Scale, want)
		}
		thetaMAE[k] = rep.Metrics["theta_mae"].Mean
	}
	if thetaMAE[10] == thetaMAE[0] {
		t.Errorf("θ MAE %g with and without --theta-prior-scale 10: the flag changed nothing", thetaMAE[0])
	}
}

// TestEvalFailsAtNoiseBeyondTraining: eval at a noise far beyond the
// model's training range, where every fit fails, says that in place of
// "the model diverged", and names the range.
func TestEvalFailsAtNoiseBeyondTraining(t *testing.T) {
	code, _, stderr := runCLI(t, "eval", "--system", "spring", "--tasks", "2", "--noise", "1000")
	want := "the fit failed at noise σ = 1000, 10000 times the top of the model's training range (σ ≤ 0.1)"
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "diverged") {
		t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// TestFailureLineSaysASharedClauseOnce: reasons that open with the same
// clause (the noise they failed at) say it once.
func TestFailureLineSaysASharedClauseOnce(t *testing.T) {
	shared := "the fit failed at noise σ = 20, 200 times the top of the model's training range (σ ≤ 0.1): "
	f := core.Failures{Count: 2, Realizations: []core.Failure{{Index: 0, Reason: shared + "its prediction reaches 1e+08"}, {Index: 3, Reason: shared + "its prediction std reaches 1e+09"}}}
	want := "2 of 5 realizations failed and are left out of the means (realizations 0, 3: " + shared + "its prediction reaches 1e+08; its prediction std reaches 1e+09)"
	if got := failureLine(f, 5); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestReportRowsReadOldThetaCover: a report stored before it counted
// the realizations with a θ deviation (a shipped checkpoint's
// validation, read by inspect) has a θ cover95 over 0 of them; that is
// no count, and the row must not claim the coverage came from none.
func TestReportRowsReadOldThetaCover(t *testing.T) {
	for _, tc := range []struct {
		of   int
		want string
	}{{0, diagnosticNotes[core.KeyThetaCover]}, {32, diagnosticNotes[core.KeyThetaCover]}, {20, "over the 20 of 32 realizations"}} {
		rep := core.Report{Tasks: 32, ThetaCoverOf: tc.of, Metrics: map[string]core.Summary{core.KeyThetaCover: {Mean: 0.97}}}
		var note string
		for _, r := range reportRows(rep) {
			if r.label == metricLabels[core.KeyThetaCover] {
				note = r.note
			}
		}
		if !strings.Contains(note, tc.want) {
			t.Errorf("θ cover95 over %d of 32: note %q, want %q", tc.of, note, tc.want)
		}
	}
}

// TestReportTablePooledECE: the table gives the pooled ECEs (what the
// spreads are recalibrated to) where the report has them, not for a
// report stored before they were, and keeps every value in one column.
func TestReportTablePooledECE(t *testing.T) {
	rep := core.Report{Tasks: 4, Metrics: map[string]core.Summary{core.KeyReconMAE: {Mean: 0.01, Std: 0.002}}}
	var b strings.Builder
	writeReportTable(&b, rep)
	if strings.Contains(b.String(), "pooled") {
		t.Errorf("a report without pooled ECEs shows them:\n%s", b.String())
	}
	rep.Pooled = core.PooledECE{Recon: 0.0339, Delta: 0.0382}
	b.Reset()
	writeReportTable(&b, rep)
	out := b.String()
	for _, want := range []string{"recon ECE pooled", "0.0339", "δ ECE pooled", "0.0382"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	nanDelta := rep
	nanDelta.Pooled.Delta = math.NaN()
	var nb strings.Builder
	writeReportTable(&nb, nanDelta)
	if !strings.Contains(nb.String(), "recon ECE pooled") || strings.Contains(nb.String(), "δ ECE pooled") {
		t.Errorf("δ's pooled ECE NaN: want recon's row alone:\n%s", nb.String())
	}
	col := -1
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		i := strings.Index(line, "0.0")
		if c := displayWidth(line[:i]); col < 0 {
			col = c
		} else if c != col {
			t.Errorf("value of %q in column %d, the first row's in %d", line, c, col)
		}
	}
}
