package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"apic/core"
	"apic/nets"
)

// TestEveryPNGSaysWhichFigure: calibrate, diagnose and sweep each name
// the figure that --png wrote, with one line on stderr, in text and JSON
// modes alike.
func TestEveryPNGSaysWhichFigure(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	sw := filepath.Join(dir, "sw")
	runSweepOK(t, tinySweepArgs(sw)...)
	for _, tc := range []struct {
		name string
		args []string
		fig  string
	}{
		{"calibrate", append([]string{"calibrate", "--checkpoint", ckpts["spring"], "--png", filepath.Join(dir, "c.png")}, obs["spring"]...), filepath.Join(dir, "c.png")},
		{"calibrate --json", append([]string{"calibrate", "--json", "--checkpoint", ckpts["lv"], "--png", filepath.Join(dir, "cj.png")}, obs["lv"]...), filepath.Join(dir, "cj.png")},
		{"diagnose --json", []string{"diagnose", "--json", "--checkpoint", ckpts["spring"], "--tasks", "4", "--samples", "2", "--context", "10", "--png", filepath.Join(dir, "d.png")}, filepath.Join(dir, "d.png")},
		{"sweep --collect", []string{"sweep", "--collect", sw, "--png"}, filepath.Join(sw, "sweep.png")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if want := "figure written to " + tc.fig + "\n"; code != 0 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want 0 and %q", code, stderr, want)
			}
		})
	}
}

// TestOutputInMissingDirectory: an output file whose directory does not
// exist is refused with the directory named, not with stat's error, and
// the directory is not created: every file flag follows the rule (sweep
// --out, a folder, is the exception its --help states:
// TestSweepOutCreatesMissingDirectories).
func TestOutputInMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	missing := filepath.Join(dir, "nosuchdir")
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		flag string
		file string
	}{
		{"calibrate", append([]string{"calibrate", "--checkpoint", ckpts["spring"]}, obs["spring"]...), "png", "x.png"},
		{"diagnose", []string{"diagnose", "--checkpoint", ckpts["spring"]}, "png", "x.png"},
		{"train", []string{"train", "--system", "spring"}, "out", "m.safetensors"},
		{"simulate", []string{"simulate", "--system", "spring"}, "csv", "x.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(missing, tc.file)
			code, _, stderr := runCLI(t, append(tc.args, "--"+tc.flag, path)...)
			want := "directory " + missing + " does not exist (for --" + tc.flag + " " + path + ")"
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
			if _, err := os.Stat(missing); err == nil {
				t.Errorf("--%s created %s", tc.flag, missing)
			}
			// Under a regular file: that file is named, without Go's
			// "stat …/:".
			under := filepath.Join(plain, tc.file)
			code, _, stderr = runCLI(t, append(tc.args, "--"+tc.flag, under)...)
			want = "--" + tc.flag + " " + under + ": " + plain + ": not a directory"
			if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "stat ") {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
		})
	}
}

// TestMissingCheckpointHintsExtension: after train --out m, which writes
// m.safetensors, the commands that open m point to m.safetensors; a
// missing name with no such file beside it gets no hint.
func TestMissingCheckpointHintsExtension(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tinyCheckpoint(t, dir, "spring", 0, 0)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("tinyCheckpoint wrote %v (%v), want one file", entries, err)
	}
	name := entries[0].Name()
	bare := strings.TrimSuffix(name, ".safetensors")
	hint := bare + ": no such file or directory; did you mean " + name + "?"
	for _, args := range [][]string{
		{"inspect", bare},
		{"eval", "--checkpoint", bare, "--tasks", "2"},
		{"diagnose", "--checkpoint", bare, "--tasks", "2"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, hint) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, stderr, hint)
		}
	}
	if code, _, stderr := runCLI(t, "inspect", "other"); code != 2 || strings.Contains(stderr, "did you mean") {
		t.Errorf("inspect of a name with no file beside it: exit %d, stderr %q; want 2 and no hint", code, stderr)
	}
}

