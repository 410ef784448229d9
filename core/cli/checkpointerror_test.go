package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/nets"
)

// TestOpenCheckpointMessages pins the message of each way opening a
// checkpoint fails, every one a usage error: a file that cannot be read
// keeps the system's words, one that is not safetensors is said not to
// be a checkpoint, and one that is but holds no model says why.
func TestOpenCheckpointMessages(t *testing.T) {
	t.Chdir(t.TempDir()) // no file here bears a shipped checkpoint's name
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sub := filepath.Join(dir, "apic")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	// Past the reader's 1 GiB limit; sparse, so it costs no disk.
	huge := file("huge.safetensors", nil)
	if err := os.Truncate(huge, 1<<30+1); err != nil {
		t.Fatal(err)
	}
	renamed, stray := renamedTensorCheckpoint(t)
	missing := filepath.Join(dir, "nosuch.safetensors")
	notCheckpoint := " is not a checkpoint (safetensors) file: "
	text := file("README.md", []byte("# apic\n\nAmortized physics-informed calibration.\n"))
	tiny := file("tiny.safetensors", []byte("\x01\x00\x00\x00\x00\x00\x00\x00{"))
	short := file("short.safetensors", []byte("\x07\x00\x00"))
	cut := file("cut.safetensors", []byte("\x07\x00\x00\x00\x00\x00\x00\x00{\"a\""))
	badJSON := file("json.safetensors", []byte("\x03\x00\x00\x00\x00\x00\x00\x00{x}"))
	empty := file("empty.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	wrong := file("renamed.safetensors", renamed)
	cases := []struct{ name, path, want string }{
		{"missing file", missing, "load checkpoint: open " + missing + ": no such file or directory"},
		{"shipped name without its prefix", "spring-cnp.safetensors",
			"load checkpoint: open spring-cnp.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"shipped name with its prefix in capitals", "EMBEDDED:SPRING-CNP.safetensors",
			"load checkpoint: open EMBEDDED:SPRING-CNP.safetensors: no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"directory", sub, "load checkpoint: " + sub + " is a directory, not a regular file"},
		{"text file", text, text + notCheckpoint + "its first 8 bytes give a header length of 723499994654515235, above the 100000000-byte limit"},
		{"header length below the smallest", tiny, tiny + notCheckpoint + "its first 8 bytes give a header length of 1, below the 2 bytes of the smallest header {}"},
		{"shorter than the header length", short, short + notCheckpoint + "file is 3 bytes, shorter than the 8-byte header length"},
		{"truncated", cut, cut + notCheckpoint + "header length 7 exceeds the 4 bytes after it (the file is truncated, or not a safetensors file)"},
		{"header not JSON", badJSON, badJSON + notCheckpoint + "invalid header JSON: invalid character 'x'"},
		{"oversized file", huge, huge + notCheckpoint + "1073741825 bytes exceeds the 1073741824-byte limit"},
		{"no apic metadata", empty, "load checkpoint " + empty + `: not an apic checkpoint (metadata format "")`},
		{"wrong tensors", wrong, "load checkpoint " + wrong + ": tensors do not match the declared architecture: missing [" + stray + "], unexpected [stray]"},
		{"unknown embedded name", "embedded:nosuch.safetensors",
			`no embedded checkpoint "nosuch.safetensors" (embedded: ` + strings.Join(checkpoints.List(), ", ") + "; the ablation atlas's as atlas/FILE: apic inspect --atlas lists them)"},
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
	dir := t.TempDir()
	if _, _, err := OpenCheckpoint(filepath.Join(dir, "nosuch.safetensors")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v is not fs.ErrNotExist", err)
	}
	text := filepath.Join(dir, "README.md")
	if err := os.WriteFile(text, []byte("# apic\n\nAmortized physics-informed calibration.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var fe *nets.FormatError
	if _, _, err := OpenCheckpoint(text); !errors.As(err, &fe) || !fe.NotSafetensors {
		t.Errorf("text file: %v is not a nets.FormatError marked not safetensors", err)
	}
}

// renamedTensorCheckpoint is a shipped checkpoint with its first tensor
// renamed "stray", and the name that tensor had.
func renamedTensorCheckpoint(t *testing.T) ([]byte, string) {
	t.Helper()
	data, _, err := checkpoints.FromPath("embedded:spring-cnp.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	f, err := nets.DecodeSafetensors(data)
	if err != nil {
		t.Fatal(err)
	}
	first := slices.Sorted(maps.Keys(f.Tensors))[0]
	f.Tensors["stray"], f.Shapes["stray"] = f.Tensors[first], f.Shapes[first]
	delete(f.Tensors, first)
	delete(f.Shapes, first)
	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, f.Tensors, f.Shapes, f.Metadata, nets.F32); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), first
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
