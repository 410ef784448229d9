package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/checkpoints/checkpointstest"
	"apic/nets"
)

// TestOpenCheckpointMessages pins the message of each way opening a
// checkpoint fails, every one a usage error: a file that cannot be read
// keeps the system's words, one that is not safetensors is said not to
// be a checkpoint, and one that is but holds no model says why.
func TestOpenCheckpointMessages(t *testing.T) {
	t.Chdir(t.TempDir()) // no file here bears a shipped checkpoint's name
	d := checkpointstest.WriteDamaged(t)
	notCheckpoint := " is not a checkpoint (safetensors) file: "
	cases := []struct{ name, path, want string }{
		{"missing file", d.Missing, d.Missing + ": no such file or directory"},
		{"shipped name without its prefix", "spring-cnp.safetensors",
			"spring-cnp.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"shipped name with its prefix in capitals", "EMBEDDED:SPRING-CNP.safetensors",
			"EMBEDDED:SPRING-CNP.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"directory", d.Dir, d.Dir + " is a directory, not a regular file"},
		{"text file", d.Text, d.Text + notCheckpoint + `a text file that begins "# apic", not the binary weights that apic train writes`},
		{"header length below the smallest", d.Tiny, d.Tiny + notCheckpoint + "its first 8 bytes give a header length of 1, below the 2 bytes of the smallest header {}"},
		{"shorter than the header length", d.Short, d.Short + notCheckpoint + "file is 3 bytes, shorter than the 8-byte header length"},
		{"truncated", d.Cut, d.Cut + notCheckpoint + "header length 7 exceeds the 4 bytes after it (the file is truncated, or not a safetensors file)"},
		{"header not JSON", d.BadJSON, d.BadJSON + notCheckpoint + "invalid header JSON: invalid character 'x'"},
		{"oversized file", d.Huge, d.Huge + notCheckpoint + "1073741825 bytes exceeds the 1073741824-byte limit"},
		{"no apic metadata", d.Empty, d.Empty + `: not an apic checkpoint (metadata format "")`},
		{"wrong tensors", d.Renamed, d.Renamed + ": tensors do not match the declared architecture: missing [" + d.Stray + "], unexpected [stray]"},
		{"unknown embedded name", "embedded:nosuch.safetensors",
			`no embedded checkpoint "nosuch.safetensors" (embedded: ` + strings.Join(checkpoints.List(), ", ") + "; the ablation atlas's as atlas/FILE: apic inspect --atlas lists them)"},
		{"atlas name with a slip", "embedded:atlas/sprng-reg-l1.safetensors",
			`no embedded checkpoint "atlas/sprng-reg-l1.safetensors" (embedded: ` + strings.Join(checkpoints.List(), ", ") + "; the ablation atlas's as atlas/FILE: apic inspect --atlas lists them); did you mean embedded:atlas/spring-reg-l1.safetensors?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := OpenCheckpoint(tc.path)
			if err == nil {
				t.Fatalf("%s opened", tc.path)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if !IsUsageError(err) {
				t.Errorf("%v is not a usage error", err)
			}
			var ce *CheckpointError
			if !errors.As(err, &ce) || ce.Path != tc.path {
				t.Errorf("%v is not a CheckpointError for %s", err, tc.path)
			}
		})
	}
}

// TestCheckpointErrorReachesTheLoaders: through a CheckpointError,
// errors.Is and errors.As find the loader's own error.
func TestCheckpointErrorReachesTheLoaders(t *testing.T) {
	d := checkpointstest.WriteDamaged(t)
	if _, _, err := OpenCheckpoint(d.Missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v is not fs.ErrNotExist", err)
	}
	var fe *nets.FormatError
	if _, _, err := OpenCheckpoint(d.Text); !errors.As(err, &fe) || !fe.NotSafetensors {
		t.Errorf("text file: %v is not a nets.FormatError marked not safetensors", err)
	}
}

// TestCheckpointFlagErrorsNameTheFlag: a checkpoint that a flag names
// and that cannot be read, or is no checkpoint, is refused (exit 2)
// naming the flag and the path, in every command with --checkpoint or
// --init, as --data's refusal names --data.
func TestCheckpointFlagErrorsNameTheFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	missing := filepath.Join(dir, "models", "x.safetensors")
	text := filepath.Join(dir, "README.md")
	if err := os.WriteFile(text, []byte("# apic\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	obs := goodObservations(t, dir)["spring"]
	commands := []struct {
		name, flag string
		args       []string
	}{
		{"eval", "checkpoint", []string{"eval", "--tasks", "2"}},
		{"calibrate", "checkpoint", append([]string{"calibrate"}, obs...)},
		{"compare", "checkpoint", []string{"compare", "--system", "spring", "--tasks", "2"}},
		{"diagnose", "checkpoint", []string{"diagnose", "--tasks", "2"}},
		{"train", "init", []string{"train", "--out", filepath.Join(dir, "m.safetensors")}},
	}
	files := []struct{ path, cause string }{
		{missing, "no such file or directory"},
		{text, "not a checkpoint (safetensors) file: "},
	}
	for _, c := range commands {
		for _, f := range files {
			code, _, stderr := runCLI(t, append(c.args, "--"+c.flag, f.path)...)
			if want := "--" + c.flag + " " + f.path + ": " + f.cause; code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s --%s %s: exit %d, stderr %q; want 2 and %q", c.name, c.flag, f.path, code, stderr, want)
			}
		}
	}
	// A sweep's cell runs eval with the file.
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "checkpoint="+missing, "--out", filepath.Join(dir, "sweep"))
	if want := "--checkpoint " + missing + ": no such file or directory"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("sweep: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestCheckpointDashIsNoStandardInput: "-" as a checkpoint, where no
// file of that name is, says that a checkpoint is never read from
// standard input (as calibrate --data - reads observations), for
// inspect's argument and each checkpoint flag.
func TestCheckpointDashIsNoStandardInput(t *testing.T) {
	t.Chdir(t.TempDir())
	want := "-: no such file or directory; a checkpoint is read from a file by its name, never from standard input (-)"
	for _, args := range [][]string{
		{"inspect", "-"},
		{"eval", "--checkpoint", "-"},
		{"train", "--init", "-", "--out", "m.safetensors"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr, want)
		}
	}
}
