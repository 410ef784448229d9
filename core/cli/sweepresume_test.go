package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSweepResumesWithOutSpelledOtherwise: a rerun resumes the sweep
// whatever way --out names its folder: relative or absolute, with a
// trailing slash, or from another directory.
func TestSweepResumesWithOutSpelledOtherwise(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	runSweepOK(t, tinySweepArgs("sw")...)
	if err := os.Remove(filepath.Join("sw", "cells", "context=10_noise=0_seed=1", "eval.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cwd, out, skipped string }{
		{dir, filepath.Join(dir, "sw"), "7 of 8"}, // runs the unfinished cell
		{dir, "./sw/", "8 of 8"},
		{filepath.Join(dir, "sub"), "../sw", "8 of 8"},
	} {
		t.Chdir(c.cwd)
		code, _, stderr := runCLI(t, tinySweepArgs(c.out)...)
		if code != 0 || !strings.Contains(stderr, c.skipped+" cells already finished") {
			t.Errorf("rerun with --out %s from %s: exit %d, stderr %q; want %s cells finished", c.out, c.cwd, code, stderr, c.skipped)
		}
		id := "context=30_noise=0.05_seed=2"
		if code, _, stderr := runCLI(t, append(tinySweepArgs(c.out), "--only", id)...); code != 0 {
			t.Errorf("--only %s with --out %s: exit %d, stderr %q", id, c.out, code, stderr)
		}
	}
}

// TestSweepCmdTxtRunsInTheSweepFolder: a cell's cmd.txt, run by hand in
// the sweep's folder, writes the cell's eval.json again: its paths are
// relative to that folder, a relative checkpoint made absolute.
func TestSweepCmdTxtRunsInTheSweepFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ckpt := filepath.Base(tinyCheckpoint(t, dir, "spring", 0, 0))
	for _, c := range []struct {
		args []string
		cell string
	}{
		{[]string{"sweep", "--fix", "checkpoint=" + ckpt, "--vary", "noise=0,0.05", "--tasks", "2", "--fix", "samples=2", "--out", "ev"},
			"noise=0.05_seed=1"},
		{tinyTrainingSweep("lambda-theta=0.5", 2, "tr"), "lambda-theta=0.5_seed=1"},
	} {
		runSweepOK(t, c.args...)
		out := c.args[len(c.args)-1]
		cell := filepath.Join(dir, out, "cells", c.cell)
		cmd := readText(t, filepath.Join(cell, "cmd.txt"))
		if strings.Contains(cmd, dir) != (out == "ev") {
			t.Errorf("cmd.txt %q: want folder-relative paths, the checkpoint's absolute", cmd)
		}
		// The model is trained again (its file records the wall time),
		// the evaluations must come out as they did.
		want := map[string]string{}
		for _, name := range []string{"eval.json", "eval-onepass.json", "model.safetensors"} {
			if b, err := os.ReadFile(filepath.Join(cell, name)); err == nil {
				if name != "model.safetensors" {
					want[name] = string(b)
				}
				if err := os.Remove(filepath.Join(cell, name)); err != nil {
					t.Fatal(err)
				}
			}
		}
		runCmdTxt(t, filepath.Join(dir, out), cmd)
		for name, w := range want {
			if got := readText(t, filepath.Join(cell, name)); withoutSource(got) != withoutSource(w) {
				t.Errorf("%s of %s run by hand differs from the sweep's:\n%s\nwant\n%s", name, cmd, got, w)
			}
		}
	}
}

// runCmdTxt runs cmd, a cell's cmd.txt, with bash in dir, with the test
// binary as apic on PATH.
func runCmdTxt(t *testing.T, dir, cmd string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "apic")); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("bash", "-e", "-c", cmd)
	sh.Dir = dir
	sh.Env = append(os.Environ(), sweepMainEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if msg, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("cmd.txt %q in %s: %v\n%s", cmd, dir, err, msg)
	}
}

