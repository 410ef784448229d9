package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "sweep",
		Summary: "ablation grid: evaluate or train one model per cell and seed, with mean and 95% interval",
		Usage: `apic sweep --system SYS [--backbone B] --vary AXIS=v1,v2,... [--vary ...] [--fix AXIS=V ...] [--seeds K] [--tasks N] --out DIR [--json] [--png]
       apic sweep ... --plan            (one shell command per cell, for parallel or a Slurm array)
       apic sweep --preset appendix-b --out DIR [--seeds K] [--tasks N] [--plan] [--png]
       apic sweep --collect DIR [--json] [--png]

The cells are the cartesian product of the --vary lists × seeds 1..K.
Evaluation axes re-evaluate a model: each cell is one 'apic eval --json'
run with --seed K. Training axes train one model per cell with
'apic train --seed K' (the flags of train; train-noise is its --noise)
and evaluate it. --fix sets an axis for every cell. Every cell's train
and eval flags are checked as those commands check them before the
first cell runs (every cell by --plan; the unfinished ones, or the
--only one, by a run); a value given twice, or spelled twice (0.1 and
1e-1, 0:0.1 and 0:.1), is refused.

  evaluation axes  ` + hangingList(strings.Split(axisNames(evalAxes), ", "), 74, 19) + `
  training axes    ` + hangingList(strings.Split(axisNames(trainAxes), ", "), 74, 19) + `

Each cell keeps its files in DIR/cells/ID/ (ID, its values and seed,
at most 255 bytes, a file name's limit): cmd.txt (the exact apic
command lines, which reproduce it alone when run in DIR), cell.json,
eval.json and, for training cells, model.safetensors, all regular
files the sweep writes itself in folders it made (a link in place of a
file, of cells/ID or of cells is refused, not written through nor read
as a result; so is a cmd.txt, cell.json or eval.json over 16 MiB,
which a sweep never writes: they take a few kB). A cell with
eval.json (not empty) is done and skipped on a rerun, so an
interrupted sweep (Ctrl-C) continues where it stopped; the interrupted
cell starts again, its training from step 0 (unlike train alone, a
sweep keeps no partial weights). A cell that fails (a
training that diverges, an evaluation in which every realization
fails) is reported as it fails and the others run: the summary is of
the finished cells, the exit status 1, and a rerun retries the failed
ones. A DIR holds one sweep: one of other axes or settings is refused
before any cell runs (settings in another order or spelling,
--backbone B or --fix backbone=B, or eval's and train's defaults given
or not, are the same); more --vary values or --seeds add cells to it.
At the end DIR/results.csv (one row per cell × seed) and
DIR/summary.json (per cell: mean and t-based 95% interval over seeds)
are written from every finished cell in DIR, curves of the MAEs against
the first axis are drawn, and with --png DIR/sweep.png, whose error bars
stop at what a metric can take (coverage and ECE in [0, 1], MAE ≥ 0)
where the t interval of summary.json runs past it.

--plan prints 'apic sweep ... --only ID' per cell instead of running
them; the lines share no state, so 'apic sweep ... --plan | parallel -j N'
runs the grid, and 'apic sweep --collect DIR' then summarises it. Each
line calls apic from PATH, which must have it where the lines run (not
a 'go run' binary, which is temporary): --plan warns when PATH has none.
--collect reads DIR and writes only results.csv and summary.json (and
sweep.png with --png) there; in a folder it cannot write to, a
colleague's or an archive, it prints the summary all the same and warns
that those two files were not written. Those files are replaced only
where a sweep wrote them: one that is something else (a link to your
own table) is refused, by a run before its first cell.

A training cell is also scored without refinement (eval-onepass.json;
the onepass_* columns), so an ablation that refinement hides shows.
--preset appendix-b runs the paper's Appendix B on spring/lnp as
studies in DIR/STUDY (context, noise, lambda-theta, lambda-delta, reg,
trajectories, and ours, lambda-theta-no-stage1; 3 seeds): 81 trainings
of the shipped spring-lnp architecture at 1000+2000 steps (a third of
its stage 2), each cell about 17 s on two cores (docs/ablations.md).`,
		Run: runSweep,
	})
}

