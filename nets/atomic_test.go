package nets_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"apic/nets"
)

// dirNames lists the entries of dir, to spot leftover temporary files.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	for _, content := range []string{"first version", "second"} { // create, then replace
		if err := nets.WriteFileAtomic(path, writeString(content)); err != nil {
			t.Fatalf("write %q: %v", content, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("file holds %q (%v), want %q", got, err, content)
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Errorf("directory holds %v, want only out.bin", names)
		}
	}
}

// TestWriteFileAtomicLongName: a name within the file system's limit
// of 255 bytes was refused, "file name too long", because the
// temporary file's name repeats it with a dot, suffix and random part.
func TestWriteFileAtomicLongName(t *testing.T) {
	dir := t.TempDir()
	for _, base := range []string{strings.Repeat("a", 250), strings.Repeat("é", 125)} { // 250 bytes each
		path := filepath.Join(dir, base)
		for _, write := range []func(string, func(io.Writer) error) error{nets.WriteFileAtomic, nets.WriteNewFileAtomic} {
			os.Remove(path)
			if err := write(path, writeString("x")); err != nil {
				t.Fatalf("a %d-byte name: %v", len(base), err)
			}
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Errorf("directory holds %d files, want only the one written", len(names))
		}
		os.Remove(path)
	}
	if got := nets.TempBase(strings.Repeat("é", 125)); !utf8.ValidString(got) || len(got) > 200 {
		t.Errorf("TempBase cut %d bytes, valid UTF-8 %v; want at most 200, whole characters", len(got), utf8.ValidString(got))
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := nets.WriteFileAtomic(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace: %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

func TestWriteFileAtomicFailureLeavesOriginal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(path, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := nets.WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "partial data that must never appear")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want one wrapping %v", err, boom)
	}
	func() { // a panicking writer must not leave a temporary file either
		defer func() { _ = recover() }()
		nets.WriteFileAtomic(path, func(io.Writer) error { panic("writer bug") })
	}()
	if got, err := os.ReadFile(path); err != nil || string(got) != "original" {
		t.Errorf("file holds %q (%v), want the original", got, err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "out.bin" {
		t.Errorf("directory holds %v, want only out.bin", names)
	}
}

func TestWriteFileAtomicMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "f")
	if err := nets.WriteFileAtomic(path, writeString("x")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestWriteNewFileAtomic: the file is made where there was none, with
// mode 0644, and leaves no temporary file; where one is, it stays as it
// is, and the error is fs.ErrExist.
func TestWriteNewFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := nets.WriteNewFileAtomic(path, writeString("first")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v, %v; want mode 0644", st, err)
	}
	err := nets.WriteNewFileAtomic(path, writeString("second"))
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("writing over a file: %v, want fs.ErrExist", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "first" {
		t.Errorf("file holds %q (%v), want the first", got, err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.bin", names)
	}
}

// TestWriteNewFileAtomicKeepsAFileMadeMeanwhile: a file made at path
// while the data is written (another run finishing the same output)
// stays; a check before the write would have let the save replace it.
func TestWriteNewFileAtomicKeepsAFileMadeMeanwhile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	err := nets.WriteNewFileAtomic(path, func(w io.Writer) error {
		if err := os.WriteFile(path, []byte("theirs"), 0o644); err != nil {
			return err
		}
		_, err := io.WriteString(w, "ours")
		return err
	})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("error %v, want fs.ErrExist", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "theirs" {
		t.Errorf("file holds %q (%v), want theirs", got, err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.bin", names)
	}
}
