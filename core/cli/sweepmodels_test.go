package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepCheckpointsOfTheSweepsSystem: an evaluation sweep over
// checkpoints refuses, before any cell runs, a file whose system
// disagrees with --system or whose backbone disagrees with --backbone,
// and, without --system, files of two systems: the cells' eval reads
// each file's own, and tabled them side by side as one system's models.
func TestSweepCheckpointsOfTheSweepsSystem(t *testing.T) {
	dir := t.TempDir()
	spring := tinyCheckpoint(t, dir, "spring", 0, 0)
	lv := tinyCheckpoint(t, dir, "lv", 0, 0)
	both := "checkpoint=" + lv + "," + spring
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--system", []string{"--system", "lv", "--vary", both},
			"apic eval: --system lv disagrees with checkpoint " + spring + " (system spring)"},
		{"--backbone", []string{"--backbone", "cnp", "--fix", "checkpoint=" + lv, "--vary", "noise=0,0.1"},
			"apic eval: --backbone cnp disagrees with checkpoint " + lv + " (backbone lnp)"},
		{"two systems", []string{"--vary", both},
			"the checkpoints are of two systems (" + lv + ": lv, " + spring + ": spring): a sweep compares one system's models"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "sweep-"+strings.TrimLeft(tc.name, "-"))
			for _, mode := range [][]string{nil, {"--plan"}} {
				args := append(append(append([]string{"sweep"}, tc.args...), "--tasks", "2", "--out", out), mode...)
				code, _, stderr := runCLI(t, args...)
				if code != 2 || !strings.Contains(stderr, tc.want) {
					t.Errorf("%v: exit %d, stderr %q; want 2 and %q", mode, code, stderr, tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "cells")); !os.IsNotExist(err) {
				t.Errorf("a cell ran before the refusal: %v", err)
			}
		})
	}
}
