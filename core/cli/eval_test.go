package cli

import (
	"encoding/json"
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
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--system", "spring", "--tasks", "0"}, "--tasks must be between 1 and 2000 (every realization is held in memory), got 0"},
		{[]string{"eval", "--system", "spring", "--tasks", "1", "--refine", "1001"}, "--refine must be between 0 and 1000 (refinement converges in a few steps; more would run for hours), got 1001"},
		{[]string{"eval", "--system", "advdiff", "--tasks", "100000"}, "--tasks must be between 1 and 2000 (every realization is held in memory), got 100000"},
		{[]string{"eval", "--system", "spring", "--noise", "-1"}, "--noise must be finite and ≥ 0, got -1"},
		{[]string{"eval", "--system", "spring", "--z-theta-prior", "-2"}, "--z-theta-prior"},
		{[]string{"eval", "--system", "nosuch"}, "nosuch"},
		{[]string{"eval", "--system", "spring", "--true-theta", "--refine", "3"}, "leaves nothing to refine"},
		{[]string{"eval", "--checkpoint", "/nonexistent/file.safetensors"}, "file.safetensors"},
		{[]string{"eval", "--system", "spring", "--context", "100"}, "no targets"},
		{[]string{"eval", "--system", "spring", "--true-theta=maybe"}, "true-theta"},
		{[]string{"eval", "--system", "spring", "--noise", "nan"}, "--noise must be finite"},
		{[]string{"eval", "--system", "spring", "--noise", "+Inf"}, "--noise must be finite"},
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
