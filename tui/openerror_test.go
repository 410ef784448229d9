package tui

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/core/cli"
	"apic/nets"
)

// TestOpenErrorCauses pins the status line of each way an open fails:
// "cannot open PATH: cause", the path said once, and the cause in the
// words the loader gives it.
func TestOpenErrorCauses(t *testing.T) {
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
	cases := []struct{ name, path, want string }{
		{"missing file", filepath.Join(dir, "nosuch.safetensors"), "no such file or directory"},
		{"shipped name without its prefix", "spring-cnp.safetensors", "no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"directory", sub, "a directory, not a regular file"},
		{"text file", file("README.md", []byte("# apic\n\nAmortized physics-informed calibration.\n")),
			"not a checkpoint (safetensors) file: its first 8 bytes give a header length of 723499994654515235, above the 100000000-byte limit"},
		{"header length below the smallest", file("tiny.safetensors", []byte("\x01\x00\x00\x00\x00\x00\x00\x00{")),
			"not a checkpoint (safetensors) file: its first 8 bytes give a header length of 1, below the 2 bytes of the smallest header {}"},
		{"shorter than the header length", file("short.safetensors", []byte("\x07\x00\x00")),
			"not a checkpoint (safetensors) file: file is 3 bytes, shorter than the 8-byte header length"},
		{"truncated", file("cut.safetensors", []byte("\x07\x00\x00\x00\x00\x00\x00\x00{\"a\"")),
			"not a checkpoint (safetensors) file: header length 7 exceeds the 4 bytes after it (the file is truncated, or not a safetensors file)"},
		{"header not JSON", file("json.safetensors", []byte("\x03\x00\x00\x00\x00\x00\x00\x00{x}")),
			"not a checkpoint (safetensors) file: invalid header JSON: invalid character 'x'"},
		{"oversized file", huge, "not a checkpoint (safetensors) file: 1073741825 bytes exceeds the 1073741824-byte limit"},
		{"no apic metadata", file("empty.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}")), `not an apic checkpoint (metadata format "")`},
		{"wrong tensors", file("renamed.safetensors", renamed),
			"tensors do not match the declared architecture: missing [" + stray + "], unexpected [stray]"},
		{"unknown embedded name", "embedded:nosuch.safetensors",
			`no embedded checkpoint "nosuch.safetensors" (embedded: ` + strings.Join(checkpoints.List(), ", ") + "; the ablation atlas's as atlas/FILE: apic inspect --atlas lists them)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := cli.OpenCheckpoint(tc.path)
			if err == nil {
				t.Fatalf("%s opened", tc.path)
			}
			if got, want := openError(tc.path, err), "cannot open "+tc.path+": "+tc.want; got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
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
