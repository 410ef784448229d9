package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"apic/checkpoints"
	"apic/core"
	"apic/core/bcpi"
	"apic/core/cpinn"
	"apic/core/kohgp"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "compare",
		Summary: "compare APIC checkpoints with the per-realization baselines side by side: KOH-GP; BCPI, Correction-PINN with --methods all",
		Usage: `apic compare (--system SYS | --checkpoint FILE) [--methods koh-gp,bcpi,cpinn,apic] [--tasks N --context N --noise S --seed N]
             [--checkpoint FILE]... [--starts N] [--bcpi-starts N --mcmc N] [--members N --steps N] [--json]

Draws --tasks test realizations exactly as 'apic eval' does and runs, on
the same realizations and contexts, the --methods (default: koh-gp,apic;
all: every one): every APIC checkpoint of the system (the embedded ones
and each --checkpoint FILE), the Kennedy–O'Hagan GP baseline (koh-gp: θ
and a discrepancy GP fitted per realization by maximum marginal
likelihood), BCPI (bcpi: a GP prior on the nominal solution conditioned on
the nominal equation at collocation points, a discrepancy GP, MAP from
--bcpi-starts L-BFGS starts, then --mcmc steps of adaptive Metropolis; for
lv, our extension linearises the equations around the nominal solution)
and Correction-PINN (cpinn, JSON key "correction-pinn": per realization an
ensemble of --members physics-informed networks with a correction inside
the nominal equations, each trained for --steps full-batch Adam steps;
the paper reports 150 s per realization for its 20 members, and
docs/baselines.md times it here at cut budgets). It prints the metrics of
docs/benchmarks.md for each method as mean ± std over realizations (the
spread of single ones, not an interval of the mean), and each method's
wall time per realization. APIC is timed one realization at a time (the
whole pipeline: encoders, θ map, simulator, discrepancy, --samples
Monte-Carlo samples, after untimed warm-up calls for a tenth of a second)
and as batched throughput (all realizations in one call: untimed warm-up
calls for a tenth of a second, then the median of up to 500 calls over
half a second); KOH-GP runs one realization per worker (--workers, default
one per CPU, at most 256), each fit timed by its worker, and so does BCPI;
Correction-PINN runs one realization at a time with its members on
--workers cores. The one-pass table sets APIC against KOH-GP by wall time
per realization (KOH-GP's median fit over APIC's batch time per
realization), by CPU time per realization and by throughput on the same
cores. A realization a method fails is counted on its failures line and
left out of its means; a method that fails every realization is left out
of the comparison with its reason ("failed_methods" in --json), and the
others are still compared. Ctrl-C stops.` + metricGlossary + compareJSONFields,
		Run: runCompare,
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// compareMethod is one method's part of the comparison.
type compareMethod struct {
	Name   string
	Source string // where an APIC model came from; empty for KOH-GP
	SHA256 string // of that checkpoint's bytes; empty for KOH-GP
	Run    core.MethodRun
	Report core.Report
	// Batched is APIC's batched timing (zero for KOH-GP); Wall is the
	// elapsed time of KOH-GP's parallel run.
	Batched core.BatchTiming
	Wall    time.Duration
	Refine  int
	// Baseline marks a per-realization baseline (KOH-GP, BCPI,
	// Correction-PINN): timed per realization on its workers, no
	// batched timing. Workers is how many realizations ran at once.
	Baseline bool
	Workers  int
	// Samples is how many latent samples an APIC model drew per
	// realization (core.Backbone.SamplesDrawn: one for a CNP).
	Samples  int
	Settings string // a baseline's budget in words, for the text header
	// members and steps are Correction-PINN's budget, mcmc BCPI's;
	// memberWorkers is how many of its members trained at once.
	members, steps, mcmc, memberWorkers int
	// OnePass and OnePassBatched are APIC's median single-realization
	// latency (seconds) and batched timing without refinement: the
	// paper's amortized inference.
	OnePass        float64
	OnePassBatched core.BatchTiming
	// Warnings say where the compared condition lies outside what an
	// APIC model was trained on (core.Model.RangeWarnings), that a file
	// is an unfinished run's (unfinishedWarning), and core.Summarise's,
	// as eval gives them (θ intervals nearly as wide as the prior, θ̂ no
	// better than the prior's centre, refinement doing the network's work,
	// a reconstruction no closer than the context's mean).
	Warnings []string
}

// elapsedText is a baseline's elapsed time over the whole run, with the
// workers it ran on: realizations at once for KOH-GP and BCPI; for
// Correction-PINN, which fits one realization at a time, the members
// trained at once, in the words of its settings line.
func elapsedText(m compareMethod) string {
	wall := fmtSeconds(m.Wall.Seconds())
	if m.memberWorkers > 0 {
		return fmt.Sprintf("(%s elapsed, members on %s)", wall, core.Count(m.memberWorkers, "worker"))
	}
	return fmt.Sprintf("(%s elapsed on %s)", wall, core.Count(m.Workers, "worker"))
}

// kohThroughput is KOH-GP's realizations per second over its parallel
// run (all workers).
func kohThroughput(koh compareMethod) float64 {
	return float64(len(koh.Run.Seconds)) / koh.Wall.Seconds()
}

