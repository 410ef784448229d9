// Package checkpointstest writes damaged checkpoint files, for the
// tests of what opening one says: the command line's (core/cli) and the
// explorer's (tui) each pin the message in their own words, of the same
// files. Only tests import it.
package checkpointstest

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"apic/checkpoints"
	"apic/nets"
)

// Damaged are paths, in one temporary directory, that fail to open as
// a checkpoint each in its own way.
type Damaged struct {
	Missing string // nothing there
	Dir     string // a directory
	Text    string // a README, read as a header length far too large
	Tiny    string // a header length below the smallest header's, {}
	Short   string // shorter than the 8-byte header length
	Cut     string // a header length past the file's end
	BadJSON string // a header that is not JSON
	Huge    string // past the loader's 1 GiB limit (sparse: no disk)
	Empty   string // safetensors without apic's metadata
	Renamed string // a shipped checkpoint with its first tensor renamed "stray"
	Stray   string // the name the renamed tensor had
}

// WriteDamaged writes the damaged files into a new temporary directory.
func WriteDamaged(t testing.TB) Damaged {
	t.Helper()
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	d := Damaged{
		Missing: filepath.Join(dir, "nosuch.safetensors"),
		Dir:     filepath.Join(dir, "apic"),
		Text:    file("README.md", []byte("# apic\n\nAmortized physics-informed calibration.\n")),
		Tiny:    file("tiny.safetensors", []byte("\x01\x00\x00\x00\x00\x00\x00\x00{")),
		Short:   file("short.safetensors", []byte("\x07\x00\x00")),
		Cut:     file("cut.safetensors", []byte("\x07\x00\x00\x00\x00\x00\x00\x00{\"a\"")),
		BadJSON: file("json.safetensors", []byte("\x03\x00\x00\x00\x00\x00\x00\x00{x}")),
		Huge:    file("huge.safetensors", nil),
		Empty:   file("empty.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}")),
	}
	if err := os.Mkdir(d.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(d.Huge, 1<<30+1); err != nil {
		t.Fatal(err)
	}
	renamed, stray := renamedTensor(t)
	d.Renamed, d.Stray = file("renamed.safetensors", renamed), stray
	return d
}

// renamedTensor is a shipped checkpoint with its first tensor renamed
// "stray", and the name that tensor had.
func renamedTensor(t testing.TB) ([]byte, string) {
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
