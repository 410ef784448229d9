package cli

import (
	"strings"
	"testing"
)

// TestClosestName: a slip of a letter or two finds the name meant; a
// name near none, or equally near two, finds nothing.
func TestClosestName(t *testing.T) {
	names := []string{"simulate", "train", "eval", "inspect", "calibrate", "compare", "explore", "diagnose", "sweep"}
	for _, tc := range []struct{ typed, want string }{
		{"simulat", "simulate"},
		{"simualte", "simulate"}, // neighbours swapped
		{"Eval", "eval"},
		{"evl", "eval"},
		{"calbirate", "calibrate"},
		{"sweeps", "sweep"},
		{"nosuch", ""},
		{"run", ""},
		{"ev", ""}, // two edits from eval: too far for a short name
	} {
		if got := closestName(tc.typed, names); got != tc.want {
			t.Errorf("closestName(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if got := closestName("cat", []string{"bat", "hat"}); got != "" {
		t.Errorf("a tie gave %q, want none", got)
	}
}

// TestMistypedNamesSuggestTheMeant: an unknown command, in apic COMMAND
// and apic help COMMAND, and an unknown flag are refused with the name
// that was likely meant.
func TestMistypedNamesSuggestTheMeant(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulat", "--system", "spring"}, `apic: unknown command "simulat"; did you mean simulate? (run 'apic help' for the list)`},
		{[]string{"help", "evl"}, `apic help: unknown command "evl"; did you mean eval? (run 'apic help' for the list)`},
		{[]string{"eval", "--sytem", "spring"}, "apic eval: flag provided but not defined: --sytem; did you mean --system?\n"},
		{[]string{"eval", "-seeds", "3"}, "apic eval: flag provided but not defined: --seeds; did you mean --seed?\n"},
		{[]string{"calibrate", "--dat", "obs.csv"}, "apic calibrate: flag provided but not defined: --dat; did you mean --data?\n"},
		{[]string{"eval", "--bogus"}, "apic eval: flag provided but not defined: --bogus\n"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
