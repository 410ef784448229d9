package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSweepHelpCellTimeMatchesAblations: the time per appendix-b cell
// that sweep --help gives is the one docs/ablations.md measured, which
// it cites; the two had drifted apart.
func TestSweepHelpCellTimeMatchesAblations(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ablations.md"))
	if err != nil {
		t.Fatal(err)
	}
	docTime := regexp.MustCompile(`takes about (\d+) s on two cores`).FindSubmatch(doc)
	_, help, _ := runCLI(t, "sweep", "--help")
	helpTime := regexp.MustCompile(`each cell about (\d+) s on two cores`).FindStringSubmatch(help)
	if docTime == nil || helpTime == nil {
		t.Fatalf("cell time not found: docs/ablations.md %q, sweep --help %q", docTime, helpTime)
	}
	if string(docTime[1]) != helpTime[1] {
		t.Errorf("sweep --help says each cell takes about %s s, docs/ablations.md %s s", helpTime[1], docTime[1])
	}
}

// The appendix-b plan lists every cell of its six studies, three seeds
// each, one self-contained line per cell into DIR/STUDY.
func TestSweepPresetPlan(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ab")
	plan := runSweepOK(t, "sweep", "--preset", "appendix-b", "--out", out, "--plan")
	lines := strings.Split(strings.TrimSpace(plan), "\n")
	// context 10 × refine 2, noise 6 × 2, λθ 7, λδ 7, reg 5, trajectories 5,
	// λθ without stage 1 3; × 3 seeds
	if want := (20 + 12 + 7 + 7 + 5 + 5 + 3) * 3; len(lines) != want {
		t.Fatalf("%d plan lines, want %d:\n%s", len(lines), want, plan)
	}
	for _, study := range []string{"context", "noise", "lambda-theta", "lambda-delta", "reg", "trajectories", "lambda-theta-no-stage1"} {
		if !strings.Contains(plan, "--out "+filepath.Join(out, study)+" --only ") {
			t.Errorf("plan has no line for study %s", study)
		}
	}
	for _, w := range []string{"--vary lambda-theta=0,0.1,0.2,0.5,1,2,5 --fix lambda-delta=1", "reg=l1,l2,orthogonal,spectral,gradpen", "trajectories=8000,16000,32000,64000,128000", "--fix noise-range=0:0.1", "_seed=3\n"} {
		if !strings.Contains(plan, w) {
			t.Errorf("plan lacks %q", w)
		}
	}
	if n := strings.Count(plan, "--seeds 2 "); n != 0 {
		t.Errorf("--seeds defaults to 3 in a preset, found --seeds 2 %d times", n)
	}
	two := runSweepOK(t, "sweep", "--preset", "appendix-b", "--out", out, "--plan", "--seeds", "1")
	if strings.Contains(two, "_seed=2") {
		t.Errorf("--seeds 1 planned a second seed")
	}
}

func TestSweepPresetErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "appendix-c", "--out", "x"}, "--preset \"appendix-c\" is no preset"},
		{[]string{"--preset", "appendix-b"}, "--out DIR is required"},
		{[]string{"--preset", "appendix-b", "--out", "x", "--vary", "context=5"}, "--preset sets the system"},
		{[]string{"--preset", "appendix-b", "--out", "x", "--system", "lv"}, "--preset sets the system"},
		{[]string{"--preset", "appendix-b", "--out", "x", "--seeds", "0"}, "seeds"},
	} {
		code, _, errOut := runCLI(t, append([]string{"sweep"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("sweep %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// --collect of a preset's --out summarises each study that has cells.
func TestSweepPresetCollect(t *testing.T) {
	out := t.TempDir()
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=5,10", "--tasks", "2", "--out", filepath.Join(out, "context"))
	code, got, errOut := runCLI(t, "sweep", "--collect", out)
	if code != 0 || !strings.Contains(got, "== context") || strings.Contains(got, "== noise") {
		t.Errorf("collect: exit %d, stderr %q, stdout:\n%s", code, errOut, got)
	}
}

// A folder holds one sweep or one preset's studies: a sweep into a
// preset's --out, and a preset into a sweep's, are refused before any
// cell runs, by a run, --plan and --only, and --collect of a folder
// that holds both (as one written before that was refused could) names
// both instead of summarising one and hiding the other.
func TestSweepPresetAndSweepShareNoFolder(t *testing.T) {
	preset, plain := t.TempDir(), t.TempDir()
	sweep := func(out string, mode ...string) []string {
		return append([]string{"sweep", "--system", "spring", "--vary", "context=5,10", "--tasks", "2", "--out", out}, mode...)
	}
	runSweepOK(t, sweep(filepath.Join(preset, "context"))...)
	runSweepOK(t, sweep(plain)...)
	before := map[string]map[string]string{preset: folderFiles(t, preset), plain: folderFiles(t, plain)}
	for _, mode := range [][]string{nil, {"--plan"}, {"--only", "context=5_seed=1"}} {
		checkRefused(t, sweep(preset, mode...), "--out "+preset+" holds the studies of --preset appendix-b ("+filepath.Join(preset, "context")+")",
			"continue the preset with --preset appendix-b --out "+preset)
	}
	checkRefused(t, []string{"sweep", "--preset", "appendix-b", "--out", plain, "--plan"},
		"--out "+plain+" holds a sweep of its own ("+filepath.Join(plain, "cells")+")", "choose another --out for --preset appendix-b")
	for dir, files := range before {
		checkUnchanged(t, dir, files)
	}
	runSweepOK(t, sweep(filepath.Join(plain, "context"))...)
	checkRefused(t, []string{"sweep", "--collect", plain}, "--collect "+plain+" holds both a sweep ("+filepath.Join(plain, "cells")+
		") and the studies of --preset appendix-b ("+filepath.Join(plain, "context")+")", "collect each apart")
}

// withTinyPreset registers a preset of two small evaluation studies for
// the test's length.
func withTinyPreset(t *testing.T) []string {
	t.Helper()
	studies := []sweepStudy{
		{"tiny-context", []string{"--system", "spring", "--vary", "context=5,10"}},
		{"tiny-noise", []string{"--system", "spring", "--vary", "noise=0,0.05"}},
	}
	sweepPresets["tiny"] = studies
	t.Cleanup(func() { delete(sweepPresets, "tiny") })
	return []string{"tiny-context", "tiny-noise"}
}

// A preset run prints each study's summary once, after the last study:
// not also as each study finishes.
func TestSweepPresetPrintsEachStudyOnce(t *testing.T) {
	withTinyPreset(t)
	out := runSweepOK(t, "sweep", "--preset", "tiny", "--out", t.TempDir(), "--seeds", "1", "--tasks", "2")
	if n := strings.Count(out, "finished cell × seed runs in"); n != 2 {
		t.Errorf("%d summaries, want one per study (2):\n%s", n, out)
	}
}

// preset --json, run or collected, prints one JSON object naming each
// study: two studies may share an axis (lambda-theta and
// lambda-theta-no-stage1 do), so a stream of bare summaries would not
// say which is which.
func TestSweepPresetJSONIsOneObject(t *testing.T) {
	names := withTinyPreset(t)
	dir := t.TempDir()
	run := runSweepOK(t, "sweep", "--preset", "tiny", "--out", dir, "--seeds", "1", "--tasks", "2", "--json")
	collected := runSweepOK(t, "sweep", "--collect", dir, "--json")
	for label, out := range map[string]string{"run": run, "collect": collected} {
		var obj struct {
			Preset  string `json:"preset"`
			Studies []struct {
				Study   string       `json:"study"`
				Dir     string       `json:"dir"`
				Summary sweepSummary `json:"summary"`
			} `json:"studies"`
		}
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil || dec.More() {
			t.Fatalf("%s: not one JSON object (%v):\n%s", label, err, out)
		}
		if obj.Preset != "tiny" || len(obj.Studies) != 2 {
			t.Fatalf("%s: preset %q, %d studies; want tiny, 2", label, obj.Preset, len(obj.Studies))
		}
		for i, st := range obj.Studies {
			if st.Study != names[i] || st.Dir != filepath.Join(dir, names[i]) || len(st.Summary.Cells) != 2 {
				t.Errorf("%s: study %d is %q in %s with %d cells; want %s in %s with 2", label, i, st.Study, st.Dir, len(st.Summary.Cells), names[i], filepath.Join(dir, names[i]))
			}
		}
	}
}

// A study with a failed cell does not stop the preset: the next study
// runs, both are summarised, and the command exits 1 naming the study.
func TestSweepPresetGoesOnPastAFailedStudy(t *testing.T) {
	sweepPresets["failing"] = []sweepStudy{
		{"failing-noise", []string{"--system", "spring", "--vary", "noise=0,1000"}},
		{"failing-context", []string{"--system", "spring", "--vary", "context=5,10"}},
	}
	t.Cleanup(func() { delete(sweepPresets, "failing") })
	code, stdout, stderr := runCLI(t, "sweep", "--preset", "failing", "--out", t.TempDir(), "--seeds", "1", "--tasks", "2")
	if code != 1 || !strings.Contains(stderr, "study failing-noise: 1 of 2 cells failed (noise=1000_seed=1;") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	for _, w := range []string{"== failing-noise", "== failing-context"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
}
