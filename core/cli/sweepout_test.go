package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweep --out, unlike the file flags (TestOutputInMissingDirectory),
// creates its folder and the missing directories above it, as its
// --help says; --plan creates nothing, and a file in the way is refused
// before any cell runs, named.
func TestSweepOutCreatesMissingDirectories(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a", "b", "sweep")
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", out}
	if code, _, stderr := runCLI(t, append(args, "--plan")...); code != 0 {
		t.Fatalf("--plan: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Fatalf("--plan created %s", filepath.Join(dir, "a"))
	}
	runSweepOK(t, args...)
	if _, err := os.Stat(filepath.Join(out, "results.csv")); err != nil {
		t.Errorf("the sweep into missing directories wrote no results: %v", err)
	}

	file := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(file, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "a", "sweep")
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--out", under)
	if want := "--out " + under + ": " + file + " is not a directory"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--out under a file: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}

	code, help, _ := runCLI(t, "sweep", "--help")
	if code != 0 || !strings.Contains(help, "created with any missing directories above it") {
		t.Errorf("sweep --help does not say --out is created (exit %d):\n%s", code, help)
	}
}

func TestNearestExisting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:                                dir,
		filepath.Join(dir, "x", "y"):       dir,
		filepath.Join(dir, "x", "y") + "/": dir,
		filepath.Join(file, "x"):           file,
		"no-such-dir-here/x":               ".",
		"/":                                "/",
		dir + "/lnk/../x":                  dir,
	} {
		got, st, err := nearestExisting(path)
		if got != want || err != nil || st == nil {
			t.Errorf("nearestExisting(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
}

// A symbolic link to nothing as sweep --out, or above it, is refused
// before any cell runs, as the file flags refuse one (nets.AtomicTarget):
// it used to pass the check and fail every cell with "mkdir lnk: file
// exists", exit 1, and a rerun that could only fail again.
func TestSweepOutDanglingLink(t *testing.T) {
	dir := t.TempDir()
	lnk := filepath.Join(dir, "lnk")
	if err := os.Symlink(filepath.Join(dir, "missing"), lnk); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, out := range []string{lnk, filepath.Join(lnk, "sub")} {
		code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", out)
		want := "--out " + out + ": " + lnk + " is a symbolic link to " + filepath.Join(dir, "missing") + ", which does not exist"
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "cell") {
			t.Errorf("--out %s: exit %d, stderr %q; want 2 and %q before any cell", out, code, stderr, want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "missing")); err == nil {
			t.Errorf("--out %s created the link's target", out)
		}
	}
}
