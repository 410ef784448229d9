package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"apic/checkpoints"
	"apic/core"
	"apic/core/kohgp"
	"apic/nets"
	"apic/sims"
)

// compareCheckpoint trains a very small LNP model of system for a few steps
// and saves it in a temporary directory under name.
func compareCheckpoint(t *testing.T, system, name string, steps int) string {
	t.Helper()
	return compareCheckpointWith(t, system, name, steps, func(*core.Config) {})
}

// compareCheckpointWith is compareCheckpoint with the configuration
// changed by edit before training.
func compareCheckpointWith(t *testing.T, system, name string, steps int, edit func(*core.Config)) string {
	t.Helper()
	sys, err := sims.Lookup(system)
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig(sys, core.LNP)
	cfg.Arch.Hidden, cfg.Arch.Layers, cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 16, 1, 4, 4
	cfg.Arch.DecHidden, cfg.Arch.DecLayers = 16, 1
	cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.Batch, cfg.Train.ValEvery = steps, steps, 4, 0
	cfg.Infer.Refine = 1
	edit(&cfg)
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Train(context.Background(), core.Hooks{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".safetensors")
	if err := core.SaveCheckpoint(path, m, core.Info{Steps1: steps, Steps2: steps}, nets.F32); err != nil {
		t.Fatal(err)
	}
	return path
}

// compareJSON is the decoded --json output.
type compareJSON struct {
	System  string                              `json:"system"`
	Tasks   int                                 `json:"tasks"`
	Context int                                 `json:"context"`
	Methods map[string]compareMethodJSONForTest `json:"methods"`
}

type compareMethodJSONForTest struct {
	Metrics               map[string]core.Summary `json:"metrics"`
	ThetaPerParam         map[string]core.Summary `json:"theta_mae_per_param"`
	ThetaBiasPerParam     map[string]core.Summary `json:"theta_bias_per_param"`
	SecondsPerRealization float64                 `json:"seconds_per_realization"`
	SecondsTotal          float64                 `json:"seconds_total"`
	Batched               float64                 `json:"realizations_per_second_batched"`
	Speedup               float64                 `json:"speedup_vs_koh_gp"`
	Refine                *int                    `json:"refine"`
	CPU                   *float64                `json:"cpu_seconds_per_realization"`
	CPUSpeedup            *float64                `json:"speedup_vs_koh_gp_cpu"`
	Workers               int                     `json:"workers"`
	Starts                int                     `json:"starts"`
	OnePass               float64                 `json:"one_pass_seconds_per_realization"`
	OnePassBatched        float64                 `json:"one_pass_realizations_per_second_batched"`
	OnePassSpeedup        float64                 `json:"one_pass_speedup_vs_koh_gp"`
	BatchedCPU            *float64                `json:"cpu_seconds_per_realization_batched"`
	OnePassBatchedCPU     *float64                `json:"one_pass_cpu_seconds_per_realization_batched"`
	OnePassBatchedSpeedup float64                 `json:"one_pass_batched_speedup_vs_koh_gp"`
	OnePassCPUSpeedup     *float64                `json:"one_pass_batched_cpu_speedup_vs_koh_gp"`
	OnePassThroughput     float64                 `json:"one_pass_throughput_ratio_vs_koh_gp"`
	KOHThroughput         float64                 `json:"realizations_per_second"`
}

func hasEmbedded(system string) bool {
	for _, b := range core.Backbones {
		if _, ok := checkpoints.Lookup(system, string(b)); ok {
			return true
		}
	}
	return false
}

func TestCompareJSON(t *testing.T) {
	ckpt := compareCheckpoint(t, "spring", "tiny", 3)
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "3", "--seed", "4",
		"--checkpoint", ckpt, "--json", "--methods", "koh-gp,apic")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "koh-gp 3/3 realizations") {
		t.Errorf("stderr lacks KOH-GP progress: %q", errOut)
	}
	var got compareJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"system", "tasks", "context", "noise", "seed", "samples", "methods"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if got.System != "spring" || got.Tasks != 3 || got.Context != 30 {
		t.Errorf("header %q %d %d", got.System, got.Tasks, got.Context)
	}
	for _, name := range []string{"koh-gp", "apic-lnp", "apic-lnp:tiny"} {
		m, ok := got.Methods[name]
		if !ok {
			t.Fatalf("methods lack %q (have %v)", name, sortedKeys(got.Methods))
		}
		for _, k := range core.MetricKeys {
			if _, ok := m.Metrics[k]; !ok {
				t.Errorf("%s: metrics lack %q", name, k)
			}
		}
		if _, ok := m.ThetaPerParam["omega"]; !ok {
			t.Errorf("%s: theta_mae_per_param lacks omega", name)
		}
		// The help's JSON legend promises it for compare as for eval.
		if _, ok := m.ThetaBiasPerParam["omega"]; !ok {
			t.Errorf("%s: theta_bias_per_param lacks omega", name)
		}
		if m.CPU == nil || !(*m.CPU > 0) {
			t.Errorf("%s: CPU seconds per realization %v", name, m.CPU)
		}
		if !(m.SecondsPerRealization > 0) || !(m.SecondsTotal >= m.SecondsPerRealization) {
			t.Errorf("%s: seconds per realization %v, total %v", name, m.SecondsPerRealization, m.SecondsTotal)
		}
		if name == "koh-gp" {
			if m.Starts != 8 || m.Workers < 1 || m.Batched != 0 || m.Refine != nil || m.OnePass != 0 || !(m.KOHThroughput > 0) {
				t.Errorf("koh-gp: starts %d workers %d batched %v refine %v throughput %v", m.Starts, m.Workers, m.Batched, m.Refine, m.KOHThroughput)
			}
			continue
		}
		// The test's tiny model refines 1 step; an embedded checkpoint
		// (which takes the plain name when present) uses its own setting.
		wantRefine := 1
		if name == "apic-lnp" && hasEmbedded("spring") {
			wantRefine = -1
		}
		if !(m.Batched > 0) || !(m.Speedup > 0) || m.CPUSpeedup == nil || m.Refine == nil || (wantRefine >= 0 && *m.Refine != wantRefine) || *m.Refine < 0 {
			t.Errorf("%s: batched %v speed-up %v (CPU %v) refine %v", name, m.Batched, m.Speedup, m.CPUSpeedup, m.Refine)
		}
		if !(m.OnePass > 0) || !(m.OnePassBatched > 0) || !(m.OnePassSpeedup > 0) {
			t.Errorf("%s: one pass %v s, %v realizations/s, speed-up %v", name, m.OnePass, m.OnePassBatched, m.OnePassSpeedup)
		}
		if m.BatchedCPU == nil || !(*m.BatchedCPU > 0) || m.OnePassBatchedCPU == nil || !(*m.OnePassBatchedCPU > 0) {
			t.Errorf("%s: batched CPU per realization %v, one pass %v", name, m.BatchedCPU, m.OnePassBatchedCPU)
		}
		// The ratios are the reported times' ratios.
		kohM := got.Methods["koh-gp"]
		if want := kohM.SecondsPerRealization * m.OnePassBatched; math.Abs(m.OnePassBatchedSpeedup-want) > 1e-9*want {
			t.Errorf("%s: batched speed-up %v, want %v", name, m.OnePassBatchedSpeedup, want)
		}
		if want := m.OnePassBatched / kohM.KOHThroughput; math.Abs(m.OnePassThroughput-want) > 1e-9*want {
			t.Errorf("%s: throughput ratio %v, want %v", name, m.OnePassThroughput, want)
		}
		if m.OnePassCPUSpeedup == nil || math.Abs(*m.OnePassCPUSpeedup - *kohM.CPU / *m.OnePassBatchedCPU) > 1e-9**m.OnePassCPUSpeedup {
			t.Errorf("%s: CPU speed-up %v", name, m.OnePassCPUSpeedup)
		}
	}
	// The same realizations, scored by the same code: KOH-GP's metrics
	// are reproduced by fitting TestTasks directly.
	sys, _ := sims.Lookup("spring")
	test, err := core.TestTasks(sys, core.EvalOptions{Tasks: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	run, err := core.RunMethod(context.Background(), sys, kohgp.New(sys, kohgp.Options{Starts: 8, Seed: 4}), test, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := core.Summarise(sys, run.Metrics)
	for _, k := range core.MetricKeys {
		if a, b := got.Methods["koh-gp"].Metrics[k], rep.Metrics[k]; a != b {
			t.Errorf("koh-gp %s: compare %v, direct %v", k, a, b)
		}
	}
}

func TestCompareText(t *testing.T) {
	ckpt := compareCheckpoint(t, "spring", "tiny", 2)
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--checkpoint", ckpt, "--workers", "1", "--methods", "koh-gp,apic")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"Damped spring · 2 realizations, context 30", "recon MAE", "δ ECE", "θ MAE",
		"koh-gp", "apic-lnp", "realizations/s", "per realization than KOH-GP", "APIC without refinement (one pass", "1 worker", "CPU"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The speed of a model trained for 2 steps comes with the word that
	// its predictions are worse than a flat line; the shipped model's
	// does not.
	_, tiny, _ := strings.Cut(out, "\napic-lnp:tiny (")
	tiny, _, _ = strings.Cut(tiny, "\n\n")
	if n := strings.Count(out, "than a flat line at the context's mean does"); n != 1 || !strings.Contains(tiny, "Yet its predictions miss G") {
		t.Errorf("%d lines on accuracy, want 1 under apic-lnp:tiny's speed-up:\n%s", n, out)
	}
}

// TestLessAccurateLine: the line appears from a reconstruction MAE
// equal to the flat line's on, and never without a yardstick.
func TestLessAccurateLine(t *testing.T) {
	for _, tc := range []struct {
		recon, flat float64
		want        bool
	}{{0.02, 0.01, true}, {0.01, 0.01, true}, {0.005, 0.01, false}, {0.02, math.NaN(), false}, {0.02, 0, false}} {
		m := compareMethod{Report: core.Report{Metrics: map[string]core.Summary{core.KeyReconMAE: {Mean: tc.recon}}, ContextMeanMAE: tc.flat}}
		if got := lessAccurateLine(m) != ""; got != tc.want {
			t.Errorf("recon MAE %g, flat line's %g: line %v, want %v", tc.recon, tc.flat, got, tc.want)
		}
	}
}

// TestCompareWithoutCheckpoint: a system without embedded checkpoints
// (spring, with them taken away) compares KOH-GP alone and says why.
func TestCompareWithoutCheckpoint(t *testing.T) {
	defer func(l func(string, string) ([]byte, bool)) { lookupEmbedded = l }(lookupEmbedded)
	lookupEmbedded = func(string, string) ([]byte, bool) { return nil, false }
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--context", "20", "--json", "--methods", "koh-gp,apic")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "no APIC checkpoint for spring") {
		t.Errorf("stderr lacks the no-checkpoint note: %q", errOut)
	}
	var got compareJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Methods) != 1 || got.Context != 20 {
		t.Errorf("methods %v, context %d; want only koh-gp, context 20", sortedKeys(got.Methods), got.Context)
	}
}

