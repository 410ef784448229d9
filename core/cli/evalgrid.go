package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"apic/core"
)

// maxGridCells bounds the conditions of one eval --grid: each is a full
// evaluation.
var maxGridCells = core.Limit{Name: "grid cells", Min: 1, Max: 64, Why: "each cell is a full evaluation"}

// parseIntList parses a comma-separated list of context sizes (each ≥ 1).
func parseIntList(flag, text string) ([]int, error) {
	var out []int
	for i, f := range strings.Split(text, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(f), "-") {
			return nil, UsageError("--%s: context %s%s is too large: context sizes are at most the grid's points less one", flag, core.QuoteInput(f), listEntry(text, i))
		}
		if err != nil || v < 1 {
			return nil, UsageError("--%s wants comma-separated context sizes ≥ 1, got %s%s", flag, core.QuoteInput(f), listEntry(text, i))
		}
		if slices.Contains(out, v) {
			return nil, UsageError("--%s lists context %d twice", flag, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// listEntry names entry i of a comma-separated list of more than one
// entry (" as entry 2 of 3"), so that an empty or mistyped entry can be
// found in a long list; "" for a single value.
func listEntry(text string, i int) string {
	n := strings.Count(text, ",") + 1
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(" as entry %d of %d", i+1, n)
}

// parseNoiseList parses a comma-separated list of noise levels (finite, ≥ 0).
func parseNoiseList(flag, text string) ([]float64, error) {
	var out []float64
	for i, f := range strings.Split(text, ",") {
		v, err := parseNumber(strings.TrimSpace(f)) // as --noise reads it
		if err != nil || !(v >= 0) || !(v <= core.MaxNoise) {
			return nil, UsageError("--%s wants comma-separated noise levels 0 ≤ σ ≤ %v, got %s%s%s", flag, core.MaxNoise, core.QuoteInput(f), listEntry(text, i), becauseOf(err))
		}
		if slices.Contains(out, v) {
			return nil, UsageError("--%s lists noise %v twice", flag, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// gridConditions returns the conditions of eval --grid: the system's
// calibration grid and the small contexts, or the lists given.
func gridConditions(m *core.Model, contexts, noises string) ([]core.Condition, error) {
	cs, ns := core.ConditionContexts(m.Sys), core.ConditionNoises
	small := contexts == ""
	var err error
	if contexts != "" {
		if cs, err = parseIntList("grid-contexts", contexts); err != nil {
			return nil, err
		}
	}
	if noises != "" {
		if ns, err = parseNoiseList("grid-noises", noises); err != nil {
			return nil, err
		}
	}
	for _, c := range cs {
		if err := checkLeavesTargets("--grid-contexts: context", c, m.Sys.Grid()); err != nil {
			return nil, err
		}
	}
	conds := core.GridOf(cs, ns, small)
	if err := maxGridCells.Check(len(conds)); err != nil {
		return nil, UsageError("%v", err)
	}
	return conds, nil
}

// gridTargets are issue 21's targets for the calibration grid.
const (
	gridMaxReconECE = 0.10
	gridMaxDeltaECE = 0.15
	gridMinCover    = 0.90
	gridMaxCover    = 0.99
	gridMinSmallLL  = -5
)

// cellMisses lists the targets a grid cell misses (issue 21): in the
// calibration grid recon ECE ≤ 0.10, δ ECE ≤ 0.15 and θ 95% coverage in
// [0.90, 0.99]; at the small contexts θ coverage ≥ 0.90 and recon LL ≥ −5.
func cellMisses(c core.GridCell, small bool) []string {
	if c.Report == nil {
		return []string{"failed"}
	}
	mt := c.Report.Metrics
	var miss []string
	cover := mt[core.KeyThetaCover].Mean
	if small {
		if !(cover >= gridMinCover) {
			miss = append(miss, thetaCoverLabel)
		}
		if !(mt[core.KeyReconLL].Mean >= gridMinSmallLL) {
			miss = append(miss, "recon LL")
		}
		return miss
	}
	if !(mt[core.KeyReconECE].Mean <= gridMaxReconECE) {
		miss = append(miss, "recon ECE")
	}
	if !(mt[core.KeyDeltaECE].Mean <= gridMaxDeltaECE) {
		miss = append(miss, "δ ECE")
	}
	if !(cover >= gridMinCover && cover <= gridMaxCover) {
		miss = append(miss, thetaCoverLabel)
	}
	return miss
}

// cellOut is a grid cell as eval --grid prints it: with the targets it
// misses (cellMisses).
type cellOut struct {
	core.GridCell
	Misses []string `json:"misses,omitempty"`
}

// runEvalGrid evaluates every condition of the grid and prints one table
// row (or one JSON object) per condition.
func runEvalGrid(ctx context.Context, env *Env, m *core.Model, id checkpointID, base core.EvalOptions, conds []core.Condition, jsonOut bool, warnings []string) error {
	cells, err := core.EvaluateGrid(ctx, m, base, conds)
	if err != nil {
		return err
	}
	smallAt := map[core.Condition]bool{}
	if len(conds) > 0 {
		for _, c := range core.SmallContexts {
			smallAt[core.Condition{Context: c}] = true
		}
	}
	outs := make([]cellOut, len(cells))
	for i, c := range cells {
		outs[i] = cellOut{c, cellMisses(c, smallAt[c.Condition])}
	}
	if jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			System     string    `json:"system"`
			Backbone   string    `json:"backbone"`
			Checkpoint string    `json:"checkpoint"`
			SHA256     string    `json:"checkpoint_sha256"`
			Tasks      int       `json:"tasks"`
			Seed       uint64    `json:"seed"`
			Cells      []cellOut `json:"cells"`
			Warnings   []string  `json:"warnings"`
		}{m.Sys.Name(), string(m.Config.Arch.Backbone), id.source, id.sha256, base.Tasks, base.Seed, outs, append([]string{}, warnings...)})
	}
	fmt.Fprintf(env.Stdout, "%s · %s · %s\n", m.Sys.Title(), strings.ToUpper(string(m.Config.Arch.Backbone)), id.source)
	for _, w := range warnings { // about the file, for every cell
		fmt.Fprintf(env.Stdout, "warning: %s\n", w)
	}
	fmt.Fprintf(env.Stdout, "%s per cell, seed %d; function band scored against G, observation band (%s: its 95%% coverage) on held-out noisy observations;\n"+
		"ECE per realization then averaged (docs/benchmarks.md), and pooled over all realizations' targets (pool)\n\n", core.Count(base.Tasks, "realization"), base.Seed, obsCoverLabel)
	fmt.Fprintf(env.Stdout, "misses: the targets a cell fails: recon ECE ≤ %.2f, δ ECE ≤ %.2f, %s in [%.2f, %.2f];\n"+
		"at contexts %s and noise 0: %s ≥ %.2f and recon LL ≥ %v\n\n",
		gridMaxReconECE, gridMaxDeltaECE, thetaCoverLabel, gridMinCover, gridMaxCover, strings.Trim(strings.ReplaceAll(fmt.Sprint(core.SmallContexts), " ", ", "), "[]"), thetaCoverLabel, gridMinCover, gridMinSmallLL)
	writeGridTable(env.Stdout, outs)
	writeGridWarnings(env.Stdout, outs)
	return nil
}

// writeGridWarnings prints, below the table, the warnings of its cells
// (θ no better than the prior's centre, a condition outside training):
// the table's numbers alone make a model whose θ̂ says nothing look
// sound. A text that several cells share is printed once, with the
// cells it holds for; --json keeps each in its cell's report.
func writeGridWarnings(w io.Writer, outs []cellOut) {
	var texts []string
	cellsOf := map[string][]core.Condition{}
	warned := 0
	for _, c := range outs {
		if c.Report == nil || len(c.Report.Warnings) == 0 {
			continue
		}
		warned++
		for _, t := range c.Report.Warnings {
			if _, seen := cellsOf[t]; !seen {
				texts = append(texts, t)
			}
			cellsOf[t] = append(cellsOf[t], c.Condition)
		}
	}
	if len(texts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nwarnings, in %d of %s (with --json, each cell's report.warnings):\n", warned, core.Count(len(outs), "cell"))
	for _, t := range texts {
		fmt.Fprintf(w, "  %s: %s\n", conditionListWords(cellsOf[t]), t)
	}
}

// conditionListWords names grid cells compactly, the noises of one
// context together: "context 5 (noise 0, 0.01), context 10 (noise 0)".
func conditionListWords(conds []core.Condition) string {
	var contexts []int
	noises := map[int][]string{}
	for _, c := range conds {
		if _, seen := noises[c.Context]; !seen {
			contexts = append(contexts, c.Context)
		}
		noises[c.Context] = append(noises[c.Context], trimFloat(c.Noise))
	}
	parts := make([]string, len(contexts))
	for i, n := range contexts {
		parts[i] = fmt.Sprintf("context %d (noise %s)", n, strings.Join(noises[n], ", "))
	}
	return strings.Join(parts, ", ")
}

// gridHeads are eval --grid's column heads before "misses", and
// gridLeast their widths (each column widens to its widest value).
var (
	gridHeads = []string{"context", "noise", "recon MAE", "recon LL", "recon ECE", "pool", "δ ECE", "pool", thetaCoverLabel, "θ MAE", obsCoverLabel}
	gridLeast = []int{7, 6, 9, 10, 9, 6, 6, 6, 9, 9, 11}
)

// writeGridTable prints a row per cell: its condition, its numbers
// right-aligned in columns (alignRight), and the targets it misses, or
// why it failed.
func writeGridTable(w io.Writer, outs []cellOut) {
	rows := [][]string{gridHeads}
	tails := []string{"misses"}
	for _, c := range outs {
		if c.Report == nil {
			rows = append(rows, []string{strconv.Itoa(c.Context), trimFloat(c.Noise)})
			tails = append(tails, "failed: "+c.Error)
			continue
		}
		mt := c.Report.Metrics
		rows = append(rows, []string{strconv.Itoa(c.Report.Context), trimFloat(c.Noise),
			tableNumber(mt[core.KeyReconMAE].Mean, 4), tableNumber(mt[core.KeyReconLL].Mean, 4), tableNumber(mt[core.KeyReconECE].Mean, 3),
			tableNumber(c.Report.Pooled.Recon, 3), tableNumber(mt[core.KeyDeltaECE].Mean, 3), tableNumber(c.Report.Pooled.Delta, 3),
			tableNumber(mt[core.KeyThetaCover].Mean, 3), tableNumber(mt[core.KeyThetaMAE].Mean, 4), tableNumber(mt[core.KeyObsCover].Mean, 3)})
		tails = append(tails, strings.Join(c.Misses, ", "))
	}
	for i, line := range alignRight(rows, gridLeast) {
		fmt.Fprintln(w, strings.TrimRight(line+"  "+tails[i], " "))
	}
}
