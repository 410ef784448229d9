package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// TestTrainDefaultsTrainAsWithout: each setting sameSettings takes as
// one of train's defaults (trainDefaults) trains what train trains
// without it: the same configuration, stored as the same type. The
// steps are left out (a model of the system's thousands of steps is no
// unit test): they are core.DefaultConfig's, as the widths are. A
// second system and backbone check the defaults that are the system's
// (those of every system once: lv's recalibration takes seconds), and
// --heads, which only anp takes.
func TestTrainDefaultsTrainAsWithout(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct{ system, backbone string }{{"spring", "lnp"}, {"lv", "anp"}} {
		defaults := trainDefaults(c.system, map[string]string{"backbone": c.backbone})
		for _, flag := range slices.Sorted(maps.Keys(defaults)) {
			_, everySystem := trainFlagDefaults[flag]
			// train refuses --heads for a backbone without attention
			// (an older cell's cmd.txt may hold it: it trained as
			// without, which sameSettings still says).
			noAttention := flag == "heads" && c.backbone != "anp"
			if flag == "steps1" || flag == "steps2" || i > 0 && everySystem || noAttention {
				continue
			}
			base := []string{"train", "--system", c.system, "--backbone", c.backbone, "--steps1", "0", "--steps2", "0"}
			if flag != "recalibrate" {
				base = append(base, "--recalibrate", "0")
			}
			without, with := filepath.Join(dir, "without.safetensors"), filepath.Join(dir, "with.safetensors")
			runSweepOK(t, append(base, "--force", "--out", without)...)
			runSweepOK(t, append(base, "--force", "--"+flag+"="+defaults[flag], "--out", with)...)
			if a, b := trainedAs(t, without), trainedAs(t, with); a != b {
				t.Errorf("%s/%s: --%s=%s trains\n%s\nwithout it\n%s", c.system, c.backbone, flag, defaults[flag], b, a)
			}
		}
	}
}

// TestTrainDefaultsCoverTheAxes: every flag a training sweep may set
// has a default in trainDefaults (so that giving it is giving nothing),
// but --noise, which no value leaves unset; those of systemDefaults
// come from the system, the others from train's own flags.
func TestTrainDefaultsCoverTheAxes(t *testing.T) {
	defaults := trainDefaults("spring", map[string]string{})
	for _, a := range trainAxes {
		_, have := defaults[a.flag]
		if have == (a.flag == "noise") {
			t.Errorf("--%s: has a default %v", a.flag, have)
		}
	}
	for flag := range systemDefaults {
		if _, fromFlags := trainFlagDefaults[flag]; fromFlags || defaults[flag] == "" {
			t.Errorf("--%s: from train's flags %v, from the system %q", flag, fromFlags, defaults[flag])
		}
	}
	if len(defaults) != len(trainFlagDefaults)+len(systemDefaults) {
		t.Errorf("trainDefaults sets %d flags, want %d of train's and %d of the system's", len(defaults), len(trainFlagDefaults), len(systemDefaults))
	}
	// The values train's --help shows, as the sweep compares them.
	want := map[string]string{
		"backbone": "lnp", "form": "native", "reg": "l2", "dec-act": "silu", "dtype": "f32",
		"lr": "0.0005", "lr-final": "0", "lambda-theta": "1", "lambda-delta": "1", "clip": "10",
		"trajectories": "0", "basis": "0", "noise-range": defaultNoiseRange, "grid-summary": "false", "no-theta-hint": "false",
		"recalibrate": strconv.Itoa(core.DefaultRecalibrationTasks),
	}
	if !maps.Equal(trainFlagDefaults, want) {
		t.Errorf("train's flag defaults\n%v\nwant\n%v", trainFlagDefaults, want)
	}
}

