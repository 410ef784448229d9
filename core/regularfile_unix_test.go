//go:build unix

package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"apic/nets"
)

// specialFiles makes, in a temporary directory, a named pipe, a
// directory and a link to the pipe, mapped to what each should be said
// to be. At cleanup a writer opens the pipe without blocking, which
// frees an open for reading still waiting on it.
func specialFiles(t *testing.T) (dir string, want map[string]NotRegularFileError) {
	t.Helper()
	dir = t.TempDir()
	fifo, sub, link := filepath.Join(dir, "pipe"), filepath.Join(dir, "sub"), filepath.Join(dir, "link")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	return dir, map[string]NotRegularFileError{
		fifo: {Path: fifo, Kind: "a named pipe (FIFO)"},
		sub:  {Path: sub, Kind: "a directory"},
		link: {Path: link, Target: fifo, Kind: "a named pipe (FIFO)"},
	}
}

// TestCheckRegularFile: a named pipe, a directory and a link to a pipe
// are named with what they are; a regular file and a missing path pass.
func TestCheckRegularFile(t *testing.T) {
	dir, want := specialFiles(t)
	for path, w := range want {
		var e *NotRegularFileError
		if err := CheckRegularFile(path); !errors.As(err, &e) || *e != w {
			t.Errorf("%s: %v, want %+v", path, err, w)
		}
	}
	regular := filepath.Join(dir, "m.safetensors")
	if err := os.WriteFile(regular, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{regular, filepath.Join(dir, "missing")} {
		if err := CheckRegularFile(path); err != nil {
			t.Errorf("%s: %v, want nil", path, err)
		}
	}
	link := filepath.Join(dir, "link")
	if got, want := CheckRegularFile(link).Error(), link+" is a link to "+filepath.Join(dir, "pipe")+", which is a named pipe (FIFO), not a regular file"; got != want {
		t.Errorf("a link to a pipe: %q, want %q", got, want)
	}
}

// TestSaveRefusesNonRegularTarget: neither save writes a checkpoint
// where a named pipe, a directory or a link to a pipe is, nor anything
// else in the directory; the error names the path and what it is.
// SaveNewCheckpoint used to say only that the path existed.
func TestSaveRefusesNonRegularTarget(t *testing.T) {
	dir, want := specialFiles(t)
	m := tinyModel(t, "spring", LNP, nil)
	saves := map[string]func(string, *Model, Info, nets.DType) error{"SaveCheckpoint": SaveCheckpoint, "SaveNewCheckpoint": SaveNewCheckpoint}
	for name, save := range saves {
		for path, w := range want {
			err := save(path, m, Info{}, nets.F64)
			var e *NotRegularFileError
			if !errors.As(err, &e) || *e != w || !strings.Contains(err.Error(), "refusing to save a checkpoint over it") {
				t.Errorf("%s(%s): %v, want it refused as %s", name, path, err, w.What())
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("the directory holds %d entries, want the %d made before the saves", len(entries), len(want))
	}
	if st, err := os.Lstat(filepath.Join(dir, "pipe")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v", err)
	}
}

// TestLoadRefusesNamedPipe: loading a named pipe no one writes is
// refused at once, naming it, where the open used to wait for a writer.
func TestLoadRefusesNamedPipe(t *testing.T) {
	dir, _ := specialFiles(t)
	fifo := filepath.Join(dir, "pipe")
	done := make(chan error, 1)
	go func() {
		_, _, err := LoadCheckpoint(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		var e *NotRegularFileError
		if !errors.As(err, &e) || e.Path != fifo {
			t.Errorf("loading a named pipe: %v, want it refused as one", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("loading a named pipe still waits after 5 s")
	}
}

// TestWriteRefusalsAgree: CheckWriteTarget, which the commands apply
// before their work, and nets.AtomicTarget, which every atomic save
// applies, say the same of a directory, a named pipe, a character
// device, and a link to one, or to a link to one (AtomicTarget said
// "f links to p, which is …: refusing to replace it").
func TestWriteRefusalsAgree(t *testing.T) {
	dir, want := specialFiles(t)
	paths := []string{}
	for path := range want {
		paths = append(paths, path)
	}
	linkToDir, linkToLink := filepath.Join(dir, "link-to-sub"), filepath.Join(dir, "link-to-link")
	if err := os.Symlink("sub", linkToDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("link", linkToLink); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, linkToDir, linkToLink)
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		paths = append(paths, null, filepath.Join(dir, "link-to-null"))
		if err := os.Symlink(null, filepath.Join(dir, "link-to-null")); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("no character device test: mknod: %v", err)
	}
	for _, path := range paths {
		checked := CheckWriteTarget(path, "")
		_, atomic := nets.AtomicTarget(path)
		if checked == nil || atomic == nil || checked.Error() != atomic.Error() {
			t.Errorf("%s:\nCheckWriteTarget says %v\nAtomicTarget says     %v", path, checked, atomic)
			continue
		}
		var e *NotRegularFileError
		if !errors.As(atomic, &e) || !strings.HasSuffix(atomic.Error(), ": refusing to save over it") {
			t.Errorf("%s: AtomicTarget's %v is no refusal of a *NotRegularFileError", path, atomic)
		}
		if named := CheckWriteTarget(path, "a figure").Error(); named != strings.TrimSuffix(atomic.Error(), "over it")+"a figure over it" {
			t.Errorf("%s: CheckWriteTarget with what to save says %q", path, named)
		}
	}
}