// sweepCellHook, when set (by tests), is called after each finished cell.
var sweepCellHook func(id string)

// sweepSubStderr, when set (by tests), receives the stderr of the train
// and eval commands a cell runs, which the sweep otherwise drops.
var sweepSubStderr io.Writer

// planProgram starts every --plan line; tests point it at their binary.
var planProgram = "apic"

// sweepFlags are what runSweep parses.
type sweepFlags struct {
	spec               sweepSpec
	vary, fix          axisList
	out, only, collect string
	plan, jsonOut      bool
	png                bool
	preset             string
}

func runSweep(ctx context.Context, args []string, env *Env) error {
	f := sweepFlags{fix: axisList{single: true}}
	fs := env.FlagSet()
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if f.collect != "" {
		return f.runCollect(ctx, env)
	}
	if err := f.checkNoSummaryFlags(); err != nil {
		return err
	}
	if f.preset != "" {
		return runPresetFlags(ctx, fs, f, env)
	}
	cells, err := f.check()
	if err != nil {
		return err
	}
	if err := checkSweepFolder(f.spec, cells, f.out); err != nil {
		return err
	}
	switch {
	case f.plan:
		if err := f.spec.checkCells(ctx, cells); err != nil {
			return err
		}
		if err := printPlan(args, cells, env); err != nil {
			return err
		}
		warnPlanPath(env)
		return nil
	case f.only != "":
		return f.runOnly(ctx, cells)
	}
	return f.runAll(ctx, cells, env)
}

func (f *sweepFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.spec.system, "system", "", "system: "+strings.Join(sims.Names(), ", ")+" (required unless --collect or a checkpoint axis, whose files must be of one system, and of this one where given)")
	fs.StringVar(&f.spec.backbone, "backbone", "", "backbone: cnp, lnp or anp (default: eval's and train's, lnp; with a checkpoint axis, the files', which must then match it)")
	fs.Var(&f.vary, "vary", "AXIS=v1,v2,...: an axis of the grid and its values (repeatable)")
	fs.Var(&f.fix, "fix", "AXIS=VALUE: a setting of every cell, not a column of the results (repeatable)")
	fs.IntVar(&f.spec.seeds, "seeds", 1, fmt.Sprintf("replicates per cell, seeds 1..K, at most %d", core.LimitSweepSeeds.Max))
	fs.IntVar(&f.spec.tasks, "tasks", 200, fmt.Sprintf("test realizations of each evaluation, at most %d", core.LimitTasks.Max))
	fs.StringVar(&f.out, "out", "", "directory of the sweep's files (required), created with any missing directories above it, as a plan's lines on a fresh machine need (the file flags of other commands, such as --png, --csv and train --out, refuse a missing directory instead)")
	fs.BoolVar(&f.plan, "plan", false, "print one self-contained shell command per cell instead of running them")
	fs.StringVar(&f.only, "only", "", "run only the cell with this ID (as --plan writes), without the summary")
	fs.StringVar(&f.collect, "collect", "", "summarise the finished cells of this sweep directory (one it cannot write results.csv to with a warning)")
	fs.BoolVar(&f.jsonOut, "json", false, "print the summary as JSON instead of curves (its summary.json; for a preset, one object: {\"preset\", \"studies\": [{\"study\", \"dir\", \"summary\"}]})")
	fs.BoolVar(&f.png, "png", false, "also draw the metrics against the first axis to DIR/sweep.png")
	fs.StringVar(&f.preset, "preset", "", "run a preset set of studies into DIR/STUDY: appendix-b (the paper's Appendix B on spring/lnp; --seeds defaults to 3)")
}

// checkNoSummaryFlags refuses --only beside --plan, whose lines carry
// an --only each, and --json or --png beside either: --only runs one
// cell without the summary they shape, and a plan only prints lines, so
// they would be ignored.
func (f *sweepFlags) checkNoSummaryFlags() error {
	if f.plan && f.only != "" {
		return UsageError("--plan prints an --only line for every cell: drop --only %s (or run that cell's line)", core.QuoteInput(f.only))
	}
	mode := "--plan prints the cells' command lines"
	if f.only != "" {
		mode = "--only runs one cell"
	}
	for _, o := range []struct {
		name string
		set  bool
	}{{"json", f.jsonOut}, {"png", f.png}} {
		if o.set && (f.plan || f.only != "") {
			return UsageError("--%s shapes the sweep's summary, and %s without one: drop --%s (once the cells have run, apic sweep --collect DIR --%s summarises them)", o.name, mode, o.name, o.name)
		}
	}
	return nil
}

