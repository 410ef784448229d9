package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"

	"apic/core"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "eval",
		Summary: "evaluate a checkpoint on the benchmark protocol",
		Usage: `apic eval (--checkpoint FILE | --system SYS [--backbone B]) [flags]

Draws --tasks test realizations from --seed (a stream training never
uses), splits each into --context context points and targets, runs
amortized inference with --samples latent samples, and reports each metric
of docs/benchmarks.md as mean ± std over realizations: the ± is the
spread of single realizations, not an interval of the mean.` + metricGlossary + evalJSONFields,
		Run: runEval,
	})
}

func runEval(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	var f evalFlags
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if env.check != nil {
		grid, err := env.check.grid(ctx, f.path, f.system, f.backbone)
		if err != nil {
			return err
		}
		return checkLeavesTargets("--context", f.context, grid)
	}
	m, info, source, err := loadModel(ctx, f.path, f.system, f.backbone)
	if err != nil {
		return err
	}
	f.apply(m)
	if err := checkLeavesTargets("--context", f.context, m.Sys.Grid()); err != nil {
		return err
	}
	opt := core.EvalOptions{Tasks: f.tasks, Context: f.context, Noise: f.noise, Seed: f.seed, Samples: f.samples, Refine: f.refine, TrueTheta: f.trueTheta}
	if f.grid {
		if err := checkGridFlags(fs); err != nil {
			return err
		}
		conds, err := gridConditions(m, f.gridContexts, f.gridNoises)
		if err != nil {
			return err
		}
		return runEvalGrid(ctx, env, m, checkpointID{source, info.SHA256}, opt, conds, f.jsonOut, unfinishedWarning(info, source))
	} else if f.gridContexts != "" || f.gridNoises != "" {
		return UsageError("--grid-contexts and --grid-noises need --grid")
	}
	var prog *taskProgress
	if env.StderrTerminal {
		// A redrawn line on a terminal only: logs and scripts get the
		// result alone.
		prog = newTaskProgress(env, "eval")
		opt.Progress = prog.report
	}
	rep, _, err := evaluate(ctx, m, opt)
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		return err
	}
	rep.Warnings = append(rep.Warnings, unfinishedWarning(info, source)...)
	if f.jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(evalOutput{rep, source, info.SHA256, f.rawSpread})
	}
	writeEvalText(env.Stdout, m, rep, source, &f)
	return nil
}

// evalOutput is eval --json's object, which a sweep's cells keep as
// their eval.json and --collect reads back (parseEvalReport).
type evalOutput struct {
	core.Report
	Checkpoint string `json:"checkpoint"`           // where the weights came from
	SHA256     string `json:"checkpoint_sha256"`    // the checkpoint's bytes' SHA-256
	RawSpread  bool   `json:"raw_spread,omitempty"` // scored without the recalibrated spread
}

// evalFlags are eval's flags.
type evalFlags struct {
	path, system, backbone              string
	tasks, context, samples, refine     int
	noise, zThetaPrior, thetaPriorScale float64
	seed                                uint64
	thetaPrior                          string
	rawSpread, trueTheta, jsonOut, grid bool
	gridContexts, gridNoises            string
}

