package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// calibrateLine is the calibrate command simulate --csv printed on
// stderr, as arguments after "apic".
func calibrateLine(t *testing.T, stderr string) []string {
	t.Helper()
	_, cmd, ok := strings.Cut(stderr, "calibrate them with:\n  apic ")
	if !ok {
		t.Fatalf("stderr %q names no calibrate command", stderr)
	}
	return strings.Fields(strings.TrimSpace(cmd))
}

// TestSimulateCSVRoundTrip: the file simulate --csv writes, calibrated
// by the command it prints (lv's --u0 and advdiff's --u0-file
// included), recovers every θ within its 95% interval on a seeded
// noisy case, with the shipped models.
func TestSimulateCSVRoundTrip(t *testing.T) {
	for _, system := range []string{"spring", "lv", "advdiff"} {
		t.Run(system, func(t *testing.T) {
			sys := lookup(t, system)
			path := filepath.Join(t.TempDir(), "obs.csv")
			code, _, errOut := runCLI(t, "simulate", "--system", system, "--seed", "11", "--noise", "0.01", "--csv", path)
			if code != 0 {
				t.Fatalf("simulate --csv: exit %d, stderr %q", code, errOut)
			}
			args := calibrateLine(t, errOut)
			if args[0] != "calibrate" {
				t.Fatalf("printed command %q is not calibrate", args)
			}
			res, _ := calibrateJSON(t, args[1:]...)
			r := DrawRealization(sys, 11)
			for i, p := range sys.Params() {
				got := res.Theta[p.Name]
				if truth := r.Theta[i]; truth < got.Lo95 || truth > got.Hi95 {
					t.Errorf("%s = %v outside the 95%% interval [%v, %v]", p.Name, truth, got.Lo95, got.Hi95)
				}
			}
		})
	}
}

// TestSimulateCSVFormat: --csv writes --context points of the seed's
// realization on the grid, in calibrate's format (header included),
// the true values exactly without noise; the same seed writes the same
// file, and --seed names the same realization with --csv as without.
func TestSimulateCSVFormat(t *testing.T) {
	dir := t.TempDir()
	sys := lookup(t, "lv")
	write := func(name string, args ...string) string {
		path := filepath.Join(dir, name)
		code, out, errOut := runCLI(t, append([]string{"simulate", "--system", "lv", "--json", "--csv", path}, args...)...)
		if code != 0 {
			t.Fatalf("simulate --csv %v: exit %d, stderr %q", args, code, errOut)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(flatten(t, obj["true"]), DrawRealization(sys, 5).True) {
			t.Fatal("--csv changed the realization that --seed 5 names")
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(text)
	}
	text := write("a.csv", "--seed", "5", "--context", "7")
	if !strings.HasPrefix(text, simulateCSVMark+" (lv): observations for calibrate --data\nt,prey,predator\n") {
		t.Fatalf("file starts %.80q, want the mark, then the header t,prey,predator", text)
	}
	obs, err := parseObservations(context.Background(), strings.NewReader(text), "a.csv", sys.Grid(), nil)
	if err != nil {
		t.Fatalf("calibrate's reader refuses the file: %v", err)
	}
	r := DrawRealization(sys, 5)
	if obs.Len() != 7 {
		t.Fatalf("%d observations, want 7", obs.Len())
	}
	for i, g := range obs.GridIndex {
		if g < 0 || i > 0 && g <= obs.GridIndex[i-1] {
			t.Fatalf("grid indices %v: not on the grid in increasing order", obs.GridIndex)
		}
		for c, v := range obs.Values[i] {
			if want := r.True[2*g+c]; v != want {
				t.Errorf("row %d channel %d = %v, want the true value %v", i, c, v, want)
			}
		}
	}
	if again := write("b.csv", "--seed", "5", "--context", "7"); again != text {
		t.Error("the same seed wrote another file")
	}
	if noisy := write("c.csv", "--seed", "5", "--context", "7", "--noise", "0.1"); noisy == text {
		t.Error("--noise 0.1 wrote the noise-free file")
	}
}

// TestSimulateCSVUsageErrors: --csv's flags are checked before anything
// is drawn or written, and the file is saved only over a regular file
// that --csv could have written.
func TestSimulateCSVUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "obs.csv")
	notes := writeFile(t, dir, "notes.txt", "precious\n")
	oldCSV := writeFile(t, dir, "old.csv", simulateCSVMark+" (spring): observations for calibrate --data\nt,y\n1,2\n")
	measured := writeFile(t, dir, "measured.csv", "t,y\n1,2\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--context", "5"}, "--context and --noise choose the observations that --csv writes: give --csv FILE too"},
		{[]string{"--noise", "0.1"}, "give --csv FILE too"},
		{[]string{"--csv", out, "--context", "-1"}, "--context must be ≥ 0 (0: the system's test size, 30), got -1"},
		{[]string{"--csv", out, "--context", "101"}, "--context 101 is more than the 100 points of spring's grid"},
		{[]string{"--csv", out, "--noise", "-0.1"}, "--noise must be between 0 and 1000"},
		{[]string{"--csv", out, "--noise", "1000"}, "beyond the range |y| ≤ 1000 that calibrate accepts: give a smaller --noise"},
		{[]string{"--csv", "-"}, "--csv -: the file is written to disk"},
		{[]string{"--csv", dir}, "is a directory"},
		{[]string{"--csv", filepath.Join(dir, "no", "obs.csv")}, "does not exist"},
		{[]string{"--csv", notes}, "notes.txt exists and is not a file that simulate --csv wrote: refusing to replace it"},
		// Measurements are observations too: the refusal says what the
		// file lacks, that --csv did not write it.
		{[]string{"--csv", measured}, "measured.csv exists and is not a file that simulate --csv wrote"},
	} {
		code, stdout, errOut := runCLI(t, append([]string{"simulate", "--system", "spring"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2, no output and %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused --csv wrote its file")
	}
	if data, _ := os.ReadFile(notes); string(data) != "precious\n" {
		t.Errorf("notes.txt now holds %q", data)
	}
	code, _, errOut := runCLI(t, "simulate", "--system", "spring", "--csv", oldCSV)
	if data, _ := os.ReadFile(oldCSV); code != 0 || strings.Count(string(data), "\n") != 32 {
		t.Errorf("rerun over an earlier --csv file: exit %d, stderr %q, file %.40q", code, errOut, data)
	}
}

// TestSideCSVRefusedNamesIt: a u0 file advdiff's --csv cannot write
// is named as the one written beside --csv's file, not as --csv.
func TestSideCSVRefusedNamesIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "obs-u0.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	obs := filepath.Join(dir, "obs.csv")
	code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--csv", obs)
	if want := "the u0 file --csv " + obs + " writes beside it: --csv: " + filepath.Join(dir, "obs-u0.csv") + " is a directory, not a regular file: refusing to save a CSV file over it"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if _, err := os.Stat(obs); err == nil {
		t.Error("the observation file was written")
	}
}

// TestCSVNeedsAName: --csv .csv wrote a hidden .csv and, for advdiff,
// its u0 as -u0.csv; a name that is only an extension is now refused,
// naming it, before anything is written.
func TestCSVNeedsAName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".csv", ".CSV", ".obs"} {
		path := filepath.Join(dir, name)
		code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--csv", path)
		if want := "--csv " + path + " has no name before its extension " + name + ": give a file name, such as obs.csv"; code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--csv %s: exit %d, stderr %q; want 2 and %q", name, code, errOut, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a refused --csv wrote %s", entries[0].Name())
	}
}

