package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// intFlagHelp matches a whole-number flag's line of a command's help and
// the usage line under it.
var intFlagHelp = regexp.MustCompile(`(?m)^  --([a-z0-9-]+) u?int\n\s+(.*)$`)

// TestOverflowingFlagsGiveTheirBound: every whole-number flag of every
// command, given a value beyond int's range, is refused with the bound
// its --help gives (documentedBound); the flags whose help gives none,
// bounded by their type alone, are the ones listed.
func TestOverflowingFlagsGiveTheirBound(t *testing.T) {
	var unbounded []string
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect", "atlas"} {
		_, help, _ := runCLI(t, "help", cmd)
		for _, m := range intFlagHelp.FindAllStringSubmatch(help, -1) {
			name, usage := m[1], m[2]
			code, _, stderr := runCLI(t, cmd, "--"+name, "99999999999999999999")
			_, hi, ok := documentedBound(usage)
			if !ok {
				unbounded = append(unbounded, cmd+" --"+name)
				hi = "18446744073709551615" // a seed's, uint64's
				if !strings.Contains(help, "--"+name+" uint") {
					hi = "9223372036854775807"
				}
			}
			want := `--` + name + ` "99999999999999999999" is too large: it must be `
			if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, hi) {
				t.Errorf("%s --%s 99999999999999999999: exit %d, stderr %q; want %q with %q", cmd, name, code, stderr, want, hi)
			}
		}
	}
	want := []string{"train --seed", "eval --seed", "calibrate --seed", "compare --seed", "diagnose --seed", "simulate --seed"}
	if !slices.Equal(unbounded, want) {
		t.Errorf("flags whose help gives no bound: %q, want %q", unbounded, want)
	}
}

// TestDocumentedBound: the bound a flag's help gives, in each form the
// helps use.
func TestDocumentedBound(t *testing.T) {
	for usage, want := range map[string][3]string{
		"Monte-Carlo latent samples, at most 10000; a cnp checkpoint": {"", "10000", "true"},
		"refinement steps (at most 1000) stored":                      {"", "1000", "true"},
		"validation realizations, 1 to 2000":                          {"1", "2000", "true"},
		"a count between 2 and 9":                                     {"2", "9", "true"},
		"context size, at most the grid's points less one (0, the":    {"", "the grid's points less one", "true"},
		"evaluation seed":                                             {"", "", "false"},
	} {
		lo, hi, ok := documentedBound(usage)
		if got := [3]string{lo, hi, map[bool]string{true: "true", false: "false"}[ok]}; got != want {
			t.Errorf("documentedBound(%q) = %q, want %q", usage, got, want)
		}
	}
}

// TestOverflowingListsGiveTheirBound: a whole number beyond int's range
// in --grid-contexts or a sweep's --vary is refused as too large with
// its bound, not as no whole number.
func TestOverflowingListsGiveTheirBound(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--system", "spring", "--grid", "--grid-contexts", "10,99999999999999999999"},
			`--grid-contexts: context "99999999999999999999" as entry 2 of 2 is too large: context sizes are at most the grid's points less one`},
		{[]string{"sweep", "--system", "spring", "--vary", "samples=99999999999999999999", "--out", "sw", "--plan"},
			`--samples "99999999999999999999" is too large: it must be at most 10000`},
		{[]string{"sweep", "--system", "spring", "--vary", "hidden=99999999999999999999", "--out", "sw", "--plan"},
			`--hidden "99999999999999999999" is too large: it must be at most 4096`},
		{[]string{"sweep", "--system", "spring", "--vary", "context=-99999999999999999999", "--out", "sw", "--plan"},
			`context value "-99999999999999999999" is below 1`},
	} {
		t.Chdir(t.TempDir())
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestFlagsRefuseOnePastTheirBound: every whole-number flag of every
// command whose --help gives a numeric upper bound (documentedBound) is
// refused one past it, up front, by an error that names the flag, the
// value and the bound. Each command gets the least it needs to run (and
// a tiny plan, should a check be missing), the flag under test last.
func TestFlagsRefuseOnePastTheirBound(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "obs.csv")
	if err := os.WriteFile(data, []byte("t,x\n0,1\n0.1,0.9\n0.2,0.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := map[string][]string{
		"train":     {"--system", "spring", "--out", filepath.Join(dir, "x"), "--hidden", "8", "--batch", "2", "--steps1", "1", "--steps2", "0", "--recalibrate", "0"},
		"eval":      {"--system", "spring", "--tasks", "1", "--samples", "1"},
		"calibrate": {"--checkpoint", "embedded:spring-lnp.safetensors", "--data", data, "--samples", "1"},
		"compare": {"--system", "spring", "--tasks", "1", "--methods", "all", "--starts", "1", "--members", "1", "--steps", "1",
			"--mcmc", "2", "--bcpi-starts", "1", "--samples", "1"},
		"diagnose": {"--system", "spring", "--tasks", "1", "--samples", "1"},
		"sweep":    {"--system", "spring", "--vary", "samples=1", "--out", filepath.Join(dir, "sw"), "--plan"},
		"simulate": {"--system", "spring"},
	}
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect", "atlas"} {
		_, help, _ := runCLI(t, "help", cmd)
		for _, m := range intFlagHelp.FindAllStringSubmatch(help, -1) {
			name, usage := m[1], m[2]
			_, hi, _ := documentedBound(usage)
			max, err := strconv.Atoi(strings.Fields(hi + " -")[0])
			if err != nil {
				continue // a seed's, or a bound by another flag or the grid
			}
			past := strconv.Itoa(max + 1)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			var stdout, stderr bytes.Buffer
			code := Run(ctx, argsWith(append([]string{cmd}, base[cmd]...), "--"+name, past), &stdout, &stderr)
			cancel()
			if code != 2 || !strings.Contains(stderr.String(), "--"+name) || !strings.Contains(stderr.String(), past) ||
				!strings.Contains(stderr.String(), strconv.Itoa(max)) {
				t.Errorf("%s --%s %s: exit %d, stderr %q; want exit 2 naming the flag, the value and %d", cmd, name, past, code, stderr.String(), max)
			}
		}
	}
}

// floatFlagHelp matches a real-valued flag's line of a command's help
// and the usage line under it.
var floatFlagHelp = regexp.MustCompile(`(?m)^  --([a-z0-9-]+) float\n\s+(.*)$`)

// floatBound matches a bound as the helps give a real flag's: "at most
// 1000", "between 0 and 1", "in (0, 1]", "0 ≤ LO ≤ HI ≤ 1000".
var floatBound = regexp.MustCompile(`\bat most \d|\bbetween \d+ and \d|\bin [\[(]-?\d|≤ \d`)

// TestFloatFlagsHelpGiveABound: every real-valued flag of every command
// says its bound in --help, as the whole-number ones do
// (TestOverflowingFlagsGiveTheirBound); train --noise, checked against
// 1000, did not say so.
func TestFloatFlagsHelpGiveABound(t *testing.T) {
	n := 0
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect"} {
		_, help, _ := runCLI(t, "help", cmd)
		for _, m := range floatFlagHelp.FindAllStringSubmatch(help, -1) {
			if !floatBound.MatchString(m[2]) {
				t.Errorf("%s --%s: help %q gives no bound", cmd, m[1], m[2])
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("%d real-valued flags found: the helps were not read", n)
	}
}