// runCollect summarises the finished cells of the sweep (or preset)
// directory --collect names.
func (f *sweepFlags) runCollect(ctx context.Context, env *Env) error {
	if f.out != "" || len(f.vary.entries) > 0 || f.plan || f.only != "" || f.preset != "" {
		return UsageError("--collect DIR takes only --json and --png")
	}
	if err := checkSweepDir(f.collect); err != nil {
		return err
	}
	o := sweepOutput{json: f.jsonOut, png: f.png, collect: true}
	if studies, name, _ := presetOf(f.collect); studies != nil {
		return collectPreset(ctx, name, studies, f.collect, o, env)
	}
	if f.png {
		if err := checkSweepFigures(f.collect); err != nil {
			return err
		}
	}
	return finishSweep(ctx, f.collect, o, env)
}

// runOnly runs the one cell --only names, without the summary.
func (f *sweepFlags) runOnly(ctx context.Context, cells []sweepCell) error {
	for _, c := range cells {
		if c.ID != f.only {
			continue
		}
		todo, err := unfinished(f.out, []sweepCell{c})
		if err != nil {
			return err
		}
		if err := f.spec.checkCells(ctx, todo); err != nil {
			return err
		}
		if len(todo) > 0 {
			if err := checkSweepOutWritable(f.out); err != nil {
				return err
			}
		}
		_, err = runCell(ctx, f.spec, c, f.out)
		return err
	}
	return UsageError("--only %s is no cell of this sweep (--plan lists them)", core.QuoteInput(f.only))
}

// runAll runs the cells not yet finished and summarises them all; a
// cell that fails leaves the others to run, and the command exits 1.
func (f *sweepFlags) runAll(ctx context.Context, cells []sweepCell, env *Env) error {
	// The cells checked are the cells run: one look at the folder.
	todo, err := unfinished(f.out, cells)
	if err != nil {
		return err
	}
	if err := f.spec.checkCells(ctx, todo); err != nil {
		return err
	}
	if len(todo) > 0 {
		if err := checkSweepOutWritable(f.out); err != nil {
			return err
		}
	}
	if err := checkSweepSummaries("out", f.out); err != nil {
		return err
	}
	if f.png {
		if err := checkSweepFigures(f.out); err != nil {
			return err
		}
	}
	failed := runCells(ctx, f.spec, todo, len(cells), f.out, env)
	var cf *cellFailures
	if failed != nil && !errors.As(failed, &cf) {
		return failed
	}
	if cf != nil && cf.failed == len(cells) || isPresetStudy(ctx) {
		// No finished cell to summarise; or a preset's study, which
		// the preset summarises with the others once all have run.
		return failed
	}
	if err := finishSweep(ctx, f.out, sweepOutput{json: f.jsonOut, png: f.png}, env); err != nil {
		return err
	}
	return failed
}

// cellFailures is a sweep whose cells ran to the end but some failed:
// the summary of the others is printed all the same, and the command
// exits 1.
type cellFailures struct {
	ids    []string
	failed int // of this run's cells
	total  int // cells this run tried
}

func (e *cellFailures) Error() string {
	ids := e.ids
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(", %d more", len(e.ids)-5)
	}
	return fmt.Sprintf("%d of %d cells failed (%s%s; each error is above): rerun the same command to retry them; the finished cells are kept",
		e.failed, e.total, strings.Join(ids, ", "), more)
}

