package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "train",
		Summary: "train an APIC model (two stages) and save a checkpoint",
		Usage: `apic train --system SYS [--backbone cnp|lnp|anp] --out FILE [flags]
       apic train --init FILE --out FILE [flags]

Stage 1 trains the physics path (encoder and θ map) on nominal
realizations with known θ; stage 2 trains the full model on true
realizations with −ELBO + λθ·Lθ + λδ·Lδ. Fresh realizations are drawn
every step from a source seeded with --seed. Step counts and batch default
to the paper's appendix A (spring and lv 3000+4000 steps, advdiff
4000+10000; batch 64). Widths and latents default to sizes smaller than
the paper's, for CPUs: 2 hidden layers of 64 (spring) or 128 (lv, advdiff)
in the encoders and f_ψ, latents of 8 or 16, where the paper's encoders
are 128→64 (spring) and 512→256→256 wide with latents of 1 and 64. Ctrl-C
stops training; the weights of the completed steps go to
NAME.partial.safetensors beside --out, which an unfinished run never
writes (NAME.partial-2.safetensors, … when that exists). A run that writes
--out, or is interrupted again and keeps a new partial file beside it,
removes only the partial file it resumed from, and says so: its --init
file, when that is one of --out's partial files (a regular file apic
wrote, marked unfinished) not modified since the run started; a run that
fails (a diverged loss) leaves it. So a chain of resumed runs leaves no
partial file once it finishes. Other partial files (another run's, an
unrelated system's) stay, and one line names them: "left NAME: an
unfinished run's weights (apic train --init NAME … resumes it); remove it
when no longer needed". Weights that cannot be saved where they should (a
full disk) go to the temporary directory, and the error says where; a
--out that another run made while this one trained is left, without
--force, and the weights go beside it under a new name.

Before training, train estimates the run's peak memory: the parameters
with their gradients and Adam's two moments, counted from the
architecture, and a step's tape, measured on one realization at the
largest context size and scaled to --batch, or the recalibration after
it, whichever is larger: the validation realizations it holds at once
(--recalibrate N, or N per condition for the --recalibrate-only parts
that fit the table), each with its prediction on the grid. A
--recalibrate-only run is checked too. A run whose estimate exceeds
the memory available (MemAvailable in /proc/meminfo; no check where that
is unreadable) is refused, the estimate and the flags to lower named,
instead of ending in an out-of-memory crash. APIC_MEMORY_BUDGET=MB sets
another budget in megabytes (0: no check).`,
		Run: runTrain,
	})
}

// trainFlags are train's flags (register), the architecture's and the
// training's with their defaults filled in once the system and backbone
// are known.
type trainFlags struct {
	initInfo                                              core.Info // what the --init checkpoint recorded
	system, backbone, out, form, reg, dtype, init, decAct string
	contextRange, recalibrateOnly, noiseRange             string
	steps1, steps2, batch, trajectories                   int
	hidden, layers, latent, decHidden, decLayers          int
	heads, valEvery, valTasks, refine, recalibrate        int
	force                                                 bool
	basis, latentDelta                                    int
	lr, lrFinal, lambdaTheta, lambdaDelta                 float64
	noise, clip, noiseLowShare                            float64
	seed                                                  uint64
	jsonOut, gridSummary, noThetaHint                     bool
	set                                                   map[string]bool // flags given on the command line
	// checkOnly: only the flags are checked (Env.check), not --out, whose
	// directory a sweep makes once its cell runs.
	checkOnly bool
}

// register defines train's flags on fs, bound to f's fields: runTrain
// parses them, and a sweep reads their defaults (trainFlagDefaults).
func (f *trainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.system, "system", "", "system: "+strings.Join(sims.Names(), ", ")+" (required unless --init, whose file names it)")
	fs.StringVar(&f.backbone, "backbone", "lnp", "backbone: cnp, lnp or anp")
	fs.StringVar(&f.out, "out", "", "checkpoint file to write, its name ending in .safetensors (required; a name without an extension, where no file is, gets it, as the explorer's save does)")
	fs.StringVar(&f.init, "init", "", "start from this checkpoint's weights (fine-tuning) instead of a fresh model: a file, or embedded:NAME for one shipped with the program")
	fs.StringVar(&f.decAct, "dec-act", "silu", "activation of f_ψ: silu, relu, tanh, softplus, sigmoid, identity")
	fs.StringVar(&f.form, "form", "native", "discrepancy form: native, additive or multiplicative")
	fs.StringVar(&f.reg, "reg", "l2", "discrepancy regulariser: l1, l2, orthogonal, spectral, gradpen, spread")
	fs.StringVar(&f.dtype, "dtype", "f32", "storage type of the weights: f32 or f64 (default f32; with --init, the checkpoint's; finished weights beyond f32's range are saved as f64)")
	stepsHelp := fmt.Sprintf("steps, at most %d (default: the system's; with --init, the plan the checkpoint records, unless that is 0+0: then give both)", core.LimitTrainSteps.Max)
	maxWidthText, maxLayersText := strconv.Itoa(core.LimitWidth.Max), strconv.Itoa(core.LimitLayers.Max)
	fs.IntVar(&f.steps1, "steps1", -1, "stage 1 "+stepsHelp)
	fs.IntVar(&f.steps2, "steps2", -1, "stage 2 "+stepsHelp)
	fs.IntVar(&f.batch, "batch", 0, "realizations per step, at most "+strconv.Itoa(core.LimitBatch.Max)+" (default "+systemsBatch()+"; with --init, the checkpoint's)")
	fs.IntVar(&f.trajectories, "trajectories", 0, "train on a fixed pool of N realizations held in memory, at most "+trajectoryBounds()+" (0: fresh every step)")
	fs.StringVar(&f.noiseRange, "noise-range", defaultNoiseRange, "noise-aware training: each realization's observation noise σ drawn uniformly from LO:HI, 0 ≤ LO ≤ HI ≤ 1000 (default 0:0.1, the explorer's slider; with --init, the checkpoint's); validation and recalibration use LO. --noise S trains at the one level S instead")
	fs.StringVar(&f.contextRange, "context-range", "", "training context sizes MIN:MAX, 1 ≤ MIN ≤ MAX ≤ the grid's points, drawn uniformly (default: the system's range)")
	fs.IntVar(&f.hidden, "hidden", 0, "encoder width, at most "+maxWidthText+" (default: the system's)")
	fs.IntVar(&f.layers, "layers", 0, "encoder hidden layers, at most "+maxLayersText+" (default 2)")
	fs.IntVar(&f.latent, "latent", 0, "latent dimension of z_θ and z_δ, at most "+maxWidthText+" (default: the system's)")
	fs.IntVar(&f.decHidden, "dec-hidden", 0, "width of f_ψ and g_φ, at most "+maxWidthText+" (default: the system's)")
	fs.IntVar(&f.decLayers, "dec-layers", 0, "hidden layers of f_ψ, at most "+maxLayersText+" (default 2)")
	fs.IntVar(&f.latentDelta, "latent-delta", 0, "latent dimension of z_δ alone, overriding --latent, at most "+maxWidthText+" (default: the same as z_θ)")
	fs.IntVar(&f.basis, "basis", 0, "f_ψ as J learned basis functions of the query state with coefficients from the latents, J at most "+maxWidthText+" (0: one MLP on state and latents); needs one f_ψ value per query state (not advdiff's reaction rate, not lv's additive forms), and anp then drops its target attention")
	fs.IntVar(&f.heads, "heads", 0, "attention heads of an anp model, at most --hidden, which they must divide (default 4); cnp and lnp have no attention and refuse it")
	fs.IntVar(&f.valEvery, "val-every", -1, fmt.Sprintf("stage 2 steps between validations, at most %d (a stage's most steps); the last step always validates when > 0 (0: none during training, only the final one after recalibration; default 500)", valEveryLimit.Max))
	fs.IntVar(&f.valTasks, "val-tasks", 0, fmt.Sprintf("validation realizations, %d to %d (default 32)", valTasksLimit.Min, valTasksLimit.Max))
	fs.Float64Var(&f.lr, "lr", 5e-4, "Adam learning rate, in "+core.LimitLR.Interval())
	fs.Float64Var(&f.lrFinal, "lr-final", 0, "cosine-decay the learning rate to this value in each stage, in "+core.LimitLRFinal.Interval()+" and at most --lr (0: constant)")
	fs.Float64Var(&f.lambdaTheta, "lambda-theta", 1, "weight λθ of the supervised θ loss in stage 2, in "+core.LimitLossWeight.Interval())
	fs.Float64Var(&f.lambdaDelta, "lambda-delta", 1, "weight λδ of the discrepancy regulariser, in "+core.LimitLossWeight.Interval())
	fs.Float64Var(&f.noiseLowShare, "noise-low-share", 0, "with a noise range, draw this share (between 0 and 1) of the realizations at its low end LO and the rest uniformly (0.5 with 0:0.1: half noise-free)")
	fs.Float64Var(&f.noise, "noise", 0, fmt.Sprintf("train at this one observation noise σ, at most %v (contexts and targets), instead of --noise-range; --noise 0 trains noise-free (default: not set, the --noise-range)", core.MaxNoise))
	fs.Float64Var(&f.clip, "clip", 10, "gradient-norm clipping threshold, in "+core.LimitClip.Interval()+" (0: off)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the weights and of every training draw")
	fs.IntVar(&f.recalibrate, "recalibrate", core.DefaultRecalibrationTasks, fmt.Sprintf("after training, tune the refinement's z_θ prior and fit the predictive spread and θ's interval scale on this many validation realizations, at most %d (0: off); the table of scales per condition gets max(8, N/4) of them per cell", core.LimitRecalTasks.Max))
	fs.StringVar(&f.recalibrateOnly, "recalibrate-only", "", "with --init FILE --steps1 0 --steps2 0: 'theta' fits only θ's interval scale, 'conditions' only the table of scales over context sizes × noise levels (this many realizations per condition), 'theta-shape' only the shapes of θ's intervals in that table, 'one-pass' only the one-pass predictions' table and θ's factors and floors, 'delta-theta' only the one-pass δ band's share of θ's uncertainty (and the one-pass table under it), 'band-shape' only the shapes of the reconstruction's and δ's bands in both tables, 'theta-prior' only the form of refinement's prior on θ's logits, 'delta-profile' only the time profile and scale of δ's deviation, 'disagreement' only the weight per condition of how far refinement moved in the refined bands, keeping every other setting of FILE")
	fs.BoolVar(&f.gridSummary, "grid-summary", false, "encoders also read the context smoothed onto the grid (SetConv-style summary)")
	fs.BoolVar(&f.noThetaHint, "no-theta-hint", false, "ignore the system's direct parameter estimates (lv: η, γ from the predator equation), an ablation")
	fs.BoolVar(&f.force, "force", false, "replace --out when it exists (without it train refuses, unless --out is the --init file); only a safetensors checkpoint is ever replaced")
	fs.IntVar(&f.refine, "refine", -1, fmt.Sprintf("refinement steps (at most %d) stored as the model's inference default (-1, the default: keep the system's, or with --init the file's)", core.LimitRefine.Max))
	fs.BoolVar(&f.jsonOut, "json", false, "print the result as JSON instead of text")
}