func runCompare(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	var f compareFlags
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if err := checkCheckpointsOnce(f.files); err != nil {
		return err
	}
	sys, err := compareSystem(ctx, f.system, f.files)
	if err != nil {
		return err
	}
	chosen, err := f.check(env, fs, sys)
	if err != nil {
		return err
	}
	var models []namedModel
	if chosen[compareAPICName] {
		if models, err = compareModels(ctx, env.Notef, sys.Name(), f.files); err != nil {
			return err
		}
	}
	if f.rawSpread {
		for _, nm := range models {
			nm.model.UseRawSpread()
		}
	}
	if f.workers == 0 {
		f.workers = min(runtime.GOMAXPROCS(0), core.LimitWorkers.Max)
	}
	opt := core.EvalOptions{Tasks: f.tasks, Context: f.context, Noise: f.noise, Seed: f.seed, Samples: f.samples, Refine: f.refine}
	test, err := core.TestTasksContext(ctx, sys, opt)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if len(models) == 0 && chosen[compareAPICName] {
		env.Notef("no APIC checkpoint for %s (none embedded, none given with --checkpoint); running the baselines only", sys.Name())
	}
	methods, failed, err := runCompareMethods(ctx, env, sys, models, test, opt, chosen, &f)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeCompareJSON(env.Stdout, sys, test, opt, methods, failed, f.starts, f.workers, f.rawSpread)
	}
	writeCompareText(env.Stdout, sys, test, opt, methods, f.starts, f.workers, f.rawSpread)
	if len(failed) > 0 {
		fmt.Fprintln(env.Stdout)
	}
	for _, fm := range failed {
		fmt.Fprintf(env.Stdout, "left out: %s, %s\n", fm.Name, fm.Reason)
	}
	return nil
}

// compareFlags are compare's flags.
type compareFlags struct {
	files                                    stringList
	system, methodList                       string
	tasks, context, samples, refine, workers int
	starts, members, pinnSteps, bcpiStarts   int
	mcmc                                     int
	noise                                    float64
	seed                                     uint64
	rawSpread, jsonOut                       bool
}

func (f *compareFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.system, "system", "", "system: "+strings.Join(sims.Names(), ", ")+" (required unless --checkpoint, whose first file names it)")
	fs.Var(&f.files, "checkpoint", "an APIC checkpoint `file` (or embedded:NAME) to compare (repeatable, each model once: a file with the bytes of one given before is refused; the embedded checkpoints of the system are always included, and a file with the bytes of one is compared as that)")
	fs.IntVar(&f.tasks, "tasks", 50, fmt.Sprintf("number of test realizations, at most %d", core.LimitTasks.Max))
	fs.IntVar(&f.context, "context", 0, contextUsage)
	fs.Float64Var(&f.noise, "noise", 0, "observation noise σ added to the context, at most 1000")
	fs.Uint64Var(&f.seed, "seed", 1, "evaluation seed (the same realizations as 'apic eval --seed')")
	fs.IntVar(&f.samples, "samples", 32, "APIC "+samplesUsage)
	fs.IntVar(&f.refine, "refine", -1, fmt.Sprintf("APIC refinement steps on the context, at most %d (0: one-pass amortized; -1: each checkpoint's setting)", core.LimitRefine.Max))
	fs.IntVar(&f.starts, "starts", 8, fmt.Sprintf("KOH-GP L-BFGS starts per realization (Latin hypercube over the prior), at most %d", core.LimitKOHStarts.Max))
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("KOH-GP and BCPI realizations fitted in parallel, Correction-PINN members trained in parallel, at most %d (0, the default: GOMAXPROCS up to that; never more than there are realizations or members to fit)", core.LimitWorkers.Max))
	fs.StringVar(&f.methodList, "methods", strings.Join(compareDefaultMethods, ","), "the methods to compare, comma separated, each once: "+strings.Join(compareMethodNames, ", ")+", or all (apic: every APIC checkpoint; bcpi and cpinn take seconds to minutes per realization)")
	fs.IntVar(&f.members, "members", cpinn.DefaultMembers, fmt.Sprintf("Correction-PINN ensemble members per realization (the paper's 20), at most %d", core.LimitMembers.Max))
	fs.IntVar(&f.pinnSteps, "steps", cpinn.DefaultSteps, fmt.Sprintf("Correction-PINN full-batch Adam steps per member, at most %d", core.LimitSteps.Max))
	fs.IntVar(&f.bcpiStarts, "bcpi-starts", bcpi.DefaultStarts, fmt.Sprintf("BCPI L-BFGS starts of the MAP search per realization (the authors' 10), at most %d", core.LimitBCPIStarts.Max))
	fs.IntVar(&f.mcmc, "mcmc", bcpi.DefaultSteps, fmt.Sprintf("BCPI adaptive Metropolis steps per realization after the MAP (the second half is kept), %d to %d", core.LimitMCMC.Min, core.LimitMCMC.Max))
	fs.BoolVar(&f.rawSpread, "raw-spread", false, "score APIC's Monte-Carlo mixture collapsed to its mean and variance, without the checkpoints' recalibrated spread")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object")
}