// TestTrainDefaultsOfTheSystem pins the defaults trainDefaults takes
// from the system and backbone (core.DefaultConfig, TrainContext):
// those of systemDefaults; --latent-delta follows a
// --latent the line gives. A change of a system's defaults changes
// these values too.
func TestTrainDefaultsOfTheSystem(t *testing.T) {
	want := map[string]map[string]string{
		"spring/lnp": {"batch": "64", "context-range": "15:100", "dec-hidden": "64", "dec-layers": "2", "heads": "4",
			"hidden": "64", "latent": "8", "latent-delta": "8", "layers": "2", "steps1": "3000", "steps2": "4000",
			"val-every": "500", "val-tasks": "32"},
		"lv/anp": {"batch": "64", "context-range": "20:100", "dec-hidden": "128", "dec-layers": "2", "heads": "4",
			"hidden": "128", "latent": "16", "latent-delta": "16", "layers": "2", "steps1": "3000", "steps2": "4000",
			"val-every": "500", "val-tasks": "32"},
	}
	for name, w := range want {
		system, backbone, _ := strings.Cut(name, "/")
		got := maps.Clone(trainDefaults(system, map[string]string{"backbone": backbone}))
		maps.DeleteFunc(got, func(flag, _ string) bool { _, fromFlags := trainFlagDefaults[flag]; return fromFlags })
		if !maps.Equal(got, w) {
			t.Errorf("%s: the system's defaults\n%v\nwant\n%v", name, got, w)
		}
	}
	if got := trainDefaults("spring", map[string]string{"latent": "6"})["latent-delta"]; got != "6" {
		t.Errorf("--latent 6: --latent-delta's default %q, want 6", got)
	}
}

// trainedAs is the configuration of the checkpoint at path, as JSON,
// its context range resolved (train records a --context-range given,
// and leaves the system's to the system), and the types it stores its
// weights as.
func trainedAs(t *testing.T, path string) string {
	t.Helper()
	m, _, err := core.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Config
	if sys, err := sims.Lookup(cfg.Arch.System); err == nil && cfg.Train.ContextMin == 0 {
		cfg.Train.ContextMin, cfg.Train.ContextMax = sys.TrainContext()
	}
	text, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := nets.ReadSafetensorsFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	types := slices.Sorted(maps.Values(f.DTypes))
	return fmt.Sprintf("%s stored as %v", text, slices.Compact(types))
}

// TestSweepResumesWithTrainDefaultsGivenOrNot: a training sweep that
// gives train's defaults resumes without them, and the other way round,
// as one that gives eval's does: the cells run the same commands.
func TestSweepResumesWithTrainDefaultsGivenOrNot(t *testing.T) {
	defaults := []string{"--fix", "lambda-delta=1", "--fix", "dtype=f32", "--fix", "layers=2"}
	for _, first := range []bool{true, false} {
		out := t.TempDir()
		plain := tinyTrainingSweep("lambda-theta=0.5", 0, out)
		given := append(append([]string{}, plain...), defaults...)
		a, b := given, plain
		if !first {
			a, b = plain, given
		}
		runSweepOK(t, a...)
		if code, _, stderr := runCLI(t, b...); code != 0 || !strings.Contains(stderr, "1 of 1 cells already finished") {
			t.Errorf("%v after %v: exit %d, stderr %q; want the sweep resumed", b[len(b)-6:], a[len(a)-6:], code, stderr)
		}
	}
}

// TestTrainingSweepKeepsOnePassWithDefaultRefine: --fix refine=-1 is
// eval's default, so a training sweep that gives it runs the cells'
// commands of one that does not, one-pass evaluation included, and
// each resumes the other.
func TestTrainingSweepKeepsOnePassWithDefaultRefine(t *testing.T) {
	for _, first := range []bool{true, false} {
		out := t.TempDir()
		plain := tinyTrainingSweep("lambda-theta=0.5", 0, out)
		given := append(append([]string{}, plain...), "--fix", "refine=-1")
		a, b := given, plain
		if !first {
			a, b = plain, given
		}
		runSweepOK(t, a...)
		if _, err := os.Stat(filepath.Join(out, "cells", "lambda-theta=0.5_seed=1", onePassFile)); err != nil {
			t.Errorf("%v: no one-pass evaluation: %v", a[len(a)-4:], err)
		}
		if code, _, stderr := runCLI(t, b...); code != 0 || !strings.Contains(stderr, "1 of 1 cells already finished") {
			t.Errorf("%v after %v: exit %d, stderr %q; want the sweep resumed", b[len(b)-4:], a[len(a)-4:], code, stderr)
		}
	}
}