func runTrain(ctx context.Context, args []string, env *Env) error {
	start := time.Now() // a partial file modified since is not the one resumed
	var f trainFlags
	fs := env.FlagSet()
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if f.out != "-" { // refused below as standard output, by that name
		f.out = core.CheckpointFileName(f.out)
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	f.checkOnly = env.check != nil
	if err := f.checkGiven(fs); err != nil {
		return err
	}
	// The --init file as it was when the run started: the partial file
	// the run resumes from, if it is one, is removed once --out or a
	// new partial file holds its steps, and only if it is still that
	// file (resumedRun.supersede).
	from := resumedRun{init: f.init, start: start}
	if st, err := os.Lstat(f.init); err == nil {
		from.stat = st
	}
	cfg, init, err := f.config(ctx)
	if err != nil || f.checkOnly {
		return err
	}
	if w := f.recalibrationWarning(); w != "" { // once the flags are all good
		env.Warnf("%s", w)
	}
	if w := f.untrainedWarning(init); w != "" {
		env.Warnf("%s", w)
	}
	if w := smallPoolWarning(cfg.Train); w != "" {
		env.Warnf("%s", w)
	}
	run := &trainRun{env: env, f: &f, cfg: cfg, init: init, from: from}
	return run.run(ctx)
}

// trainRun is one train command past its flags: the model it trains,
// what the run did, and the files it writes.
type trainRun struct {
	env        *Env
	f          *trainFlags
	cfg        core.Config
	init       *core.Model // the --init model, nil for a fresh one
	from       resumedRun
	m          *core.Model
	res        core.TrainResult
	info       core.Info
	dtype      nets.DType
	outAtStart bool // a file was at --out when the run began
	// refineChanged says --refine gave the --init model another count
	// than its file's: the file's validation was measured with that one.
	refineChanged bool
}

// run trains the model, fits its inference settings and saves it.
func (r *trainRun) run(ctx context.Context) error {
	if err := r.newModel(); err != nil {
		return err
	}
	if err := r.checkStepMemory(ctx); err != nil {
		return err
	}
	if err := r.f.checkOutFree(); err != nil {
		return err
	}
	_, err := os.Lstat(r.f.out)
	r.outAtStart = err == nil // a file made at --out since is not to replace (saveOut)
	r.dtype = nets.F32
	if r.f.dtype == "f64" {
		r.dtype = nets.F64
	}
	cfg := r.cfg
	r.env.Notef("training %s/%s (%d parameters): stage 1 %d steps, stage 2 %d steps, batch %d, %s",
		cfg.Arch.System, cfg.Arch.Backbone, r.m.Params.Count(), cfg.Train.Steps1, cfg.Train.Steps2, cfg.Train.Batch, noiseWords(cfg.Train))
	rep := newProgressReporter(r.env, cfg.Train.Steps1, cfg.Train.Steps2)
	holdGCBallast()
	// The recalibration after training runs under the same goal: it
	// holds every validation realization of the table with its
	// prediction, hundreds of megabytes for advdiff, and the default
	// goal would let garbage reach as much again (core/recalmemory.go).
	// A sweep's later cells run in this process, so the goal is put back.
	restoreGC := tuneGCForTraining(os.Getenv("GOGC"))
	defer restoreGC()
	r.res, err = r.m.Train(ctx, core.Hooks{Progress: rep.report, ProgressEvery: 10})
	rep.finish()
	r.setInfo()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted after %d+%d steps; %s", r.res.Steps1, r.res.Steps2, r.resume())
		}
		return r.keptAfter(err)
	}
	when, err := r.fit(ctx)
	if err != nil {
		return err
	}
	if err := r.save(); err != nil {
		return err
	}
	// What was written comes first; the partial files it settles
	// (removed, or left) follow from it.
	err = reportTrained(r.env, r.f, r.cfg, r.res, r.info, r.init != nil, when)
	settlePartialFiles(r.f.out, r.from, r.env)
	return err
}

// newModel is the model to train: the --init one with this run's
// training plan (and --refine, if given), or a fresh one.
func (r *trainRun) newModel() error {
	if r.init != nil {
		r.m = r.init
		r.m.Config.Train = r.cfg.Train
		in := &r.m.Config.Infer
		before := in.Refine
		// The one-pass fit, θ's floors and δ's θ term among it, stays
		// where a model with the new count reads it.
		fitFor, known := in.FitRefineKnown()
		moved := in.SetRefine(r.cfg.Infer.Refine)
		r.refineChanged = in.Refine != before
		r.noteRefineChange(before, moved, fitRefineWords(fitFor, known, before))
		return nil
	}
	m, err := core.NewModel(r.cfg)
	if err != nil {
		return UsageError("%v", err)
	}
	r.m = m
	return nil
}

// checkStepMemory refuses a run whose step or recalibration, each
// measured on one realization and scaled to its batch, would take the
// model's memory estimate past the budget.
func (r *trainRun) checkStepMemory(ctx context.Context) error {
	scope, n := r.f.recalScope()
	e, err := r.m.MeasureRunMemory(ctx, n, scope)
	if err != nil {
		return err
	}
	if err := core.CheckTrainMemory(e); err != nil {
		return UsageError("%v", err)
	}
	return nil
}

// noteRefineChange says what --refine did to the --init file's fit,
// which refined from before steps (moved: SetRefine moved a fit) with a
// default fit made for fitFor ("5-step refined").
func (r *trainRun) noteRefineChange(before int, moved bool, fitFor string) {
	in, f := r.m.Config.Infer, r.f
	// A run that trains drops the fit (fit says so) and one that
	// recalibrates refits it: only a run doing neither keeps it.
	kept := f.recalibrate == 0 && !r.cfg.Train.TrainsAny() && r.m.Fitted()
	// A default fit made for other predictions than the file's own
	// (the one-pass fit serving refined ones, after a round trip) is
	// named as such.
	own := fitFor == predictionWords(before)
	switch {
	case moved && before <= 0 && kept:
		r.env.Notef("--refine %d: %s's default fit, fitted to %s predictions, is its one-pass fit now, and serves its refined predictions until --recalibrate N fits them", in.Refine, f.init, fitFor)
	case moved && before > 0:
		// The refined predictions' fit is dropped: a round trip
		// back to refinement finds only the one-pass fit.
		made := ""
		if !own {
			made = fmt.Sprintf(" (a fit made for %s predictions)", fitFor)
		}
		r.env.Notef("--refine %d: %s's one-pass fit is its default fit now; the fit of its %d-step refined predictions%s is not kept (--refine N later serves them with the one-pass fit until --recalibrate N fits them)", in.Refine, f.init, before, made)
	case before > 0 && in.Refine > 0 && in.Refine != before && kept && own:
		// Refinement's z_θ prior and the refined spread were picked
		// for the file's count, not this.
		r.env.Notef("--refine %d: the fit of %s's %d-step refined predictions (their spread, θ scales and z_θ prior) serves %d-step ones now, not refitted (apic train --init %s --steps1 0 --steps2 0 --out %s refits it for %d)", in.Refine, f.init, before, in.Refine, shellQuote(f.out), shellQuote(f.out), in.Refine)
	case before > 0 && in.Refine > 0 && in.Refine != before && kept:
		r.env.Notef("--refine %d: %s's default spread, fitted to %s predictions, serves its %d-step refined ones now, not refitted (apic train --init %s --steps1 0 --steps2 0 --out %s refits it for %d)", in.Refine, f.init, fitFor, in.Refine, shellQuote(f.out), shellQuote(f.out), in.Refine)
	}
}

// fitRefineWords names the predictions a default fit was made for,
// fitFor refinement steps where the file records them (known), else
// the file's own count, refine, which the fit serves.
func fitRefineWords(fitFor int, known bool, refine int) string {
	if !known {
		fitFor = refine
	}
	return predictionWords(fitFor)
}

// predictionWords names predictions with n refinement steps: "one-pass"
// or "5-step refined".
func predictionWords(n int) string {
	if n <= 0 {
		return "one-pass"
	}
	return fmt.Sprintf("%d-step refined", n)
}

// setInfo records the run's steps, time and validation, added to the
// --init file's.
func (r *trainRun) setInfo() {
	res := r.res
	r.info = core.Info{Steps1: res.Steps1, Steps2: res.Steps2, WallSeconds: res.Wall.Seconds(), Metrics: res.Val}
	if r.init != nil {
		r.info.Steps1 += r.f.initInfo.Steps1
		r.info.Steps2 += r.f.initInfo.Steps2
		r.info.WallSeconds += r.f.initInfo.WallSeconds
		r.info.Init, r.info.InitSHA256 = r.f.init, r.f.initInfo.SHA256
		if r.info.Metrics == nil {
			r.info.Metrics = r.f.initInfo.Metrics
		}
	}
}