// check validates the flags and returns the cells, whose train and eval
// commands the caller checks (checkCells): all of them for --plan, the
// unfinished ones for a run.
func (f *sweepFlags) check() ([]sweepCell, error) {
	s := &f.spec
	s.vary, s.fix = f.vary.entries, f.fix.entries
	if err := checkSweepOut(f.out); err != nil {
		return nil, err
	}
	if len(s.vary) == 0 {
		return nil, UsageError("give at least one --vary AXIS=v1,v2,...")
	}
	if err := core.LimitSweepSeeds.Check(s.seeds); err != nil {
		return nil, UsageError("--%v", err)
	}
	if err := core.LimitTasks.Check(s.tasks); err != nil {
		return nil, UsageError("--%v", err)
	}
	hasCheckpoint := false
	for _, v := range s.vary {
		for _, w := range s.fix {
			if w.axis.name == v.axis.name {
				return nil, UsageError("%s is both varied and fixed", v.axis.name)
			}
		}
	}
	for _, v := range append(append([]axisValues{}, s.vary...), s.fix...) {
		s.training = s.training || v.axis.train
		hasCheckpoint = hasCheckpoint || v.axis.name == "checkpoint"
		if v.axis.name == "backbone" && s.backbone != "" {
			return nil, UsageError("--backbone and the backbone axis: give one")
		}
	}
	if s.training && hasCheckpoint {
		return nil, UsageError("a sweep that trains evaluates its own models: drop the checkpoint axis")
	}
	if s.system == "" && !hasCheckpoint {
		return nil, UsageError("--system is required")
	}
	if err := checkContextRanges(s.system, s.vary, s.fix); err != nil {
		return nil, err
	}
	return s.cells()
}

// checkContextRanges refuses a context-range value outside 1 ≤ MIN ≤ MAX
// ≤ the system's grid states, as train's --context-range does, once the
// system is known (the axis is read before --system may be).
func checkContextRanges(system string, vary, fix []axisValues) error {
	for _, given := range []struct {
		flag string
		list []axisValues
	}{{"--vary", vary}, {"--fix", fix}} { // in order: one error, the same each run
		flag := given.flag
		for _, e := range given.list {
			if e.axis.kind != "intrange" {
				continue
			}
			for _, v := range e.values {
				lo, hi, _ := parseContextSizes(v) // read by checkValue
				if err := core.CheckContextRange(system, lo, hi); err != nil {
					return UsageError("%s: %s value %s: %v", flag, e.axis.name, core.QuoteInput(v), err)
				}
			}
		}
	}
	return nil
}

// unfinished are the cells that have no eval.json in out yet: those a
// run (or a rerun, or --only) still runs, so the only ones whose
// commands checkCells need check. A finished cell's inputs may be gone
// since (its checkpoint moved), and it runs nothing.
func unfinished(out string, cells []sweepCell) ([]sweepCell, error) {
	var todo []sweepCell
	for _, c := range cells {
		done, err := cellDone(out, c)
		if err != nil {
			return nil, err
		}
		if !done {
			todo = append(todo, c)
		}
	}
	return todo, nil
}

// checkCells checks the train and eval command of every cell as those
// commands check their flags before any work (Env.check), so that a
// value they refuse (--vary hidden=32,5000: --hidden is at most 4096; a
// context that leaves no targets) stops the sweep, or its --plan, before
// the first cell runs, not after the cells before it have. Cells that
// differ only in their seed share one check; each of an evaluation
// sweep's checkpoints is read once (checkOnly.grid) and checked against
// --system and --backbone (sweepmodels.go), a training sweep's models
// (not trained yet) stand for a model of --system.
func (s sweepSpec) checkCells(ctx context.Context, cells []sweepCell) error {
	checked := map[string]bool{}
	check := &checkOnly{}
	if s.training {
		check.system = s.system
	}
	for _, c := range cells {
		one := c
		one.Seed = 1
		train, eval := s.commands(one, "model.safetensors")
		eval = s.modelCheckArgs(one, eval)
		for _, run := range []struct {
			name string
			args []string
		}{{"train", train}, {"eval", eval}} {
			key := run.name + "\x00" + strings.Join(run.args, "\x00")
			if run.args == nil || checked[key] {
				continue
			}
			checked[key] = true
			env := &Env{Stdout: io.Discard, Stderr: io.Discard, cmd: commands[run.name], check: check}
			err := env.cmd.Run(ctx, run.args, env)
			switch {
			case err == nil:
			case IsUsageError(err):
				return UsageError("cell %s: apic %s: %v", c.ID, run.name, err)
			default:
				return fmt.Errorf("cell %s: apic %s: %w", c.ID, run.name, err)
			}
		}
	}
	return s.checkOneSystem(cells, check)
}