func TestCompareErrors(t *testing.T) {
	lvCkpt := compareCheckpoint(t, "lv", "lv", 0)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"compare"}, "give --system (one of spring, lv, advdiff, "},
		{[]string{"compare", "--checkpoint", lvCkpt, "--checkpoint", compareCheckpoint(t, "spring", "spring", 0)}, "spring.safetensors is for system spring, not lv"},
		{[]string{"compare", "--system", "nosuch"}, `unknown system "nosuch"`},
		{[]string{"compare", "--system", "spring", "--tasks", "0"}, "--tasks must be between 1 and 2000"},
		{[]string{"compare", "--system", "spring", "--tasks", "1", "--refine", "5000"}, "--refine must be between 0 and 1000"},
		{[]string{"compare", "--system", "spring", "--tasks", "2001"}, "--tasks must be between 1 and 2000"},
		{[]string{"compare", "--system", "spring", "--starts", "0"}, "--starts must be between 1 and 1000"},
		{[]string{"compare", "--system", "spring", "--starts", "1000000000"}, "--starts must be between 1 and 1000 (each start is a full L-BFGS search), got 1000000000"},
		{[]string{"compare", "--system", "spring", "--members", "3"}, "--members sets correction-pinn's budget, which --methods leaves out"},
		{[]string{"compare", "--system", "spring", "--methods", "apic", "--starts", "2"}, "--starts sets koh-gp's budget"},
		{[]string{"compare", "--system", "spring", "--methods", "koh-gp", "--checkpoint", filepath.Join(t.TempDir(), "none.safetensors")}, "--checkpoint applies to the APIC checkpoints, which --methods leaves out (add apic to --methods)"},
		{[]string{"compare", "--system", "spring", "--methods", "koh-gp", "--samples", "5"}, "--samples applies to the APIC checkpoints"},
		{[]string{"compare", "--system", "spring", "--methods", "koh-gp", "--refine", "0"}, "--refine applies to the APIC checkpoints"},
		{[]string{"compare", "--system", "spring", "--methods", "koh-gp", "--raw-spread"}, "--raw-spread applies to the APIC checkpoints"},
		{[]string{"compare", "--system", "spring", "--workers", "-1"}, "--workers must be between 0 and 256"},
		{[]string{"compare", "--system", "spring", "--tasks", "1", "--methods", "koh-gp", "--starts", "1", "--workers", "257"},
			"--workers must be between 0 and 256 (workers beyond the cores only take turns), got 257"},
		{[]string{"compare", "--system", "spring", "--samples", "100000000"}, "--samples must be between 1 and 10000"},
		{[]string{"compare", "--system", "spring", "--context", "100"}, "leaves no targets"},
		{[]string{"compare", "--system", "spring", "--context", "1", "--tasks", "2"}, "--context must be ≥ 2 for compare (KOH-GP needs at least 2 context observations), got 1"},
		{[]string{"compare", "--system", "spring", "--checkpoint", filepath.Join(t.TempDir(), "none.safetensors")}, "none.safetensors"},
		{[]string{"compare", "--system", "spring", "--checkpoint", lvCkpt}, "is for system lv, not spring"},
		{[]string{"compare", "--system", "spring", "extra"}, `unexpected argument "extra"`},
		{[]string{"compare", "--system", "spring", "--methods", "koh-gp,nosuch"}, `--methods: unknown method "nosuch" (want a comma-separated list of koh-gp, bcpi, cpinn, apic, or all)`},
		{[]string{"compare", "--system", "spring", "--methods", "all,koh-gp"}, `--methods: all is every method and stands alone: give --methods all, or a list without it (got "all,koh-gp")`},
		{[]string{"compare", "--system", "spring", "--methods", "all", "--members", "0"}, "--members must be between 1 and 1000"},
		{[]string{"compare", "--system", "spring", "--methods", "all", "--mcmc", "1"}, "--mcmc must be between 2 and 10000000"},
		{[]string{"compare", "--system", "spring", "--methods", "all", "--bcpi-starts", "0"}, "--bcpi-starts must be between 1 and 1000"},
		{[]string{"compare", "--system", "spring", "--methods", "all", "--steps", "2000000"}, "--steps must be between 1 and 1000000"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.stderr)
		}
	}
}

func TestCompareInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut strings.Builder
	code := Run(ctx, []string{"compare", "--system", "spring", "--tasks", "4"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 1 and interrupted", code, errOut.String())
	}
	if out.Len() != 0 {
		t.Errorf("interrupted compare printed %q", out.String())
	}
}

func TestSpeedWords(t *testing.T) {
	for s, want := range map[float64]string{
		3.2: "is 3.20× faster per realization than KOH-GP", 1.006: "is 1.01× faster per realization than KOH-GP",
		1: "takes as long per realization as KOH-GP", 0.997: "takes as long per realization as KOH-GP",
		0.5: "is 2.00× slower per realization than KOH-GP", 0.885: "is 1.13× slower per realization than KOH-GP",
		1460.4: "is 1460× faster per realization than KOH-GP", 854.2: "is 854× faster per realization than KOH-GP",
		99.96: "is 100× faster per realization than KOH-GP", 0.0004: "is 2500× slower per realization than KOH-GP",
	} {
		if got := speedWords(s); got != want {
			t.Errorf("speedWords(%v) = %q, want %q", s, got, want)
		}
	}
}

// TestFmtRatioOneNotation: speed-ups of one table share one notation:
// three significant digits with trailing zeros kept (9.2× once stood
// beside 9.36×), whole numbers without an exponent from 100 on
// (1.46e+03× beside 854×), and "<0.01×" below 0.01 (4.5e-05× beside
// 20.2×).
func TestFmtRatioOneNotation(t *testing.T) {
	for r, want := range map[float64]string{1460.4: "1460×", 854.2: "854×", 123456: "123456×", 99.94: "99.9×", 99.96: "100×",
		3.21: "3.21×", 0.5: "0.500×", 9.2: "9.20×", 9.36: "9.36×", 20.2: "20.2×", 20: "20.0×", 1: "1.00×", 9.996: "10.0×",
		0.0123: "0.0123×", 0.01: "0.0100×", 0.0099: "<0.01×", 4.5e-05: "<0.01×", 0: "<0.01×",
		math.NaN(): "—", math.Inf(1): "—"} {
		if got := fmtRatio(r); got != want {
			t.Errorf("fmtRatio(%v) = %q, want %q", r, got, want)
		}
	}
}

