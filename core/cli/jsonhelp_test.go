package cli

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

// jsonKeys gathers the object keys of a decoded JSON value down to
// depth levels, skipping the children of the objects at the paths in
// byName (maps keyed by a name, a method's or a metric's, whose keys
// are data rather than fields).
func jsonKeys(v any, depth int, path string, byName []string, keys map[string]bool) {
	if depth == 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		named := slices.Contains(byName, path)
		for k, child := range v {
			if named {
				jsonKeys(child, depth-1, path+".*", byName, keys)
				continue
			}
			keys[k] = true
			jsonKeys(child, depth-1, path+"."+k, byName, keys)
		}
	case []any:
		for _, child := range v {
			jsonKeys(child, depth, path+"[]", byName, keys)
		}
	}
}

// assertHelpNamesKeys fails for each key of out's JSON object that the
// help of command does not name as a word.
func assertHelpNamesKeys(t *testing.T, command, out string, depth int, byName []string) {
	t.Helper()
	var obj any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%s: not JSON: %v", command, err)
	}
	_, help, _ := runCLI(t, "help", command)
	keys := map[string]bool{}
	jsonKeys(obj, depth, "", byName, keys)
	for k := range keys {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(k) + `\b`).MatchString(help) {
			t.Errorf("%s --json has the key %q, which its help does not name", command, k)
		}
	}
}

// TestEvalHelpNamesJSONKeys: every key of eval --json's object, and of
// --grid's, is named in eval's help, where a script's author looks.
func TestEvalHelpNamesJSONKeys(t *testing.T) {
	byName := []string{".metrics", ".theta_mae_per_param", ".theta_bias_per_param",
		".cells[].report.metrics", ".cells[].report.theta_mae_per_param", ".cells[].report.theta_bias_per_param"}
	for _, args := range [][]string{
		{"--tasks", "2"},
		{"--tasks", "2", "--raw-spread"},
		{"--tasks", "2", "--refine", "0", "--true-theta"},
		{"--tasks", "2", "--grid", "--grid-contexts", "5", "--grid-noises", "0"},
	} {
		code, out, errOut := runCLI(t, append([]string{"eval", "--system", "spring", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("eval %v: exit %d, stderr %q", args, code, errOut)
		}
		assertHelpNamesKeys(t, "eval", out, 4, byName)
	}
}

// TestCompareHelpNamesJSONKeys: every key of compare --json's object,
// a method's timings included, is named in compare's help.
func TestCompareHelpNamesJSONKeys(t *testing.T) {
	code, out, errOut := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--starts", "1", "--json", "--methods", "koh-gp,apic")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	assertHelpNamesKeys(t, "compare", out, 3, []string{".methods", ".methods.*.metrics", ".methods.*.theta_mae_per_param"})
}

// TestSimulateHelpNamesJSONKeys: every key of simulate --json's object,
// for each system and with --theta, is named in simulate's help.
func TestSimulateHelpNamesJSONKeys(t *testing.T) {
	for _, args := range [][]string{
		{"--system", "spring"}, {"--system", "lv"}, {"--system", "advdiff"},
		{"--system", "spring", "--theta", "omega=5"},
	} {
		code, out, errOut := runCLI(t, append([]string{"simulate", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("simulate %v: exit %d, stderr %q", args, code, errOut)
		}
		assertHelpNamesKeys(t, "simulate", out, 1, nil)
	}
}

// TestDiagnoseHelpNamesJSONKeys: every key of diagnose --json's object,
// its reliability curves and θ entries included, is named in its help.
func TestDiagnoseHelpNamesJSONKeys(t *testing.T) {
	code, out, errOut := runCLI(t, "diagnose", "--system", "spring", "--tasks", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	assertHelpNamesKeys(t, "diagnose", out, 4, nil)
}

// TestInspectHelpNamesJSONKeys: every top-level key of inspect --json,
// a tensor's fields and the atlas entries' keys are named in its help.
// (config's fields are the file's own, listed by the text output.)
func TestInspectHelpNamesJSONKeys(t *testing.T) {
	for _, args := range [][]string{{"embedded:spring-lnp.safetensors"}, {"--atlas"}} {
		code, out, errOut := runCLI(t, append([]string{"inspect", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("inspect %v: exit %d, stderr %q", args, code, errOut)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatalf("inspect %v: not JSON: %v", args, err)
		}
		for _, own := range []string{"config", "metrics"} { // the file's own fields; metrics as eval's
			if _, ok := obj[own]; ok {
				obj[own] = map[string]any{}
			}
		}
		trimmed, _ := json.Marshal(obj)
		assertHelpNamesKeys(t, "inspect", string(trimmed), 3, []string{".tensors"})
	}
}
