//go:build unix

package nets_test

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"apic/nets"
)

// TestWriteFileAtomicRefusesSpecialFiles: the save never puts a regular
// file in place of a directory, a device, a named pipe or a socket, nor
// of a link to one (issue 19: train --out on a copy of /dev/null left a
// regular file), and refuses before write runs.
func TestWriteFileAtomicRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	linkToFifo := filepath.Join(dir, "link-to-fifo")
	if err := os.Symlink("fifo", linkToFifo); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		fifo:       "is a named pipe (FIFO), not a regular file",
		sub:        "is a directory, not a regular file",
		sock:       "is a socket, not a regular file",
		linkToFifo: "is a link to " + fifo + ", which is a named pipe (FIFO), not a regular file: refusing to save over it",
		loop:       "symbolic links",
	}
	// A character device, like /dev/null, where this user may make one.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		cases[null] = "is a character device, not a regular file"
	} else {
		t.Logf("no character device test: mknod: %v", err)
	}
	for path, want := range cases {
		before, _ := os.Lstat(path)
		called := false
		err := nets.WriteFileAtomic(path, func(w io.Writer) error { called = true; return nil })
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming it and %q", path, err, want)
		}
		if called {
			t.Errorf("%s: the data was produced before the refusal", path)
		}
		if after, _ := os.Lstat(path); after == nil || after.Mode() != before.Mode() {
			t.Errorf("%s: was %v, now %v", path, before.Mode(), after)
		}
	}
	for _, name := range dirNames(t, dir) {
		if strings.Contains(name, ".tmp-") {
			t.Errorf("temporary file %s left behind", name)
		}
	}
}

// TestWriteFileAtomicFollowsSymlinks: a link to a regular file is
// followed: the file it names gets the data and the link stays a link.
func TestWriteFileAtomicFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	target := filepath.Join(other, "real.bin")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.bin")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	// A relative link to a relative link, resolved from each link's
	// directory.
	link2 := filepath.Join(dir, "link2.bin")
	if err := os.Symlink("link.bin", link2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ link, target, content string }{
		{link, target, "via the link"},
		{link2, target, "via two links"},
	} {
		if err := nets.WriteFileAtomic(tc.link, writeString(tc.content)); err != nil {
			t.Fatalf("%s: %v", tc.link, err)
		}
		if st, err := os.Lstat(tc.link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v, %v)", tc.link, st, err)
		}
		if got, err := os.ReadFile(tc.target); err != nil || string(got) != tc.content {
			t.Errorf("%s holds %q (%v), want %q", tc.target, got, err, tc.content)
		}
	}
	if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode: %v, %v; want 0640 kept", st, err)
	}
}

// TestWriteFileAtomicRefusesDanglingLink: a link to nothing is refused,
// naming the link and where it leads, before write runs: following it
// used to create the file the link named, wherever that was.
func TestWriteFileAtomicRefusesDanglingLink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	fresh := filepath.Join(other, "fresh.bin")
	dangling := filepath.Join(dir, "dangling.bin")
	if err := os.Symlink(fresh, dangling); err != nil {
		t.Fatal(err)
	}
	// Two hops, the last one dangling.
	viaLink := filepath.Join(dir, "via.bin")
	if err := os.Symlink("dangling.bin", viaLink); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dangling, viaLink} {
		called := false
		err := nets.WriteFileAtomic(path, func(w io.Writer) error { called = true; return nil })
		want := path + " is a symbolic link to " + fresh + ", which does not exist"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", path, err, want)
		}
		if called {
			t.Errorf("%s: the data was produced before the refusal", path)
		}
		if _, err := os.Lstat(fresh); err == nil {
			t.Fatalf("%s: the link's target %s was created", path, fresh)
		}
		if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v, %v)", path, st, err)
		}
	}
}

// A link whose target climbs out of another link ("lnk/../t.png", lnk
// → far/deep) names far/t.png, as the system resolves it, not ./t.png,
// as cleaning the text would: the save replaces far/t.png and leaves
// ./t.png alone.
func TestWriteFileAtomicLinkThroughLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "far", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"far/deep", "lnk"}, {"lnk/../t.png", "x.png"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "t.png"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	// far/t.png exists (a dangling link is refused), so the two
	// readings name two existing files, told apart by identity.
	if err := os.WriteFile(filepath.Join(dir, "far", "t.png"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := nets.AtomicTarget(filepath.Join(dir, "x.png"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(target)
	want, _ := os.Stat(filepath.Join(dir, "far", "t.png"))
	if got == nil || want == nil || !os.SameFile(got, want) {
		t.Errorf("target %s: want far/t.png", target)
	}
	if err := nets.WriteFileAtomic(filepath.Join(dir, "x.png"), func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "far", "t.png")); string(got) != "new" {
		t.Errorf("far/t.png holds %q, want the save", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "t.png")); string(got) != "precious" {
		t.Errorf("./t.png holds %q, want it untouched", got)
	}
	if nets.RawDir("a/lnk/../f") != "a/lnk/../" || nets.RawDir("f") != "" {
		t.Errorf("RawDir: %q, %q", nets.RawDir("a/lnk/../f"), nets.RawDir("f"))
	}
}

// TestWriteNewFileAtomicLeavesALink: a symbolic link at path, even a
// dangling one, holds the name: nothing is written through it.
func TestWriteNewFileAtomicLeavesALink(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.bin")
	dangling := filepath.Join(dir, "dangling.bin")
	if err := os.Symlink(fresh, dangling); err != nil {
		t.Fatal(err)
	}
	if err := nets.WriteNewFileAtomic(dangling, writeString("x")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("error %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s was made through the link (%v)", fresh, err)
	}
}

// TestWriteOwnFileAtomicFollowsNoLink: a file of a command's own folder
// is written only as a regular file: a link, even to a regular file, is
// refused and what it leads to is left as it was; a named pipe is
// refused; a regular file is replaced and a missing one created.
func TestWriteOwnFileAtomicFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "cell.json")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "eval.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		link: link + " is a symbolic link to " + victim + ", not a regular file: refusing to save a cell file over it",
		fifo: fifo + " is a named pipe (FIFO), not a regular file: refusing to save a cell file over it",
	} {
		err := nets.WriteOwnFileAtomic(path, "a cell file", writeString("x"))
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
		var nr *nets.NotRegularFileError
		if !errors.As(err, &nr) {
			t.Errorf("error %v is no *NotRegularFileError", err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the link's target holds %q, want it untouched", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
	for _, name := range []string{"fresh.json", "fresh.json"} { // created, then replaced
		path := filepath.Join(dir, name)
		if err := nets.WriteOwnFileAtomic(path, "a cell file", writeString("new")); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != "new" {
			t.Errorf("%s holds %q, want %q", path, b, "new")
		}
	}
}