// withoutSource drops the "checkpoint" line of an eval.json, which
// names the weights as the command was given them, and its
// "checkpoint_sha256", which differs for a model trained again (its
// file records the wall time).
func withoutSource(evalJSON string) string {
	var kept []string
	for _, l := range strings.Split(evalJSON, "\n") {
		if l := strings.TrimSpace(l); !strings.HasPrefix(l, `"checkpoint":`) && !strings.HasPrefix(l, `"checkpoint_sha256":`) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// TestSweepResumesOlderCmdTxt: a cmd.txt written by an older apic, with
// its paths under --out as typed then, still resumes, however --out is
// spelled now.
func TestSweepResumesOlderCmdTxt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	runSweepOK(t, tinySweepArgs("sw")...)
	cells, err := filepath.Glob(filepath.Join("sw", "cells", "*", "cmd.txt"))
	if err != nil || len(cells) != 8 {
		t.Fatalf("cmd.txt files %v (%v)", cells, err)
	}
	for _, path := range cells {
		old := strings.Replace(readText(t, path), " > cells/", " > sw/cells/", 1)
		writeFile(t, filepath.Dir(path), "cmd.txt", old)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(cells[0]), "eval.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, tinySweepArgs(filepath.Join(dir, "sw"))...); code != 0 || !strings.Contains(stderr, "7 of 8 cells already finished") {
		t.Errorf("rerun of a sweep of older cmd.txt files: exit %d, stderr %q", code, stderr)
	}
}

// TestSweepOlderTrainingCmdTxt: an older apic's cmd.txt of a training
// cell, its paths under an --out that needed quoting, is this sweep's;
// with another --tasks it is not, and the text it is compared with
// differs in --tasks alone.
func TestSweepOlderTrainingCmdTxt(t *testing.T) {
	axis, _ := lookupAxis("lambda-theta")
	s := sweepSpec{system: "spring", vary: []axisValues{{axis, []string{"0.5"}}}, seeds: 1, tasks: 2, training: true}
	cells, err := s.cells()
	if err != nil {
		t.Fatal(err)
	}
	q := `'/x y'\''z/sw/cells/lambda-theta=0.5_seed=1/`
	old := "apic train --system spring --lambda-theta=0.5 --seed 1 --out " + q + "model.safetensors'\n" +
		"apic eval --checkpoint " + q + "model.safetensors' --tasks 2 --refine 0 --json > " + q + "eval-onepass.json'\n" +
		"apic eval --checkpoint " + q + "model.safetensors' --tasks 2 --json > " + q + "eval.json'\n"
	if _, same := sameCellCommand(old, s, cells[0]); !same {
		t.Errorf("older cmd.txt %q not taken as this sweep's", old)
	}
	s.tasks = 3
	want, same := sameCellCommand(old, s, cells[0])
	if same || want != strings.ReplaceAll(old, "--tasks 2", "--tasks 3") {
		t.Errorf("with --tasks 3: same %v, compared with %q", same, want)
	}
}

// folderFiles is every file under dir and its contents.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSweepRefusesAnotherSweepsFolder: a sweep into the folder of
// another, of other axes or other settings, is refused before any cell
// runs, by a run, --plan or --only, even where no cell shares a name
// with the other sweep's; the folder is left as it was, and a sweep of
// the same axes and settings extends it.
func TestSweepRefusesAnotherSweepsFolder(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	before := folderFiles(t, out)
	base := []string{"sweep", "--system", "spring", "--seeds", "2", "--out", out}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--vary", "noise=0,0.05", "--tasks", "2", "--fix", "samples=2"},
			[]string{"holds another sweep, which varies context, noise (" + filepath.Join(out, "cells", "context=10_noise=0.05_seed=1", "cell.json"), "this one varies noise", "Choose another --out"}},
		{[]string{"--vary", "context=20", "--vary", "noise=0.1", "--tasks", "3", "--fix", "samples=2"},
			[]string{`holds another sweep, of other settings: its cell context=10_noise=0.05_seed=1 ran with "--tasks 2" where this sweep has "--tasks 3"`}},
		{[]string{"--vary", "context=20", "--vary", "noise=0.1", "--tasks", "2"},
			[]string{`ran with "--samples=2" where this sweep has nothing`}},
		{[]string{"--vary", "context=20", "--vary", "noise=0.1", "--tasks", "2", "--fix", "samples=2", "--backbone", "cnp"},
			[]string{`ran with nothing where this sweep has "--backbone=cnp"`}},
	} {
		for _, mode := range [][]string{nil, {"--plan"}, {"--only", "context=20_noise=0.1_seed=1"}} {
			if c.args[1] == "noise=0,0.05" && len(mode) == 2 {
				mode = []string{"--only", "noise=0_seed=1"}
			}
			args := append(append(append([]string{}, base...), c.args...), mode...)
			code, stdout, stderr := runCLI(t, args...)
			ok := code == 2 && stdout == ""
			for _, w := range c.want {
				ok = ok && strings.Contains(stderr, w)
			}
			if !ok {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args[7:], code, stdout, stderr, c.want)
			}
		}
	}
	if after := folderFiles(t, out); len(after) != len(before) {
		t.Errorf("the refused sweeps left %d files, not %d", len(after), len(before))
	} else {
		for path, text := range before {
			if after[path] != text {
				t.Errorf("the refused sweeps changed %s", path)
			}
		}
	}
	runSweepOK(t, "sweep", "--collect", out)
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10,20", "--vary", "noise=0.05", "--seeds", "3",
		"--tasks", "2", "--fix", "samples=2", "--out", out)
	if n := strings.Count(readText(t, filepath.Join(out, "results.csv")), "\n"); n != 1+8+4 {
		t.Errorf("the extended sweep has %d lines of results, want 13", n)
	}
}

