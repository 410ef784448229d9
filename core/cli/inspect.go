package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"apic/core"
	"apic/nets"
)

func init() {
	register(Command{
		Name:    "inspect",
		Summary: "describe a checkpoint: system, backbone, config, tensors, metrics",
		Usage: `apic inspect [--json] FILE
       apic inspect [--json] --atlas

Describes a checkpoint file: its SHA-256, format version, system and
backbone, the architecture and training configuration, parameter and
tensor shapes, training steps and wall time, the validation metrics
recorded at the end of training, and for a file made with train --init
the file it was fine-tuned from and that file's SHA-256. FILE may also
name a checkpoint embedded in the program, as the other commands print
it: embedded:spring-lnp.safetensors.

--atlas lists the ablation atlas embedded in the program: one model per
value of λθ, λδ and the regulariser (the explorer switches between them
as those controls move), with the λθ, λδ and regulariser each file
records; embedded:atlas/FILE names one for the other commands.

--json prints one object: file and checkpoint (both the path given),
checkpoint_sha256 (the SHA-256 of its bytes, as sha256sum gives it;
eval, calibrate, diagnose and compare --json give it too),
format_version, system, backbone, config (the configuration the file
stores: arch, train and infer, as the text lists them), parameters (how
many), steps1 and steps2 (the steps trained, all runs together),
wall_seconds, metrics (the validation report, as eval --json gives it;
null where none was recorded), tensors (per tensor name: its dtype and
shape), unfinished (true for the partial file of a stopped run, whose
inference settings do not fit its weights) and validation_step (the
stage-2 step the metrics were measured at, when not the run's end; 0
otherwise); for a fine-tuned file, init and init_sha256 (the --init
checkpoint it started from, as given, and its bytes' SHA-256).
config.infer.fit_refine, where present, is the refinement count (0: one
pass) of the predictions the default spread was fitted to; the text says
when it is not config.infer.refine, and when the metrics' refine is not.
With --atlas: one object whose atlas lists each file, system, axis and
value (the explorer's control it stands for), backbone, lambda_theta,
lambda_delta, reg, steps1, steps2, wall_seconds and bytes.`,
		Run: runInspect,
	})
}

func runInspect(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	jsonOut := fs.Bool("json", false, "print one JSON object")
	atlas := fs.Bool("atlas", false, "list the embedded ablation atlas instead of inspecting a FILE")
	// The file is the one positional argument, before or after the flags
	// (none of which takes a value).
	var flags, files []string
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
		} else {
			files = append(files, a)
		}
	}
	if err := env.Parse(fs, flags); err != nil {
		return err
	}
	switch {
	case *atlas && len(files) > 0:
		return UsageError("--atlas lists the atlas and takes no FILE, got %s", strings.Join(files, " "))
	case *atlas:
		return writeAtlas(env.Stdout, *jsonOut)
	case len(files) == 0:
		return UsageError("give the checkpoint FILE to inspect (or --atlas to list the ablation atlas)")
	case len(files) > 1:
		return UsageError("inspect takes one FILE, got %d: %s", len(files), strings.Join(files, " "))
	}
	// embedded:NAME in another case is echoed in the shipped spelling,
	// as the commands whose --checkpoint flag takes it echo it.
	path := canonicalCheckpoint(files[0])
	f, m, info, err := readCheckpoint(ctx, path)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(f.Tensors))
	for n := range f.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	if *jsonOut {
		return writeInspectJSON(env.Stdout, path, f, m, info, names)
	}
	writeInspectText(env.Stdout, path, f, m, info, names)
	return nil
}

