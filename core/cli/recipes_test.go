package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shippedRecipe reads a script of checkpoints/ (train-all.sh, atlas.sh),
// the commands that made the shipped checkpoints.
func shippedRecipe(t *testing.T, name string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "checkpoints", name))
	if err != nil {
		t.Fatal(err)
	}
	// A command continued over lines is one line.
	return strings.ReplaceAll(string(text), "\\\n", " ")
}

// recipeNumber matches a number flag given a literal value in a
// recipe's train command: --lr 1e-3, --lambda-delta 100.
var recipeNumber = regexp.MustCompile(`--([a-z][a-z0-9-]*) "?([0-9][0-9.e+-]*)"?(?:\s|$)`)

// checkTrainFlag runs train's checks, and only those (Env.check), on
// one number flag given beside the least a fresh spring model needs.
func checkTrainFlag(t *testing.T, name, value string) error {
	t.Helper()
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, cmd: commands["train"], check: &checkOnly{}}
	args := argsWith([]string{"--system", "spring", "--steps1", "0", "--steps2", "0", "--recalibrate", "0", "--out", "m.safetensors"}, "--"+name, value)
	return env.cmd.Run(context.Background(), args, env)
}

// TestShippedRecipesWithinBounds: the bounds of train's number flags
// (--lr in (0, 1], λθ and λδ at most 10000, …) are no tighter than the
// recipes that made the shipped checkpoints: every literal number a
// train command of checkpoints/train-all.sh or atlas.sh gives, and every
// value an atlas sweep varies or fixes, passes train's checks, and each
// atlas sweep passes its own (--plan checks every cell's commands).
func TestShippedRecipesWithinBounds(t *testing.T) {
	checked := 0
	for _, script := range []string{"train-all.sh", "atlas.sh"} {
		for _, line := range strings.Split(shippedRecipe(t, script), "\n") {
			_, cmd, ok := strings.Cut(line, "apic train ")
			if !ok {
				continue
			}
			for _, m := range recipeNumber.FindAllStringSubmatch(cmd, -1) {
				if err := checkTrainFlag(t, m[1], m[2]); err != nil {
					t.Errorf("%s: --%s %s: %v", script, m[1], m[2], err)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d numbers of the recipes' train commands: the scripts' commands were not found", checked)
	}

	// atlas.sh's sweeps, with its variables ($L, $LV, $AD) expanded.
	atlas := shippedRecipe(t, "atlas.sh")
	vars := map[string]string{"$work": t.TempDir()}
	for _, m := range regexp.MustCompile(`(?m)^(L|LV|AD)="?([^"\n]*)"?$`).FindAllStringSubmatch(atlas, -1) {
		vars["$"+m[1]] = m[2]
	}
	sweeps := 0
	for _, line := range strings.Split(atlas, "\n") {
		_, cmd, ok := strings.Cut(line, "apic sweep ")
		comment := strings.HasPrefix(strings.TrimSpace(line), "#")
		if !ok || comment || strings.Contains(cmd, "--preset") { // the preset's plan: TestSweepPresetPlan
			continue
		}
		cmd, _, _ = strings.Cut(cmd, "|")
		for _, name := range []string{"$work", "$LV", "$AD", "$L"} { // $L after $LV: a prefix of it
			cmd = strings.ReplaceAll(cmd, name, vars[name])
		}
		args := append([]string{"sweep"}, strings.Fields(strings.ReplaceAll(cmd, `"`, ""))...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("atlas.sh: apic %s: exit %d, %s", strings.Join(args, " "), code, stderr)
		}
		for _, m := range regexp.MustCompile(`--(?:fix|vary) ([a-z0-9-]+)=(\S+)`).FindAllStringSubmatch(cmd, -1) {
			a, _ := lookupAxis(m[1])
			for _, v := range strings.Split(m[2], ",") {
				if _, err := strconv.ParseFloat(v, 64); err == nil && a.train {
					if err := checkTrainFlag(t, a.flag, v); err != nil {
						t.Errorf("atlas.sh: %s=%s: %v", m[1], v, err)
					}
				}
			}
		}
		sweeps++
	}
	if sweeps != 4 {
		t.Errorf("ran %d of atlas.sh's sweeps, want its 4", sweeps)
	}
}