// check refuses flag values out of their bounds or that the chosen
// methods would ignore, and returns the methods chosen.
func (f *compareFlags) check(env *Env, fs *flag.FlagSet, sys sims.System) (map[string]bool, error) {
	if err := checkCounts(f.tasks, f.samples, f.context, f.noise, f.refine); err != nil {
		return nil, err
	}
	if err := checkLimit(core.LimitWorkers, f.workers); err != nil {
		return nil, err
	}
	chosen, err := parseCompareMethods(f.methodList)
	if err != nil {
		return nil, err
	}
	if err := checkBudgetFlags(fs, chosen); err != nil {
		return nil, err
	}
	if err := checkAPICFlags(fs, chosen); err != nil {
		return nil, err
	}
	if err := dropUnsupported(env, fs, sys, chosen); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		l core.Limit
		v int
	}{{core.LimitKOHStarts, f.starts}, {core.LimitMembers, f.members}, {core.LimitSteps, f.pinnSteps}, {core.LimitMCMC, f.mcmc}, {core.LimitBCPIStarts, f.bcpiStarts}} {
		if err := c.l.Check(c.v); err != nil {
			return nil, UsageError("--%v", err)
		}
	}
	if err := checkLeavesTargets("--context", f.context, sys.Grid()); err != nil {
		return nil, err
	}
	// Checked now, not after the APIC timing has run: KOH-GP would fail
	// on the first realization.
	if n := cmp.Or(f.context, sys.TestContext()); chosen[kohgp.Name] && n < kohgp.MinContext {
		return nil, UsageError("--context must be ≥ %d for compare (KOH-GP needs at least %d context observations), got %d", kohgp.MinContext, kohgp.MinContext, n)
	}
	if math.IsNaN(f.noise) || math.IsInf(f.noise, 0) {
		return nil, UsageError("--noise must be finite")
	}
	return chosen, nil
}

// runCompareMethods runs every APIC model and the chosen baselines on
// the test realizations and summarises each method that scored some;
// failed lists those left out.
func runCompareMethods(ctx context.Context, env *Env, sys sims.System, models []namedModel, test []sims.Task, opt core.EvalOptions, chosen map[string]bool, f *compareFlags) (methods []compareMethod, failed []failedMethod, err error) {
	for _, m := range models {
		cm, err := compareAPIC(ctx, env, sys, m, test, opt)
		if out, err := leaveOut(env, m.name, err, &failed); err != nil {
			return nil, nil, err
		} else if out {
			continue
		}
		methods = append(methods, cm)
	}
	baselines, err := compareBaselines(ctx, env, sys, test, chosen, baselineSettings{
		starts: f.starts, seed: f.seed, workers: f.workers, members: f.members, steps: f.pinnSteps, mcmc: f.mcmc, bcpiStarts: f.bcpiStarts,
	}, &failed)
	if err != nil {
		return nil, nil, err
	}
	methods = append(baselines, methods...)
	if len(methods) == 0 && len(failed) > 0 {
		return nil, nil, fmt.Errorf("compare: every method failed on every realization (%s: %s)", failed[0].Name, failed[0].Reason)
	}
	if len(methods) == 0 {
		return nil, nil, UsageError("nothing to compare: --methods %s selects no method for %s", core.QuoteInput(f.methodList), sys.Name())
	}
	for i := range methods {
		rep := core.Summarise(sys, methods[i].Run.Metrics)
		rep.System, rep.Tasks, rep.Context, rep.Noise, rep.Seed = sys.Name(), len(test), test[0].Context.Len(), f.noise, f.seed
		methods[i].Report = rep
		if !methods[i].Baseline {
			// Summarise's warnings are the ones eval prints for the same
			// file and seed: a checkpoint that learned little says so here
			// too, rather than only looking fast.
			methods[i].Warnings = append(methods[i].Warnings, rep.Warnings...)
		}
	}
	return methods, failed, nil
}

// failedMethod is a method left out of a comparison because every
// realization failed, with why.
type failedMethod struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// leaveOut records method name in failed when err says every one of its
// realizations failed (core.AllFailedError), warns, and reports that it
// did: the other methods are still compared (a model that diverges at
// noise 10 must not cost KOH-GP's row). Any other error is returned.
func leaveOut(env *Env, name string, err error, failed *[]failedMethod) (bool, error) {
	var all *core.AllFailedError
	if !errors.As(err, &all) {
		return false, err
	}
	*failed = append(*failed, failedMethod{Name: name, Reason: all.Error()})
	env.Warnf("%s is left out of the comparison: %v", name, err)
	return true, nil
}

// namedModel is an APIC model with its method name and origin.
type namedModel struct {
	name, source string
	sha256       string // of the checkpoint's bytes (core.Info.SHA256)
	model        *core.Model
	warnings     []string // about the file (unfinishedWarning)
}

// lookupEmbedded finds an embedded checkpoint; a variable so that tests
// can take a system's checkpoints away.
var lookupEmbedded = checkpoints.Lookup

// compareModels collects the embedded checkpoints of system and the
// given files. Names are "apic-BACKBONE"; a file whose name is taken gets
// its base name appended ("apic-lnp:long-run"). A file with the bytes of
// an embedded checkpoint (checkpoints/spring-lnp.safetensors in a clone)
// is that checkpoint, compared already: note says so, as
// embedded:NAME given by name is compared once.
func compareModels(ctx context.Context, note func(format string, args ...any), system string, files []string) ([]namedModel, error) {
	var out []namedModel
	taken := map[string]bool{}     // names given
	included := map[string]bool{}  // sources compared
	bytesOf := map[string]string{} // SHA-256 of a compared file's bytes → its source
	for _, b := range core.Backbones {
		data, ok := lookupEmbedded(system, string(b))
		if !ok {
			continue
		}
		m, info, err := core.DecodeCheckpoint(data)
		if err != nil {
			return nil, fmt.Errorf("embedded checkpoint %s: %w", checkpoints.Name(system, string(b)), err)
		}
		name, source := "apic-"+string(b), embeddedPrefix+checkpoints.Name(system, string(b))
		taken[name], included[source], bytesOf[info.SHA256] = true, true, source
		out = append(out, namedModel{name: name, source: source, sha256: info.SHA256, model: m})
	}
	for _, path := range files {
		if included[path] {
			continue // an embedded checkpoint of the system, compared already
		}
		m, info, err := OpenFlagCheckpoint(ctx, "checkpoint", path)
		if err != nil {
			return nil, err
		}
		if m.Config.Arch.System != system {
			return nil, UsageError("checkpoint %s is for system %s, not %s", path, m.Config.Arch.System, system)
		}
		if first, ok := bytesOf[info.SHA256]; ok {
			if strings.HasPrefix(first, embeddedPrefix) {
				note("--checkpoint %s has the bytes of %s, compared once as that", path, first)
				continue
			}
			return nil, sameBytesError(path, first, info.SHA256)
		}
		bytesOf[info.SHA256] = path
		name := "apic-" + string(m.Config.Arch.Backbone)
		if taken[name] {
			base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			name += ":" + base
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("apic-%s:%s-%d", m.Config.Arch.Backbone, base, i)
			}
		}
		taken[name] = true
		out = append(out, namedModel{name: name, source: path, sha256: info.SHA256, model: m, warnings: unfinishedWarning(info, path)})
	}
	return out, nil
}

