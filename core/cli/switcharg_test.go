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