func (f *evalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "checkpoint", "", "checkpoint `file`, or embedded:NAME for one shipped with the program (default: the embedded one for --system/--backbone)")
	fs.StringVar(&f.system, "system", "", "system of the embedded checkpoint: "+strings.Join(sims.Names(), ", "))
	fs.StringVar(&f.backbone, "backbone", "", "backbone of the embedded checkpoint: cnp, lnp or anp (default lnp; with --checkpoint, the file's, which it must match)")
	fs.IntVar(&f.tasks, "tasks", 200, fmt.Sprintf("number of test realizations, at most %d", core.LimitTasks.Max))
	fs.IntVar(&f.context, "context", 0, contextUsage)
	fs.Float64Var(&f.noise, "noise", 0, "observation noise σ added to the context, at most 1000")
	fs.Uint64Var(&f.seed, "seed", 1, "evaluation seed")
	fs.IntVar(&f.samples, "samples", 32, samplesUsage)
	fs.IntVar(&f.refine, "refine", -1, refineUsage)
	fs.Float64Var(&f.zThetaPrior, "z-theta-prior", -1, fmt.Sprintf("refine z_θ with the encoder's posterior widened by this factor, at most %g, as its prior (0: z_θ fixed; -1: the checkpoint's setting)", core.MaxZThetaPrior))
	fs.StringVar(&f.thetaPrior, "theta-prior", "", "form of refinement's prior on θ's logits around the encoder's estimate: 'logit' (a fixed width) or 'theta' (widened where θ's map flattens near a bound); default: the checkpoint's")
	fs.Float64Var(&f.thetaPriorScale, "theta-prior-scale", 0, fmt.Sprintf("widen refinement's prior on θ's logits, its cap included, by this factor in [%g, %g] (0: the checkpoint's)", core.MinThetaPriorScale, core.MaxThetaPriorScale))
	fs.BoolVar(&f.rawSpread, "raw-spread", false, "score the Monte-Carlo mixture collapsed to its mean and variance, without the checkpoint's recalibrated spread (docs/benchmarks.md's predictive distribution as written)")
	fs.BoolVar(&f.trueTheta, "true-theta", false, "give the model each realization's true θ (one pass): what remains is the learned discrepancy's error")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object (a value that does not exist, such as θ coverage without a θ spread, is the string \"NaN\"; ±Inf \"Infinity\", \"-Infinity\")")
	fs.BoolVar(&f.grid, "grid", false, "evaluate every condition of the system's calibration grid (context sizes × noise levels, then contexts 1 and 2 at noise 0) and print one row per condition, then the warnings of the cells that have any (not with --context, --noise or --true-theta)")
	fs.StringVar(&f.gridContexts, "grid-contexts", "", fmt.Sprintf("with --grid, these comma-separated context sizes instead of the system's (then no small contexts); contexts × noises at most %d cells", maxGridCells.Max))
	fs.StringVar(&f.gridNoises, "grid-noises", "", fmt.Sprintf("with --grid, these comma-separated noise levels σ (each at most %v) instead of 0,0.01,0.05,0.1; contexts × noises at most %d cells", core.MaxNoise, maxGridCells.Max))
}

// check refuses flag values out of their bounds and refinement settings
// that a run without refinement would ignore.
func (f *evalFlags) check() error {
	if err := checkCounts(f.tasks, f.samples, f.context, f.noise, f.refine); err != nil {
		return err
	}
	if f.trueTheta && f.refine > 0 {
		return UsageError("--true-theta gives the model θ, which leaves nothing to refine: drop --refine %d", f.refine)
	}
	if f.trueTheta && f.zThetaPrior != -1 {
		return refinementSettingRefused(fmt.Sprintf("--z-theta-prior %v", f.zThetaPrior), true, f.refine)
	}
	if p := f.thetaPrior; p != "" && !slices.Contains(core.ThetaPriors, p) {
		return UsageError("--theta-prior %s: the forms are %s", core.QuoteInput(p), strings.Join(core.ThetaPriors, " and "))
	}
	if f.thetaPrior != "" {
		if err := refinementSettingRefused("--theta-prior "+f.thetaPrior, f.trueTheta, f.refine); err != nil {
			return err
		}
	}
	if err := checkThetaPriorScale(f.thetaPriorScale, f.trueTheta, f.refine); err != nil {
		return err
	}
	if z := f.zThetaPrior; !(z >= 0 && z <= core.MaxZThetaPrior || z == -1) {
		return UsageError("--z-theta-prior %v: want a factor in [0, %g] (or -1 for the checkpoint's setting)", z, core.MaxZThetaPrior)
	}
	return nil
}

// apply sets the inference settings the flags give in place of the
// checkpoint's.
func (f *evalFlags) apply(m *core.Model) {
	if f.zThetaPrior >= 0 {
		m.Config.Infer.ZThetaPrior = f.zThetaPrior
	}
	if f.thetaPrior != "" {
		m.Config.Infer.ThetaPrior = f.thetaPrior
	}
	if f.thetaPriorScale != 0 {
		m.Config.Infer.ThetaPriorScale = f.thetaPriorScale
	}
	if f.rawSpread {
		m.UseRawSpread()
	}
}