// compareAPIC scores one APIC model from single-realization calls (each
// timed) and measures its batched throughput on the same tasks, with the
// model's refinement and, when it refines, without (one pass).
func compareAPIC(ctx context.Context, env *Env, sys sims.System, nm namedModel, test []sims.Task, opt core.EvalOptions) (compareMethod, error) {
	refine := opt.Refine
	if refine < 0 {
		refine = nm.model.Config.Infer.Refine
	}
	env.Notef("%s: %s one at a time, then batched (%s)", nm.name, core.Count(len(test), "realization"), nm.source)
	run, batched, err := timeAPIC(ctx, sys, nm, test, core.PredictOptions{Samples: opt.Samples, Seed: opt.Seed, Refine: opt.Refine}, opt.Noise)
	if err != nil {
		return compareMethod{}, err
	}
	out := compareMethod{Name: nm.name, Source: nm.source, SHA256: nm.sha256, Run: run, Batched: batched, Refine: refine}
	out.Samples = nm.model.Config.Arch.Backbone.SamplesDrawn(opt.Samples)
	out.Warnings = append(nm.model.RangeWarnings(test[0].Context.Len(), opt.Noise), nm.warnings...)
	out.OnePass, out.OnePassBatched = run.MedianSeconds(), batched
	if refine > 0 {
		one, oneBatched, err := timeAPIC(ctx, sys, nm, test, core.PredictOptions{Samples: opt.Samples, Seed: opt.Seed, Refine: 0}, opt.Noise)
		if err != nil {
			return compareMethod{}, fmt.Errorf("one pass: %w", err)
		}
		out.OnePass, out.OnePassBatched = one.MedianSeconds(), oneBatched
	}
	return out, nil
}

// timeAPIC runs an APIC model with options o on every task, of noise σ
// = noise, one at a time (timed and scored), then all together, and
// returns the single runs and the batched timing (core.TimeBatched:
// warm-up calls, then the median of calls repeated for at least
// batchSeconds, at most batchCalls).
func timeAPIC(ctx context.Context, sys sims.System, nm namedModel, test []sims.Task, o core.PredictOptions, noise float64) (core.MethodRun, core.BatchTiming, error) {
	m := &core.APIC{Model: nm.model, Opt: o, Label: nm.name, Noise: noise}
	// Untimed calls first, one realization at a time for a tenth of a
	// second as TimeBatched warms up, so that the latency does not include
	// first-use costs (page faults of fresh buffers, pools filling up, the
	// collector's heap target): after a single warm-up call the first
	// model timed in a process ran slower per realization than after a
	// tenth of a second of them (spring/cnp, timed first: 0.48 ms
	// against 0.18–0.19 ms, apic compare --system spring --tasks 20
	// --seed 777). A realization that diverges is counted by
	// RunMethod, not here.
	for w, i := time.Now(), 0; i == 0 || time.Since(w) < singleWarmup; i++ {
		t := test[i%len(test)]
		if _, err := m.Calibrate(ctx, t.Context, t.Real.Side); err != nil && !errors.Is(err, core.ErrDiverged) {
			return core.MethodRun{}, core.BatchTiming{}, fmt.Errorf("%s: %w", nm.name, err)
		}
	}
	run, err := core.RunMethod(ctx, sys, m, test, 1, nil)
	if err != nil {
		return core.MethodRun{}, core.BatchTiming{}, err
	}
	batched, err := core.TimeBatched(ctx, m, test, batchSeconds, batchCalls)
	if err != nil {
		return core.MethodRun{}, core.BatchTiming{}, err
	}
	return run, batched, nil
}

// singleWarmup is how long timeAPIC calls the model untimed before it
// times single realizations.
const singleWarmup = 100 * time.Millisecond

// batchSeconds and batchCalls bound the repeated batched calls of
// timeAPIC.
const (
	batchSeconds = 0.5
	batchCalls   = 500
)