// printPlan writes one 'apic sweep ... --only ID' line per cell: the
// command as given, without --plan, however it was spelled (--plan=1,
// -plan=TRUE): a line that kept it would be refused beside its --only.
func printPlan(args []string, cells []sweepCell, env *Env) error {
	var kept []string
	for _, a := range args {
		if !planFlag.MatchString(a) {
			kept = append(kept, a)
		}
	}
	base := shellLine(append([]string{planProgram, "sweep"}, kept...))
	for _, c := range cells {
		if _, err := fmt.Fprintf(env.Stdout, "%s --only %s\n", base, shellQuote(c.ID)); err != nil {
			return err
		}
	}
	return nil
}

// planFlag matches --plan as an argument: a switch, alone or with a
// value (--plan=false never reaches a plan).
var planFlag = regexp.MustCompile(`^--?plan(=.*)?$`)

// warnPlanPath warns when the plan's lines, which call apic from PATH,
// would find none here: piped to bash they fail with "apic: command not
// found". It names the running binary to put there, unless it is go
// run's, which is deleted when go run ends.
func warnPlanPath(env *Env) {
	if planProgram != "apic" {
		return // a test's binary, by its path
	}
	if _, err := exec.LookPath("apic"); err == nil {
		return
	}
	self, err := os.Executable()
	if err != nil || strings.Contains(filepath.ToSlash(self), "/go-build") {
		env.Warnf("the plan's lines call apic from PATH, and PATH has none here: build it there first (go build -o DIR/apic . with DIR on PATH; go run's binary is temporary)")
		return
	}
	env.Warnf("the plan's lines call apic from PATH, and PATH has none here: put this binary, %s, on PATH as apic before running them", self)
}

// runCells runs todo, the unfinished cells of the sweep's total, with a
// progress line on stderr. The finished ones are this sweep's:
// checkSweepFolder checked them.
//
// A cell that fails (a training that diverges) does not stop the
// others, which an ablation's grid is run to compare: its error is
// printed as it happens, and runCells returns a *cellFailures naming
// every failed cell once the rest have run. An interruption stops at
// once.
func runCells(ctx context.Context, s sweepSpec, todo []sweepCell, total int, out string, env *Env) error {
	if skipped := total - len(todo); skipped > 0 {
		env.Notef("sweep: %d of %d cells already finished in %s", skipped, total, out)
	}
	prog := newTaskProgress(env, "sweep")
	prog.unit = "cells"
	defer prog.finish()
	var failed []string
	for i, c := range todo {
		if _, err := runCell(ctx, s, c, out); err != nil {
			if ctx.Err() != nil {
				return &interruptedError{what: fmt.Sprintf("running cell %s (%d of %d cells finished); rerun the same command to run the rest: finished cells are kept, and this one %s",
					c.ID, i-len(failed), len(todo), restartWords(s)), err: ctx.Err()}
			}
			failed = append(failed, c.ID)
			fmt.Fprintf(env.Stderr, "apic sweep: %v; the other cells go on\n", err)
		}
		prog.report(i+1, len(todo))
		if sweepCellHook != nil {
			sweepCellHook(c.ID)
		}
	}
	if len(failed) > 0 {
		return &cellFailures{ids: failed, failed: len(failed), total: len(todo)}
	}
	return nil
}

// onePassFile holds a training cell's one-pass evaluation (onePassEval).
const onePassFile = "eval-onepass.json"

func cellDir(out string, c sweepCell) string { return filepath.Join(out, "cells", c.ID) }

// cellDoneHook, when set (by tests), is called on each look at whether
// a cell is finished (cellDone).
var cellDoneHook func(id string)

// cellDone reports whether cell c of out is finished (evalWritten).
// The cell's folder and files are checked first (checkCellFiles), as
// before a cell runs: a link or other non-regular file in place of
// eval.json, cell.json or the cell's folder is refused, naming it, not
// read as the cell's result (a link to another cell's eval.json, or a
// folder linked to another sweep's cell, would pass for this one).
func cellDone(out string, c sweepCell) (bool, error) {
	if cellDoneHook != nil {
		cellDoneHook(c.ID)
	}
	if err := checkCellFiles(out, c); err != nil {
		return false, err
	}
	return evalWritten(cellDir(out, c)), nil
}

