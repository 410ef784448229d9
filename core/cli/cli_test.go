package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"apic/core"
	"apic/sims"
)

// testcmd returns whatever error its --fail flag names, to check how Run
// maps errors to exit statuses.
func init() {
	register(Command{
		Name:    "testcmd",
		Summary: "test command",
		Usage:   "apic testcmd [--fail KIND]",
		Run: func(ctx context.Context, args []string, env *Env) error {
			fs := env.FlagSet()
			fail := fs.String("fail", "", "usage, wrapped, runtime or cancel")
			n := fs.Int("n", 3, "a number")
			u := fs.Uint64("u", 1, "a count")
			x := fs.Float64("x", 0, "a level")
			if err := env.Parse(fs, args); err != nil {
				return err
			}
			switch *fail {
			case "usage":
				return UsageError("bad value %d", *n)
			case "wrapped":
				return fmt.Errorf("context: %w", UsageError("deep"))
			case "runtime":
				return errors.New("disk full")
			case "cancel":
				return context.Canceled
			case "cancel-where":
				return fmt.Errorf("realization 3: %w", context.Canceled)
			case "cancel-kept":
				return &keptWeightsError{err: fmt.Errorf("validating: %w", context.Canceled), kept: "the weights of those steps are in f.partial"}
			case "cancel-clause":
				return fmt.Errorf("%w; a clause of no kept weights", context.Canceled)
			case "cancel-read-kept":
				return &keptWeightsError{err: &interruptedError{what: "reading f.csv", err: context.Canceled}, kept: "nothing was written"}
			case "print":
				fmt.Fprintln(env.Stdout, *n, *u, *x)
				return nil
			}
			fmt.Fprintln(env.Stdout, "ok")
			return nil
		},
	})
}

func TestRunExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"testcmd"}, 0, "ok", ""},
		{[]string{"testcmd", "--fail", "usage"}, 2, "", "apic testcmd: bad value 3"},
		{[]string{"testcmd", "--fail", "wrapped"}, 2, "", "apic testcmd: context: deep"},
		{[]string{"testcmd", "--fail", "runtime"}, 1, "", "apic testcmd: disk full"},
		{[]string{"testcmd", "--fail", "cancel"}, 1, "", "apic testcmd: interrupted\n"},
		// Where the work stopped is noise; what was kept is not.
		{[]string{"testcmd", "--fail", "cancel-where"}, 1, "", "apic testcmd: interrupted\n"},
		{[]string{"testcmd", "--fail", "cancel-kept"}, 1, "", "apic testcmd: interrupted; the weights of those steps are in f.partial\n"},
		{[]string{"testcmd", "--fail", "cancel-clause"}, 1, "", "apic testcmd: interrupted\n"},
		{[]string{"testcmd", "--fail", "cancel-read-kept"}, 1, "", "apic testcmd: interrupted while reading f.csv; nothing was written\n"},
		// A number the flag package cannot parse says what the flag
		// takes, for every numeric type.
		{[]string{"testcmd", "--n", "x"}, 2, "", `apic testcmd: --n must be a whole number, got "x"`},
		{[]string{"testcmd", "--u", "-1"}, 2, "", `apic testcmd: --u must be a whole number ≥ 0, got "-1"`},
		{[]string{"testcmd", "--u", "1.5"}, 2, "", `apic testcmd: --u must be a whole number ≥ 0, got "1.5"`},
		{[]string{"testcmd", "--u", "18446744073709551616"}, 2, "", `apic testcmd: --u "18446744073709551616" is too large: it must be at most 18446744073709551615`},
		{[]string{"testcmd", "--x", "0,5"}, 2, "", `apic testcmd: --x: "0,5" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
		{[]string{"testcmd", "--fail=usage", "--n=9223372036854775808"}, 2, "", "apic testcmd: --n \"9223372036854775808\" is too large: it must be at most 9223372036854775807\n"},
		{[]string{"testcmd", "--n=-9223372036854775809"}, 2, "", "apic testcmd: --n \"-9223372036854775809\" is too small: it must be at least -9223372036854775808\n"},
		{[]string{"testcmd", "--help"}, 0, "usage: apic testcmd [--fail KIND]", ""},
		{[]string{"testcmd", "-h"}, 0, "--n int\n      a number (default 3)", ""},
		{[]string{"testcmd", "-h"}, 0, "--u uint\n      a count (default 1)\n  --x float\n", ""},
		{[]string{"help", "testcmd"}, 0, "usage: apic testcmd", ""},
		{[]string{"nosuch"}, 2, "", `apic: unknown command "nosuch"`},
		{[]string{"help", "nosuch"}, 2, "", `apic help: unknown command "nosuch" (run 'apic help' for the list)`},
		{[]string{"help", "nosuch", "extra"}, 2, "", `apic help: unknown command "nosuch" (run 'apic help' for the list)`},
		{[]string{}, 0, "commands:", ""},
		{[]string{"help"}, 0, "simulate", ""},
		{[]string{"--help"}, 0, "testcmd  ", ""},
		{[]string{"help", "--help"}, 0, "commands:", ""},
		{[]string{"help", "help"}, 0, "commands:", ""},
		// version and help take no arguments beyond their own, as no
		// command does.
		{[]string{"version"}, 0, "apic ", ""},
		{[]string{"version", "--help"}, 0, "usage: apic version", ""},
		{[]string{"help", "version"}, 0, "usage: apic version", ""},
		{[]string{"version", "--foo"}, 2, "", `apic version: unexpected argument "--foo"`},
		{[]string{"version", "extra"}, 2, "", `apic version: unexpected argument "extra"`},
		{[]string{"--version", "extra"}, 2, "", `apic version: unexpected argument "extra"`},
		{[]string{"help", "testcmd", "extra"}, 2, "", `apic help: unexpected argument "extra"`},
		// Extras after --help are refused as after help COMMAND, a lone
		// "--" ends the flags, and -v is no flag of the default command.
		{[]string{"--help", "extra"}, 2, "", `apic help: unknown command "extra"`},
		{[]string{"--help", "testcmd"}, 0, "usage: apic testcmd", ""},
		{[]string{"-h", "testcmd", "extra"}, 2, "", `apic help: unexpected argument "extra"`},
		{[]string{"testcmd", "--help", "extra"}, 2, "", `apic testcmd: unexpected argument "extra"`},
		{[]string{"testcmd", "--help", "--", "extra"}, 2, "", `apic testcmd: unexpected argument "extra"`},
		{[]string{"testcmd", "--help", "--bogus"}, 2, "", `apic testcmd: flag provided but not defined: --bogus`},
		{[]string{"testcmd", "--help", "--n", "4"}, 0, "usage: apic testcmd", ""},
		{[]string{"version", "--"}, 0, "apic ", ""},
		{[]string{"--version", "--"}, 0, "apic ", ""},
		{[]string{"version", "--", "extra"}, 2, "", `apic version: unexpected argument "extra"`},
		{[]string{"help", "--", "testcmd"}, 0, "usage: apic testcmd", ""},
		{[]string{"help", "--"}, 0, "commands:", ""},
		{[]string{"-v"}, 2, "", "apic: no flag -v: apic --version prints the version, apic help lists the commands"},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errOut)
		}
		if !strings.Contains(out, tc.stdout) {
			t.Errorf("%v: stdout %q lacks %q", tc.args, out, tc.stdout)
		}
		if !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errOut, tc.stderr)
		}
		if tc.code == 0 && errOut != "" {
			t.Errorf("%v: unexpected stderr %q", tc.args, errOut)
		}
	}
}

// TestNumberFlagsReadDecimal: number flags read plain decimal, never
// Go's base prefixes (030 is 30, not octal 24) or digit separators.
func TestNumberFlagsReadDecimal(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--n 030 --u 010 --x 030", "30 10 30"},
		{"--n -030 --u 0 --x -0.5e1", "-30 0 -5"},
		{"--n +7 --u 18446744073709551615 --x .5", "7 18446744073709551615 0.5"},
		{"--n=0 --x 0e-400", "0 1 0"},
		// NaN and Inf are the commands' to refuse, with each flag's range.
		{"--x nan", "3 1 NaN"},
		{"--x -Infinity", "3 1 -Inf"},
		{"--x +inf", "3 1 +Inf"},
		// So is a number beyond float64's range: the same mistake.
		{"--x 1e999", "3 1 +Inf"},
		{"--x -1.5e400", "3 1 -Inf"},
	} {
		args := append([]string{"testcmd", "--fail", "print"}, strings.Fields(tc.args)...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 || strings.TrimSpace(out) != tc.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestSeedWithLeadingZero: a command's own flags read decimal too:
// simulate --seed 010 is seed 10, not octal 8.
func TestSeedWithLeadingZero(t *testing.T) {
	got := simulateJSON(t, "--system", "testsys", "--seed", "010")
	want := simulateJSON(t, "--system", "testsys", "--seed", "10")
	if fmt.Sprint(got) != fmt.Sprint(want) || got["seed"] != float64(10) {
		t.Errorf("--seed 010 gave %v, want --seed 10's %v", got, want)
	}
}

// TestNumberFlagsRefuseGoSyntax: a base prefix, a digit separator, a
// sign on an unsigned flag and hexadecimal floats are refused, naming
// the flag, the value and the rule.
func TestNumberFlagsRefuseGoSyntax(t *testing.T) {
	const prefix = `(decimal digits only: 0x, 0o and 0b prefixes are not read)`
	for _, tc := range []struct{ flag, value, want string }{
		{"n", "0x10", `--n must be a whole number, got "0x10" ` + prefix},
		{"n", "-0X10", `--n must be a whole number, got "-0X10" ` + prefix},
		{"n", "0b11", `--n must be a whole number, got "0b11" ` + prefix},
		{"n", "0o17", `--n must be a whole number, got "0o17" ` + prefix},
		{"n", "1_000", `--n must be a whole number, got "1_000" (decimal digits only: _ separators are not read)`},
		{"u", "0x10", `--u must be a whole number ≥ 0, got "0x10" ` + prefix},
		{"u", "1_0", `--u must be a whole number ≥ 0, got "1_0" (decimal digits only: _ separators are not read)`},
		{"n", "1e1", `--n must be a whole number, got "1e1" (decimal digits only: exponent notation is not read; write 10)`},
		{"n", "-2.5E2", `--n must be a whole number, got "-2.5E2" (decimal digits only: exponent notation is not read; write -250)`},
		{"n", "1e30", `--n must be a whole number, got "1e30" (decimal digits only: exponent notation is not read)`},
		{"n", "1e-1", `--n must be a whole number, got "1e-1"` + "\n"},
		{"u", "+5", `--u must be a whole number ≥ 0, got "+5" (digits only: no sign)`},
		{"u", "-0", `--u must be a whole number ≥ 0, got "-0" (digits only: no sign)`},
		{"x", "0_1", `--x: "0_1" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
		{"x", "0x1p-4", `--x: "0x1p-4" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
		{"x", "--inf", `--x: "--inf" is not a`},
	} {
		code, out, errOut := runCLI(t, "testcmd", "--fail", "print", "--"+tc.flag, tc.value)
		if code != 2 || out != "" || !strings.Contains(errOut, "apic testcmd: "+tc.want) {
			t.Errorf("--%s %s: exit %d, stdout %q, stderr %q; want %q", tc.flag, tc.value, code, out, errOut, tc.want)
		}
	}
}

// TestFloatFlagsOverflowAsInf: every float flag of every command
// refuses a number beyond float64's range with the words it refuses
// ±Inf with, naming the flag.
func TestFloatFlagsOverflowAsInf(t *testing.T) {
	tried := 0
	for _, c := range Commands() {
		if c.Name == "testcmd" {
			continue // hands every value on: TestNumberFlagsReadDecimal
		}
		_, help, _ := runCLI(t, c.Name, "--help")
		for _, m := range floatFlagLine.FindAllStringSubmatch(help, -1) {
			name := m[1]
			args := []string{c.Name}
			if strings.Contains(help, "\n  --system ") {
				args = append(args, "--system", "spring") // else compare stops at its absence
			}
			for _, pair := range [][2]string{{"inf", "1e400"}, {"-inf", "-1e999"}} {
				_, _, inf := runCLI(t, append(args, "--"+name, pair[0])...)
				code, _, big := runCLI(t, append(args, "--"+name, pair[1])...)
				if code != 2 || big != inf || !strings.Contains(big, "--"+name+" ") {
					t.Errorf("%s --%s %s: exit %d, stderr %q; want --%s %s's %q", c.Name, name, pair[1], code, big, name, pair[0], inf)
				}
				tried++
			}
		}
	}
	if tried < 2*11 { // train's 7, eval's 2, compare's and diagnose's --noise
		t.Errorf("only %d float flag values tried: the help no longer says float64?", tried)
	}
}

// TestFloatFlagsRefuseUnderflow: every float flag of every command
// refuses a nonzero number below float64's smallest magnitude, which
// would read as 0, naming the flag and the value; a zero written with
// a tiny exponent is still 0.
func TestFloatFlagsRefuseUnderflow(t *testing.T) {
	tried := 0
	for _, c := range Commands() {
		_, help, _ := runCLI(t, c.Name, "--help")
		for _, m := range floatFlagLine.FindAllStringSubmatch(help, -1) {
			name := m[1]
			for _, value := range []string{"1e-99999", "-2e-324"} {
				code, out, errOut := runCLI(t, c.Name, "--"+name, value)
				want := fmt.Sprintf("apic %s: --%s: %q is too small: it is nonzero", c.Name, name, value)
				if code != 2 || out != "" || !strings.Contains(errOut, want) {
					t.Errorf("%s --%s %s: exit %d, stderr %q; want %q", c.Name, name, value, code, errOut, want)
				}
				tried++
			}
		}
	}
	if tried < 2*11 {
		t.Errorf("only %d float flag values tried: the help no longer says float64?", tried)
	}
	code, out, errOut := runCLI(t, "testcmd", "--fail", "print", "--x", "-0e-99999")
	if code != 0 || strings.TrimSpace(out) != "3 1 0" {
		t.Errorf("--x -0e-99999: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
	}
}

// floatFlagLine matches a float flag's line in a command's --help.
var floatFlagLine = regexp.MustCompile(`(?m)^  --([\w-]+) float$`)

// TestDecimalFlagsLeaveOtherValues: only the flag package's number
// flags are read as decimal; durations, lists and other Values keep
// their own Set, and Parse leaves every flag's Value as it was.
func TestDecimalFlagsLeaveOtherValues(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	fs := env.FlagSet()
	d := fs.Duration("d", 0, "a duration")
	var list stringList
	fs.Var(&list, "list", "a list")
	var got []string
	fs.Func("f", "a func", func(s string) error { got = append(got, s); return nil })
	fs.Var(intGetter{}, "custom", "a Getter of another package's kind")
	n := fs.Int("n", 0, "a number")
	before := map[string]string{} // each Value's type (a Func's is not comparable)
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = fmt.Sprintf("%T", f.Value) })
	err := env.Parse(fs, []string{"--d", "1h30m", "--list", "0x10", "--list", "1_0", "--f", "010", "--custom", "0x10", "--n", "010"})
	if err != nil || *d != 90*time.Minute || fmt.Sprint(list) != "[0x10 1_0]" || fmt.Sprint(got) != "[010]" || *n != 10 {
		t.Fatalf("err %v, d %v, list %v, f %v, n %d", err, *d, list, got, *n)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if typ := fmt.Sprintf("%T", f.Value); typ != before[f.Name] {
			t.Errorf("--%s: Parse left %s in place of %s", f.Name, typ, before[f.Name])
		}
	})
}

// intGetter is a flag.Getter of whole numbers outside the flag package,
// whose Set has its own grammar (here: anything).
type intGetter struct{}

func (intGetter) String() string   { return "" }
func (intGetter) Set(string) error { return nil }
func (intGetter) Get() any         { return 0 }

// TestInterruptedValidationNamesPartial: Ctrl-C in the validation that
// follows an --init run's training under --recalibrate 0 keeps the
// partial file, and the message says where it stopped, where the file
// is and the command that validates and saves it.
func TestInterruptedValidationNamesPartial(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	trainTinyTo(t, first)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(dir, "second.safetensors")
	stderr := &cancelOnWrite{cancel: cancel, when: "--recalibrate 0: the spread"}
	code := Run(ctx, []string{"train", "--init", first, "--steps1", "1", "--steps2", "0", "--recalibrate", "0", "--out", out}, io.Discard, stderr)
	msg := stderr.String()
	partial := filepath.Join(dir, "second.partial.safetensors")
	for _, want := range []string{
		"apic train: interrupted during the final validation, after 1+0 training steps; the weights of those steps are in " + partial,
		"to validate and save them: apic train --init " + partial + " --steps1 0 --steps2 0 --recalibrate 0 --out " + out,
	} {
		if code != 1 || !strings.Contains(msg, want) {
			t.Errorf("exit %d, stderr %q: no %q", code, msg, want)
		}
	}
}

func TestSimulateHelp(t *testing.T) {
	code, out, errOut := runCLI(t, "simulate", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"usage: apic simulate --system SYS", "--seed uint", "(default 1)", "--theta", "--u0-file file", "--json", "testsys"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

func TestCommandsOrder(t *testing.T) {
	cmds := Commands()
	if len(cmds) < 2 || cmds[0].Name != "simulate" {
		t.Fatalf("commands %v: simulate should come first", cmds)
	}
}

// TestHelpStatesEachDefaultOnce: no flag's help line gives its default
// twice (its own words and the flag package's, often a sentinel).
func TestHelpStatesEachDefaultOnce(t *testing.T) {
	for _, c := range Commands() {
		_, out, _ := runCLI(t, c.Name, "--help")
		for _, line := range strings.Split(out, "\n") {
			if strings.Count(line, "default") > 1 && strings.Contains(line, "(default ") {
				t.Errorf("%s --help: %q", c.Name, strings.TrimSpace(line))
			}
		}
	}
}

// TestTrainRefineHelpSaysItsDefault: train --refine's help names -1 as
// its default. Its words "inference default" hide the flag package's
// "(default -1)", so without saying so it read as if leaving it out
// were something other than -1.
func TestTrainRefineHelpSaysItsDefault(t *testing.T) {
	_, out, _ := runCLI(t, "train", "--help")
	_, after, _ := strings.Cut(out, "\n  --refine int\n")
	line, _, _ := strings.Cut(after, "\n")
	if !strings.Contains(line, "-1, the default") && !strings.Contains(line, "(default -1)") {
		t.Errorf("train --refine's help does not give its default -1: %q", strings.TrimSpace(line))
	}
}

// TestUsageSynopsesAlign: a command with several synopsis lines indents
// the later ones under the first's "apic", so that "usage: " reads as
// their common heading and none looks like the description's first line.
func TestUsageSynopsesAlign(t *testing.T) {
	for _, c := range Commands() {
		_, out, _ := runCLI(t, c.Name, "--help")
		synopsis, _, _ := strings.Cut(out, "\n\n")
		lines := strings.Split(synopsis, "\n")
		for _, line := range lines[1:] {
			if !strings.HasPrefix(line, strings.Repeat(" ", len("usage: "))) {
				t.Errorf("%s --help: synopsis line %q is not indented under %q", c.Name, line, lines[0])
			}
		}
	}
}

// TestSystemFlagsNameTheSystems: every --system flag's help lists the
// systems it takes, so that a newcomer need not guess at "lotka".
func TestSystemFlagsNameTheSystems(t *testing.T) {
	names := strings.Join(sims.Names(), ", ")
	for _, c := range Commands() {
		_, out, _ := runCLI(t, c.Name, "--help")
		_, after, ok := strings.Cut(out, "\n  --system string\n")
		if !ok {
			continue
		}
		if line, _, _ := strings.Cut(after, "\n"); !strings.Contains(line, names) {
			t.Errorf("%s --help: --system says %q, not the systems %s", c.Name, strings.TrimSpace(line), names)
		}
	}
}

// TestTopLevelHelpNamesBackbones: 'apic help' lists the backbones and
// the default beside the systems, so that a newcomer choosing --backbone
// need not open a command's help first.
func TestTopLevelHelpNamesBackbones(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	want := "backbones: " + strings.Join(core.BackboneNames(), ", ") + " (default lnp)"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("apic help: exit %d, output lacks %q:\n%s", code, want, out)
	}
}

// TestHelpDescriptionsFitATerminal: the description between a command's
// synopsis and its flags keeps to 80 columns, so that a terminal does
// not break its lines (a list of names wraps under its own start).
func TestHelpDescriptionsFitATerminal(t *testing.T) {
	for _, c := range Commands() {
		_, out, _ := runCLI(t, c.Name, "--help")
		_, description, _ := strings.Cut(out, "\n\n")
		description, _, _ = strings.Cut(description, "\nflags:\n")
		for _, line := range strings.Split(description, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%s --help: a line of %d columns: %q", c.Name, n, line)
			}
		}
	}
}

// TestSwitchGivenAValue: a boolean flag given a value it does not read
// says it is a switch and how to spell one, not the flag package's
// "parse error".
func TestSwitchGivenAValue(t *testing.T) {
	code, _, errOut := runCLI(t, "inspect", "--json=2", "x")
	if want := `apic inspect: --json is a switch: give it alone, or as --json=true or --json=false (got "2")`; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

// TestFlagValueErrorsNameTheFlag: a value a flag's own Set refuses is
// reported as "--FLAG: why", without the flag package's "invalid value
// … for flag -…" around it, which repeated the value.
func TestFlagValueErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct{ args []string }{
		{[]string{"simulate", "--system", "spring", "--theta", "omega=abc"}},
		{[]string{"sweep", "--system", "spring", "--vary", "context=0x10", "--out", t.TempDir()}},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		want := "apic " + tc.args[0] + ": " + tc.args[3] + ": "
		if code != 2 || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "invalid value") {
			t.Errorf("%v: exit %d, stderr %q; want it to start %q", tc.args, code, errOut, want)
		}
	}
}
