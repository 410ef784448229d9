package tui

import (
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/checkpoints/checkpointstest"
	"apic/core/cli"
)

// TestOpenErrorCauses pins the status line of each way an open fails:
// "cannot open PATH: cause", the path said once, and the cause in the
// words the loader gives it.
func TestOpenErrorCauses(t *testing.T) {
	t.Chdir(t.TempDir()) // no file here bears a shipped checkpoint's name
	d := checkpointstest.WriteDamaged(t)
	cases := []struct{ name, path, want string }{
		{"missing file", d.Missing, "no such file or directory"},
		{"shipped name without its prefix", "spring-cnp.safetensors", "no such file or directory; did you mean embedded:spring-cnp.safetensors?"},
		{"directory", d.Dir, "a directory, not a regular file"},
		{"text file", d.Text,
			`not a checkpoint (safetensors) file: a text file that begins "# apic", not the binary weights that apic train writes`},
		{"header length below the smallest", d.Tiny,
			"not a checkpoint (safetensors) file: its first 8 bytes give a header length of 1, below the 2 bytes of the smallest header {}"},
		{"shorter than the header length", d.Short,
			"not a checkpoint (safetensors) file: file is 3 bytes, shorter than the 8-byte header length"},
		{"truncated", d.Cut,
			"not a checkpoint (safetensors) file: header length 7 exceeds the 4 bytes after it (the file is truncated, or not a safetensors file)"},
		{"header not JSON", d.BadJSON,
			"not a checkpoint (safetensors) file: invalid header JSON: invalid character 'x'"},
		{"oversized file", d.Huge, "not a checkpoint (safetensors) file: 1073741825 bytes exceeds the 1073741824-byte limit"},
		{"no apic metadata", d.Empty, `not an apic checkpoint (metadata format "")`},
		{"wrong tensors", d.Renamed,
			"tensors do not match the declared architecture: missing [" + d.Stray + "], unexpected [stray]"},
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