// compareKOH fits KOH-GP to every task on a worker pool, reporting
// progress on stderr.
func compareKOH(ctx context.Context, env *Env, sys sims.System, test []sims.Task, starts int, seed uint64, workers int) (compareMethod, error) {
	workers = min(workers, len(test))
	env.Notef("%s: fitting %s (%s each) on %s", kohgp.Name, core.Count(len(test), "realization"), core.Count(starts, "start"), core.Count(workers, "worker"))
	k := kohgp.New(sys, kohgp.Options{Starts: starts, Seed: seed})
	prog := newTaskProgress(env, kohgp.Name)
	start := time.Now()
	run, err := core.RunMethod(ctx, sys, k, test, workers, prog.report)
	prog.finish()
	if err != nil {
		return compareMethod{}, err
	}
	settings := fmt.Sprintf("KOH-GP: %s per realization, %s", core.Count(starts, "L-BFGS start"), core.Count(workers, "worker"))
	return compareMethod{Name: kohgp.Name, Run: run, Wall: time.Since(start), Baseline: true, Workers: workers, Settings: settings}, nil
}

// speedup is KOH-GP's median wall time per realization over m's.
func speedup(koh, m compareMethod) float64 {
	return koh.Run.MedianSeconds() / m.Run.MedianSeconds()
}

// speedWords says a speed ratio (KOH-GP's time over APIC's) in words:
// "is 3.2× faster per realization than KOH-GP", "is 1.4× slower …"
// below 1, and "takes as long per realization as KOH-GP" for a ratio
// that three digits cannot tell from 1 ("1× slower" says nothing).
func speedWords(s float64) string {
	switch {
	case math.Abs(s-1) < 0.005:
		return "takes as long per realization as KOH-GP"
	case s < 1:
		return fmt.Sprintf("is %s slower per realization than KOH-GP", fmtRatio(1/s))
	}
	return fmt.Sprintf("is %s faster per realization than KOH-GP", fmtRatio(s))
}

// onePassRatios are APIC's one-pass speed-ups over KOH-GP.
type onePassRatios struct {
	latency    float64 // KOH-GP's median fit over APIC's median latency
	batched    float64 // KOH-GP's median fit over APIC's batch time per realization
	cpu        float64 // CPU per realization, KOH-GP's over APIC's batched
	throughput float64 // realizations per second on the same cores, APIC's batched over KOH-GP's
}

func onePassSpeedups(koh, m compareMethod, tasks int) onePassRatios {
	perRealization := m.OnePassBatched.Seconds / float64(tasks)
	return onePassRatios{
		latency:    koh.Run.MedianSeconds() / m.OnePass,
		batched:    koh.Run.MedianSeconds() / perRealization,
		cpu:        koh.Run.CPUPerRealization() / m.OnePassBatched.CPUPerRealization,
		throughput: m.OnePassBatched.RealizationsPerSecond(tasks) / kohThroughput(koh),
	}
}

// cpuSpeedup is KOH-GP's CPU time per realization over m's (NaN where
// CPU time is unavailable).
func cpuSpeedup(koh, m compareMethod) float64 {
	return koh.Run.CPUPerRealization() / m.Run.CPUPerRealization()
}

// finitePtr returns &x, or nil for a NaN or infinite x (JSON has no NaN).
func finitePtr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// compareMethodJSON is one method's entry in the JSON output.
type compareMethodJSON struct {
	Source                string                  `json:"source,omitempty"`
	SourceSHA256          string                  `json:"source_sha256,omitempty"`
	Metrics               map[string]core.Summary `json:"metrics"`
	ThetaPerParam         map[string]core.Summary `json:"theta_mae_per_param"`
	ThetaBiasPerParam     map[string]core.Summary `json:"theta_bias_per_param"`
	SecondsPerRealization float64                 `json:"seconds_per_realization"`
	SecondsTotal          float64                 `json:"seconds_total"`
	RealizationsPerSecond float64                 `json:"realizations_per_second_batched,omitempty"`
	SpeedupVsKOH          float64                 `json:"speedup_vs_koh_gp,omitempty"`
	CPUPerRealization     *float64                `json:"cpu_seconds_per_realization,omitempty"`
	CPUSpeedupVsKOH       *float64                `json:"speedup_vs_koh_gp_cpu,omitempty"`
	Refine                *int                    `json:"refine,omitempty"`
	WallSeconds           float64                 `json:"wall_seconds,omitempty"`
	Workers               int                     `json:"workers,omitempty"`
	Starts                int                     `json:"starts,omitempty"`
	SecondsMinMax         [2]float64              `json:"seconds_per_realization_min_max"`
	BatchedCPU            *float64                `json:"cpu_seconds_per_realization_batched,omitempty"`
	OnePassSeconds        float64                 `json:"one_pass_seconds_per_realization,omitempty"`
	OnePassBatched        float64                 `json:"one_pass_realizations_per_second_batched,omitempty"`
	OnePassBatchedCPU     *float64                `json:"one_pass_cpu_seconds_per_realization_batched,omitempty"`
	OnePassSpeedupVsKOH   float64                 `json:"one_pass_speedup_vs_koh_gp,omitempty"`
	// The batched one pass against KOH-GP: per-realization wall time
	// (KOH-GP's median fit over APIC's batch time per realization), CPU
	// per realization, and throughput on the same cores.
	OnePassBatchedSpeedupVsKOH    float64  `json:"one_pass_batched_speedup_vs_koh_gp,omitempty"`
	OnePassBatchedCPUSpeedupVsKOH *float64 `json:"one_pass_batched_cpu_speedup_vs_koh_gp,omitempty"`
	OnePassThroughputVsKOH        float64  `json:"one_pass_throughput_ratio_vs_koh_gp,omitempty"`
	RealizationsPerSecondKOH      float64  `json:"realizations_per_second,omitempty"`
	// Failures are the realizations the method failed on, left out of
	// its metrics.
	Failures core.Failures `json:"failures"`
	// Warnings say where the condition lies outside the model's
	// training range (APIC only).
	Warnings []string `json:"warnings"`
	// Correction-PINN's budget.
	Members int `json:"members,omitempty"`
	Steps   int `json:"steps,omitempty"`
	// BCPI's adaptive Metropolis budget.
	MCMC int `json:"mcmc_steps,omitempty"`
}

