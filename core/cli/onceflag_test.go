package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// flagHelpLine matches a flag's line of a command's help: its name and
// the type word after it (none for a switch).
var flagHelpLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)(?: (\S+))?$`)

// repeatableFlags are the flags that gather every value they are given.
var repeatableFlags = map[string]bool{"compare --checkpoint": true, "sweep --vary": true, "sweep --fix": true}

// TestFlagGivenTwiceRefused: eval --system spring --system lv ran lv,
// the flag package keeping the last value, with a note on standard
// error. Every flag of every command that holds one value now refuses a
// second, different value, naming the flag and both values; only the
// repeatable flags gather theirs.
func TestFlagGivenTwiceRefused(t *testing.T) {
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect"} {
		_, help, _ := runCLI(t, "help", cmd)
		flags := flagHelpLine.FindAllStringSubmatch(help, -1)
		if len(flags) == 0 {
			t.Fatalf("help %s lists no flags", cmd)
		}
		for _, m := range flags {
			name, typ := m[1], m[2]
			if repeatableFlags[cmd+" --"+name] {
				continue
			}
			first, second := "--"+name+"=1", "--"+name+"=2"
			want := `--` + name + `: given twice, as "1" and as "2", and it takes one value: give it once`
			if typ == "" { // a switch
				first, second = "--"+name, "--"+name+"=false"
				want = `--` + name + `: given twice, as "true" and as "false"`
			}
			code, _, stderr := runCLI(t, cmd, first, second)
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s %s %s: exit %d, stderr %q; want 2 and %q", cmd, first, second, code, stderr, want)
			}
		}
	}
}

// TestFlagGivenTwiceSameValue: the same value again passes, as the flag
// reads it (a name in another case, a number written otherwise), and
// the repeatable flags gather theirs.
func TestFlagGivenTwiceSameValue(t *testing.T) {
	code, stdout, stderr := runCLI(t, "eval", "--system", "spring", "--system", "Spring", "--tasks", "2", "--tasks", "02",
		"--noise", "0.01", "--noise", "1e-2", "--json", "--json=TRUE", "--refine", "0")
	if code != 0 || !strings.Contains(stdout, `"tasks": 2,`) || !strings.Contains(stdout, `"noise": 0.01,`) || strings.Contains(stderr, "given") {
		t.Errorf("the same value twice: exit %d, stderr %q, stdout %.80q", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, "sweep", "--system", "spring", "--vary", "context=5", "--vary", "noise=0,0.01", "--fix", "steps1=0", "--fix", "steps2=5", "--out", t.TempDir(), "--plan")
	if code != 0 || strings.Count(stdout, "--only ") != 2 || strings.Contains(stderr, "given") {
		t.Errorf("repeated --vary and --fix: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
}

// argsWith is base (a command and its flags, each "--name value" or a
// switch alone) with the flags that more gives left out of it, then
// more: a flag takes one value, so a test's change to a common set of
// flags replaces the flag rather than giving it again.
func argsWith(base []string, more ...string) []string {
	given := map[string]bool{}
	for _, a := range more {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			given[name] = true
		}
	}
	var out []string
	for i := 0; i < len(base); i++ {
		name, isFlag := strings.CutPrefix(base[i], "--")
		takesValue := isFlag && !strings.Contains(name, "=") && i+1 < len(base) && !strings.HasPrefix(base[i+1], "--")
		name, _, _ = strings.Cut(name, "=")
		switch {
		case isFlag && given[name] && takesValue:
			i++ // and its value
		case isFlag && given[name]:
		default:
			out = append(out, base[i])
		}
	}
	return append(out, more...)
}

// TestFlagGivenAsValueRefused: the word after a flag that wants a value
// is its value, whatever it is: train --out --force wrote a checkpoint
// named --force.safetensors, simulate --csv --json a CSV named --json,
// and eval --system --tasks said only that --tasks is no system. Every
// flag of every command refuses one of its command's flags as its
// value, naming both, and writes nothing.
func TestFlagGivenAsValueRefused(t *testing.T) {
	tested := 0
	for _, cmd := range []string{"train", "eval", "calibrate", "compare", "diagnose", "sweep", "simulate", "inspect"} {
		_, help, _ := runCLI(t, "help", cmd)
		for _, m := range flagHelpLine.FindAllStringSubmatch(help, -1) {
			name, typ := m[1], m[2]
			if typ == "" {
				continue // a switch takes no value
			}
			want := "--" + name + ` is given "--help", a flag of this command, as its value`
			code, stdout, stderr := runCLI(t, cmd, "--"+name, "--help")
			if code != 2 || !strings.Contains(stderr, want) || stdout != "" {
				t.Errorf("%s --%s --help: exit %d, stdout %.40q, stderr %q; want 2 and %q", cmd, name, code, stdout, stderr, want)
			}
			tested++
		}
	}
	if tested < 50 {
		t.Errorf("%d flags tested: the helps' flags were not found", tested)
	}
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"train", "--system", "spring", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", "--force"},
		{"simulate", "--system", "spring", "--csv", "-json"},
		{"eval", "--system", "--tasks=3"},
	} {
		code, _, stderr := runCLI(t, args...)
		if want := "a flag of this command, as its value"; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
	}
	if files, _ := os.ReadDir("."); len(files) != 0 {
		t.Errorf("refused commands wrote %v", files)
	}
}
