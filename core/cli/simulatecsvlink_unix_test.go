//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// csvPair runs simulate --system advdiff --csv dir/obs.csv with seed
// once, so that dir holds an earlier run's obs.csv and obs-u0.csv, and
// returns obs.csv's path and content.
func csvPair(t *testing.T, dir string) (obs, u0 string, before []byte) {
	t.Helper()
	obs, u0 = filepath.Join(dir, "obs.csv"), filepath.Join(dir, "obs-u0.csv")
	if code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", "1", "--csv", obs); code != 0 {
		t.Fatalf("first simulate --csv: exit %d, stderr %q", code, errOut)
	}
	before, err := os.ReadFile(obs)
	if err != nil {
		t.Fatal(err)
	}
	return obs, u0, before
}

// onlyFiles fails unless dir holds exactly names (no temporary files
// or kept copies left behind).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestSimulateCSVPairRefusedUpFront: a u0 file advdiff's --csv cannot
// replace (a directory, a link to one, a dangling link, a FIFO), or
// one that is the observation file itself through a link, is refused
// before anything is written: the earlier obs.csv is unchanged. A link
// from obs-u0.csv to obs.csv had the u0 written over the observations
// just written, and the command succeeded.
func TestSimulateCSVPairRefusedUpFront(t *testing.T) {
	for name, tc := range map[string]struct {
		plant func(t *testing.T, dir, u0 string)
		want  string
	}{
		"directory": {func(t *testing.T, dir, u0 string) {
			if err := os.Mkdir(u0, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "obs-u0.csv is a directory, not a regular file"},
		"link to a directory": {func(t *testing.T, dir, u0 string) {
			if err := os.Symlink(dir, u0); err != nil {
				t.Fatal(err)
			}
		}, "which is a directory, not a regular file"},
		"dangling link": {func(t *testing.T, dir, u0 string) {
			if err := os.Symlink("nowhere.csv", u0); err != nil {
				t.Fatal(err)
			}
		}, "which does not exist: refusing to create a file through the link"},
		"FIFO": {func(t *testing.T, dir, u0 string) {
			if err := syscall.Mkfifo(u0, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "obs-u0.csv is a named pipe (FIFO), not a regular file"},
		"link to obs.csv": {func(t *testing.T, dir, u0 string) {
			if err := os.Symlink("obs.csv", u0); err != nil {
				t.Fatal(err)
			}
		}, "are the same file (a link leads from one to the other)"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			obs, u0, before := csvPair(t, dir)
			if err := os.Remove(u0); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, dir, u0)
			code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", "2", "--csv", obs)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
			if after, _ := os.ReadFile(obs); string(after) != string(before) {
				t.Error("obs.csv was changed")
			}
			onlyFiles(t, dir, "obs-u0.csv", "obs.csv")
		})
	}
}

// TestSimulateCSVObsLinkToU0: obs.csv a link to obs-u0.csv is refused
// too, the u0 file unchanged.
func TestSimulateCSVObsLinkToU0(t *testing.T) {
	dir := t.TempDir()
	obs, u0, _ := csvPair(t, dir)
	before, err := os.ReadFile(u0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(obs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("obs-u0.csv", obs); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", "2", "--csv", obs)
	if want := "are the same file"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if after, _ := os.ReadFile(u0); string(after) != string(before) {
		t.Error("obs-u0.csv was changed")
	}
}