// kept saves the steps an unfinished run did take (its weights are
// those of its last completed step) beside --out, which is left alone:
// the run is not the model asked for, and whatever file is there stays
// intact.
func (r *trainRun) kept() (msg, path string) {
	res := r.res
	if res.Steps1+res.Steps2 == 0 {
		return "nothing was written", ""
	}
	// Only this run's validation describes these weights (not the
	// --init file's), and the inference settings were fitted to the
	// weights the run started from: the partial file keeps the plain
	// spread and z_θ fixed in refinement, as the explorer does.
	partial := r.info
	partial.Metrics, partial.Unfinished = res.Val, true
	if res.Val != nil {
		// Even a validation at the last step came before the
		// recalibration an interrupted run never finished.
		partial.ValidationStep = res.ValStep
	}
	r.m.DropFit()
	r.m.PlanRemainder(r.cfg.Train, res)
	return keepUnfinished(r.f.out, r.m, partial, r.dtype)
}

// keep keeps the weights (kept) of a run that stopped, interrupted or
// failed, and settles the partial file it resumed from
// (resumedRun.afterPartial).
func (r *trainRun) keep(interrupted bool) (msg, path string) {
	msg, path = r.kept()
	return msg + r.from.afterPartial(r.f.out, path, interrupted, r.env), path
}

// keptAfter is err, which stopped the run (a failed training, or a
// failure or Ctrl-C after it), with where keep kept the weights.
func (r *trainRun) keptAfter(err error) error {
	msg, _ := r.keep(errors.Is(err, context.Canceled))
	return KeptWeights(err, msg)
}

// resume is the command that trains an interrupted run's remaining
// steps from its partial file.
func (r *trainRun) resume() string {
	msg, path := r.keep(true)
	if path == "" {
		return msg
	}
	f := r.f
	s1, s2 := r.cfg.Train.Steps1-r.res.Steps1, r.cfg.Train.Steps2-r.res.Steps2
	// The partial file has the run's storage type, which --init keeps.
	cmd := fmt.Sprintf("apic train --init %s --steps1 %d --steps2 %d", shellQuote(path), s1, s2)
	if f.set["recalibrate"] {
		cmd += fmt.Sprintf(" --recalibrate %d", f.recalibrate)
	}
	if f.recalibrateOnly != "" {
		cmd += " --recalibrate-only " + f.recalibrateOnly
	}
	if _, err := os.Stat(f.out); err == nil {
		cmd += " --force" // --out was there before this run, or it is the --init file
	}
	cmd += " --out " + shellQuote(f.out)
	if s1+s2 == 0 && f.recalibrate == 0 {
		return fmt.Sprintf("%s; to validate and save them: %s", msg, cmd)
	}
	if s1+s2 == 0 {
		return fmt.Sprintf("%s; to recalibrate them: %s", msg, cmd)
	}
	return fmt.Sprintf("%s; to train the remaining %d+%d steps from them (a new run: the learning-rate schedule and Adam's moments start afresh): %s", msg, s1, s2, cmd)
}

// fit recalibrates the trained model (--recalibrate) and validates it,
// or drops an --init file's fit that no longer matches the weights, or
// validates an --init model whose refinement count --refine changed;
// when says when the validation it leaves in r.info was measured.
func (r *trainRun) fit(ctx context.Context) (when string, err error) {
	f, m, res := r.f, r.m, r.res
	if f.recalibrate > 0 {
		// An interruption here would otherwise read as a bare
		// "interrupted", without saying what was kept.
		failed := func(err error) error {
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted during the final recalibration, after %d+%d training steps; %s", res.Steps1, res.Steps2, r.resume())
			}
			return r.keptAfter(err)
		}
		before := m.Config.Infer
		if err := recalibrationOf(m, f.recalibrateOnly)(ctx, f.recalibrate); err != nil {
			return "", failed(err)
		}
		val, err := m.Validate(ctx)
		if err != nil {
			return "", failed(err)
		}
		r.info.Metrics = &val
		r.env.Notef("%s", recalibrationNote(m.Config.Infer, f.recalibrateOnly))
		if note := disagreementNote(before, m.Config.Infer, f); note != "" {
			r.env.Notef("%s", note)
		}
		if op := m.Config.Infer.OnePassFit(); res.Steps1+res.Steps2 > 0 && op != nil && op.DeltaTheta != nil {
			// Only the delta-theta part fits the term: a whole
			// recalibration keeps it, fitted to the weights before.
			r.env.Notef("δ's one-pass θ term was kept as fitted to %s's weights (apic train --init %s --steps1 0 --steps2 0 --recalibrate N --recalibrate-only delta-theta --out %s refits it)", f.init, shellQuote(f.out), shellQuote(f.out))
		}
		return "after recalibration", nil
	}
	trained := res.Steps1+res.Steps2 > 0
	if r.init != nil && !trained && r.refineChanged {
		return r.revalidate(ctx)
	}
	if r.init == nil || !trained || !m.Fitted() {
		if r.init != nil && !trained {
			return fmt.Sprintf("as %s recorded it", f.init), nil
		}
		return "at the last step", nil
	}
	// The --init file's fit belongs to its weights, not to these:
	// dropped, as the explorer and partial files drop it, and the
	// validation, scored with it, redone without it.
	term := ""
	if op := m.Config.Infer.OnePassFit(); op != nil && op.DeltaTheta != nil {
		term = ", all but δ's one-pass θ term, which --recalibrate-only delta-theta then fits"
	}
	m.DropFit()
	r.env.Notef("--recalibrate 0: the spread, θ scales and z_θ prior fitted to %s's weights are dropped; the model uses its uncalibrated spread (apic train --init %s --steps1 0 --steps2 0 --out %[2]s refits them%s)", f.init, shellQuote(f.out), term)
	if err := r.validate(ctx); err != nil {
		return "", err
	}
	return "with the uncalibrated spread", nil
}

// revalidate measures the validation of an --init model whose
// refinement count --refine changed, without training or
// recalibration: the file's record was measured with the old count
// (and, where a fit moved, the old fit), so it would describe
// predictions the new file no longer makes.
func (r *trainRun) revalidate(ctx context.Context) (when string, err error) {
	if err := r.validate(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("redone for --refine %d", r.m.Config.Infer.Refine), nil
}

// validate measures the model's validation into r.info, keeping the
// weights (keptAfter) where it fails.
func (r *trainRun) validate(ctx context.Context) error {
	res := r.res
	val, err := r.m.Validate(ctx)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted during the final validation, after %d+%d training steps; %s", res.Steps1, res.Steps2, r.resume())
	}
	if err != nil {
		return r.keptAfter(err)
	}
	r.info.Metrics = &val
	return nil
}

// disagreementNote says what a recalibration did to the refined bands'
// disagreement weights (core/disagree.go) that a user must finish by
// hand: after --recalibrate-only disagreement, that the bands' shapes
// were fitted without the weights, and after a recalibration that
// refitted the table the weights were fitted to (a whole one, or
// 'conditions'), that the --init file's weights are gone. "" where
// neither holds.
func disagreementNote(before, after core.Infer, f *trainFlags) string {
	refit := func(part string) string {
		return fmt.Sprintf("apic train --init %s --steps1 0 --steps2 0 --recalibrate %d --recalibrate-only %s --out %[1]s", shellQuote(f.out), f.recalibrate, part)
	}
	_, _, had := disagreeRange(before.Conditions)
	_, _, has := disagreeRange(after.Conditions)
	shaped := slices.ContainsFunc(after.Conditions, func(c core.ConditionScale) bool { return c.ReconShape != nil || c.DeltaShape != nil })
	switch {
	case f.recalibrateOnly == "disagreement" && has > 0 && shaped:
		return fmt.Sprintf("the bands' calibrated shapes were fitted without these weights; %s refits them to the widened bands", refit("band-shape"))
	case f.recalibrateOnly != "disagreement" && had > 0 && has == 0:
		return fmt.Sprintf("the disagreement weights of %s's refined bands were dropped with the table they were fitted to; %s, then the same with band-shape, fits them again", f.init, refit("disagreement"))
	}
	return ""
}

// recalibrationOf is the model's recalibration that --recalibrate-only
// names ("": all of it).
func recalibrationOf(m *core.Model, only string) func(context.Context, int) error {
	switch only {
	case "theta":
		return m.RecalibrateTheta
	case "conditions":
		return m.RecalibrateConditions
	case "theta-shape":
		return m.RecalibrateThetaShapes
	case "one-pass":
		return m.RecalibrateOnePassConditions
	case "delta-theta":
		return m.RecalibrateOnePassDeltaTheta
	case "band-shape":
		return m.RecalibrateBandShapes
	case "theta-prior":
		return m.RecalibrateThetaPrior
	case "delta-profile":
		return m.RecalibrateDeltaProfile
	case "disagreement":
		return m.RecalibrateDisagreement
	}
	return m.Recalibrate
}

