package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"apic/core"
)

// sweepStudy is one sweep of a preset: its directory under the preset's
// --out and the sweep arguments (without --seeds, --tasks and --out).
type sweepStudy struct {
	name string
	args []string
}

// springShipped fixes the training recipe of the shipped spring-lnp
// checkpoint (checkpoints/train-all.sh), noise-aware, at a third of its
// stage-2 steps: 81 trainings of the full recipe would take hours.
var springShipped = []string{
	"--fix", "hidden=64", "--fix", "latent=8", "--fix", "dec-hidden=64", "--fix", "dec-act=relu",
	"--fix", "batch=32", "--fix", "steps1=1000", "--fix", "steps2=2000", "--fix", "lr=1e-3",
	"--fix", "lr-final=1e-4", "--fix", "val-every=1000", "--fix", "noise-range=0:0.1",
}

// withoutStage1 is springShipped with no stage-1 pretraining of the θ
// encoder (steps1=0): where λθ would matter most.
func withoutStage1() []string {
	var args []string
	for i := 0; i < len(springShipped); i += 2 {
		if springShipped[i+1] != "steps1=1000" {
			args = append(args, springShipped[i], springShipped[i+1])
		}
	}
	return append(args, "--fix", "steps1=0")
}

// lambdaValues are the λθ and λδ values of the paper's Appendix B
// figure, 0 and 0.2 included.
const lambdaValues = "0,0.1,0.2,0.5,1,2,5"

// appendixB reproduces the paper's Appendix B on spring/lnp: context
// size 10…95 (at 100 spring's 100-point grid leaves no target) and noise
// on the shipped model (refined and one pass),
// and, training one model per cell and seed, λθ (λδ = 1), λδ (λθ = 1),
// the five regularisers and the number of training trajectories 8k…128k;
// and λθ once more without stage-1 pretraining.
var appendixB = []sweepStudy{
	{"context", []string{"--system", "spring", "--backbone", "lnp", "--vary", "context=10,20,30,40,50,60,70,80,90,95", "--vary", "refine=0,5"}},
	{"noise", []string{"--system", "spring", "--backbone", "lnp", "--vary", "noise=0,0.01,0.02,0.05,0.1,0.2", "--vary", "refine=0,5"}},
	{"lambda-theta", append([]string{"--system", "spring", "--backbone", "lnp", "--vary", "lambda-theta=" + lambdaValues, "--fix", "lambda-delta=1"}, springShipped...)},
	{"lambda-delta", append([]string{"--system", "spring", "--backbone", "lnp", "--vary", "lambda-delta=" + lambdaValues, "--fix", "lambda-theta=1"}, springShipped...)},
	{"reg", append([]string{"--system", "spring", "--backbone", "lnp", "--vary", "reg=l1,l2,orthogonal,spectral,gradpen"}, springShipped...)},
	{"trajectories", append([]string{"--system", "spring", "--backbone", "lnp", "--vary", "trajectories=8000,16000,32000,64000,128000"}, springShipped...)},
	// Ours, not the paper's: λθ without stage 1, to test whether stage 1
	// is what makes λθ irrelevant in the λθ study.
	{"lambda-theta-no-stage1", append([]string{"--system", "spring", "--backbone", "lnp", "--vary", "lambda-theta=0,0.2,1", "--fix", "lambda-delta=1"}, withoutStage1()...)},
}

// presetOf is the preset whose studies are folders of dir (DIR/STUDY/
// cells), its name and the first such folder; nil when dir holds none.
// A dir that also holds a sweep of its own (DIR/cells) is refused by
// --collect and by runs (checkSweepFolder, checkPresetFolder).
func presetOf(dir string) (studies []sweepStudy, name, study string) {
	for _, name := range slices.Sorted(maps.Keys(sweepPresets)) {
		for _, st := range sweepPresets[name] {
			if _, err := os.Stat(filepath.Join(dir, st.name, "cells")); err == nil {
				return sweepPresets[name], name, filepath.Join(dir, st.name)
			}
		}
	}
	return nil, "", ""
}

// checkPresetFolder refuses a preset's --out that holds a sweep of its
// own (DIR/cells): a folder holds one sweep or one preset's studies, and
// --collect would summarise the one and not the other.
func checkPresetFolder(name, out string) error {
	cells := filepath.Join(out, "cells")
	if _, err := os.Stat(cells); err != nil {
		return nil
	}
	return UsageError("--out %s holds a sweep of its own (%s), and a folder holds one sweep or one preset's studies: choose another --out for --preset %s",
		out, cells, name)
}

// checkNotPresetFolder refuses a sweep's --out that holds a preset's
// studies, as checkPresetFolder refuses the reverse.
func checkNotPresetFolder(out string) error {
	studies, name, study := presetOf(out)
	if studies == nil {
		return nil
	}
	return UsageError("--out %s holds the studies of --preset %s (%s), and a folder holds one sweep or one preset's studies: "+
		"choose another --out, or continue the preset with --preset %s --out %s",
		out, name, study, name, out)
}

// sweepPresets are the --preset names.
var sweepPresets = map[string][]sweepStudy{"appendix-b": appendixB}

// presetNames are sweepPresets' names, sorted.
func presetNames() []string { return slices.Sorted(maps.Keys(sweepPresets)) }