// TestMissingCheckpointHintsShipped: a checkpoint named as a shipped
// one's bare name, with no such file here, hints at embedded:NAME, in
// every command that opens a checkpoint; other missing names do not.
func TestMissingCheckpointHintsShipped(t *testing.T) {
	t.Chdir(t.TempDir())
	hint := "spring-cnp.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"
	for _, tc := range []struct {
		args []string
		want string // what the hint follows: the command, or the flag
	}{
		{[]string{"inspect", "spring-cnp.safetensors"}, "apic inspect: "},
		{[]string{"eval", "--checkpoint", "spring-cnp.safetensors", "--tasks", "2"}, "--checkpoint "},
		{[]string{"train", "--init", "spring-cnp.safetensors", "--out", "m.safetensors"}, "--init "},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if want := tc.want + hint; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(t, "inspect", "spring-xnp.safetensors"); code != 2 || strings.Contains(stderr, "did you mean") {
		t.Errorf("inspect of an unshipped name: exit %d, stderr %q; want 2 and no hint", code, stderr)
	}
}

// TestTrainResumeReportsInOrder: a run resumed from a partial file says
// it wrote --out before it says it removed the partial file, and gives
// its own time and the total in one format.
func TestTrainResumeReportsInOrder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.safetensors")
	trainTinyTo(t, src)
	m, _, err := core.LoadCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "model.partial.safetensors")
	if err := core.SaveCheckpoint(partial, m, core.Info{Steps1: 1, WallSeconds: 2.5, Unfinished: true}, nets.F32); err != nil {
		t.Fatal(err)
	}
	var both bytes.Buffer // stdout and stderr as a terminal interleaves them
	args := []string{"train", "--init", partial, "--steps1", "0", "--steps2", "1", "--recalibrate", "0", "--out", filepath.Join(dir, "model.safetensors")}
	if code := Run(context.Background(), args, &both, &both); code != 0 {
		t.Fatalf("exit %d: %s", code, both.String())
	}
	text := both.String()
	wrote, removed := strings.Index(text, "wrote "), strings.Index(text, "removed "+partial)
	if wrote < 0 || removed < wrote {
		t.Errorf("want \"wrote\" before \"removed\", got:\n%s", text)
	}
	times := regexp.MustCompile(`steps in (\S+); \d+\+\d+ steps in (\S+) in all\)`).FindStringSubmatch(text)
	if times == nil {
		t.Fatalf("no run and total times in:\n%s", text)
	}
	for _, s := range times[1:] {
		if _, err := time.ParseDuration(s); err != nil {
			t.Errorf("time %q is not in the run's format: %v", s, err)
		}
	}
}

// TestCompareCPINNWorkersAgree: Correction-PINN fits one realization at
// a time, its members in parallel; the timing row names the same
// workers as the settings line, not "1 worker".
func TestCompareCPINNWorkersAgree(t *testing.T) {
	code, out, stderr := runCLI(t, "compare", "--system", "spring", "--tasks", "2", "--methods", "cpinn", "--members", "2", "--steps", "10", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Correction-PINN: 2 members × 10 steps per realization, members on 2 workers", " elapsed, members on 2 workers)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "elapsed on 1 worker") {
		t.Errorf("timing row still counts 1 worker:\n%s", out)
	}
}

// TestUnknownEmbeddedHints: an embedded name that is not shipped is
// answered with the shipped one meant, when one is near: the name
// without its extension, or one within a slip; a name far from every
// shipped one gets only the list.
func TestUnknownEmbeddedHints(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"embedded:spring-cnp", "; did you mean embedded:spring-cnp.safetensors?"},
		{"embedded:sprng-cnp.safetensors", "; did you mean embedded:spring-cnp.safetensors?"},
		{"embedded:lv-cnpp.safetensors", "; did you mean embedded:lv-cnp.safetensors?"},
		{"embedded:foo", ""},
	} {
		code, _, stderr := runCLI(t, "inspect", c.name)
		if code != 2 || !strings.Contains(stderr, "no embedded checkpoint") || strings.Contains(stderr, "did you mean") != (c.want != "") ||
			!strings.Contains(stderr, c.want) {
			t.Errorf("inspect %s: exit %d, stderr %q; want 2 and %q", c.name, code, stderr, c.want)
		}
	}
	// The prefix in capitals before an unshipped name reads as a file
	// path, which is missing: the hint is the shipped name all the same.
	want := "EMBEDDED:sprng-cnp.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"
	if code, _, stderr := runCLI(t, "eval", "--checkpoint", "EMBEDDED:sprng-cnp.safetensors", "--tasks", "2"); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("eval --checkpoint EMBEDDED:sprng-cnp.safetensors: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