// save writes the model to --out in the run's storage type (float64
// where the weights exceed float32's range), keeping the weights
// elsewhere, and saying where, when --out cannot take them.
func (r *trainRun) save() error {
	m, f := r.m, r.f
	// Weights beyond float32's range still fit float64; NaN or
	// infinities fit nothing.
	if err := core.CheckStorable(m, r.dtype); err != nil {
		if core.CheckStorable(m, nets.F64) != nil {
			return fmt.Errorf("%w: the weights hold values no checkpoint can load, so nothing was written", err)
		}
		r.env.Notef("the weights exceed float32's range (%v); saving them as float64", err)
		r.dtype = nets.F64
	}
	err := f.saveOut(r.outAtStart, m, r.info, r.dtype)
	if errors.Is(err, errOutTaken) {
		path, err := keepIn(filepath.Dir(f.out), f.out, "", m, r.info, r.dtype)
		if err != nil {
			return fmt.Errorf("--out %s was made while this run trained (another run's?), and the trained weights could not be kept beside it (%v); nothing was written", f.out, err)
		}
		return fmt.Errorf("--out %s was made while this run trained (another run's?) and stays as it is: the trained weights are in %s instead (give --force to replace --out)", f.out, path)
	}
	if err != nil {
		// --out was writable when training began (checkOutputPath), but
		// the disk may have filled or the directory gone since: the
		// trained weights must not be lost with the error.
		path, kerr := keepInTemp(f.out, "", m, r.info, r.dtype)
		if kerr != nil {
			return fmt.Errorf("%w; the trained weights could not be kept elsewhere either (%v)", err, kerr)
		}
		return fmt.Errorf("%w; the trained weights are in %s instead (move it to %s)", err, path, f.out)
	}
	return nil
}

// reportTrained prints what train wrote to --out: its JSON object, or
// the "wrote" line and the validation metrics. resumed says the run
// began from --init, whose steps and time the totals include.
func reportTrained(env *Env, f *trainFlags, cfg core.Config, res core.TrainResult, info core.Info, resumed bool, when string) error {
	if f.jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"checkpoint": f.out, "system": cfg.Arch.System, "backbone": cfg.Arch.Backbone,
			"steps1": res.Steps1, "steps2": res.Steps2, "wall_seconds": res.Wall.Seconds(),
			"final_loss": res.Final, "validation": info.Metrics,
		})
	}
	fmt.Fprintf(env.Stdout, "wrote %s (%d+%d steps in %s", f.out, res.Steps1, res.Steps2, wallText(res.Wall))
	if resumed {
		fmt.Fprintf(env.Stdout, "; %d+%d steps in %s in all", info.Steps1, info.Steps2, wallText(time.Duration(info.WallSeconds*float64(time.Second))))
	}
	fmt.Fprintln(env.Stdout, ")")
	if v := info.Metrics; v != nil {
		fmt.Fprintf(env.Stdout, "validation %s (%s): recon MAE %.4f, δ MAE %.4f, θ MAE %.4f, recon ECE %.3f\n",
			when, core.Count(v.Tasks, "realization"), v.Metrics[core.KeyReconMAE].Mean, v.Metrics[core.KeyDeltaMAE].Mean,
			v.Metrics[core.KeyThetaMAE].Mean, v.Metrics[core.KeyReconECE].Mean)
		// As eval prints them: a run too short to learn θ says so here,
		// not only in eval or inspect later.
		if line := failureLine(v.Failures, v.Tasks); line != "" {
			fmt.Fprintf(env.Stdout, "validation failures: %s\n", line)
		}
		for _, warn := range v.Warnings {
			fmt.Fprintf(env.Stdout, "warning: %s\n", warn)
		}
	}
	return nil
}

// wallText is a training time as train prints it, to the millisecond
// ("24.948s"), the run's own and the total of its runs alike.
func wallText(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}

// recalibrationNote says what the final recalibration fitted: only θ's
// interval scale (thetaOnly), or the spread, z_θ prior and that scale.
func recalibrationNote(in core.Infer, only string) string {
	if only == "conditions" {
		return fmt.Sprintf("recalibrated the spread's scales at %d conditions (context size × noise) only", len(in.Conditions))
	}
	if only == "theta-shape" {
		return fmt.Sprintf("recalibrated the shapes of θ's intervals at %d conditions (context size × noise) only", len(in.Conditions))
	}
	if only == "band-shape" {
		return fmt.Sprintf("recalibrated the shapes of the reconstruction's and δ's bands at %d conditions (context size × noise) only", len(in.Conditions))
	}
	if only == "disagreement" {
		return fmt.Sprintf("fitted the refined bands' disagreement weights at %d conditions (context size × noise) only", len(in.Conditions))
	}
	if only == "theta-prior" {
		return fmt.Sprintf("picked the form of refinement's θ prior only: %s", in.ThetaPriorWords())
	}
	if only == "delta-profile" {
		return "fitted δ's time profile and scale only: " + deltaProfileWords(in)
	}
	if only == "one-pass" {
		return fmt.Sprintf("recalibrated the one-pass predictions' scales at %d conditions (context size × noise) only", len(in.OnePass.Conditions))
	}
	if only == "delta-theta" {
		return "fitted the one-pass δ band's share of θ's uncertainty only: " + deltaThetaWords(in)
	}
	if only == "theta" {
		note := fmt.Sprintf("recalibrated θ intervals only: ×%.3f", in.ThetaScale())
		if op := in.OnePass; op != nil {
			note += fmt.Sprintf(" (one pass ×%.3f)", op.ThetaScale())
		}
		return note
	}
	sy, sd := in.Scales()
	note := fmt.Sprintf("recalibrated predictive spread: %s, ×%.3f (reconstruction), ×%.3f (discrepancy)", spreadWords(in.SpreadFit), sy, sd)
	if op := in.OnePass; op != nil {
		sy, sd := op.Scales()
		note += fmt.Sprintf("; one pass: %s, ×%.3f, ×%.3f", spreadWords(*op), sy, sd)
	}
	if in.Refine > 0 {
		note += fmt.Sprintf("; refinement z_θ prior ×%g, θ prior %s", in.ZThetaPrior, in.ThetaPriorWords())
	}
	return note + fmt.Sprintf("; θ intervals ×%.3f", in.ThetaScale())
}

// archFlag is one flag that sets the architecture, which a model
// fine-tuned from --init keeps: set applies the flag's value to an Arch,
// show says what an Arch holds for it, in the flag's terms.
type archFlag struct {
	name string
	set  func(f *trainFlags, a *core.Arch) error
	show func(a core.Arch) string
}

// intArch is the archFlag of an int flag that sets one field of Arch.
func intArch(name string, flag func(*trainFlags) int, field func(*core.Arch) *int) archFlag {
	return archFlag{name,
		func(f *trainFlags, a *core.Arch) error { *field(a) = flag(f); return nil },
		func(a core.Arch) string { return strconv.Itoa(*field(&a)) }}
}

// trainArchFlags are the architecture flags.
var trainArchFlags = []archFlag{
	{"backbone", func(f *trainFlags, a *core.Arch) (err error) {
		a.Backbone, err = core.ParseBackbone(f.backbone)
		return err
	},
		func(a core.Arch) string { return string(a.Backbone) }},
	{"form", func(f *trainFlags, a *core.Arch) (err error) { a.Form, err = core.ParseForm(f.form); return err },
		func(a core.Arch) string { return string(a.Form) }},
	intArch("hidden", func(f *trainFlags) int { return f.hidden }, func(a *core.Arch) *int { return &a.Hidden }),
	intArch("layers", func(f *trainFlags) int { return f.layers }, func(a *core.Arch) *int { return &a.Layers }),
	{"latent", func(f *trainFlags, a *core.Arch) error {
		a.LatentTheta = f.latent
		if !f.set["latent-delta"] {
			a.LatentDelta = f.latent
		}
		return nil
	}, func(a core.Arch) string { return fmt.Sprintf("%d (z_δ %d)", a.LatentTheta, a.LatentDelta) }},
	intArch("latent-delta", func(f *trainFlags) int { return f.latentDelta }, func(a *core.Arch) *int { return &a.LatentDelta }),
	intArch("dec-hidden", func(f *trainFlags) int { return f.decHidden }, func(a *core.Arch) *int { return &a.DecHidden }),
	intArch("dec-layers", func(f *trainFlags) int { return f.decLayers }, func(a *core.Arch) *int { return &a.DecLayers }),
	intArch("heads", func(f *trainFlags) int { return f.heads }, func(a *core.Arch) *int { return &a.Heads }),
	intArch("basis", func(f *trainFlags) int { return f.basis }, func(a *core.Arch) *int { return &a.Basis }),
	{"dec-act", func(f *trainFlags, a *core.Arch) error { a.DecAct = f.decAct; return nil },
		func(a core.Arch) string { return a.DecAct }},
	{"grid-summary", func(f *trainFlags, a *core.Arch) error { a.GridSummary = f.gridSummary; return nil },
		func(a core.Arch) string { return strconv.FormatBool(a.GridSummary) }},
	{"no-theta-hint", func(f *trainFlags, a *core.Arch) error { a.ThetaHint = a.ThetaHint && !f.noThetaHint; return nil },
		func(a core.Arch) string { return strconv.FormatBool(!a.ThetaHint) }},
}

// minCellTasks is the fewest validation realizations per condition of
// the table of scales that a recalibration fits without a warning: the
// default --recalibrate's share. With 8 a cell's θ factor reached 30
// where its neighbours' were 0.6–2, and the intervals jumped between
// context sizes.
const minCellTasks = core.DefaultRecalibrationTasks / 4

// recalibrationWarning says when --recalibrate gives the table's cells
// fewer than minCellTasks realizations each ("" otherwise): a full
// recalibration gives each max(8, N/4), a --recalibrate-only one N.
func (f *trainFlags) recalibrationWarning() string {
	n := f.recalibrate
	if n < 1 || f.recalibrateOnly == "theta" || f.recalibrateOnly == "theta-prior" || f.recalibrateOnly == "delta-profile" {
		return ""
	}
	per := max(8, n/4)
	if f.recalibrateOnly != "" {
		per = n
	}
	if per >= minCellTasks {
		return ""
	}
	return fmt.Sprintf("--recalibrate %d fits each condition's scales on %d validation realizations, fewer than %d: its intervals will be noisy (the default is %d)", n, per, minCellTasks, core.DefaultRecalibrationTasks)
}

