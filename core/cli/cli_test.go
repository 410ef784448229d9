package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
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
			fs.Uint64("u", 1, "a count")
			fs.Float64("x", 0, "a level")
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
				return fmt.Errorf("%w; the weights of those steps are in f.partial", fmt.Errorf("validating: %w", context.Canceled))
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
		// A number the flag package cannot parse says what the flag
		// takes, for every numeric type.
		{[]string{"testcmd", "--n", "x"}, 2, "", `apic testcmd: --n must be a whole number, got "x"`},
		{[]string{"testcmd", "--u", "-1"}, 2, "", `apic testcmd: --u must be a whole number ≥ 0, got "-1"`},
		{[]string{"testcmd", "--u", "1.5"}, 2, "", `apic testcmd: --u must be a whole number ≥ 0, got "1.5"`},
		{[]string{"testcmd", "--u", "18446744073709551616"}, 2, "", `apic testcmd: --u "18446744073709551616" is out of range: it must be a whole number ≥ 0, at most 18446744073709551615`},
		{[]string{"testcmd", "--x", "0,5"}, 2, "", `apic testcmd: --x must be a number (decimal or exponent notation, e.g. 0.5 or 1e-3), got "0,5"`},
		{[]string{"testcmd", "--fail=usage", "--n=9223372036854775808"}, 2, "", `apic testcmd: --n "9223372036854775808" is out of range: it must be a whole number, from -9223372036854775808 to 9223372036854775807`},
		{[]string{"testcmd", "--help"}, 0, "usage: apic testcmd [--fail KIND]", ""},
		{[]string{"testcmd", "-h"}, 0, "--n int\n      a number (default 3)", ""},
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

// TestInterruptedValidationNamesPartial: Ctrl-C in the validation that
// follows an --init run's training under --recalibrate 0 keeps the
// partial file, and the message says where it is, not only
// "interrupted".
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
	if code != 1 || !strings.Contains(msg, "apic train: interrupted; the weights of those steps are in "+filepath.Join(dir, "second.partial.safetensors")) {
		t.Errorf("exit %d, stderr %q", code, msg)
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
