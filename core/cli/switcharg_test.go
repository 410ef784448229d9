package cli

import (
	"strings"
	"testing"
)

// TestStrayArgumentAfterASwitch: an argument given as a switch's value
// (eval --json out.json, sweep --png sweep.png) is refused saying that
// the switch takes none, and for --json where its output goes; one that
// follows anything else, or a switch given =true, keeps the plain
// refusal.
func TestStrayArgumentAfterASwitch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--system", "spring", "--json", "out.json"},
			`unexpected argument "out.json": --json is a switch and takes no value; the JSON goes to standard output (add > out.json to save it)` + "\n"},
		{[]string{"eval", "--system", "spring", "-json", "x"},
			`unexpected argument "x": --json is a switch and takes no value` + "\n"},
		{[]string{"sweep", "--system", "spring", "--png", "sweep.png", "--vary", "context=5", "--out", "s"},
			`unexpected argument "sweep.png": --png is a switch and takes no value (its help: "also draw the metrics against the first axis to DIR/sweep.png")` + "\n"},
		{[]string{"eval", "--system", "spring", "--json=true", "x"}, `unexpected argument "x"` + "\n"},
		{[]string{"eval", "--system", "spring", "--", "x"}, `unexpected argument "x"` + "\n"},
		{[]string{"eval", "--system", "spring", "x"}, `unexpected argument "x"` + "\n"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestFlagGivenTwice: a flag that holds one value keeps the last it is
// given (scripts give common flags, then a run's changes), and says so
// on standard error where the values differ; the same value twice says
// nothing, and the repeatable flags gather theirs.
func TestFlagGivenTwice(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string // in standard output
		note string // in standard error
	}{
		{[]string{"eval", "--system", "spring", "--refine", "0", "--json", "--tasks", "2", "--tasks=3"},
			`"tasks": 3,`, `--tasks was given 2 times, first as "2", last as "3": the last is used`},
		{[]string{"eval", "--system", "spring", "--refine", "0", "--json", "--tasks", "2", "--tasks", "4", "--tasks", "3"},
			`"tasks": 3,`, `--tasks was given 3 times, first as "2", last as "3": the last is used`},
		{[]string{"eval", "--system", "spring", "--refine", "0", "--tasks", "2", "--json=false", "--json"},
			`"tasks": 2,`, `--json was given 2 times, first as "false", last as "true": the last is used`},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != 0 || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.note) {
			t.Errorf("%v: exit %d, stderr %q, stdout %.80q; want 0, %q and %q", tc.args, code, stderr, stdout, tc.out, tc.note)
		}
	}
	code, stdout, stderr := runCLI(t, "eval", "--system", "spring", "--tasks", "2", "--tasks", "2", "--json", "--json", "--refine", "0")
	if code != 0 || !strings.Contains(stdout, `"tasks": 2,`) || strings.Contains(stderr, "given") {
		t.Errorf("the same value twice: exit %d, stderr %q, stdout %.80q", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, "sweep", "--system", "spring", "--vary", "context=5", "--vary", "noise=0,0.01", "--fix", "steps1=0", "--fix", "steps2=5", "--out", t.TempDir(), "--plan")
	if code != 0 || strings.Count(stdout, "--only ") != 2 || strings.Contains(stderr, "given") {
		t.Errorf("repeated --vary and --fix: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
}