// untrainedWarning warns of a fresh model (init nil) given no steps in
// either stage: the file it writes holds the random weights it started
// from, fitted spreads and all, which read as a model that calibrates.
// (--steps1 0 --steps2 0 is how a trained --init file is recalibrated.)
func (f *trainFlags) untrainedWarning(init *core.Model) string {
	if init != nil || f.steps1 != 0 || f.steps2 != 0 {
		return ""
	}
	return fmt.Sprintf("--steps1 0 --steps2 0 on a fresh model: %s will hold untrained, random weights; give steps to train, or --init FILE to recalibrate a trained model", f.out)
}

// smallPoolWarning warns of a fixed training pool (--trajectories)
// smaller than a batch: every batch then repeats realizations, so the
// network sees fewer distinct ones per step than --batch says, and can
// learn the pool by heart rather than the population (its validation,
// drawn fresh, shows it). The run is legal, so it is a warning.
func smallPoolWarning(t core.Train) string {
	if t.Trajectories < 1 || t.Trajectories >= t.Batch {
		return ""
	}
	return fmt.Sprintf("--trajectories %d is a pool smaller than a batch (%d): every batch repeats realizations, and the model may learn the pool rather than the population; give --trajectories ≥ %d, or 0 for fresh realizations every step", t.Trajectories, t.Batch, t.Batch)
}

// initArchConflict refuses architecture flags given beside --init whose
// values differ from the checkpoint's arch (a fine-tuned model keeps
// its architecture); flags that repeat the checkpoint's values pass.
func (f *trainFlags) initArchConflict(arch core.Arch) error {
	if arch.DecAct == "" {
		arch.DecAct = "silu"
	}
	for _, af := range trainArchFlags {
		if !f.set[af.name] {
			continue
		}
		a := arch
		if err := af.set(f, &a); err != nil {
			return UsageError("--%s: %v", af.name, err)
		}
		if a.DecAct == "" {
			a.DecAct = "silu"
		}
		if a != arch {
			return UsageError("--%s cannot change the architecture of the --init checkpoint %s, whose --%s is %s (train without --init for a new model)", af.name, f.init, af.name, af.show(arch))
		}
	}
	return nil
}

// trainCountFlags are the integer flags and the smallest value each may
// be given: their defaults may be sentinels, but a given value below
// these would otherwise be silently replaced (--refine documents -1).
var trainCountFlags = map[string]int{"steps1": 0, "steps2": 0, "batch": 1, "trajectories": 0, "hidden": 1, "layers": 1,
	"latent": 1, "latent-delta": 1, "dec-hidden": 1, "dec-layers": 1, "heads": 1, "basis": 0, "val-every": 0,
	"val-tasks": 1, "recalibrate": 0, "refine": -1}

// recalibrateOnlyParts are the parts --recalibrate-only fits alone.
var recalibrateOnlyParts = []string{"theta", "conditions", "theta-shape", "one-pass", "delta-theta", "band-shape", "theta-prior", "delta-profile", "disagreement"}

// storageTypes are the --dtype values: the weights stored as float32
// or float64.
var storageTypes = []string{"f32", "f64"}

// valTasksLimit is --val-tasks' range: core.LimitValTasks from 1, not 0,
// which the flag's default stands for (a checkpoint's config may hold 0,
// read as no validation during training and one realization after).
var valTasksLimit = core.Limit{Name: core.LimitValTasks.Name, Min: 1, Max: core.LimitValTasks.Max, Why: core.LimitValTasks.Why}

// valEveryLimit is --val-every's range: 0 (no validation during
// training) up to the most steps stage 2 may take, beyond which the run
// would only validate at its last step, as at that bound.
var valEveryLimit = core.Limit{Name: "val-every", Min: 0, Max: core.LimitTrainSteps.Max, Why: "the most steps a stage takes"}

// basisLimit is --basis' range: a width, or 0 for no basis.
var basisLimit = core.Limit{Name: "basis", Min: 0, Max: core.LimitWidth.Max, Why: core.LimitWidth.Why}

// trainSizeLimits are the bounds of train's sizes and step counts, by
// flag, which checkLimits checks as given and a sweep checks its axes'
// values by (axisBounds).
var trainSizeLimits = map[string]core.Limit{
	"hidden": core.LimitWidth, "latent": core.LimitWidth, "latent-delta": core.LimitWidth, "dec-hidden": core.LimitWidth,
	"layers": core.LimitLayers, "dec-layers": core.LimitLayers, "batch": core.LimitBatch,
	"steps1": core.LimitTrainSteps, "steps2": core.LimitTrainSteps, "val-every": valEveryLimit, "basis": basisLimit,
}

// trainSizeLimit is trainSizeLimits' bound of flag name, named as it.
func trainSizeLimit(name string) core.Limit {
	l := trainSizeLimits[name]
	l.Name = name
	return l
}

// checkGiven refuses, before any work, flags given with values that
// would otherwise be ignored: negative counts; and an --out path that
// cannot be written. Architecture flags beside --init are checked
// against the checkpoint once it is open (initArchConflict).
func (f *trainFlags) checkGiven(fs *flag.FlagSet) error {
	for _, name := range slices.Sorted(maps.Keys(trainCountFlags)) {
		least := trainCountFlags[name]
		// checkLimits checks --val-tasks' whole range, and says it below
		// the range as above it.
		if !f.set[name] || name == valTasksLimit.Name {
			continue
		}
		v, err := strconv.Atoi(fs.Lookup(name).Value.String())
		switch {
		case err == nil && v < least && name == "refine":
			// As eval's --refine says it (checkRefine), with train's -1.
			return UsageError("--refine must be ≥ 0, or -1 to keep the default, got %d", v)
		case err == nil && v < least:
			return UsageError("--%s must be ≥ %d, got %d", name, least, v)
		}
	}
	if err := f.checkLimits(); err != nil {
		return err
	}
	if err := f.checkFloats(); err != nil {
		return err
	}
	if f.recalibrateOnly != "" {
		only := f.recalibrateOnly
		if !slices.Contains(recalibrateOnlyParts, only) {
			return UsageError("--recalibrate-only %s: the partial recalibrations are '%s'", core.QuoteInput(only), strings.Join(recalibrateOnlyParts[:len(recalibrateOnlyParts)-1], "', '")+"' and '"+recalibrateOnlyParts[len(recalibrateOnlyParts)-1])
		}
		if f.init == "" || f.steps1 != 0 || f.steps2 != 0 || f.recalibrate < 1 {
			return UsageError("--recalibrate-only %s needs --init FILE --steps1 0 --steps2 0 (no training) and --recalibrate ≥ 1", only)
		}
		if f.set["refine"] {
			// The other settings of FILE were fitted for its refinement.
			return UsageError("--recalibrate-only %s keeps FILE's settings: drop --refine", only)
		}
	}
	return f.checkOut()
}

// checkOut refuses, before any work, an --out that no checkpoint is
// saved at: the rules every save of a checkpoint applies, the
// explorer's too, in the same words.
func (f *trainFlags) checkOut() error {
	if f.out == "" || f.checkOnly {
		return nil
	}
	// Before CheckSaveTarget, which would call /dev/stdout into a pipe
	// "an unnamed pipe" where the user named standard output.
	if err := checkNotStdStream("out", f.out, "a checkpoint"); err != nil {
		return err
	}
	if err := core.CheckSaveTarget(f.out); err != nil {
		return UsageError("--out: %v", err)
	}
	if err := checkOutputPath("out", f.out, "a checkpoint"); err != nil {
		return err
	}
	if err := checkHasStem("out", f.out, "model.safetensors"); err != nil {
		return err
	}
	// A file named embedded:NAME could be written, but not read back by
	// that name, which every --checkpoint and --init takes for a shipped
	// checkpoint.
	if _, ok := cutEmbeddedPrefix(f.out); ok {
		return UsageError("--out %s: a name beginning %s names a shipped checkpoint wherever apic reads one, so no command would read this file by it; write ./%s for a file of that name", f.out, embeddedPrefix, f.out)
	}
	// After the checks above, whose words fit "-", "dir/" and ".ckpt"
	// better than a suggested name would.
	if err := core.CheckCheckpointName(f.out); err != nil {
		return UsageError("--out %s: %v", f.out, err)
	}
	return nil
}

// checkFloats refuses a float flag given outside its range, naming the
// flag: NaN and ±Inf included, which number flags hand on (and so any
// number beyond float64's range, which reads as ±Inf).
func (f *trainFlags) checkFloats() error {
	// core.Config.Validate refuses the same values; checked here first
	// so that the error names the flag (and --noise's its limit).
	for _, c := range trainFloatFlags {
		if !f.set[c.limit.Name] {
			continue
		}
		if err := c.limit.Check(*c.value(f)); err != nil {
			return UsageError("--%v", err)
		}
	}
	if f.set["noise"] {
		if err := checkNoise(f.noise); err != nil {
			return err
		}
	}
	if f.set["noise-low-share"] && !(f.noiseLowShare >= 0 && f.noiseLowShare <= 1) {
		return UsageError("--noise-low-share must be between 0 and 1, got %v", f.noiseLowShare)
	}
	return nil
}

// trainFloatFlag is a real-valued flag of train with a bound of its own
// and the field that holds it.
type trainFloatFlag struct {
	limit core.FloatLimit
	value func(*trainFlags) *float64
}

// trainFloatFlags are train's real-valued flags with a bound of their
// own (core.FloatLimit, named as the flag), each with the field that
// holds it; --noise, --noise-range and --noise-low-share are checked
// with the noise.
var trainFloatFlags = []trainFloatFlag{
	{core.LimitLR, func(f *trainFlags) *float64 { return &f.lr }},
	{core.LimitLRFinal, func(f *trainFlags) *float64 { return &f.lrFinal }},
	{core.LimitLossWeight, func(f *trainFlags) *float64 { return &f.lambdaTheta }},
	{core.LimitLossWeight.As("lambda-delta"), func(f *trainFlags) *float64 { return &f.lambdaDelta }},
	{core.LimitClip, func(f *trainFlags) *float64 { return &f.clip }},
}