// TestSideCSVPath: advdiff's u0 goes beside the observation file.
func TestSideCSVPath(t *testing.T) {
	for path, want := range map[string]string{"obs.csv": "obs-u0.csv", "d/Run.CSV": "d/Run-u0.csv", "data": "data-u0.csv"} {
		if got := sideCSVPath(path); got != want {
			t.Errorf("sideCSVPath(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestIsApicCSV: only the mark --csv writes first makes a file
// replaceable; a measurement file with calibrate's header is not.
func TestIsApicCSV(t *testing.T) {
	for head, want := range map[string]bool{
		simulateCSVMark + " (lv): observations\nt,prey,predator\n": true, "\ufeff" + simulateCSVMark + " (advdiff)\nx,u\n": true,
		"t,y\n1,2\n": false, "t,prey,predator\r\n": false, "x,u\n0,1": false, "# notes\nt,y\n": false, "precious\n": false,
	} {
		if got := isApicCSV([]byte(head), int64(len(head))); got != want {
			t.Errorf("isApicCSV(%q) = %v, want %v", head, got, want)
		}
	}
}

// TestSimulateCSVWarnsNoiseBeyondShipped: --noise 1 (typed for 0.1) is
// written, but with a warning naming the noise the shipped checkpoints
// were trained on; 0.1, within it, gets none.
func TestSimulateCSVWarnsNoiseBeyondShipped(t *testing.T) {
	dir := t.TempDir()
	for noise, warned := range map[string]bool{"1": true, "0.1": false, "0": false} {
		code, _, errOut := runCLI(t, "simulate", "--system", "spring", "--csv", filepath.Join(dir, "obs.csv"), "--noise", noise)
		want := "warning: --noise " + noise + " is more than the shipped spring checkpoints were trained on (σ from 0 to 0.1)"
		if code != 0 || strings.Contains(errOut, want) != warned || strings.Contains(errOut, "warning:") != warned {
			t.Errorf("--noise %s: exit %d, stderr %q; want exit 0 and a warning %v", noise, code, errOut, warned)
		}
	}
}

// TestTrainOutNeedsAName: train --out refuses a name that is only an
// extension, as --csv and --png do, before training.
func TestTrainOutNeedsAName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".safetensors")
	code, _, errOut := runCLI(t, "train", "--system", "spring", "--steps1", "1", "--steps2", "1", "--out", path)
	if want := "--out " + path + " has no name before its extension .safetensors: give a file name, such as model.safetensors"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a refused --out wrote %s", entries[0].Name())
	}
}

// TestSimulateCSVReplacesLongNames: an advdiff pair whose names are
// within the file system's limit of 255 bytes is written and then
// replaced; the replacement keeps the old files aside under names that
// repeat theirs, which ran past that limit ("file name too long").
func TestSimulateCSVReplacesLongNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("o", 240)+".csv") // its u0 file's name: 247 bytes
	for _, seed := range []string{"1", "2"} {
		if code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--seed", seed, "--csv", path); code != 0 {
			t.Fatalf("--seed %s: exit %d, stderr %q", seed, code, errOut)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 2 {
		t.Errorf("folder holds %d files (%v), want the pair alone", len(entries), err)
	}
}