// TestCompareReportsFailures: a method's failed realizations get a line
// under the metrics table and a "failures" entry in its JSON.
func TestCompareReportsFailures(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	test, err := core.TestTasks(sys, core.EvalOptions{Tasks: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	failed := core.Failures{Count: 1, Realizations: []core.Failure{{Index: 2, Reason: "no fit"}}}
	none := core.Failures{Realizations: []core.Failure{}}
	methods := []compareMethod{
		{Name: kohgp.Name, Run: core.MethodRun{Seconds: []float64{1, 1, 1}}, Report: core.Report{Failures: failed}, Wall: time.Second, Baseline: true, Workers: 1},
		{Name: "apic-lnp", Source: "x", Run: core.MethodRun{Seconds: []float64{1e-3, 1e-3, 1e-3}}, Report: core.Report{Failures: none},
			Batched: core.BatchTiming{Seconds: 1e-3}, OnePass: 1e-3, OnePassBatched: core.BatchTiming{Seconds: 1e-3}},
	}
	opt := core.EvalOptions{Tasks: 3, Seed: 4, Samples: 2}
	var text strings.Builder
	writeCompareText(&text, sys, test, opt, methods, 8, 1, false)
	if want := "koh-gp: 1 of 3 realizations failed and is left out of the means (realization 2: no fit)"; !strings.Contains(text.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, text.String())
	}
	if strings.Contains(text.String(), "apic-lnp: ") {
		t.Errorf("a method without failures has a failures line:\n%s", text.String())
	}
	var js strings.Builder
	left := []failedMethod{{Name: "apic-anp", Reason: "all 3 realizations failed (realization 0: diverged)"}}
	if err := writeCompareJSON(&js, sys, test, opt, methods, left, 8, 1, false); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Methods map[string]struct {
			Failures *core.Failures `json:"failures"`
		} `json:"methods"`
		FailedMethods []failedMethod `json:"failed_methods"`
	}
	if err := json.Unmarshal([]byte(js.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.FailedMethods) != 1 || got.FailedMethods[0] != left[0] {
		t.Errorf("failed_methods %+v, want %+v", got.FailedMethods, left)
	}
	if f := got.Methods[kohgp.Name].Failures; f == nil || f.Count != 1 || f.Realizations[0].Index != 2 {
		t.Errorf("koh-gp failures %+v, want realization 2", f)
	}
	if f := got.Methods["apic-lnp"].Failures; f == nil || f.Count != 0 || f.Realizations == nil {
		t.Errorf("apic-lnp failures %+v, want count 0 and []", f)
	}
}

// TestCompareWarnsOutsideTrainingRange: compare warns, once per distinct
// warning with the models it concerns, when the context is smaller than
// an APIC model was trained on, and lists each model's warnings in JSON.
func TestCompareWarnsOutsideTrainingRange(t *testing.T) {
	defer func(l func(string, string) ([]byte, bool)) { lookupEmbedded = l }(lookupEmbedded)
	lookupEmbedded = func(string, string) ([]byte, bool) { return nil, false }
	ckpt := compareCheckpoint(t, "spring", "tiny", 0)
	args := []string{"compare", "--system", "spring", "--tasks", "2", "--context", "5", "--samples", "2", "--checkpoint", ckpt, "--workers", "1", "--starts", "1", "--methods", "koh-gp,apic"}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "warning (apic-lnp): only 5 context points; the model was trained on 15 to 100"; !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
	got := compareWarningsJSON(t, args)
	if ws := withoutPriorGuess(got.Methods["apic-lnp"].Warnings); len(ws) != 1 || !strings.Contains(ws[0], "only 5 context points") {
		t.Errorf("apic-lnp warnings %q", ws)
	}
	if ws := got.Methods[kohgp.Name].Warnings; ws == nil || len(ws) != 0 {
		t.Errorf("koh-gp warnings %q, want []", ws)
	}

	methods := []compareMethod{{Name: "a", Warnings: []string{"w1", "w2"}}, {Name: "b", Warnings: []string{"w2"}}, {Name: "c"}}
	var b strings.Builder
	writeMethodWarnings(&b, methods)
	if want := "  warning (a): w1\n  warning (a, b): w2\n"; b.String() != want {
		t.Errorf("grouped warnings %q, want %q", b.String(), want)
	}
}

// TestCompareHelpNamesDefaultMethods checks that the help text states
// --methods' real default (KOH-GP and APIC), not "all", which it once
// claimed while the flag's default was koh-gp,apic.
func TestCompareHelpNamesDefaultMethods(t *testing.T) {
	code, out, errOut := runCLI(t, "help", "compare")
	text := out + errOut
	if code != 0 && code != 2 {
		t.Fatalf("help compare: exit %d", code)
	}
	if strings.Contains(text, "(default: all)") || !strings.Contains(text, "(default: koh-gp,apic") {
		t.Errorf("help compare misstates the default --methods:\n%s", text)
	}
}

// A method whose every realization failed is left out, named with its
// reason, and the comparison goes on; any other error stops it.
func TestLeaveOut(t *testing.T) {
	var errOut bytes.Buffer
	env := &Env{Stdout: io.Discard, Stderr: &errOut}
	var failed []failedMethod
	all := fmt.Errorf("apic-anp: %w", &core.AllFailedError{Realizations: 4, First: "the model diverged"})
	if out, err := leaveOut(env, "apic-anp", all, &failed); !out || err != nil || len(failed) != 1 || failed[0].Name != "apic-anp" ||
		!strings.Contains(failed[0].Reason, "all 4 realizations failed (realization 0: the model diverged)") {
		t.Errorf("all failed: left %v, err %v, failed %+v", out, err, failed)
	}
	if !strings.Contains(errOut.String(), "apic-anp is left out of the comparison") {
		t.Errorf("no warning: %q", errOut.String())
	}
	other := errors.New("disk full")
	if out, err := leaveOut(env, "koh-gp", other, &failed); out || err != other || len(failed) != 1 {
		t.Errorf("another error: left %v, err %v", out, err)
	}
	if out, err := leaveOut(env, "koh-gp", nil, &failed); out || err != nil {
		t.Errorf("no error: left %v, err %v", out, err)
	}
}

// TestCompareCountsCNPSamples: the settings line counts the latent
// samples each APIC model drew, one for a CNP, as eval and calibrate do.
func TestCompareCountsCNPSamples(t *testing.T) {
	defer func(l func(string, string) ([]byte, bool)) { lookupEmbedded = l }(lookupEmbedded)
	embedded := lookupEmbedded
	for _, tc := range []struct {
		backbones []string
		want      string
	}{
		{[]string{"cnp"}, "APIC: 1 sample, 5 refinement steps\n"},
		{[]string{"cnp", "lnp"}, "APIC: 32 samples (apic-cnp: 1), 5 refinement steps\n"},
	} {
		lookupEmbedded = func(system, backbone string) ([]byte, bool) {
			if !slices.Contains(tc.backbones, backbone) {
				return nil, false
			}
			return embedded(system, backbone)
		}
		for _, b := range tc.backbones {
			if _, ok := embedded("spring", b); !ok {
				t.Skipf("no embedded spring-%s", b)
			}
		}
		code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--methods", "apic")
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", tc.backbones, code, errOut)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.backbones, tc.want, out)
		}
	}
}