// checkOutFree refuses an --out that exists, unless --force or --init
// names the same file; checked once every other flag has been (a bad
// --reg says so before a taken --out does), before any training.
func (f *trainFlags) checkOutFree() error {
	// A trained model is work that a mistyped --out would lose without a
	// trace (the explorer never overwrites either); continuing FILE into
	// itself (--init FILE --out FILE) names it twice, and is meant.
	if _, err := os.Stat(f.out); err == nil && f.out != "" && !f.force && !(f.init != "" && sameFile(f.init, f.out)) {
		return UsageError("--out %s already exists: give --force to replace it, or another --out", f.out)
	}
	// Even then, only a checkpoint goes: --force on a mistyped --out must
	// not turn the data into weights.
	if f.out != "" {
		return checkReplacesOnlyCheckpoint(f.out)
	}
	return nil
}

// systemsBatch says the systems' default batch sizes, for --help: one
// number while they all agree, so that it cannot read as a choice
// between "the system's" and that number.
func systemsBatch() string {
	var parts []string
	batches := map[int]bool{}
	b := 0
	for _, name := range sims.Names() {
		sys, _ := sims.Lookup(name)
		b = core.DefaultConfig(sys, core.LNP).Train.Batch
		batches[b] = true
		parts = append(parts, fmt.Sprintf("%d for %s", b, name))
	}
	if len(batches) == 1 {
		return fmt.Sprintf("%d for every system", b)
	}
	return strings.Join(parts, ", ")
}

// trajectoryBounds lists --trajectories' bound per system, for --help.
func trajectoryBounds() string {
	var parts []string
	for _, name := range sims.Names() {
		sys, _ := sims.Lookup(name)
		parts = append(parts, fmt.Sprintf("%d for %s", core.TrajectoriesLimit(sys).Max, name))
	}
	return strings.Join(parts, ", ")
}

// checkLimits refuses, before anything is drawn or trained, counts above
// the limits that keep what they size in memory: --val-tasks and
// --recalibrate realizations, the --trajectories training set (whose
// bound depends on the system's realization size), --refine steps.
func (f *trainFlags) checkLimits() error {
	if err := checkRefine(f.refine); err != nil {
		return err
	}
	if f.set["val-tasks"] {
		if err := checkLimit(valTasksLimit, f.valTasks); err != nil {
			return err
		}
	}
	if err := checkLimit(core.LimitRecalTasks, f.recalibrate); err != nil {
		return err
	}
	// The architecture's sizes and the plan's counts, named as the flags
	// are (a checkpoint's are checked by core.Config.Validate).
	sizes := map[string]int{"hidden": f.hidden, "latent": f.latent, "latent-delta": f.latentDelta, "dec-hidden": f.decHidden,
		"layers": f.layers, "dec-layers": f.decLayers, "batch": f.batch, "steps1": f.steps1, "steps2": f.steps2,
		"val-every": f.valEvery, "basis": f.basis}
	for _, name := range slices.Sorted(maps.Keys(trainSizeLimits)) {
		if f.set[name] {
			if err := checkLimit(trainSizeLimit(name), sizes[name]); err != nil {
				return err
			}
		}
	}
	// Without --system (--init), the checkpoint's system is checked by
	// core.Config.Validate once the file is read.
	if sys, err := sims.Lookup(f.system); err == nil {
		return checkLimit(core.TrajectoriesLimit(sys), f.trajectories)
	}
	return checkLimit(core.LimitTrajectories, f.trajectories)
}

// config turns the flags into a validated configuration, starting from
// the system's defaults (or the --init checkpoint's architecture).
func (f *trainFlags) config(ctx context.Context) (core.Config, *core.Model, error) {
	if f.out == "" {
		return core.Config{}, nil, UsageError("--out FILE is required")
	}
	if !slices.Contains(storageTypes, f.dtype) {
		return core.Config{}, nil, UsageError("--dtype must be f32 or f64, got %q", f.dtype)
	}
	var cfg core.Config
	var init *core.Model
	var err error
	if f.init != "" {
		if init, err = f.initModel(ctx); err != nil {
			return core.Config{}, nil, err
		}
		cfg = init.Config
	} else if cfg, err = f.freshConfig(); err != nil {
		return core.Config{}, nil, err
	}
	if err := f.setTrain(&cfg.Train, cfg.Arch.System, init != nil); err != nil {
		return core.Config{}, nil, err
	}
	if f.refine >= 0 {
		cfg.Infer.SetRefine(f.refine) // as newModel sets it on the --init model
	}
	if err := cfg.Validate(); err != nil {
		return core.Config{}, nil, UsageError("%v", err)
	}
	// Before the model is built: its parameters, a lower bound on a
	// step's memory (run measures the step once the model exists) and
	// the recalibration's.
	scope, n := f.recalScope()
	if err := core.CheckTrainMemory(core.EstimateRunMemory(cfg, n, scope)); err != nil {
		return core.Config{}, nil, UsageError("%v", err)
	}
	return cfg, init, nil
}

// recalScope is how the recalibration that --recalibrate and
// --recalibrate-only ask for draws its n realizations.
func (f *trainFlags) recalScope() (core.RecalScope, int) {
	switch f.recalibrateOnly {
	case "":
		return core.RecalWhole, f.recalibrate
	case "theta", "theta-prior", "delta-profile":
		return core.RecalOnce, f.recalibrate
	}
	// The parts that fit a table hold every condition's sample.
	return core.RecalPerCondition, f.recalibrate
}

// initModel reads the --init checkpoint, checks the flags against it
// and takes its storage type (unless --dtype is given), system and
// record of training.
func (f *trainFlags) initModel(ctx context.Context) (*core.Model, error) {
	file, m, info, err := readCheckpoint(ctx, f.init) // a FIFO waits for a writer: Ctrl-C ends the wait
	if err != nil {
		return nil, checkpointFlagError("init", err)
	}
	if !f.set["dtype"] {
		f.dtype = storageType(file)
	}
	if f.system != "" && f.system != m.Config.Arch.System {
		return nil, UsageError("--system %s disagrees with --init checkpoint %s (system %s)", f.system, f.init, m.Config.Arch.System)
	}
	b := m.Config.Arch.Backbone
	if err := f.checkHeads(b, fmt.Sprintf("--init %s, whose backbone is %s,", f.init, b), "drop --heads"); err != nil {
		return nil, err
	}
	if err := f.initArchConflict(m.Config.Arch); err != nil {
		return nil, err
	}
	if f.recalibrateOnly == "theta-prior" && m.Config.Infer.Refine <= 0 {
		return nil, UsageError("--recalibrate-only theta-prior: --init %s does not refine (its inference default is one pass), so θ's prior has no effect", f.init)
	}
	f.initInfo, f.system = info, m.Config.Arch.System
	return m, nil
}

// checkHeads refuses --heads, given, for a backbone b other than anp:
// only anp's encoders and decoder attend, so the heads would be ignored
// and the run trained as if the flag were absent. source names where b
// came from ("--backbone lnp"), and fix what to do instead.
func (f *trainFlags) checkHeads(b core.Backbone, source, fix string) error {
	if !f.set["heads"] || b == core.ANP {
		return nil
	}
	return UsageError("--heads %d: %s has no attention, so heads would change nothing (only anp attends): %s", f.heads, source, fix)
}

// freshConfig is the default configuration of --system and --backbone
// with the architecture flags given.
func (f *trainFlags) freshConfig() (core.Config, error) {
	if f.system == "" {
		return core.Config{}, UsageError("--system is required (one of %s)", strings.Join(sims.Names(), ", "))
	}
	sys, err := sims.Lookup(f.system)
	if err != nil {
		return core.Config{}, UsageError("%v", err)
	}
	b, err := core.ParseBackbone(f.backbone)
	if err != nil {
		return core.Config{}, UsageError("--backbone: %v", err)
	}
	source := "the default backbone, lnp,"
	if f.set["backbone"] {
		source = "--backbone " + string(b)
	}
	if err := f.checkHeads(b, source, "drop --heads, or train --backbone anp"); err != nil {
		return core.Config{}, err
	}
	cfg := core.DefaultConfig(sys, b)
	form, err := core.ParseForm(f.form)
	if err != nil {
		return core.Config{}, UsageError("--form: %v", err)
	}
	if _, err := nets.ParseActivation(f.decAct); err != nil {
		return core.Config{}, UsageError("--dec-act: %s", strings.TrimPrefix(err.Error(), "nets: "))
	}
	a := &cfg.Arch
	a.Form = form
	setPos(&a.Hidden, f.hidden)
	setPos(&a.Layers, f.layers)
	setPos(&a.LatentTheta, f.latent)
	setPos(&a.LatentDelta, f.latent)
	setPos(&a.LatentDelta, f.latentDelta)
	setPos(&a.DecHidden, f.decHidden)
	setPos(&a.DecLayers, f.decLayers)
	setPos(&a.Heads, f.heads)
	a.GridSummary = f.gridSummary
	a.Basis = f.basis
	if f.noThetaHint {
		a.ThetaHint = false
	}
	if f.decAct != "silu" {
		a.DecAct = f.decAct
	}
	return cfg, f.checkHeadsDivide(*a)
}

// checkHeadsDivide refuses an anp architecture a whose attention heads
// do not divide its encoder width (core.Config.Validate's rule), naming
// the flags that set them or the system's defaults they come from.
func (f *trainFlags) checkHeadsDivide(a core.Arch) error {
	if a.Backbone != core.ANP || a.Heads < 1 || a.Hidden%a.Heads == 0 {
		return nil
	}
	heads, hidden := fmt.Sprintf("anp's %d attention heads (--heads' default)", a.Heads), fmt.Sprintf("%s's encoder width %d (--hidden's default)", a.System, a.Hidden)
	if f.set["heads"] {
		heads = fmt.Sprintf("--heads %d", a.Heads)
	}
	if f.set["hidden"] {
		hidden = fmt.Sprintf("--hidden %d", a.Hidden)
	}
	return UsageError("%s must divide %s, the width they split: give a width that is a multiple of the heads, or heads that divide it", heads, hidden)
}