// evalWritten reports whether the cell folder dir holds its eval.json,
// the mark of a finished cell: a regular file, not empty, as
// writeCellFile writes it. An empty one is no mark: the shell makes it
// for cmd.txt's "apic eval … > eval.json" before eval runs, and it stays
// so when that eval fails or is interrupted.
func evalWritten(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, "eval.json"))
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// runCell trains (training sweeps, unless the model is already there)
// and evaluates one cell, writing its files; eval.json last, so that its
// presence means the cell is finished. skipped reports a cell finished
// already: the list of unfinished cells was made before the first ran,
// and a plan's --only line run beside this sweep may have finished it
// since.
func runCell(ctx context.Context, s sweepSpec, c sweepCell, out string) (skipped bool, err error) {
	// cellDone checks the cell's files, as a run beside this one (an
	// --only line) may have left them since the sweep's first look.
	if done, err := cellDone(out, c); err != nil || done {
		return done, err
	}
	if err := checkCellCommand(s, c, out); err != nil {
		return false, err
	}
	dir := cellDir(out, c)
	defer func() {
		if err != nil && ctx.Err() != nil {
			// Whatever train or eval said of the interruption (train:
			// how to resume from its partial weights) is not what the
			// sweep does, which restarts the cell; say that, once.
			err = &interruptedError{what: fmt.Sprintf("running cell %s; rerun the same command to run it: the cell %s", c.ID, restartWords(s)), err: ctx.Err()}
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cell %s: %w", c.ID, err)
	}
	model := filepath.Join(dir, "model.safetensors")
	train, eval := s.commands(c, model)
	cmd := cellCommandText(s, c)
	meta, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return false, err
	}
	for name, data := range map[string][]byte{"cmd.txt": []byte(cmd), "cell.json": append(meta, '\n')} {
		if err := writeCellFile(filepath.Join(dir, name), data); err != nil {
			return false, fmt.Errorf("cell %s: %w", c.ID, err)
		}
	}
	if train != nil {
		if _, err := os.Stat(model); err != nil {
			if err := trainCell(ctx, model, train); err != nil {
				return false, fmt.Errorf("cell %s: apic train: %w", c.ID, err)
			}
		}
	}
	if one := s.onePassEval(c, model); one != nil {
		result, err := runSubcommand(ctx, "eval", one)
		if err != nil {
			return false, fmt.Errorf("cell %s: apic eval --refine 0: %w", c.ID, err)
		}
		if err := writeCellFile(filepath.Join(dir, onePassFile), result); err != nil {
			return false, fmt.Errorf("cell %s: %w", c.ID, err)
		}
	}
	result, err := runSubcommand(ctx, "eval", eval)
	if err != nil {
		return false, fmt.Errorf("cell %s: apic eval: %w", c.ID, err)
	}
	if err := writeCellFile(filepath.Join(dir, "eval.json"), result); err != nil {
		return false, fmt.Errorf("cell %s: %w", c.ID, err)
	}
	return false, nil
}

// restartWords say how a rerun treats an interrupted cell of s.
func restartWords(s sweepSpec) string {
	if s.training {
		return "starts again, its training from step 0"
	}
	return "starts again"
}

// trainCell runs train with args for the cell whose model is model. An
// interrupted train keeps its completed steps in a partial file beside
// it (keepPartial), for 'apic train --init'; but a rerun of the sweep
// trains the cell from step 0 and never reads it, so each interruption
// would leave one more file. The partial files this run made are
// removed when it is interrupted, and every file named as one
// (partialNamesOf: the sweep owns the cell's directory) once its model
// is trained, when they are of no more use. A partial file that train
// could only keep in the temporary directory (a full disk) stays there.
func trainCell(ctx context.Context, model string, args []string) error {
	before, err := partialNamesOf(model)
	if err != nil {
		return err
	}
	_, err = runSubcommand(ctx, "train", args)
	after, gerr := partialNamesOf(model)
	if gerr != nil {
		return errors.Join(err, gerr)
	}
	if err != nil && ctx.Err() == nil {
		return err // train's words on what it kept stay true
	}
	for _, p := range after {
		if err == nil || !slices.Contains(before, p) {
			if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, fmt.Errorf("removing the stale partial weights: %w", rerr))
			}
		}
	}
	return err
}

