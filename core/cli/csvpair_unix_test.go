//go:build unix

package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateCSVPairFailureLeavesObs: when the u0 file cannot be put
// in place after the checks (a directory made at its name meanwhile,
// before or after the new obs.csv is in place), obs.csv is left as it
// was before the command (or absent, if it was), nothing is left
// behind, and the error says so. Before, the new observations stayed
// beside the old u0 and the error named only the u0 file.
func TestSimulateCSVPairFailureLeavesObs(t *testing.T) {
	for _, tc := range []struct {
		name, stage string
		earlier     bool // an earlier run's obs.csv is there
	}{
		{"before either is placed", "written", true},
		{"after obs.csv is placed", "placed", true},
		{"new obs.csv", "placed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			obs, u0 := filepath.Join(dir, "obs.csv"), filepath.Join(dir, "obs-u0.csv")
			var before []byte
			if tc.earlier {
				obs, u0, before = csvPair(t, dir)
			}
			planted := false
			pairStage = func(stage string) {
				if !planted && strings.HasPrefix(stage, tc.stage) {
					planted = true
					os.Remove(u0)
					if err := os.Mkdir(u0, 0o755); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { pairStage = nil }()
			code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", "2", "--csv", obs)
			want := obs + " left as it was"
			if tc.stage == "written" {
				want = "refusing to save a CSV file over it; nothing was written"
			}
			if code == 0 || !strings.Contains(errOut, u0) || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stderr %q; want a failure naming %s and %q", code, errOut, u0, want)
			}
			after, err := os.ReadFile(obs)
			switch {
			case tc.earlier && string(after) != string(before):
				t.Error("obs.csv was changed")
			case !tc.earlier && err == nil:
				t.Error("obs.csv was written beside no u0 file")
			}
			if tc.earlier {
				onlyFiles(t, dir, "obs-u0.csv", "obs.csv")
			} else {
				onlyFiles(t, dir, "obs-u0.csv")
			}
		})
	}
}

// TestSimulateCSVPairRestoreFails: when the earlier obs.csv cannot be
// put back either, the error says plainly that obs.csv no longer
// matches the u0 file and where its previous content is kept.
func TestSimulateCSVPairRestoreFails(t *testing.T) {
	dir := t.TempDir()
	obs, u0, before := csvPair(t, dir)
	pairStage = func(stage string) {
		if stage == "placed "+obs {
			os.Remove(u0)
			os.Remove(obs)
			for _, d := range []string{u0, obs, filepath.Join(obs, "x")} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Error(err)
				}
			}
		}
	}
	defer func() { pairStage = nil }()
	code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", "2", "--csv", obs)
	want := obs + " was already replaced and no longer matches " + u0 + " (its previous content is in "
	if code == 0 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want a failure and %q", code, errOut, want)
	}
	_, rest, _ := strings.Cut(errOut, want)
	kept, _, _ := strings.Cut(rest, ";")
	if got, err := os.ReadFile(kept); err != nil || string(got) != string(before) {
		t.Errorf("the kept copy %s: %v, content changed: %v", kept, err, string(got) != string(before))
	}
}

// TestWriteFilesTogetherWriteFails: when the second file's content
// cannot be written (an error, or a panic), the first file is left as
// it was and no temporary file is left behind.
func TestWriteFilesTogetherWriteFails(t *testing.T) {
	for name, second := range map[string]func(w io.Writer) error{
		"error": func(w io.Writer) error { return errors.New("disk full") },
		"panic": func(w io.Writer) error { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			first := writeFile(t, dir, "a.csv", "old\n")
			files := []pairFile{
				{first, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }},
				{filepath.Join(dir, "b.csv"), second},
			}
			var err error
			func() {
				defer func() { _ = recover() }()
				err = writeFilesTogether(files)
			}()
			if name == "error" && (err == nil || !strings.Contains(err.Error(), "b.csv: disk full; nothing was written")) {
				t.Errorf("error %v; want it to name b.csv, the cause and that nothing was written", err)
			}
			if data, _ := os.ReadFile(first); string(data) != "old\n" {
				t.Errorf("a.csv now holds %q", data)
			}
			onlyFiles(t, dir, "a.csv")
		})
	}
}