// setTrain sets the training plan t of a model of system from the
// flags. A fresh model takes every training flag (defaults included); a
// fine-tuned one (resumed) keeps the --init checkpoint's settings except
// those given, so its file still records how it was trained.
func (f *trainFlags) setTrain(t *core.Train, system string, resumed bool) error {
	given := func(name string) bool { return !resumed || f.set[name] }
	if given("reg") {
		reg, err := core.ParseRegularizer(f.reg)
		if err != nil {
			return UsageError("--reg: %v", err)
		}
		t.Reg = reg
	}
	if f.steps1 >= 0 {
		t.Steps1 = f.steps1
	}
	if f.steps2 >= 0 {
		t.Steps2 = f.steps2
	}
	if err := f.checkInheritedPlan(*t, resumed); err != nil {
		return err
	}
	if err := f.checkUnfinishedNoop(*t); err != nil {
		return err
	}
	if f.valEvery >= 0 {
		t.ValEvery = f.valEvery
	}
	setPos(&t.Batch, f.batch)
	setPos(&t.ValTasks, f.valTasks)
	for _, p := range []struct {
		name string
		dst  *float64
		v    float64
	}{{"lr", &t.LR, f.lr}, {"lr-final", &t.LRFinal, f.lrFinal}, {"lambda-theta", &t.LambdaTheta, f.lambdaTheta},
		{"lambda-delta", &t.LambdaDelta, f.lambdaDelta}, {"clip", &t.ClipNorm, f.clip}} {
		if given(p.name) {
			*p.dst = p.v
		}
	}
	// The cosine schedule decays from --lr to --lr-final: a final rate
	// above the start would make it grow instead, towards a rate the
	// run was never meant to reach (and diverge there).
	if t.LRFinal > t.LR && (!resumed || f.set["lr"] || f.set["lr-final"]) {
		return UsageError("--lr-final %v is above the learning rate %v (%s): the rate decays from --lr to --lr-final, so give --lr-final ≤ --lr (0: constant)", t.LRFinal, t.LR, lrSource(f, resumed))
	}
	if given("seed") {
		t.Seed = f.seed
	}
	if given("trajectories") {
		t.Trajectories = f.trajectories
	}
	if f.contextRange != "" {
		lo, hi, err := parseContextSizes(f.contextRange)
		if err == nil {
			err = core.CheckContextRange(system, lo, hi)
		}
		if err != nil {
			return UsageError("--context-range %s: %v", core.QuoteInput(f.contextRange), err)
		}
		t.ContextMin, t.ContextMax = lo, hi
	}
	return setTrainNoise(t, f, !resumed)
}

// storageType is the --dtype that keeps a checkpoint's storage type:
// f64 when any of its tensors is stored as F64 (apic writes them all in
// one type), f32 otherwise.
func storageType(file *nets.File) string {
	for _, d := range file.DTypes {
		if d == nets.F64 {
			return "f64"
		}
	}
	return "f32"
}

// checkInheritedPlan refuses a fine-tuning run whose plan t is 0+0
// steps with either count taken from the --init checkpoint: every
// shipped file's last command was a recalibration (0+0), so "--init
// FILE" alone would train nothing and only refit FILE's fit, worse than
// the one it ships with, while recording the training flags given as if
// it had trained with them. 0+0 given outright is the recalibration.
func (f *trainFlags) checkInheritedPlan(t core.Train, fineTuned bool) error {
	if !fineTuned || t.TrainsAny() || (f.set["steps1"] && f.set["steps2"]) {
		return nil
	}
	plan := "its last command planned 0+0 steps"
	if f.initInfo.Unfinished {
		plan = "the run that wrote it had done all its steps when it stopped (0+0 remain)"
	}
	for _, stage := range []string{"steps1", "steps2"} {
		if f.set[stage] { // the other count is the file's 0
			other := map[string]string{"steps1": "stage 2's", "steps2": "stage 1's"}[stage]
			plan = fmt.Sprintf("--%s 0 with %s 0 steps from its plan makes 0+0", stage, other)
		}
	}
	return UsageError("--init %s: %s, and this run would train nothing: "+
		"give --steps1 and --steps2 to fine-tune (e.g. --steps1 0 --steps2 1000), or --steps1 0 --steps2 0 to only recalibrate (--recalibrate-only for one part)", f.init, plan)
}

// checkUnfinishedNoop refuses a run on an unfinished --init file
// (a partial) that trains nothing and recalibrates nothing: it would
// only write the stopped run's weights without their unfinished mark,
// which is what warns eval, calibrate and the explorer that their
// spread was never fitted to them.
func (f *trainFlags) checkUnfinishedNoop(t core.Train) error {
	if !f.initInfo.Unfinished || t.TrainsAny() || f.recalibrate > 0 {
		return nil
	}
	return UsageError("--init %s is an unfinished run's weights, and --steps1 0 --steps2 0 --recalibrate 0 would only copy them without that mark: "+
		"give --recalibrate N to fit their spread, or --steps1/--steps2 to train on", f.init)
}

// lrSource says where the learning rate that --lr-final is compared
// with came from.
func lrSource(f *trainFlags, fineTuned bool) string {
	switch {
	case f.set["lr"]:
		return "--lr"
	case fineTuned:
		return "the --init checkpoint's"
	}
	return "--lr's default"
}

// defaultNoiseRange is a fresh model's training noise: each
// realization's σ uniform over the explorer's noise slider, so that the
// model has seen every noise level a user can ask for (issue 21).
const defaultNoiseRange = "0:0.1"

// setTrainNoise sets the training noise from --noise, --noise-range and
// --noise-low-share: --noise S is one level (no range), --noise-range
// LO:HI a range, and a fresh model given neither trains over
// defaultNoiseRange; a low share needs a range. A fine-tuned model keeps
// its checkpoint's noise unless told.
func setTrainNoise(t *core.Train, f *trainFlags, fresh bool) error {
	switch {
	case f.set["noise-range"] && f.set["noise"]:
		return UsageError("--noise-range sets the noise: drop --noise %v", f.noise)
	case f.set["noise"]:
		t.Noise, t.NoiseMax, t.NoiseLowShare = f.noise, 0, 0
	case f.set["noise-range"] || fresh:
		lo, hi, err := parseNoiseRange(f.noiseRange)
		if err != nil {
			return err
		}
		t.Noise, t.NoiseMax = lo, hi
	}
	if f.set["noise-low-share"] || fresh {
		t.NoiseLowShare = f.noiseLowShare
	}
	if f.set["noise-low-share"] && !(t.NoiseMax > t.Noise) {
		return UsageError("--noise-low-share needs a noise range (--noise-range LO:HI), not one level σ = %g", t.Noise)
	}
	return nil
}

// noiseWords says what noise a training run draws its contexts with.
func noiseWords(t core.Train) string {
	if t.NoiseMax > t.Noise && t.NoiseLowShare > 0 {
		return fmt.Sprintf("noise σ = %g for a share %g, else uniform on [%g, %g]", t.Noise, t.NoiseLowShare, t.Noise, t.NoiseMax)
	}
	if t.NoiseMax > t.Noise {
		return fmt.Sprintf("noise σ uniform on [%g, %g]", t.Noise, t.NoiseMax)
	}
	return fmt.Sprintf("noise σ = %g", t.Noise)
}

// parseNoiseRange reads --noise-range "LO:HI": two finite noise levels
// with 0 ≤ LO ≤ HI.
func parseNoiseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if ok {
		// As --noise reads a number: no hexadecimal or separators.
		lo, err = parseNumber(strings.TrimSpace(a))
		if err == nil {
			hi, err = parseNumber(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || !(lo >= 0) || !(hi >= lo) || !(hi <= core.MaxNoise) {
		return 0, 0, UsageError("--noise-range wants LO:HI with 0 ≤ LO ≤ HI ≤ %v (e.g. 0:0.1), got %s%s", core.MaxNoise, core.QuoteInput(s), becauseOf(noiseRangeNumberError(s)))
	}
	return lo, hi, nil
}

// noiseRangeNumberError is why LO or HI of the noise range s is not
// read as a number, or nil where both are (or s has no colon).
func noiseRangeNumberError(s string) error {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return nil
	}
	for _, part := range []string{a, b} {
		if _, err := parseNumber(strings.TrimSpace(part)); err != nil {
			return err
		}
	}
	return nil
}

// parseContextSizes reads --context-range "MIN:MAX", for train and
// sweep's context-range axis, as two integers (context sizes are whole
// numbers of observations, so 10.0 is refused as 10.5 is), leaving
// their order and bound to core.CheckContextRange, which needs the
// system and words them as a checkpoint's config is checked: 0:10 and
// 5:200 are refused alike, and 0:0, which the configuration reads as
// "the system's range", is refused as 5:2 is.
// The errors name the part that is wrong, not the flag.
func parseContextSizes(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("not MIN:MAX (two whole numbers, e.g. 5:10)")
	}
	whole := func(what, v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s %s is out of range: context sizes run from 1 to the grid's states", what, core.QuoteInput(v))
		} else if err != nil {
			return 0, fmt.Errorf("%s %s is not a whole number: context sizes are integers%s", what, core.QuoteInput(v), notDecimalWhy(strings.TrimSpace(v)))
		}
		return n, nil
	}
	if lo, err = whole("MIN", a); err != nil {
		return 0, 0, err
	}
	if hi, err = whole("MAX", b); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

func setPos(dst *int, v int) {
	if v > 0 {
		*dst = v
	}
}