// cellCommandText is cmd.txt of cell c: the apic command lines that
// reproduce it alone, run in the sweep's folder (cd DIR first). Its
// paths are relative to that folder, not under --out as typed, so that
// a rerun that spells --out otherwise (sw, ./sw, $PWD/sw, or ../sw from
// elsewhere) writes, and expects, the same text. A relative checkpoint,
// which the sweep reads from the working directory, is made absolute
// for the lines to find it from DIR.
func cellCommandText(s sweepSpec, c sweepCell) string {
	return commandLines(s, c, ".", absCheckpoint)
}

// commandLines are the cmd.txt lines of cell c with its files under
// out, each argument of the commands passed through arg (nil: as is).
// An older apic wrote them with out as --out was typed, and no arg.
func commandLines(s sweepSpec, c sweepCell, out string, arg func(string) string) string {
	dir := cellDir(out, c)
	model := filepath.Join(dir, "model.safetensors")
	line := func(name string, args []string) string {
		words := []string{"apic", name}
		for _, a := range args {
			if arg != nil {
				a = arg(a)
			}
			words = append(words, a)
		}
		return shellLine(words)
	}
	train, eval := s.commands(c, model)
	var cmd strings.Builder
	if train != nil {
		cmd.WriteString(line("train", train) + "\n")
	}
	if one := s.onePassEval(c, model); one != nil {
		cmd.WriteString(line("eval", one) + " > " + shellQuote(filepath.Join(dir, onePassFile)) + "\n")
	}
	cmd.WriteString(line("eval", eval) + " > " + shellQuote(filepath.Join(dir, "eval.json")) + "\n")
	return cmd.String()
}

// absCheckpoint is arg with the path of a --checkpoint=FILE setting
// made absolute; other arguments, and embedded checkpoints, as they are.
// Only the sweep's settings spell --checkpoint with '=': a training
// cell's own model (--checkpoint FILE) stays relative to DIR.
func absCheckpoint(arg string) string {
	path, ok := strings.CutPrefix(arg, "--checkpoint=")
	if !ok || filepath.IsAbs(path) || strings.HasPrefix(path, embeddedPrefix) {
		return arg
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return arg // no working directory: the path as given
	}
	return "--checkpoint=" + abs
}

// sameCellCommand reports whether old, the cmd.txt of an existing cell,
// runs what this sweep writes for c (sameSettings), and returns the text
// old was compared with. An older apic wrote the cell's paths under --out as typed then
// (sw/cells/ID/eval.json): such a cmd.txt is compared with the lines
// under that folder, read from it, so that its sweep still resumes
// however --out is spelled now.
func sameCellCommand(old string, s sweepSpec, c sweepCell) (want string, same bool) {
	want = cellCommandText(s, c)
	if sameSettings(old, want) {
		return want, true
	}
	if out, ok := legacyFolder(old, c); ok {
		legacy := commandLines(s, c, out, nil)
		if sameSettings(old, legacy) {
			return legacy, true
		}
		if out != "." {
			want = legacy // the differences shown are then the settings'
		}
	}
	return want, false
}

// legacyFolder is the folder under which cmd.txt text old writes cell
// c's eval.json, as its last line's redirection names it: "sw" for
// "... > sw/cells/ID/eval.json", "." for this apic's relative paths.
// The line is read with shellWords, which shellLine's quoting round-
// trips, so a quoted folder holding " > " or a quote reads as written.
func legacyFolder(old string, c sweepCell) (string, bool) {
	lines := strings.Split(strings.TrimRight(old, "\n"), "\n")
	path, ok := redirectTarget(lines[len(lines)-1])
	if !ok {
		return "", false
	}
	prefix, ok := strings.CutSuffix(path, filepath.Join("cells", c.ID, "eval.json"))
	sep := string(filepath.Separator)
	switch {
	case !ok:
		return "", false
	case prefix == "":
		return ".", true
	case prefix == sep:
		return sep, true
	}
	return strings.CutSuffix(prefix, sep)
}