// TestCompareHeaderStatesRefinement: the settings line says how many
// refinement steps the APIC models ran, --refine's when given, and
// names the models whose own setting differs from the others'.
func TestCompareHeaderStatesRefinement(t *testing.T) {
	if _, ok := lookupEmbedded("spring", "cnp"); !ok {
		t.Skip("no embedded spring-cnp")
	}
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--methods", "apic", "--refine", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, ", 2 refinement steps\n") {
		t.Errorf("header lacks --refine's 2 steps:\n%s", out)
	}
	apics := []compareMethod{{Name: "apic-cnp", Refine: 5}, {Name: "apic-lnp", Refine: 8}, {Name: "apic-anp", Refine: 8}}
	for _, tc := range []struct {
		requested int
		want      string
	}{
		{-1, "8 refinement steps (apic-cnp: 5)"},
		{5, "5 refinement steps (apic-lnp: 8, apic-anp: 8)"},
		{0, "8 refinement steps (apic-cnp: 5)"},
	} {
		if got := apicRefineText(apics, tc.requested); got != tc.want {
			t.Errorf("requested %d: %q, want %q", tc.requested, got, tc.want)
		}
	}
	if got := apicRefineText(apics[:1], -1); got != "5 refinement steps" {
		t.Errorf("one model: %q", got)
	}
}