// progressReporter prints training progress: a single redrawn bar line on
// a terminal, plain periodic lines otherwise.
type progressReporter struct {
	env            *Env
	steps1, steps2 int
	last           time.Time
	drawn          bool
}

func newProgressReporter(env *Env, s1, s2 int) *progressReporter {
	return &progressReporter{env: env, steps1: s1, steps2: s2}
}

func (p *progressReporter) report(pr core.Progress) {
	if pr.Val != nil {
		p.clear()
		// The inference settings are the run's starting ones (a fresh
		// model's: z_θ fixed in refinement, the raw spread) until the
		// final recalibration fits them, which moves the refined MAE too.
		fmt.Fprintf(p.env.Stderr, "validation at stage %d step %d (settings before recalibration): recon MAE %.4f, δ MAE %.4f, θ MAE %.4f\n", pr.Stage, pr.Step,
			pr.Val.Metrics[core.KeyReconMAE].Mean, pr.Val.Metrics[core.KeyDeltaMAE].Mean, pr.Val.Metrics[core.KeyThetaMAE].Mean)
	}
	now := time.Now()
	if p.env.StderrTerminal {
		if now.Sub(p.last) < 100*time.Millisecond && pr.Step != pr.Steps {
			return
		}
		p.last = now
		const width = 30
		frac := float64(pr.Step) / float64(max(pr.Steps, 1))
		n := int(frac * width)
		bar := strings.Repeat("█", n) + strings.Repeat("░", width-n)
		fmt.Fprintf(p.env.Stderr, "\r\x1b[Kstage %d %s %5d/%-5d loss %9.4f  %s", pr.Stage, bar, pr.Step, pr.Steps, pr.Losses.Total, stageETAText(pr))
		p.drawn = true
		return
	}
	if now.Sub(p.last) < 5*time.Second && pr.Step != pr.Steps {
		return
	}
	p.last = now
	fmt.Fprintf(p.env.Stderr, "stage %d step %d/%d loss %.4f (nll %.4f kl %.4f θ %.4f δ %.4f) elapsed %s, %s\n",
		pr.Stage, pr.Step, pr.Steps, pr.Losses.Total, pr.Losses.NLL, pr.Losses.KL, pr.Losses.Theta, pr.Losses.Delta,
		pr.Elapsed.Round(time.Second), stageETAText(pr))
}

// stageETAText is the time left in the stage, "stage 1 ETA 2m5s": said
// of the stage, as it is, since a bare "ETA" in stage 1 read as the
// whole run's. Stage 1's rate says little of stage 2, whose steps cost
// about three times as much, so the whole run's time is not guessed; in
// stage 2 the stage's end is the training's (the recalibration after it
// is reported on its own).
func stageETAText(pr core.Progress) string {
	return fmt.Sprintf("stage %d ETA %s", pr.Stage, pr.StageETA.Round(time.Second))
}

func (p *progressReporter) clear() {
	if p.drawn {
		fmt.Fprint(p.env.Stderr, "\r\x1b[K")
	}
}

func (p *progressReporter) finish() {
	if p.drawn {
		fmt.Fprintln(p.env.Stderr)
		p.drawn = false
	}
}

// spreadWords names a spread fit's noise mode and, when it is not flat,
// its evolution profile exponent.
func spreadWords(f core.SpreadFit) string {
	w := spreadName(f.Spread) + " noise"
	if f.Shape != 0 {
		w += fmt.Sprintf(", evolution profile ^%g", f.Shape)
	}
	if f.DeltaProfile != 0 {
		w += fmt.Sprintf(", δ time profile ^%g", f.DeltaProfile)
	}
	return w
}

// deltaProfileWords names the exponents of δ's time profile of the
// default and, where there is one, the one-pass spread ("flat" for 0).
func deltaProfileWords(in core.Infer) string {
	w := func(q float64) string {
		if q == 0 {
			return "flat"
		}
		return fmt.Sprintf("^%g", q)
	}
	words := "δ time profile " + w(in.DeltaProfile) + fmt.Sprintf(" ×%.3f", in.SpreadFit.DeltaStdScale)
	if op := in.OnePass; op != nil {
		words += "; one pass " + w(op.DeltaProfile) + fmt.Sprintf(" ×%.3f", op.DeltaStdScale)
	}
	return words
}

// deltaThetaWords says what δ's one-pass θ term holds.
func deltaThetaWords(in core.Infer) string {
	op := in.OnePassFit()
	if op == nil || op.DeltaTheta == nil {
		return "none (no weight raised δ's validation LL without raising its ECE)"
	}
	d := op.DeltaTheta
	parts := make([]string, len(d.Factor))
	for q, r := range d.Factor {
		parts[q] = fmt.Sprintf("%.3g", r)
	}
	lo, hi, zero := math.Inf(1), 0.0, 0
	for _, c := range d.Cells {
		if c.Weight == 0 {
			zero++
			continue
		}
		lo, hi = min(lo, c.Weight), max(hi, c.Weight)
	}
	return fmt.Sprintf("factors %s; weights %.3g–%.3g at %d of %d conditions (none at the others)",
		strings.Join(parts, ", "), lo, hi, len(d.Cells)-zero, len(d.Cells))
}

// spreadName names a spread mode for people ("model" for the default).
func spreadName(mode string) string {
	if mode == core.SpreadModel {
		return "model"
	}
	return mode
}

// keptWeightsError is a run that err stopped after its weights were
// kept: kept says where ("the weights of those steps are in F; OUT was
// not written"). Run prints kept after "interrupted" when err is a
// Ctrl-C, as it prints nothing else of the error's text.
type keptWeightsError struct {
	err  error
	kept string
}

// KeptWeights is err (a context.Canceled, say) with where the work it
// stopped was kept, for Run to print after "interrupted": the explorer's
// saves of unsaved weights when its session ends by a signal.
func KeptWeights(err error, kept string) error { return &keptWeightsError{err: err, kept: kept} }

func (e *keptWeightsError) Error() string { return e.err.Error() + "; " + e.kept }
func (e *keptWeightsError) Unwrap() error { return e.err }

// keepUnfinished keeps an unfinished run's weights with keepPartial and
// says where (path: the file, "" when none could be kept), or why no
// usable file could be kept.
func keepUnfinished(out string, m *core.Model, info core.Info, dtype nets.DType) (msg, path string) {
	// A diverged run's weights may hold NaN, Inf or values beyond the
	// storage type's range: a file of them would not load, so none is
	// promised.
	if err := core.CheckStorable(m, dtype); err != nil {
		return fmt.Sprintf("no usable partial file could be kept (%v: a checkpoint of these weights would not load); nothing was written", err), ""
	}
	path, err := keepPartial(out, m, info, dtype)
	if err != nil {
		// Beside --out failed (a full disk, a vanished directory): the
		// temporary directory may still take them.
		var terr error
		if path, terr = keepInTemp(out, ".partial", m, info, dtype); terr != nil {
			return fmt.Sprintf("the partly trained weights could not be saved (%v; %v); nothing was written", err, terr), ""
		}
	}
	return fmt.Sprintf("the weights of those steps are in %s; %s was not written", path, out), path
}

// errOutTaken is saveOut's error for an --out made while the run
// trained, which stays as it is.
var errOutTaken = errors.New("--out was made while the run trained")

// saveOut saves m at --out. A file made there while the run trained, when
// there was none at the start (outAtStart false), is not replaced without
// --force, as it would not have been at the start: another run of the
// same --out, or anything else, made it. The save makes --out only where
// nothing is, in one step with the check (core.SaveNewCheckpoint): a
// check before the save would leave the save's length for another run
// to finish, and its model to be replaced. That is errOutTaken.
func (f *trainFlags) saveOut(outAtStart bool, m *core.Model, info core.Info, dtype nets.DType) error {
	if f.force || outAtStart {
		return core.SaveCheckpoint(f.out, m, info, dtype)
	}
	err := core.SaveNewCheckpoint(f.out, m, info, dtype)
	if errors.Is(err, fs.ErrExist) {
		return errOutTaken
	}
	return err
}

// keepInTemp saves m in os.TempDir() under a new name made of out's base
// name, infix and a random part (model.partial.123.safetensors), for
// when out's own directory cannot take it, and returns its path.
func keepInTemp(out, infix string, m *core.Model, info core.Info, dtype nets.DType) (string, error) {
	return keepIn(os.TempDir(), out, infix, m, info, dtype)
}

// keepIn saves m in dir as keepInTemp does in os.TempDir().
func keepIn(dir, out, infix string, m *core.Model, info core.Info, dtype nets.DType) (string, error) {
	base := nets.TempBase(strings.TrimSuffix(filepath.Base(out), ".safetensors"))
	return keepClaimed(func() (*os.File, error) {
		return os.CreateTemp(dir, base+infix+".*.safetensors") // a name no other file has
	}, m, info, dtype)
}

// keepPartial saves an unfinished run's model beside out, as the first
// partialName that no file has (no file is overwritten), and returns
// its path. Two runs of one --out interrupted at once each keep their
// own file, and a name that a link holds, even a dangling one, is
// passed over rather than written through.
func keepPartial(out string, m *core.Model, info core.Info, dtype nets.DType) (string, error) {
	return keepClaimed(func() (*os.File, error) {
		for n := 1; ; n++ {
			f, err := os.OpenFile(partialName(out, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if !errors.Is(err, fs.ErrExist) {
				return f, err // an unwritable directory: no name can be taken
			}
		}
	}, m, info, dtype)
}

// keepClaimed saves m under the name that claim takes by creating an
// empty file exclusively, and returns its path: the atomic save then
// replaces that empty file, a regular one of this run's own, and
// removes it when the save fails.
func keepClaimed(claim func() (*os.File, error), m *core.Model, info core.Info, dtype nets.DType) (string, error) {
	f, err := claim()
	if err != nil {
		return "", err
	}
	path := f.Name()
	f.Close()
	if err := core.SaveCheckpoint(path, m, info, dtype); err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}