// TestSweepFolderWithBrokenCellJSON: a cell.json that cannot be read
// is refused before any cell runs, naming it and what to do.
func TestSweepFolderWithBrokenCellJSON(t *testing.T) {
	out := t.TempDir()
	cell := filepath.Join(out, "cells", "context=5_seed=1")
	if err := os.MkdirAll(cell, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cell, "cmd.txt", "apic eval\n")
	writeFile(t, cell, "cell.json", "{")
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--out", out)
	if code != 2 || !strings.Contains(stderr, filepath.Join(cell, "cell.json")+": ") || !strings.Contains(stderr, "remove that cell's folder") {
		t.Errorf("exit %d, stderr %q; want 2, the file and what to do", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "cells", "context=10_seed=1")); err == nil {
		t.Error("a cell ran")
	}
}

// TestSweepCollectNamesMixedSweeps: a folder that holds the cells of two
// sweeps (as one written before sweep refused that could) is not
// collected, and the error names each sweep's axes and cells, so that
// they can be moved apart.
func TestSweepCollectNamesMixedSweeps(t *testing.T) {
	out, other := t.TempDir(), t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "noise=0", "--seeds", "1", "--tasks", "2", "--fix", "samples=2", "--out", other)
	foreign := filepath.Join("cells", "noise=0_seed=1")
	if err := os.CopyFS(filepath.Join(out, foreign), os.DirFS(filepath.Join(other, foreign))); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "sweep", "--collect", out)
	for _, want := range []string{"holds the cells of 2 sweeps", "8 cells varying context,noise (context=10_noise=0.05_seed=1, ", " and 5 more)", "1 cell varying noise (noise=0_seed=1)", "move each sweep's cells"} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q lacks %q", code, stderr, want)
		}
	}
}