// writeInspectJSON prints a checkpoint's description as one JSON
// object.
func writeInspectJSON(w io.Writer, path string, f *nets.File, m *core.Model, info core.Info, names []string) error {
	tensors := map[string]any{}
	for _, n := range names {
		tensors[n] = map[string]any{"dtype": f.DTypes[n], "shape": f.Shapes[n]}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// "checkpoint" is the key eval, calibrate and train give the file;
	// "file" is kept for the scripts that read it.
	out := map[string]any{
		"file": path, "checkpoint": path, "checkpoint_sha256": info.SHA256,
		"format_version": f.Metadata["format_version"],
		"system":         m.Config.Arch.System, "backbone": m.Config.Arch.Backbone, "config": m.Config,
		"parameters": m.Params.Count(), "steps1": info.Steps1, "steps2": info.Steps2,
		"wall_seconds": info.WallSeconds, "metrics": info.Metrics, "tensors": tensors,
		"unfinished": info.Unfinished, "validation_step": info.ValidationStep,
	}
	if info.InitSHA256 != "" {
		out["init"], out["init_sha256"] = info.Init, info.InitSHA256
	}
	return enc.Encode(out)
}

// writeInspectText prints a checkpoint's description: its model, how it
// was trained, its inference settings, its validation and its tensors.
func writeInspectText(w io.Writer, path string, f *nets.File, m *core.Model, info core.Info, names []string) {
	a, t := m.Config.Arch, m.Config.Train
	fmt.Fprintf(w, "%s\n  format version %s, %s/%s, %d parameters\n", path, f.Metadata["format_version"], a.System, a.Backbone, m.Params.Count())
	fmt.Fprintf(w, "  sha256 %s (the file's bytes; eval, calibrate, diagnose and compare --json give it too)\n", info.SHA256)
	if info.Unfinished {
		fmt.Fprintf(w, "  unfinished: %s\n", unfinishedWords(path))
	}
	fmt.Fprintf(w, "  architecture: %s\n", archWords(a))
	ctxRange := ""
	if t.ContextMin > 0 {
		ctxRange = fmt.Sprintf(", contexts %d–%d", t.ContextMin, t.ContextMax)
	}
	fmt.Fprintf(w, "  training: %s, batch %d, lr %s, λθ %g, λδ %g, reg %s, %s, seed %d, %s%s\n",
		stepsWords(info, t), t.Batch, lrWords(t), t.LambdaTheta, t.LambdaDelta, t.Reg, noiseWords(t), t.Seed, trajectoriesWords(t.Trajectories), ctxRange)
	if info.InitSHA256 != "" {
		fmt.Fprintf(w, "  fine-tuned from %s (sha256 %s); the training settings above are this run's\n", info.Init, info.InitSHA256)
	}
	writeInferenceWords(w, m.Config.Infer)
	if line := fitRefineLine(m.Config.Infer, path); line != "" {
		fmt.Fprintf(w, "  fit: %s\n", line)
	}
	// Each run with --init adds its training time to its file's, so a
	// short fine-tune shows the whole history's.
	fmt.Fprintf(w, "  wall time: %.1f s of training, all runs together (recalibrations not counted)\n", info.WallSeconds)
	if info.Metrics != nil {
		at := ""
		if info.ValidationStep > 0 {
			at = fmt.Sprintf(", at stage 2 step %d of the run that wrote the file", info.ValidationStep)
		}
		fmt.Fprintf(w, "  validation (%s%s):\n", validationConditions(*info.Metrics), at)
		if line := staleValidationLine(*info.Metrics, m.Config.Infer, path); line != "" {
			fmt.Fprintf(w, "  not current: %s\n", line)
		}
		if line := failureLine(info.Metrics.Failures, info.Metrics.Tasks); line != "" {
			fmt.Fprintf(w, "  failures: %s\n", line)
		}
		// The record's warnings (θ intervals as wide as the prior, say)
		// are what make a poor model's numbers readable; --json has them.
		for _, warn := range info.Metrics.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
		writeReportTable(w, *info.Metrics)
	}
	fmt.Fprintf(w, "  tensors:\n")
	for _, n := range names {
		fmt.Fprintf(w, "    %-28s %s %v\n", n, f.DTypes[n], f.Shapes[n])
	}
}

// validationConditions says what a recorded validation report was
// measured on, as eval's header does: its realizations come from the
// training seed's validation stream, so its numbers are not eval's.
// Older files record no samples or refinement; those are left out.
func validationConditions(rep core.Report) string {
	s := fmt.Sprintf("%s from seed %d's validation stream, not eval's; context %d, noise %g", core.Count(rep.Tasks, "realization"), rep.Seed, rep.Context, rep.Noise)
	if rep.Samples > 0 {
		s += ", " + core.Count(rep.Samples, "sample")
		s += ", " + core.Count(rep.Refine, "refinement step")
	}
	return s
}

// fitRefineLine says, where the file records it (Infer.FitRefine),
// that its default spread was fitted to predictions with another
// refinement count than those it now serves: the one-pass fit serving
// refined predictions after a round trip through --refine 0, or a fit
// made for another count; "" where they agree or nothing is recorded.
func fitRefineLine(in core.Infer, path string) string {
	n, ok := in.FitRefineKnown()
	if !ok || predictionWords(n) == predictionWords(in.Refine) {
		return ""
	}
	// A whole recalibration does not fit the disagreement weights (a
	// round trip through one pass has lost them, and the file cannot
	// say whether it had any), so the line names the two steps that do.
	return fmt.Sprintf("the default spread was fitted to %s predictions by the last whole recalibration and serves %s ones now (apic train --init %s --steps1 0 --steps2 0 --out NEW refits it; refined bands widened by the fit's move, as spring's shipped files have them, then take --recalibrate-only disagreement and then band-shape on NEW)",
		predictionWords(n), predictionWords(in.Refine), shellQuote(path))
}

// staleValidationLine says that a validation record was measured with
// another refinement count than the file's (a count changed without a
// new validation, by a program before train revalidated), and so is not
// the file's current predictions'; "" where the counts agree or the
// record is too old to say its count.
func staleValidationLine(rep core.Report, in core.Infer, path string) string {
	if rep.Samples == 0 || predictionWords(rep.Refine) == predictionWords(in.Refine) {
		return ""
	}
	return fmt.Sprintf("measured on %s predictions, but the file makes %s ones now (apic eval --checkpoint %s scores those)",
		predictionWords(rep.Refine), predictionWords(in.Refine), shellQuote(path))
}

// archWords describes an architecture in one line. Attention heads are
// named for an anp only: a cnp or lnp has no attention (train refuses
// --heads for them), whatever count its config carries.
func archWords(a core.Arch) string {
	heads := ""
	if a.Backbone == core.ANP {
		heads = fmt.Sprintf(", heads %d", a.Heads)
	}
	extras := ""
	if a.DecAct != "" {
		extras += ", f_ψ activation " + a.DecAct
	}
	if a.Basis > 0 {
		extras += fmt.Sprintf(", f_ψ on %d basis functions", a.Basis)
	}
	if a.ThetaHint {
		extras += ", θ hints"
	}
	if a.GridSummary {
		extras += ", grid summary"
	}
	return fmt.Sprintf("form %s, hidden %d×%d, latents θ %d δ %d, f_ψ %d×%d%s%s",
		a.Form, a.Hidden, a.Layers, a.LatentTheta, a.LatentDelta, a.DecHidden, a.DecLayers, heads, extras)
}

// writeInferenceWords prints the inference settings' lines: refinement
// and spreads, then the conditions' tables.
func writeInferenceWords(w io.Writer, in core.Infer) {
	sy, sd := in.Scales()
	fmt.Fprintf(w, "  inference: %s, %s, spread ×%.3f (reconstruction) ×%.3f (discrepancy) ×%.3f (θ)", inferenceDefaultWords(in), spreadWords(in.SpreadFit), sy, sd, in.ThetaScale())
	if op := in.OnePass; op != nil {
		sy, sd := op.Scales()
		fmt.Fprintf(w, "; one pass: %s, ×%.3f ×%.3f ×%.3f", spreadWords(*op), sy, sd, op.ThetaScale())
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  conditions: %s\n", tableWords(in.SpreadFit))
	if op := in.OnePass; op != nil {
		fmt.Fprintf(w, "  one-pass conditions: %s\n", tableWords(*op))
	}
}

// inferenceDefaultWords says how a file predicts by default: refining, with
// its refinement's priors, or in one pass, whose priors (kept from a
// refining file, or the defaults) matter only with --refine N.
func inferenceDefaultWords(in core.Infer) string {
	if in.Refine > 0 {
		return fmt.Sprintf("%s (z_θ prior ×%g, θ prior %s)", core.Count(in.Refine, "refinement step"), in.ZThetaPrior, in.ThetaPriorWords())
	}
	return fmt.Sprintf("one-pass predictions by default (refinement's settings, z_θ prior ×%g and θ prior %s, apply only with --refine N)", in.ZThetaPrior, in.ThetaPriorWords())
}

// tableWords describes a fit's table of scales per condition and the
// one-pass parts it holds (a refining model's one-pass fit, or the
// default fit of one that does not refine).
func tableWords(s core.SpreadFit) string {
	words := conditionWords(s.Conditions)
	if len(s.ThetaFloor) > 0 {
		words += ", θ deviation floors"
	}
	if s.DeltaTheta != nil {
		words += ", δ band with θ's share"
	}
	return words
}

// stepsWords says the steps a file's weights were trained for and the
// plan of the last command that wrote it, or for a partial file the
// steps its run had left. A file fine-tuned or
// recalibrated with --init holds the steps of every command together
// beside the last command's plan, which for a recalibration is 0+0.
func stepsWords(info core.Info, t core.Train) string {
	done := fmt.Sprintf("steps %d+%d done", info.Steps1, info.Steps2)
	switch {
	case info.Unfinished && t.Steps1+t.Steps2 == 0:
		return done + " in all runs (its run stopped after its last step, before the final recalibration)"
	case info.Unfinished:
		// train writes a partial file's plan as what its run had left.
		return fmt.Sprintf("%s in all runs (%d+%d of the stopped run remain; --init alone trains them)", done, t.Steps1, t.Steps2)
	case info.Steps1 == t.Steps1 && info.Steps2 == t.Steps2:
		return fmt.Sprintf("%s (planned %d+%d)", done, t.Steps1, t.Steps2)
	case t.Steps1+t.Steps2 == 0:
		// The file does not record whether that run recalibrated:
		// with --recalibrate 0 it only rewrote the file.
		return done + " in all runs (the last planned 0+0: it trained no steps)"
	}
	return fmt.Sprintf("%s in all runs (the last planned %d+%d)", done, t.Steps1, t.Steps2)
}

// trajectoriesWords says what the training realizations were: drawn
// afresh every step (Train.Trajectories 0), or a fixed pool.
func trajectoriesWords(n int) string {
	if n == 0 {
		return "fresh realizations every step"
	}
	return fmt.Sprintf("a fixed pool of %s", core.Count(n, "realization"))
}

// lrWords says the learning-rate schedule: cosine from LR to LRFinal,
// or constant (LRFinal 0).
func lrWords(t core.Train) string {
	if t.LRFinal <= 0 {
		return fmt.Sprintf("%g (constant)", t.LR)
	}
	return fmt.Sprintf("%g→%g", t.LR, t.LRFinal)
}

// unfinishedWords says what an unfinished run's file (path) is and how
// to make its intervals calibrated.
func unfinishedWords(path string) string {
	return fmt.Sprintf("the weights of a training run stopped before its end; its spread and θ intervals were not fitted to them (apic train --init %s --steps1 0 --steps2 0 --out NEW fits them)", shellQuote(path))
}

// conditionWords summarizes a table of scales per condition: its cells'
// context sizes and noise levels, and whether it has θ interval shapes,
// factors of θ's deviation per parameter and band shapes ('inspect
// --json' shows every number).
func conditionWords(cells []core.ConditionScale) string {
	if len(cells) == 0 {
		return "no table of scales per condition"
	}
	var sizes []int
	var noises []float64
	for _, c := range cells {
		if !slices.Contains(sizes, c.Context) {
			sizes = append(sizes, c.Context)
		}
		if !slices.Contains(noises, c.Noise) {
			noises = append(noises, c.Noise)
		}
	}
	slices.Sort(sizes)
	slices.Sort(noises)
	shapes := "Gaussian θ intervals"
	if len(cells[0].ThetaShape) > 0 {
		shapes = "calibrated θ interval shapes"
	}
	if len(cells[0].ThetaParam) > 0 {
		shapes += ", θ factors per parameter"
	}
	if cells[0].ReconShape != nil || cells[0].DeltaShape != nil {
		shapes += ", calibrated band shapes"
	}
	if lo, hi, n := disagreeRange(cells); n > 0 {
		kappa := fmt.Sprintf("%g–%g", lo, hi)
		if lo == hi {
			kappa = fmt.Sprintf("%g", lo)
		}
		shapes += fmt.Sprintf(", bands widened by refinement's move in %s (κ %s)", core.Count(n, "cell"), kappa)
	}
	return fmt.Sprintf("%d cells, context %v × noise %v, %s", len(cells), sizes, noises, shapes)
}

// disagreeRange is the least and greatest positive disagreement weight
// of the cells (core/disagree.go) and how many cells have one.
func disagreeRange(cells []core.ConditionScale) (lo, hi float64, n int) {
	lo = math.Inf(1)
	for _, c := range cells {
		if c.Disagree > 0 {
			lo, hi, n = min(lo, c.Disagree), max(hi, c.Disagree), n+1
		}
	}
	return lo, hi, n
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
