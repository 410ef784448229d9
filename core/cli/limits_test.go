package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

// TestTrainRefusesCountsBeyondMemory: the counts that size what training
// holds in memory are refused up front, as usage errors naming the value
// and the limit, before anything is drawn (issue 19: --val-tasks 1e9
// ended in the allocator's crash, losing the trained weights).
func TestTrainRefusesCountsBeyondMemory(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.safetensors")
	base := []string{"train", "--system", "spring", "--steps1", "0", "--steps2", "20", "--out", out}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--val-tasks", "1000000000"}, "--val-tasks must be between 1 and 2000 (every validation realization is held in memory), got 1000000000"},
		{[]string{"--recalibrate", "1000000000"}, "--recalibrate must be between 0 and 2000 (every recalibration realization is held in memory), got 1000000000"},
		{[]string{"--trajectories", "1000000000"}, "--trajectories must be between 0 and 200000 (the training set is held in memory), got 1000000000"},
		{[]string{"--refine", "1000000000"}, "--refine must be between 0 and 1000"},
		{[]string{"--system", "advdiff", "--trajectories", "200000"}, "--trajectories must be between 0 and 28857 (the training set is held in memory, 74 kB per advdiff realization"},
	} {
		code, _, stderr := runCLI(t, argsWith(base, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", tc.args, out)
		}
	}
}

// TestCheckpointCountsBeyondLimits: a checkpoint whose config holds a
// count beyond its limit is refused when read, with the key, the value
// and the limit, by every command that reads it (issue 19: val_tasks 1e9
// crashed train --init; refine 1e9 hung eval, calibrate and the
// explorer).
func TestCheckpointCountsBeyondLimits(t *testing.T) {
	dir := t.TempDir()
	good := tinyCheckpoint(t, dir, "spring", 0, 0)
	for _, tc := range []struct {
		name string
		edit func(*core.Config)
		want string
	}{
		{"val_tasks", func(c *core.Config) { c.Train.ValTasks = 1e9 }, "train.val_tasks: val-tasks must be between 0 and 2000 (every validation realization is held in memory), got 1000000000"},
		{"trajectories", func(c *core.Config) { c.Train.Trajectories = 1e9 }, "train.trajectories: trajectories must be between 0 and 200000"},
		{"refine 1e9", func(c *core.Config) { c.Infer.Refine = 1e9 }, "infer.refine: refine must be between 0 and 1000 (refinement stops within a few steps, once a step lowers its cost by under 1%), got 1000000000"},
		{"refine 1001", func(c *core.Config) { c.Infer.Refine = 1001 }, "got 1001"},
		{"lr", func(c *core.Config) { c.Train.LR = 1e9 }, "train.lr: lr must be in (0, 1] (Adam moves each weight by about the rate per step: more outruns any weight's scale), got 1e+09"},
		{"lambda_delta", func(c *core.Config) { c.Train.LambdaDelta = 1e5 }, "train.lambda_delta: lambda-delta must be in [0, 10000]"},
		{"clip_norm", func(c *core.Config) { c.Train.ClipNorm = 1e300 }, "train.clip_norm: clip must be in [0, 1000000]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := core.LoadCheckpoint(good)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(&m.Config) // Encode does not validate: a crafted file
			bad := filepath.Join(dir, tc.name+".safetensors")
			if err := core.SaveCheckpoint(bad, m, core.Info{}, nets.F32); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"train", "--init", bad, "--steps1", "0", "--steps2", "1", "--out", filepath.Join(dir, "o.safetensors")},
				{"eval", "--checkpoint", bad, "--tasks", "1"},
				{"inspect", bad},
			} {
				code, _, stderr := runCLI(t, args...)
				if code == 0 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, bad) {
					t.Errorf("%v: exit %d, stderr %q, want the file and %q", args[0], code, stderr, tc.want)
				}
			}
		})
	}
}