// TestSweepRefusesAValueSpelledAnotherWay: extending a sweep with a
// value its folder holds under another spelling (5e-2 for 0.05) is
// refused, naming the folder's spelling: the two cells would be one
// setting under two names.
func TestSweepRefusesAValueSpelledAnotherWay(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10", "--vary", "noise=5e-2",
		"--seeds", "2", "--tasks", "2", "--fix", "samples=2", "--out", out)
	if code != 2 || !strings.Contains(stderr, `this sweep spells it "5e-2": give "0.05" as the folder does`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestSweepOnlyRefusesAValueSpelledAnotherWay: a hand-typed --only
// line that spells a value the folder holds another way is refused as
// the whole sweep is, whichever cells the folder holds beside it.
func TestSweepOnlyRefusesAValueSpelledAnotherWay(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	// Only context=30's cells keep the value 0.05, so the folders read
	// first hold noise=0 alone.
	for seed := range 2 {
		if err := os.RemoveAll(filepath.Join(out, "cells", "context=10_noise=0.05_seed="+strconv.Itoa(seed+1))); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "context=10,30", "--vary", "noise=0,5e-2",
		"--seeds", "2", "--tasks", "2", "--fix", "samples=2", "--out", out, "--only", "context=10_noise=0_seed=1")
	if code != 2 || !strings.Contains(stderr, `this sweep spells it "5e-2": give "0.05" as the folder does`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestSweepOlderCmdTxtOfAQuotedFolder: an older apic's cmd.txt whose
// --out needed quoting, with " > " or a quote in its name, is read back
// as the shell reads it (shellWords) and is this sweep's.
func TestSweepOlderCmdTxtOfAQuotedFolder(t *testing.T) {
	axis, _ := lookupAxis("context")
	s := sweepSpec{system: "spring", vary: []axisValues{{axis, []string{"10"}}}, seeds: 1, tasks: 2}
	cells, err := s.cells()
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"a > b", "/x y'z > w/sw", "plain"} {
		old := commandLines(s, cells[0], out, nil)
		if got, ok := legacyFolder(old, cells[0]); !ok || got != out {
			t.Errorf("legacyFolder of %q = %q, %v; want %q", old, got, ok, out)
		}
		if _, same := sameCellCommand(old, s, cells[0]); !same {
			t.Errorf("older cmd.txt %q not taken as this sweep's", old)
		}
	}
}

// TestSweepRerunLooksAtEachFinishedCellOnce: a rerun tells the finished
// cells from the unfinished ones once, for the up-front checks and the
// run alike; only the cell it runs is looked at again, just before it
// runs (another sweep beside it may have finished it meanwhile).
func TestSweepRerunLooksAtEachFinishedCellOnce(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	todo := "context=10_noise=0.05_seed=1"
	if err := os.Remove(filepath.Join(out, "cells", todo, "eval.json")); err != nil {
		t.Fatal(err)
	}
	looks := map[string]int{}
	cellDoneHook = func(id string) { looks[id]++ }
	defer func() { cellDoneHook = nil }()
	runSweepOK(t, tinySweepArgs(out)...)
	if len(looks) != 8 {
		t.Errorf("looked at %d cells, want 8: %v", len(looks), looks)
	}
	for id, n := range looks {
		if want := map[bool]int{true: 2, false: 1}[id == todo]; n != want {
			t.Errorf("looked %d times whether %s is finished, want %d", n, id, want)
		}
	}
}

// TestSweepRerunsACellWhoseCmdTxtEvalFailed: cmd.txt run by hand makes
// the cell's eval.json (and eval-onepass.json) empty before eval runs,
// and leaves them so when eval fails or is interrupted. A rerun of the
// sweep runs that cell again rather than skip it as finished and then
// fail on its empty results; --collect leaves it out meanwhile. A
// result that does hold text but no report says how to run it again.
func TestSweepRerunsACellWhoseCmdTxtEvalFailed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw")
	args := tinyTrainingSweep("lambda-theta=0.5,1", 0, out)
	runSweepOK(t, args...)
	cell := filepath.Join(out, "cells", "lambda-theta=0.5_seed=1")
	want := readText(t, filepath.Join(cell, "eval.json"))
	for _, name := range []string{"eval.json", onePassFile} {
		if err := os.WriteFile(filepath.Join(cell, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, stdout, stderr := runCLI(t, "sweep", "--collect", out); code != 0 || !strings.Contains(stdout, "1 finished cell × seed run") {
		t.Errorf("--collect with an empty eval.json: exit %d, stdout %q, stderr %q; want the other cell alone", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, args...); code != 0 || !strings.Contains(stderr, "1 of 2 cells already finished") {
		t.Fatalf("rerun: exit %d, stderr %q; want the cell of the empty eval.json run again", code, stderr)
	}
	if got := readText(t, filepath.Join(cell, "eval.json")); withoutSource(got) != withoutSource(want) {
		t.Errorf("eval.json after the rerun:\n%s\nwant\n%s", got, want)
	}
	if err := os.WriteFile(filepath.Join(cell, "eval.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "sweep", "--collect", out); code == 0 || !strings.Contains(stderr, "remove that cell's folder ("+cell+")") {
		t.Errorf("--collect with a truncated eval.json: exit %d, stderr %q; want how to run the cell again", code, stderr)
	}
}

// TestSweepNamesACutShortCmdTxt: a cmd.txt that is the start of the one
// this sweep writes (a file cut short) is refused as cut short, naming
// the file and to rerun the cell, not as another sweep's settings; by a
// run, --plan and --only alike.
func TestSweepNamesACutShortCmdTxt(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, tinySweepArgs(out)...)
	cell := filepath.Join(out, "cells", "context=10_noise=0.05_seed=1")
	cmd := readText(t, filepath.Join(cell, "cmd.txt"))
	for _, keep := range []int{0, 20, len(cmd) - 1} {
		writeFile(t, cell, "cmd.txt", cmd[:keep])
		for _, mode := range [][]string{nil, {"--plan"}, {"--only", "context=30_noise=0_seed=1"}} {
			args := append(tinySweepArgs(out), mode...)
			code, _, stderr := runCLI(t, args...)
			want := fmt.Sprintf("the cell context=10_noise=0.05_seed=1's %s is cut short (%d bytes, the start of the %d",
				filepath.Join(cell, "cmd.txt"), keep, len(cmd))
			if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "remove that cell's folder ("+cell+")") ||
				strings.Contains(stderr, "another sweep") {
				t.Errorf("cmd.txt of %d bytes, %v: exit %d, stderr %q; want 2 and %q", keep, mode, code, stderr, want)
			}
		}
	}
}

// TestSweepRefusesAnEvalJSONThatIsNoReport: an eval.json that is JSON
// but no eval report ({}, null) is refused by --collect and a rerun,
// naming it and how to run the cell again, rather than collected as a
// cell whose every metric is missing, which its means then leave out.
func TestSweepRefusesAnEvalJSONThatIsNoReport(t *testing.T) {
	out := t.TempDir()
	args := tinySweepArgs(out)
	runSweepOK(t, args...)
	cell := filepath.Join(out, "cells", "context=10_noise=0.05_seed=1")
	for _, text := range []string{"{}", "null", `{"metrics": {}}`} {
		writeFile(t, cell, "eval.json", text)
		for _, run := range [][]string{{"sweep", "--collect", out}, args} {
			code, _, stderr := runCLI(t, run...)
			want := filepath.Join(cell, "eval.json") + ": no system or no metrics"
			if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "remove that cell's folder ("+cell+")") {
				t.Errorf("eval.json %s, %v: exit %d, stderr %q; want %q and how to run the cell again", text, run[1], code, stderr, want)
			}
		}
	}
}