// redirectTarget is the file that line's last unquoted '>' writes to,
// as the shell reads its name.
func redirectTarget(line string) (string, bool) {
	words := shellWords(line)
	for i := len(words) - 2; i >= 0; i-- {
		if words[i].raw == ">" {
			return words[i+1].text, true
		}
	}
	return "", false
}

// checkCellCommand refuses a cell directory that another command made
// (other --fix settings, --tasks or --backbone into the same --out): its
// results would be skipped as finished or mixed into this sweep's.
// checkSweepFolder checked every cell before the first ran; this checks
// the one about to be written again, since a sweep run beside this one
// (another --only line) may have made it since.
func checkCellCommand(s sweepSpec, c sweepCell, out string) error {
	old, err := readCellFile(filepath.Join(cellDir(out, c), "cmd.txt"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("cell %s: %w", c.ID, err)
	}
	if want, same := sameCellCommand(string(old), s, c); !same {
		return otherSettingsError(out, c, string(old), want)
	}
	return nil
}

// runSubcommand runs another apic command in-process with args, as the
// command line would, and returns its stdout. Its notes are dropped:
// the sweep's progress line is what the terminal shows.
func runSubcommand(ctx context.Context, name string, args []string) ([]byte, error) {
	c := commands[name]
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: io.Discard, cmd: c}
	if sweepSubStderr != nil {
		env.Stderr = sweepSubStderr
	}
	if err := c.Run(ctx, args, env); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func writeBytesAtomic(path string, data []byte) error {
	return nets.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeCellFile writes one of the files a sweep keeps in a cell's
// folder (cellFiles), atomically and only as a regular file: the folder
// is the sweep's own, and a link planted there (cell.json -> a user's
// notes) is refused, not written through.
func writeCellFile(path string, data []byte) error {
	return nets.WriteOwnFileAtomic(path, "a sweep's cell file", func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// cellFiles are the files a sweep writes in a cell's folder: train
// writes model.safetensors, runCell the others (writeCellFile).
var cellFiles = []string{"cmd.txt", "cell.json", "model.safetensors", onePassFile, "eval.json"}

// checkCellFiles refuses, before cell c of out runs, a file of its
// folder that the cell would write and that is not a regular file: a
// symbolic link (to a file of the user's, which the sweep would
// overwrite or, for model.safetensors, evaluate as its own model), a
// directory, a pipe or a device.
func checkCellFiles(out string, c sweepCell) error {
	if err := checkCellFolder(out, c); err != nil {
		return err
	}
	dir := cellDir(out, c)
	for _, name := range cellFiles {
		path := filepath.Join(dir, name)
		st, err := os.Lstat(path)
		if err != nil || st.Mode().IsRegular() {
			continue // a missing file is written; an unreadable one says why then
		}
		return UsageError("--out %s: %v; a sweep writes its cells' files itself and follows no link there: remove %s, then run the sweep again",
			out, nets.RefuseSave(nets.NotOwnFile(path, st.Mode()), "a sweep's cell file"), path)
	}
	return nil
}

// checkCellFolder refuses a cells folder, or cell c's folder in it,
// that is not a directory of the sweep's own: a symbolic link planted
// there (cells/ID -> a user's folder) would have every file of the cell
// written in the folder it leads to, outside --out, where
// writeCellFile's check of the file's own name cannot see it.
func checkCellFolder(out string, c sweepCell) error {
	for _, dir := range []string{filepath.Join(out, "cells"), cellDir(out, c)} {
		st, err := os.Lstat(dir)
		if err != nil || st.IsDir() {
			continue // a missing folder is made; an unreadable one says why then
		}
		kind := nets.NotOwnFile(dir, st.Mode()).Kind
		if st.Mode().IsRegular() {
			kind = "a regular file"
		}
		return UsageError("--out %s: %s is %s, not a directory: a sweep writes its cells' files only in folders it made itself, following no link; remove %s, then run the sweep again",
			out, dir, kind, dir)
	}
	return nil
}