func writeCompareJSON(w io.Writer, sys sims.System, test []sims.Task, opt core.EvalOptions, methods []compareMethod, failed []failedMethod, starts, workers int, rawSpread bool) error {
	out := map[string]any{
		"system": sys.Name(), "tasks": len(test), "context": test[0].Context.Len(),
		"noise": opt.Noise, "seed": opt.Seed,
		"failed_methods": append([]failedMethod{}, failed...), // [] rather than null
	}
	// The latent samples are APIC's alone: a run without an APIC model
	// drew none, and says nothing of them.
	if slices.ContainsFunc(methods, func(m compareMethod) bool { return m.Samples > 0 }) {
		out["samples"] = opt.Samples
	}
	ms := map[string]compareMethodJSON{}
	koh, hasKOH := findMethod(methods, kohgp.Name)
	for _, m := range methods {
		j := compareMethodJSON{
			Source: m.Source, SourceSHA256: m.SHA256, Metrics: m.Report.Metrics,
			ThetaPerParam: m.Report.ThetaPerParam, ThetaBiasPerParam: m.Report.ThetaBiasPerParam,
			SecondsPerRealization: m.Run.MedianSeconds(), SecondsTotal: m.Run.TotalSeconds(),
			SecondsMinMax:     minMax(m.Run.Seconds),
			CPUPerRealization: finitePtr(m.Run.CPUPerRealization()),
			Failures:          m.Report.Failures,
			Warnings:          append([]string{}, m.Warnings...), // [] rather than null
		}
		if m.Baseline {
			j.WallSeconds, j.Workers = m.Wall.Seconds(), m.Workers
			j.RealizationsPerSecondKOH = kohThroughput(m)
			baselineJSON(&j, m, starts)
			if hasKOH && m.Name != kohgp.Name {
				j.SpeedupVsKOH, j.CPUSpeedupVsKOH = speedup(koh, m), finitePtr(cpuSpeedup(koh, m))
			}
		} else if !hasKOH {
			refine := m.Refine
			j.RealizationsPerSecond, j.Refine = m.Batched.RealizationsPerSecond(len(test)), &refine
			j.BatchedCPU = finitePtr(m.Batched.CPUPerRealization)
			j.OnePassSeconds, j.OnePassBatched = m.OnePass, m.OnePassBatched.RealizationsPerSecond(len(test))
			j.OnePassBatchedCPU = finitePtr(m.OnePassBatched.CPUPerRealization)
		} else {
			refine := m.Refine
			n := len(test)
			j.RealizationsPerSecond, j.SpeedupVsKOH, j.Refine = m.Batched.RealizationsPerSecond(n), speedup(koh, m), &refine
			j.CPUSpeedupVsKOH = finitePtr(cpuSpeedup(koh, m))
			j.BatchedCPU = finitePtr(m.Batched.CPUPerRealization)
			one := onePassSpeedups(koh, m, n)
			j.OnePassSeconds, j.OnePassBatched = m.OnePass, m.OnePassBatched.RealizationsPerSecond(n)
			j.OnePassBatchedCPU = finitePtr(m.OnePassBatched.CPUPerRealization)
			j.OnePassSpeedupVsKOH, j.OnePassBatchedSpeedupVsKOH = one.latency, one.batched
			j.OnePassBatchedCPUSpeedupVsKOH, j.OnePassThroughputVsKOH = finitePtr(one.cpu), one.throughput
		}
		ms[m.Name] = j
	}
	out["methods"] = ms
	if rawSpread {
		out["raw_spread"] = true
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// minMax returns the smallest and largest of xs.
func minMax(xs []float64) [2]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return [2]float64{lo, hi}
}

// compareColumns are the metric columns of the paper's tables (the
// function band's, scored against G), then the observation band's 95%
// coverage on held-out noisy observations.
var compareColumns = []string{
	core.KeyReconMAE, core.KeyReconLL, core.KeyReconECE,
	core.KeyDeltaMAE, core.KeyDeltaLL, core.KeyDeltaECE, core.KeyThetaMAE, core.KeyObsCover,
}

var compareHeads = map[string]string{
	core.KeyReconMAE: "recon MAE", core.KeyReconLL: "recon LL", core.KeyReconECE: "recon ECE",
	core.KeyDeltaMAE: "δ MAE", core.KeyDeltaLL: "δ LL", core.KeyDeltaECE: "δ ECE", core.KeyThetaMAE: "θ MAE",
	core.KeyObsCover: obsCoverLabel,
}

// apicSamplesText says how many latent samples the APIC models drew
// when asked for requested: "32 samples" when they agree, else the
// requested count with the exceptions named, "32 samples (apic-cnp: 1)",
// as a CNP draws one whatever --samples asks.
func apicSamplesText(apics []compareMethod, requested int) string {
	return apicCountText(apics, requested, func(m compareMethod) int { return m.Samples }, "sample")
}

// apicRefineText says how many refinement steps the APIC models ran
// when asked for requested (-1: each checkpoint's own setting), in the
// words of apicSamplesText: "5 refinement steps (apic-anp: 8)". The
// refinement is part of what the metrics and times measure, so the
// header states it.
func apicRefineText(apics []compareMethod, requested int) string {
	return apicCountText(apics, requested, func(m compareMethod) int { return m.Refine }, "refinement step")
}

// apicCountText is "n noun" for the count the APIC models share, with
// the exceptions named: the requested count when some model used it,
// else the commonest one (the first on a tie).
func apicCountText(apics []compareMethod, requested int, count func(compareMethod) int, noun string) string {
	usual := commonestCount(apics, count)
	if slices.ContainsFunc(apics, func(m compareMethod) bool { return count(m) == requested }) {
		usual = requested
	}
	var others []string
	for _, m := range apics {
		if count(m) != usual {
			others = append(others, fmt.Sprintf("%s: %d", m.Name, count(m)))
		}
	}
	text := core.Count(usual, noun)
	if len(others) > 0 {
		text += " (" + strings.Join(others, ", ") + ")"
	}
	return text
}

// commonestCount is the count most of apics have, the first model's
// among the tied.
func commonestCount(apics []compareMethod, count func(compareMethod) int) int {
	seen := map[int]int{}
	best := count(apics[0])
	for _, m := range apics {
		c := count(m)
		seen[c]++
		if seen[c] > seen[best] {
			best = c
		}
	}
	return best
}

func writeCompareText(w io.Writer, sys sims.System, test []sims.Task, opt core.EvalOptions, methods []compareMethod, starts, workers int, rawSpread bool) {
	fmt.Fprintf(w, "%s · %s, context %d, noise %g, seed %d\n", sys.Title(), core.Count(len(test), "realization"), test[0].Context.Len(), opt.Noise, opt.Seed)
	raw := ""
	if rawSpread {
		raw = ", raw spread"
	}
	var settings []string
	for _, m := range methods {
		if m.Baseline {
			settings = append(settings, m.Settings)
		}
	}
	if apics := apicMethods(methods); len(apics) > 0 {
		settings = append(settings, fmt.Sprintf("APIC: %s, %s%s", apicSamplesText(apics, opt.Samples), apicRefineText(apics, opt.Refine), raw))
	}
	fmt.Fprintf(w, "%s\n\n", strings.Join(settings, "; "))
	writeCompareMetrics(w, sys, methods, len(test))
	fmt.Fprintln(w)
	writeCompareTimes(w, methods, len(test))
	koh, hasKOH := findMethod(methods, kohgp.Name)
	if apics := apicMethods(methods); hasKOH && len(apics) > 0 {
		writeOnePassSpeed(w, koh, apics, len(test), workers)
	}
}

// writeCompareMetrics writes the metrics' table (mean ± std over
// realizations, methods as rows), the failures and warnings, and θ's
// MAE per parameter where there are several.
func writeCompareMetrics(w io.Writer, sys sims.System, methods []compareMethod, tasks int) {
	rows := [][]string{append([]string{"method"}, headsOf(compareColumns)...)}
	for _, m := range methods {
		row := []string{m.Name}
		for _, k := range compareColumns {
			s := m.Report.Metrics[k]
			row = append(row, fmtMeanStd(s, scored(m.Report)))
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
	writeMetricsFooter(w, methods, tasks)
	for _, m := range methods {
		if line := failureLine(m.Report.Failures, tasks); line != "" {
			fmt.Fprintf(w, "  %s: %s\n", m.Name, line)
		}
	}
	writeMethodWarnings(w, methods)
	params := sys.Params()
	if len(params) <= 1 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "θ MAE per parameter:")
	rows = [][]string{{"method"}}
	for _, p := range params {
		rows[0] = append(rows[0], p.Name)
	}
	for _, m := range methods {
		row := []string{m.Name}
		for _, p := range params {
			row = append(row, fmtMeanStd(m.Report.ThetaPerParam[p.Name], scored(m.Report)))
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

// writeCompareTimes writes each method's time per realization and its
// speed-up against KOH-GP.
func writeCompareTimes(w io.Writer, methods []compareMethod, tasks int) {
	fmt.Fprintln(w, "time per realization (wall: median and total of the per-realization times; CPU: the process's CPU time over the run / realizations):")
	rows := [][]string{{"method", "wall median", "wall total", "CPU", "batched", "speed-up vs KOH-GP (wall, CPU)"}}
	koh, hasKOH := findMethod(methods, kohgp.Name)
	for _, m := range methods {
		row := []string{m.Name, fmtSeconds(m.Run.MedianSeconds()), fmtSeconds(m.Run.TotalSeconds()), fmtSeconds(m.Run.CPUPerRealization())}
		if m.Baseline {
			row = append(row, elapsedText(m))
		} else {
			row = append(row, fmt.Sprintf("%.0f realizations/s", m.Batched.RealizationsPerSecond(tasks)))
		}
		switch {
		case m.Name == kohgp.Name:
			row = append(row, "1×")
		case hasKOH:
			row = append(row, fmtRatio(speedup(koh, m))+", "+fmtRatio(cpuSpeedup(koh, m)))
		default:
			row = append(row, "—")
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

// writeOnePassSpeed writes the APIC methods' one-pass latency, batched
// time and throughput against KOH-GP's (koh), then each default
// calibration's speed-up in words.
func writeOnePassSpeed(w io.Writer, koh compareMethod, apics []compareMethod, tasks, workers int) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "APIC without refinement (one pass, the paper's amortized inference), one at a time (latency: median wall)")
	fmt.Fprintf(w, "and batched (all %d in one call, median of repeated calls), each against KOH-GP's median fit (%s wall),\n", tasks, fmtSeconds(koh.Run.MedianSeconds()))
	fmt.Fprintf(w, "CPU per realization (%s) and throughput on the same cores (%.3g realizations/s on %s):\n", fmtSeconds(koh.Run.CPUPerRealization()), kohThroughput(koh), core.Count(min(workers, tasks), "worker"))
	rows := [][]string{{"method", "latency", "×", "batched wall", "×", "batched CPU", "×", "throughput", "×"}}
	for _, m := range apics {
		one := onePassSpeedups(koh, m, tasks)
		rows = append(rows, []string{m.Name,
			fmtSeconds(m.OnePass), fmtRatio(one.latency),
			fmtSeconds(m.OnePassBatched.Seconds / float64(tasks)), fmtRatio(one.batched),
			fmtSeconds(m.OnePassBatched.CPUPerRealization), fmtRatio(one.cpu),
			fmt.Sprintf("%.0f realizations/s", m.OnePassBatched.RealizationsPerSecond(tasks)), fmtRatio(one.throughput)})
	}
	writeAligned(w, rows)
	for _, m := range apics {
		fmt.Fprintf(w, "\n%s (%s, %d refinement steps) %s (median wall %s vs %s; CPU %s vs %s).\n",
			m.Name, m.Source, m.Refine, speedWords(speedup(koh, m)), fmtSeconds(m.Run.MedianSeconds()), fmtSeconds(koh.Run.MedianSeconds()),
			fmtSeconds(m.Run.CPUPerRealization()), fmtSeconds(koh.Run.CPUPerRealization()))
		if line := lessAccurateLine(m); line != "" {
			fmt.Fprintln(w, line)
		}
	}
}

// lessAccurateLine says, under a speed-up, that the APIC method m
// predicts G no better than a flat line at the context's mean (its
// warning reconGuessWarnings): its speed then buys nothing, which the
// ratio alone would hide (a model trained for a few steps is as fast
// as a good one). Empty otherwise, as for the shipped models. KOH-GP
// is no yardstick for this: on spring its θ MAE is that of a guess.
func lessAccurateLine(m compareMethod) string {
	if !m.Report.NoBetterThanFlatLine() {
		return ""
	}
	mae, flat := m.Report.Metrics[core.KeyReconMAE].Mean, m.Report.ContextMeanMAE
	return fmt.Sprintf("  Yet its predictions miss G by more than a flat line at the context's mean does (recon MAE %.3g vs %.3g): see its warnings above.", mae, flat)
}

// writeMetricsFooter says under the metrics table what its ± is and
// which way each column is better.
func writeMetricsFooter(w io.Writer, methods []compareMethod, tasks int) {
	fewer := false
	for _, m := range methods {
		fewer = fewer || scored(m.Report) != tasks
	}
	if tasks > 1 {
		fmt.Fprintf(w, "  %s\n", sdFooter(tasks, fewer))
	}
	fmt.Fprintf(w, "  %s\n", betterLine(compareColumns))
}

// writeMethodWarnings prints each distinct warning of the methods once,
// with the methods it concerns (the checkpoints of one system usually
// share their training range).
func writeMethodWarnings(w io.Writer, methods []compareMethod) {
	var order []string
	who := map[string][]string{}
	for _, m := range methods {
		for _, text := range m.Warnings {
			if who[text] == nil {
				order = append(order, text)
			}
			who[text] = append(who[text], m.Name)
		}
	}
	for _, text := range order {
		fmt.Fprintf(w, "  warning (%s): %s\n", strings.Join(who[text], ", "), text)
	}
}

// fmtRatio formats a speed-up ("—" when unknown) in one notation for
// every row of a column: three significant digits with trailing zeros
// kept (9.20× beside 9.36×, not 9.2×), from 100 on a plain whole number
// (1460×, not 1.46e+03× beside 854×), and below 0.01 "<0.01×" (not
// 4.5e-05× beside 20.2×): a method 100 times slower than KOH-GP.
func fmtRatio(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "—"
	case math.Abs(r) >= 99.95:
		return fmt.Sprintf("%.0f×", r)
	case math.Abs(r) < 0.01: // a ratio is never below 0
		return "<0.01×"
	}
	// The decimals that leave three significant digits, counted from r
	// rounded to them (9.996 is 10.0, with one decimal).
	sci := strconv.FormatFloat(r, 'e', 2, 64) // 9.20e+00
	e, _ := strconv.Atoi(sci[strings.IndexByte(sci, 'e')+1:])
	return strconv.FormatFloat(r, 'f', max(0, 2-e), 64) + "×"
}

func headsOf(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = compareHeads[k]
	}
	return out
}

// fmtMeanStd formats a summary of n scored realizations with four
// significant decimals for the small errors, fewer for large
// log-likelihoods, and in exponent notation from tableExpBound on
// (tableNumber). One realization has no spread to state: its value
// stands alone, not beside a "± 0.0000" that would read as certainty.
func fmtMeanStd(s core.Summary, n int) string {
	prec := 4
	if math.Abs(s.Mean) >= 100 {
		prec = 1
	}
	if n == 1 {
		return tableNumber(s.Mean, prec)
	}
	return tableNumber(s.Mean, prec) + " ± " + tableNumber(s.Std, prec)
}

// scored is the number of a report's realizations that its means
// average: those whose prediction did not fail.
func scored(rep core.Report) int { return rep.Tasks - rep.Failures.Count }

// fmtSeconds formats a duration in seconds with a readable unit.
func fmtSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.2f s", s)
	}
}

// writeAligned prints rows as left-aligned columns two spaces apart. It
// counts runes, not bytes, so "±" and "δ" do not skew the columns.
func writeAligned(w io.Writer, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}