// checkGridFlags refuses, beside --grid, the flags it overrides. (A
// list given empty, which would silently be the system's, Env.Parse
// refuses.)
func checkGridFlags(fs *flag.FlagSet) error {
	// The grid sets every cell's context and noise itself: a --context
	// or --noise beside it would silently do nothing.
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "context" || f.Name == "noise" || f.Name == "true-theta" {
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return UsageError("--grid sets each cell's context and noise (use --grid-contexts and --grid-noises) and scores θ's intervals; drop %s", strings.Join(clash, " and "))
	}
	return nil
}

// writeEvalText prints eval's report as text: what was evaluated, the
// failures and warnings, and the metrics' table.
func writeEvalText(w io.Writer, m *core.Model, rep core.Report, source string, f *evalFlags) {
	fmt.Fprintf(w, "%s · %s · %s\n", m.Sys.Title(), strings.ToUpper(rep.Backbone), source)
	fmt.Fprintf(w, "%s, context %d, noise %g, seed %d, %s, %s", core.Count(rep.Tasks, "realization"), rep.Context, rep.Noise, rep.Seed, core.Count(rep.Samples, "sample"), core.Count(rep.Refine, "refinement step"))
	if rep.TrueTheta {
		fmt.Fprint(w, ", true θ given")
	}
	if f.rawSpread {
		fmt.Fprint(w, ", raw spread")
	}
	if f.thetaPrior != "" || f.thetaPriorScale != 0 { // a setting in place of the checkpoint's
		fmt.Fprintf(w, ", θ prior %s", m.Config.Infer.ThetaPriorWords())
	}
	fmt.Fprint(w, "\n")
	if line := failureLine(rep.Failures, rep.Tasks); line != "" {
		fmt.Fprintf(w, "failures: %s\n", line)
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprint(w, "\n")
	writeReportTable(w, rep)
	if n := scored(rep); n > 1 {
		fmt.Fprintln(w, sdFooter(n, false))
	}
}

// maxFailureIndices is how many failed realizations failureLine names,
// and maxFailureReasons how many of their distinct reasons (a diverged
// realization's names its own numbers; --json lists every one).
const (
	maxFailureIndices = 10
	maxFailureReasons = 2
)

// failureLine says how many of tasks realizations failed, which ones
// (the first maxFailureIndices) and why (the first maxFailureReasons
// distinct reasons); "" when none did.
func failureLine(f core.Failures, tasks int) string {
	if f.Count == 0 {
		return ""
	}
	var idx, reasons []string
	seen := map[string]bool{}
	for i, r := range f.Realizations {
		if i < maxFailureIndices {
			idx = append(idx, fmt.Sprint(r.Index))
		}
		if !seen[r.Reason] {
			seen[r.Reason] = true
			reasons = append(reasons, r.Reason)
		}
	}
	if len(f.Realizations) > maxFailureIndices {
		idx = append(idx, "…")
	}
	shared := sharedClause(reasons)
	for i := range reasons {
		reasons[i] = strings.TrimPrefix(reasons[i], shared)
	}
	if n := len(reasons) - maxFailureReasons; n > 0 {
		reasons = append(reasons[:maxFailureReasons], fmt.Sprintf("%s (--json lists each)", core.Count(n, "more reason")))
	}
	verb, which := "are", "realizations"
	if f.Count == 1 {
		verb, which = "is", "realization"
	}
	return fmt.Sprintf("%d of %d realizations failed and %s left out of the means (%s %s: %s%s)",
		f.Count, tasks, verb, which, strings.Join(idx, ", "), shared, strings.Join(reasons, "; "))
}

// sharedClause is the opening clause, up to and with a ": ", that every
// one of two or more reasons starts with ("the fit failed at noise σ =
// 20, …: "), said once before them; "" when they share none.
func sharedClause(reasons []string) string {
	if len(reasons) < 2 {
		return ""
	}
	prefix := reasons[0]
	for _, r := range reasons[1:] {
		n := 0
		for n < len(prefix) && n < len(r) && prefix[n] == r[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if i := strings.LastIndex(prefix, ": "); i >= 0 {
		return prefix[:i+2]
	}
	return ""
}

// checkLeavesTargets refuses a context size (what names it) that would
// take every point of grid g, leaving no target to score.
func checkLeavesTargets(what string, n int, g sims.Grid) error {
	if n > g.Points()-1 {
		return UsageError("%s %d leaves no targets (grid has %d points: at most %d)", what, n, g.Points(), g.Points()-1)
	}
	return nil
}

// evaluate is core.Evaluate; a variable so that tests can make
// realizations fail.
var evaluate = core.Evaluate

// metricLabels are the row labels of the report table.
var metricLabels = map[string]string{
	core.KeyReconMAE: "recon MAE", core.KeyReconLL: "recon LL", core.KeyReconECE: "recon ECE",
	core.KeyDeltaMAE: "δ MAE", core.KeyDeltaLL: "δ LL", core.KeyDeltaECE: "δ ECE", core.KeyThetaMAE: "θ MAE (mean)",
	core.KeyNominalMAE: "F(θ̂) MAE", core.KeyThetaCover: thetaCoverLabel,
	core.KeyObsCover: obsCoverLabel, core.KeyObsECE: "obs ECE",
}

// diagnosticNotes say what each diagnostic row measures.
var diagnosticNotes = map[string]string{
	core.KeyNominalMAE: "|F(x; θ̂) − F(x; θ)|",
	core.KeyThetaCover: "share of θ in θ̂ ± 1.96σ; 0.95 if calibrated",
	core.KeyObsCover:   "observation band (function band + σ̂) on held-out noisy y; 0.95 if calibrated",
	core.KeyObsECE:     "observation band's ECE on held-out noisy y",
}

// writeReportTable prints every metric as mean ± std, then θ per parameter
// (the value alone when one realization was scored: fmtMeanStd), the
// means and the deviations each right-aligned in a column as wide as its
// widest value (reportRows).
func writeReportTable(w io.Writer, rep core.Report) {
	n := scored(rep)
	if n == 1 {
		fmt.Fprintln(w, "  one realization scored: values without a spread")
	}
	rows := reportRows(rep)
	var cells [][]string
	for _, r := range rows {
		if r.text != "" {
			cells = append(cells, []string{r.text, ""})
			continue
		}
		cells = append(cells, []string{tableNumber(r.value.Mean, 4), tableNumber(r.value.Std, 4)})
	}
	meanW, stdW := columnWidth(cells, 0, 10), columnWidth(cells, 1, displayWidth("0.0000"))
	labelW := 14
	for _, r := range rows {
		labelW = max(labelW, displayWidth(r.label)+1)
	}
	for i, r := range rows {
		v := padLeft(cells[i][0], meanW)
		switch {
		case n == 1:
		case r.alone: // its note where the others' notes stand
			v += strings.Repeat(" ", displayWidth(" ± ")+stdW)
		default:
			v += " ± " + padLeft(cells[i][1], stdW)
		}
		if r.note != "" {
			v += "   (diagnostic: " + r.note + ")"
		}
		fmt.Fprintf(w, "  %s %s\n", padLabel(r.label, labelW), v)
	}
}

// reportRow is a row of the report table: a summary, its label and its
// note ("" for none); alone for a value printed without its spread.
type reportRow struct {
	label, note string
	value       core.Summary
	alone       bool
	// text, when set, stands in the mean's column for a value that is
	// not a number (a count), alone.
	text string
}

// reportRows are the report table's rows in order: the metrics, θ MAE
// per parameter, the diagnostics, θ's bias per parameter, then θ
// cover95 and the count of θ at a bound, alone.
func reportRows(rep core.Report) []reportRow {
	var rows []reportRow
	for _, k := range core.MetricKeys {
		rows = append(rows, reportRow{label: metricLabels[k], value: rep.Metrics[k]})
	}
	for _, name := range sortedKeys(rep.ThetaPerParam) {
		rows = append(rows, reportRow{label: "θ MAE " + name, value: rep.ThetaPerParam[name]})
	}
	for _, k := range core.DiagnosticKeys {
		s, ok := rep.Metrics[k]
		if !ok { // a report written before the diagnostic existed
			continue
		}
		if k == core.KeyThetaCover {
			continue // after the bias, with the other θ diagnostics
		}
		rows = append(rows, reportRow{label: metricLabels[k], value: s, note: diagnosticNotes[k]})
	}
	for _, name := range sortedKeys(rep.ThetaBiasPerParam) {
		rows = append(rows, reportRow{label: thetaBiasLabel + " " + name, value: rep.ThetaBiasPerParam[name], note: "θ̂ − θ"})
	}
	if s, ok := rep.Metrics[core.KeyThetaCover]; ok {
		note := diagnosticNotes[core.KeyThetaCover]
		switch done := rep.Tasks - rep.Failures.Count; {
		case math.IsNaN(s.Mean):
			// Every θ came without a deviation: nothing to cover with.
			note = "none: no θ̂ had a deviation (θ given, or one sample without refinement)"
		case rep.ThetaCoverOf > 0 && rep.ThetaCoverOf < done:
			// 0 with a finite mean: a report stored before the count
			// was (a checkpoint's validation), which says nothing of it.
			note = fmt.Sprintf("over the %d of %d realizations whose θ̂ had a deviation", rep.ThetaCoverOf, done)
		}
		rows = append(rows, reportRow{label: metricLabels[core.KeyThetaCover], value: core.Summary{Mean: s.Mean}, note: note, alone: true})
	}
	if p := rep.Pooled; p != (core.PooledECE{}) { // 0 and 0: a report stored before they were
		for _, r := range []struct {
			label string
			v     float64
		}{{"recon ECE pooled", p.Recon}, {"δ ECE pooled", p.Delta}} {
			if !math.IsNaN(r.v) { // none scored: the row would say nothing
				rows = append(rows, reportRow{label: r.label, value: core.Summary{Mean: r.v}, alone: true, note: pooledNote})
			}
		}
	}
	if b := rep.ThetaAtBound; b.AtBound > 0 {
		// The pooled share hides that the estimates at a bound cover
		// least (the same 2% of the prior's width as calibrate's warning).
		rows = append(rows, reportRow{label: thetaAtBoundLabel, text: fmt.Sprintf("%d of %d", b.Covered, b.AtBound), alone: true,
			note: fmt.Sprintf("intervals holding θ, of the %d of %d θ̂ within 2%% of the prior's width of a bound", b.AtBound, b.Estimates)})
	}
	return rows
}

// pooledNote says what a pooled ECE row is: the ECE a reliability curve
// reads, which the spreads are recalibrated to, where the per-realization
// ECE above also counts how one realization's errors move together.
const pooledNote = "the band's ECE over all realizations' targets at once, as diagnose's reliability reads it"

// columnWidth is the display width of column i of cells, at least least.
func columnWidth(cells [][]string, i, least int) int {
	width := least
	for _, r := range cells {
		width = max(width, displayWidth(r[i]))
	}
	return width
}

// padLabel pads a row label to width terminal columns (displayWidth).
func padLabel(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-displayWidth(s)))
}

// displayWidth is the terminal columns s takes: one per character, none
// for a combining mark (the hat of θ̂), which fmt's widths and
// utf8.RuneCountInString count as one.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return n
}

// checkThetaPriorScale refuses an eval --theta-prior-scale k outside its
// bounds, or given where nothing is refined (--true-theta, --refine 0).
func checkThetaPriorScale(k float64, trueTheta bool, refine int) error {
	if k == 0 {
		return nil
	}
	if !(k >= core.MinThetaPriorScale && k <= core.MaxThetaPriorScale) {
		return UsageError("--theta-prior-scale %v: want a factor in [%g, %g] (or 0 for the checkpoint's)", k, core.MinThetaPriorScale, core.MaxThetaPriorScale)
	}
	return refinementSettingRefused(fmt.Sprintf("--theta-prior-scale %v", k), trueTheta, refine)
}

// refinementSettingRefused refuses a refinement setting (a flag and its
// value, as typed) where eval refines nothing: --true-theta gives θ,
// and --refine 0 runs no steps. nil where refinement runs.
func refinementSettingRefused(setting string, trueTheta bool, refine int) error {
	if trueTheta {
		return UsageError("--true-theta gives the model θ, which leaves nothing to refine: drop %s, a refinement setting", setting)
	}
	if refine == 0 {
		return UsageError("--refine 0 runs no refinement: drop %s, a refinement setting", setting)
	}
	return nil
}