// runPresetFlags checks what a preset run may combine and runs it: the
// preset sets the systems and axes; --seeds defaults to 3.
func runPresetFlags(ctx context.Context, fs *flag.FlagSet, f sweepFlags, env *Env) error {
	if err := checkSweepOut(f.out); err != nil {
		return err
	}
	if len(f.vary.entries) > 0 || len(f.fix.entries) > 0 || f.spec.system != "" || f.spec.backbone != "" || f.only != "" {
		return UsageError("--preset sets the system, backbone and axes: drop --system, --backbone, --vary, --fix and --only (the plan's lines carry their own --only)")
	}
	seeds := 3
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "seeds" {
			seeds = f.spec.seeds
		}
	})
	if err := core.LimitSweepSeeds.Check(seeds); err != nil {
		return UsageError("--%v", err)
	}
	if err := core.LimitTasks.Check(f.spec.tasks); err != nil {
		return UsageError("--%v", err)
	}
	return runPreset(ctx, f.preset, f.out, seeds, f.spec.tasks, f.plan, f.jsonOut, f.png, env)
}

// runPreset runs (or plans) every study of a preset into out/NAME, then
// summarises each. seeds and tasks are the user's.
func runPreset(ctx context.Context, name, out string, seeds, tasks int, plan, jsonOut, png bool, env *Env) error {
	studies, ok := sweepPresets[name]
	if !ok {
		return UsageError("--preset %s is no preset (there is %s)", core.QuoteInput(name), strings.Join(presetNames(), ", "))
	}
	if err := checkPresetFolder(name, out); err != nil {
		return err
	}
	if !plan {
		if err := checkSweepSummaries("out", studyDirs(studies, out)...); err != nil {
			return err
		}
	}
	if png && !plan {
		if err := checkSweepFigures(studyDirs(studies, out)...); err != nil {
			return err
		}
	}
	studyEnv := env
	if plan {
		// A plan's only note is warnPlanPath's: once for the preset,
		// not once per study. Errors are returned, not printed.
		quiet := *env
		quiet.Stderr = io.Discard
		studyEnv = &quiet
	}
	// collectPreset prints every study's summary at the end, in the one
	// JSON object of --json: a study's own summary as it finished would
	// print each twice and break that object.
	ctx = context.WithValue(ctx, presetStudyKey{}, true)
	var failedStudies []string
	for _, st := range studies {
		args := append(append([]string{}, st.args...), "--seeds", strconv.Itoa(seeds), "--tasks", strconv.Itoa(tasks), "--out", filepath.Join(out, st.name))
		if plan {
			args = append(args, "--plan")
		}
		if !plan {
			env.Notef("sweep: study %s (%s)", st.name, filepath.Join(out, st.name))
		}
		err := runSweep(ctx, args, studyEnv)
		var cf *cellFailures
		switch {
		case errors.As(err, &cf):
			// As a sweep goes on past a failed cell, a preset goes on
			// past a study with one.
			failedStudies = append(failedStudies, fmt.Sprintf("study %s: %v", st.name, err))
		case err != nil:
			return fmt.Errorf("study %s: %w", st.name, err)
		}
	}
	if plan {
		warnPlanPath(env)
		return nil
	}
	if err := collectPreset(ctx, name, studies, out, sweepOutput{json: jsonOut, png: png}, env); err != nil {
		return err
	}
	if len(failedStudies) > 0 {
		return errors.New(strings.Join(failedStudies, "; "))
	}
	return nil
}

// presetStudyKey marks the context of a preset's study, which leaves
// its summary to the preset (isPresetStudy).
type presetStudyKey struct{}

// isPresetStudy reports whether ctx runs a study of a preset.
func isPresetStudy(ctx context.Context) bool {
	study, _ := ctx.Value(presetStudyKey{}).(bool)
	return study
}

// presetStudyJSON is one study of a preset's --json object: its name,
// its folder and its summary.json.
type presetStudyJSON struct {
	Study   string          `json:"study"`
	Dir     string          `json:"dir"`
	Summary json.RawMessage `json:"summary"`
}

// collectPreset summarises each study directory of a preset's out: as
// text, a heading and the summary per study; with --json, one object
// {"preset", "studies": [{"study", "dir", "summary"}]}, since two
// studies may share an axis and their bare summaries would not say
// which is which.
func collectPreset(ctx context.Context, name string, studies []sweepStudy, out string, o sweepOutput, env *Env) error {
	if o.png {
		if err := checkSweepFigures(studyDirs(studies, out)...); err != nil {
			return err
		}
	}
	found := []presetStudyJSON{}
	for _, st := range studies {
		dir := filepath.Join(out, st.name)
		if _, err := os.Stat(filepath.Join(dir, "cells")); errors.Is(err, os.ErrNotExist) {
			continue
		}
		studyEnv, summary := env, &bytes.Buffer{}
		if o.json {
			captured := *env
			captured.Stdout = summary
			studyEnv = &captured
		} else {
			fmt.Fprintf(env.Stdout, "== %s\n", st.name)
		}
		if err := finishSweep(ctx, dir, o, studyEnv); err != nil {
			return fmt.Errorf("study %s: %w", st.name, err)
		}
		found = append(found, presetStudyJSON{Study: st.name, Dir: dir, Summary: summary.Bytes()})
	}
	if len(found) == 0 {
		return UsageError("%s has no study with finished cells", out)
	}
	if !o.json {
		return nil
	}
	data, err := json.MarshalIndent(struct {
		Preset  string            `json:"preset"`
		Studies []presetStudyJSON `json:"studies"`
	}{name, found}, "", "  ")
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(data, '\n'))
	return err
}

// studyDirs are the folders of a preset's studies under out.
func studyDirs(studies []sweepStudy, out string) []string {
	dirs := make([]string, len(studies))
	for i, st := range studies {
		dirs[i] = filepath.Join(out, st.name)
	}
	return dirs
}