// TestCompareJSONSamplesOnlyWithAPIC: the latent sample count is APIC's;
// a compare of the baselines alone records none.
func TestCompareJSONSamplesOnlyWithAPIC(t *testing.T) {
	for _, c := range []struct {
		methods string
		want    bool
	}{{"koh-gp", false}, {"koh-gp,apic", true}} {
		code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--methods", c.methods, "--json")
		if code != 0 {
			t.Fatalf("--methods %s: exit %d: %s", c.methods, code, errOut)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatalf("--methods %s: not JSON: %v", c.methods, err)
		}
		if _, has := raw["samples"]; has != c.want {
			t.Errorf("--methods %s: \"samples\" recorded %v, want %v", c.methods, has, c.want)
		}
	}
}

// TestCompareWarnsPriorWideTheta: a checkpoint whose θ intervals are
// nearly the prior's gets eval's warnings in compare too, for the same
// file and seed, so that a model that learned little is not presented
// by its speed alone; the baseline gets none of APIC's warnings.
func TestCompareWarnsPriorWideTheta(t *testing.T) {
	defer func(l func(string, string) ([]byte, bool)) { lookupEmbedded = l }(lookupEmbedded)
	lookupEmbedded = func(string, string) ([]byte, bool) { return nil, false }
	// θ's intervals scaled far past the prior: capped at nearly its own.
	ckpt := compareCheckpointWith(t, "spring", "wide", 0, func(c *core.Config) { c.Infer.ThetaStdScale = 1e3 })
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "3", "--samples", "2", "--json")
	if code != 0 {
		t.Fatalf("eval exit %d, stderr %q", code, errOut)
	}
	var rep struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var wide []string
	for _, w := range rep.Warnings {
		if strings.Contains(w, "of the prior's own") {
			wide = append(wide, w)
		}
	}
	if len(wide) == 0 {
		t.Fatalf("a model with θ intervals ×1000 gave no prior-wide warning in eval (%q): the test needs one", rep.Warnings)
	}
	args := []string{"compare", "--system", "spring", "--tasks", "3", "--samples", "2", "--checkpoint", ckpt, "--workers", "1", "--starts", "1", "--methods", "koh-gp,apic"}
	code, out, errOut = runCLI(t, args...)
	if code != 0 {
		t.Fatalf("compare exit %d, stderr %q", code, errOut)
	}
	for _, w := range rep.Warnings {
		if want := "warning (apic-lnp): " + w; !strings.Contains(out, want) {
			t.Errorf("compare's text lacks eval's %q:\n%s", want, out)
		}
	}
	got := compareWarningsJSON(t, args)
	if ws := got.Methods["apic-lnp"].Warnings; strings.Join(ws, "\n") != strings.Join(rep.Warnings, "\n") {
		t.Errorf("apic-lnp JSON warnings %q, want eval's %q", ws, rep.Warnings)
	}
	if ws := got.Methods[kohgp.Name].Warnings; len(ws) != 0 {
		t.Errorf("koh-gp warnings %q, want none", ws)
	}
}

// withoutPriorGuess drops the warnings that a parameter's θ MAE is near
// what answering the prior's centre gives, and that the reconstruction
// is no closer than a flat line at the context's mean, which the
// untrained models of tests draw wherever they are used; tests of other
// warnings read the rest.
func withoutPriorGuess(ws []string) []string {
	out := []string{}
	for _, w := range ws {
		if !strings.Contains(w, "that answering the prior's centre") && !strings.Contains(w, "that a flat line at each channel's mean") {
			out = append(out, w)
		}
	}
	return out
}

// compareWarningsJSON runs compare with args and --json and returns its
// methods' warnings.
func compareWarningsJSON(t *testing.T, args []string) (got struct {
	Methods map[string]struct {
		Warnings []string `json:"warnings"`
	} `json:"methods"`
}) {
	t.Helper()
	_, out, _ := runCLI(t, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	return got
}
