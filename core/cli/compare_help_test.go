package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestCompareHelpCreditsThePaperWithCPINNsTime: the 150 s per
// realization of Correction-PINN is the paper's figure, not a time
// measured here; the help says so and points at docs/baselines.md.
func TestCompareHelpCreditsThePaperWithCPINNsTime(t *testing.T) {
	code, stdout, _ := runCLI(t, "help", "compare")
	help := strings.Join(strings.Fields(stdout), " ")
	want := "the paper reports 150 s per realization for its 20 members, and docs/baselines.md times it here at cut budgets"
	if code != 0 || !strings.Contains(help, want) {
		t.Errorf("help compare lacks %q (exit %d)", want, code)
	}
}

// TestCommandListSaysWhichBaselinesCompareRuns: 'apic help' names
// KOH-GP as compare's baseline and BCPI and Correction-PINN as asked
// for, since a plain compare runs KOH-GP alone.
func TestCommandListSaysWhichBaselinesCompareRuns(t *testing.T) {
	_, stdout, _ := runCLI(t, "help")
	for _, line := range strings.Split(stdout, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 && fields[0] == "compare" {
			if !strings.Contains(line, "KOH-GP;") || !strings.Contains(line, "Correction-PINN with --methods all") {
				t.Errorf("apic help's compare line %q does not say that BCPI and Correction-PINN need --methods all", line)
			}
			return
		}
	}
	t.Errorf("apic help lists no compare:\n%s", stdout)
}

// TestCompareHelpNamesEveryJSONKey: a script reading compare --json
// finds every key it meets, top level and per method, in the help.
func TestCompareHelpNamesEveryJSONKey(t *testing.T) {
	_, helpText, _ := runCLI(t, "help", "compare")
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "1", "--methods", "all", "--raw-spread",
		"--bcpi-starts", "1", "--mcmc", "2", "--members", "1", "--steps", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Methods map[string]map[string]any `json:"methods"`
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Methods) < 4 {
		t.Fatalf("methods %v (%v)", got.Methods, err)
	}
	keys := map[string]bool{}
	for k := range top {
		keys[k] = true
	}
	for _, m := range got.Methods {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(k) + `\b`).MatchString(helpText) {
			t.Errorf("help compare does not name the --json key %q", k)
		}
	}
}
