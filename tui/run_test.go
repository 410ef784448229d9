package tui

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"apic/core/cli"
)

var registerOnce sync.Once

// TestExploreUnreadableCheckpoint: a checkpoint file that cannot be read
// is a usage error (exit 2) naming the file, as in the other commands,
// and is reported before the terminal is needed.
func TestExploreUnreadableCheckpoint(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	junk := filepath.Join(t.TempDir(), "junk.safetensors")
	if err := os.WriteFile(junk, []byte("not a checkpoint at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"explore", "--checkpoint", junk}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "junk.safetensors") {
		t.Errorf("exit %d, stderr %q; want 2 and the file named", code, errOut.String())
	}
}

// TestExploreSeedZero: --seed 0 is refused, not silently read as 1, and
// -1 with the same bound (not the "≥ 0" of the commands that take 0).
func TestExploreSeedZero(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	for _, seed := range []string{"0", "-1"} {
		var out, errOut bytes.Buffer
		code := cli.Run(context.Background(), []string{"explore", "--seed", seed}, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), "≥ 1") || strings.Contains(errOut.String(), "≥ 0") {
			t.Errorf("--seed %s: exit %d, stderr %q", seed, code, errOut.String())
		}
	}
}

// TestExploreTasksBound: --tasks (every command's name for the number
// of seeded realizations), or --realizations (the explorer's former
// name, an alias), outside its documented bound is a usage error naming
// the flag given and the bound, checked before the model is built or the
// terminal needed; both at once are refused; the help names --tasks and
// its bound.
func TestExploreTasksBound(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := cli.Run(context.Background(), append([]string{"explore"}, args...), &out, &errOut)
		return code, errOut.String()
	}
	for _, name := range []string{"tasks", "realizations"} {
		for _, v := range []string{"1", "0", "-3", "2001"} {
			if code, stderr := run("--"+name, v); code != 2 || !strings.Contains(stderr, "--"+name+" must be between 2 and 2000") {
				t.Errorf("--%s %s: exit %d, stderr %q", name, v, code, stderr)
			}
		}
		// Within the bound it gets as far as the terminal, which a test lacks.
		if code, stderr := run("--"+name, "8"); code != 2 || !strings.Contains(stderr, "needs a terminal") {
			t.Errorf("--%s 8: exit %d, stderr %q; want the terminal refusal", name, code, stderr)
		}
	}
	if code, stderr := run("--tasks", "8", "--realizations", "16"); code != 2 || !strings.Contains(stderr, "give one of them") {
		t.Errorf("--tasks and --realizations: exit %d, stderr %q; want the refusal of both", code, stderr)
	}
	var out, errOut bytes.Buffer
	cli.Run(context.Background(), []string{"help", "explore"}, &out, &errOut)
	if !strings.Contains(out.String(), "[--tasks N]") || !strings.Contains(out.String(), "2 to 2000") {
		t.Errorf("explore's help lacks --tasks and its bound:\n%s", out.String())
	}
}

// TestExploreCheckpointMismatch: --system or --backbone given beside a
// --checkpoint of another system or backbone is refused (exit 2, naming
// both), by the rule eval and calibrate refuse it with, rather than
// dropped; matching flags, or none, get as far as the terminal, which
// a test lacks.
func TestExploreCheckpointMismatch(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	ck := "embedded:spring-lnp.safetensors"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--system", "lv"}, "--system lv disagrees with checkpoint " + ck + " (system spring)"},
		{[]string{"--backbone", "cnp"}, "--backbone cnp disagrees with checkpoint " + ck + " (backbone lnp)"},
		// Both wrong: the system is named, as eval names it (one rule).
		{[]string{"--backbone", "cnp", "--system", "lv"}, "--system lv disagrees with checkpoint " + ck + " (system spring)"},
		{[]string{"--system", "spring", "--backbone", "lnp"}, "needs a terminal"},
		{nil, "needs a terminal"},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"explore", "--checkpoint", ck}, tc.args...)
		code := cli.Run(context.Background(), args, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestExploreCheckpointErrorNamesTheFlag: a --checkpoint file that
// cannot be read is refused (exit 2) naming the flag and the path, as
// in the other commands.
func TestExploreCheckpointErrorNamesTheFlag(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	missing := filepath.Join(t.TempDir(), "x.safetensors")
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"explore", "--checkpoint", missing}, &out, &errOut)
	if want := "--checkpoint " + missing + ": no such file or directory"; code != 2 || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}

// TestExploreEmptyCheckpointRefused: --checkpoint "" (a variable left
// empty) opened the shipped model as if the flag were left out; it is
// refused naming the flag, as every other command's path flag is.
func TestExploreEmptyCheckpointRefused(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"explore", "--checkpoint", ""}, &out, &errOut)
	if want := `--checkpoint is given as "", which names no file`; code != 2 || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}

// TestExploreASCIIFollowsLocale: without --ascii the explorer draws in
// ASCII under a locale whose character set is not UTF-8 (LANG=C, an
// LC_ALL or LC_CTYPE that overrides a UTF-8 LANG), and in Unicode under
// a UTF-8 one or none; --ascii, true or false, wins over the locale.
func TestExploreASCIIFollowsLocale(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, map[string]string{"LANG": "C"}, true},
		{nil, map[string]string{"LANG": "POSIX"}, true},
		{nil, map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "C"}, true},
		{nil, map[string]string{"LANG": "en_US.UTF-8", "LC_CTYPE": "C"}, true},
		{nil, map[string]string{"LANG": "de_DE.ISO-8859-1"}, true},
		{nil, map[string]string{"LANG": "C", "LC_ALL": "C.UTF-8"}, false},
		{nil, map[string]string{"LANG": "en_GB.utf8"}, false},
		{nil, map[string]string{}, false},
		{[]string{"--ascii"}, map[string]string{"LANG": "en_US.UTF-8"}, true},
		{[]string{"--ascii=false"}, map[string]string{"LANG": "C"}, false},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("explore", flag.ContinueOnError)
		ascii := fs.Bool("ascii", false, "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		getenv := func(name string) string { return c.env[name] }
		if got := wantASCII(fs, *ascii, getenv); got != c.want {
			t.Errorf("%v under %v: ASCII %v, want %v", c.args, c.env, got, c.want)
		}
	}
}
