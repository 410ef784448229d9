package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"apic/core"
)

// TestCompareAllMethods runs every method on two spring realizations
// with tiny budgets: each has its JSON entry with every metric finite and
// its budget, and Correction-PINN reports its progress.
func TestCompareAllMethods(t *testing.T) {
	ckpt := compareCheckpoint(t, "spring", "tiny", 1)
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--seed", "3", "--checkpoint", ckpt,
		"--starts", "2", "--members", "2", "--steps", "15", "--mcmc", "20", "--bcpi-starts", "1", "--workers", "2", "--methods", "all", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "correction-pinn 2/2 realizations") {
		t.Errorf("stderr lacks Correction-PINN's progress: %q", errOut)
	}
	var got compareJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, name := range []string{"koh-gp", "bcpi", "correction-pinn", "apic-lnp:tiny"} {
		m, ok := got.Methods[name]
		if !ok {
			t.Fatalf("methods lack %q (have %v)", name, sortedKeys(got.Methods))
		}
		for _, k := range []string{core.KeyReconMAE, core.KeyReconLL, core.KeyReconECE, core.KeyDeltaMAE, core.KeyDeltaLL, core.KeyDeltaECE, core.KeyThetaMAE} {
			s, ok := m.Metrics[k]
			if !ok || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
				t.Errorf("%s: metric %s = %+v (present %v), want finite", name, k, s, ok)
			}
		}
		if !(m.SecondsPerRealization > 0) {
			t.Errorf("%s: seconds per realization %v", name, m.SecondsPerRealization)
		}
	}
	var raw struct {
		Methods map[string]map[string]any `json:"methods"`
	}
	_ = json.Unmarshal([]byte(out), &raw)
	pinn := raw.Methods["correction-pinn"]
	if pinn["members"] != 2.0 || pinn["steps"] != 15.0 || !(pinn["speedup_vs_koh_gp"].(float64) > 0) {
		t.Errorf("correction-pinn entry: members %v, steps %v, speed-up %v", pinn["members"], pinn["steps"], pinn["speedup_vs_koh_gp"])
	}
	if b := raw.Methods["bcpi"]; b["mcmc_steps"] != 20.0 {
		t.Errorf("bcpi entry: mcmc_steps %v, want 20", b["mcmc_steps"])
	}
}

// TestCompareWithoutKOH leaves KOH-GP out: the table has no speed-ups
// against it and no one-pass section, and nothing fails.
func TestCompareWithoutKOH(t *testing.T) {
	ckpt := compareCheckpoint(t, "spring", "tiny", 1)
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--checkpoint", ckpt,
		"--methods", "cpinn,apic", "--members", "1", "--steps", "5")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"Correction-PINN: 1 member × 5 steps per realization", "APIC: 32 samples", "correction-pinn", "apic-lnp"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"koh-gp", "KOH-GP:", "APIC without refinement"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q without KOH-GP:\n%s", unwanted, out)
		}
	}
}

// TestCompareNothingSelected: --methods apic for a system without
// checkpoints compares nothing, and says so.
func TestCompareNothingSelected(t *testing.T) {
	defer func(l func(string, string) ([]byte, bool)) { lookupEmbedded = l }(lookupEmbedded)
	lookupEmbedded = func(string, string) ([]byte, bool) { return nil, false }
	code, _, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--methods", "apic")
	if code != 2 || !strings.Contains(errOut, `nothing to compare: --methods "apic" selects no method for spring`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// The default methods are KOH-GP and APIC (the slow baselines on
// request); "all" names every method.
func TestCompareDefaultMethods(t *testing.T) {
	def, err := parseCompareMethods(strings.Join(compareDefaultMethods, ","))
	if err != nil {
		t.Fatal(err)
	}
	if len(def) != 2 || !def["koh-gp"] || !def[compareAPICName] {
		t.Errorf("default methods %v, want koh-gp and apic", def)
	}
	all, err := parseCompareMethods("all")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Errorf("all = %v, want four methods", all)
	}
}

// TestCompareMethodTwice: a method named twice in --methods, in any
// spelling, was silently run once; it is refused, naming both.
func TestCompareMethodTwice(t *testing.T) {
	for list, want := range map[string]string{
		"apic,apic":               `--methods: apic is given twice ("apic" and "apic"): name each method once`,
		"koh-gp,apic,KOH-GP":      `--methods: koh-gp is given twice ("koh-gp" and "KOH-GP")`,
		"cpinn, correction-pinn":  `--methods: correction-pinn is given twice ("cpinn" and "correction-pinn")`,
		"bcpi,koh-gp,bcpi,koh-gp": `--methods: bcpi is given twice`,
	} {
		code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--methods", list)
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("--methods %s: exit %d, stdout %q, stderr %q; want 2 and %q", list, code, out, errOut, want)
		}
	}
}

// TestCompareBaselinesAdvDiff runs the three baselines on one small
// advdiff realization (64 context points): each has its JSON entry with
// every metric, the per-parameter θ errors included, finite.
func TestCompareBaselinesAdvDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("BCPI's advdiff MAP search takes seconds")
	}
	code, out, errOut := runCLI(t, "compare", "--system", "advdiff", "--tasks", "1", "--context", "64", "--seed", "2",
		"--starts", "1", "--members", "1", "--steps", "10", "--mcmc", "10", "--bcpi-starts", "1", "--workers", "2",
		"--methods", "koh-gp,bcpi,cpinn", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got compareJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, name := range []string{"koh-gp", "bcpi", "correction-pinn"} {
		m, ok := got.Methods[name]
		if !ok {
			t.Fatalf("methods lack %q (have %v)", name, sortedKeys(got.Methods))
		}
		for _, k := range []string{core.KeyReconMAE, core.KeyReconLL, core.KeyReconECE, core.KeyDeltaMAE, core.KeyDeltaLL, core.KeyDeltaECE, core.KeyThetaMAE} {
			s, ok := m.Metrics[k]
			if !ok || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
				t.Errorf("%s: metric %s = %+v (present %v), want finite", name, k, s, ok)
			}
		}
		for _, p := range []string{"v", "kappa"} {
			if s, ok := m.ThetaPerParam[p]; !ok || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
				t.Errorf("%s: θ MAE of %s = %+v (present %v), want finite", name, p, s, ok)
			}
		}
	}
}
