package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"apic/core"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "diagnose",
		Summary: "calibration diagnostics: reliability curves, θ recovery, SBC, contraction",
		Usage: `apic diagnose (--checkpoint FILE | --system SYS [--backbone B]) [--context C] [--noise N] [--tasks N] [--seed N] [--json] [--png FILE]

Draws --tasks test realizations as eval does (the same --seed gives the
same realizations), predicts each and reports how honest the predictive
uncertainty is, as sbi and BayesFlow diagnose amortized inference:

  reliability   empirical against nominal coverage of the central
                intervals at levels 0.05, 0.10, …, 0.95, signed
                (empirical − nominal; below 0: over-confident), for the
                reconstruction and the discrepancy against the true G and
                δ on the targets, and for each θ (its intervals as
                reported: θ̂ ± z σ_θ, or the checkpoint's calibrated
                interval shape)
  θ recovery    θ̂ against θ with its 95% interval
  SBC           the rank of the true θ among 99 draws of θ's reported
                posterior (N(θ̂, σ_θ²), or the calibrated shape of θ's
                intervals where the checkpoint has one), histogrammed;
                flat when calibrated, U-shaped when over-confident, with
                a chi-square test, whose p-value is withheld below 5
                realizations per bin (--json: p_value "NaN" and
                p_value_withheld saying why)
  contraction   1 − σ_post²/σ_prior² (the prior is the system's uniform
                θ box) against the z-score (θ̂ − θ)/σ_post

Each parameter's lines read:
  MAE           mean |θ̂ − θ|; lower is better
  cover95       share of the true θ inside its 95% interval; 0.95 if
                calibrated, lower over-confident, higher under-confident
  z             (θ̂ − θ)/σ_post; calibrated: median 0, |z| > 2 in 5%
  contraction   near 1: the data pinned θ down; near 0: the prior did
The verdict on top judges each parameter: over- or under-confident
where its cover95 lies more than two binomial standard errors from
0.95 (the figure's grey band); else, where the SBC χ² test rejects
uniform ranks at the 5% level, what the histogram's shape says
(over-confident, under-confident, biased, or "miscalibrated" where no
one shape fits); else "calibrated within sampling error". It reads the
cover95 and the SBC ranks only: the reliability rows at other levels
may stray further. The scatter plots count realizations per
character cell: • one, 2–9 that many, * 10 or more; · marks θ̂ = θ.
The --png figure writes the verdict and the warnings' headlines under
its title.

ASCII plots on the terminal, every number with --json, a multi-panel
figure with --png. The JSON object holds the run's settings (system,
backbone, checkpoint, checkpoint_sha256 (the SHA-256 of its bytes),
tasks, context, noise, seed, samples, refine), theta_shaped and
bands_shaped (whether θ's intervals and the bands were scored with the
checkpoint's calibrated shapes rather than as Gaussian), failures
{count, realizations} (left out, as eval leaves them), warnings (the
condition outside the model's training, θ intervals nearly as wide as
the prior, θ̂ that misses θ by at least half what the prior's centre
does, or θ̂ that refinement brought within that from the network's own,
which missed by as much), levels (the nominal levels), reliability (per
curve: name, "reconstruction", "discrepancy" or "theta:NAME"; values,
the residuals counted; skipped, those left out, when any; and per level
empirical and signed coverage) and theta. Each theta entry holds name,
symbol, prior_lo and prior_hi, its per-realization arrays truth,
estimate, std (σ_post; 0 for a point estimate), z_score and contraction,
and the lines' summary: verdict ("calibrated", "over-confident",
"under-confident", "biased, θ̂ above θ", "biased, θ̂ below θ",
"miscalibrated", "untested" or "point estimates"), mae, cover95,
z_median, z_beyond_2 (the share of |z| > 2), contraction_median and sbc
{draws, counts (realizations per rank bin), chi_square, df, p_value,
p_value_withheld}.`,
		Run: runDiagnose,
	})
}

func runDiagnose(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	path := fs.String("checkpoint", "", "checkpoint `file`, or embedded:NAME for one shipped with the program (default: the embedded one for --system/--backbone)")
	system := fs.String("system", "", "system of the embedded checkpoint: "+strings.Join(sims.Names(), ", "))
	backbone := fs.String("backbone", "", "backbone of the embedded checkpoint: cnp, lnp or anp (default lnp; with --checkpoint, the file's, which it must match)")
	tasks := fs.Int("tasks", 200, fmt.Sprintf("number of test realizations, at most %d", core.LimitTasks.Max))
	contextSize := fs.Int("context", 0, contextUsage)
	noise := fs.Float64("noise", 0, "observation noise σ added to the context, at most 1000")
	seed := fs.Uint64("seed", 1, "evaluation seed (eval's: the same realizations)")
	samples := fs.Int("samples", 32, samplesUsage)
	refine := fs.Int("refine", -1, refineUsage)
	jsonOut := fs.Bool("json", false, "print one JSON object with every number")
	pngPath := fs.String("png", "", "also write a multi-panel figure to this PNG `file` (an existing file is replaced only if it is a PNG)")
	gaussianBands := fs.Bool("gaussian-bands", false, "score the reconstruction's and δ's bands as Gaussian (μ ± z σ, as the ECE of eval) even where the checkpoint has calibrated shapes for them: an ablation")
	gaussianTheta := fs.Bool("gaussian-theta", false, "score θ's intervals as Gaussian (θ̂ ± z σ_θ) even where the checkpoint has a calibrated shape for them: an ablation")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if err := core.LimitTasks.Check(*tasks); err != nil {
		return UsageError("--%v", err)
	}
	if err := checkCounts(*tasks, *samples, *contextSize, *noise, *refine); err != nil {
		return err
	}
	if *pngPath != "" {
		if err := checkPNGOutput(*pngPath, pngInput{"checkpoint", *path}); err != nil {
			return err
		}
	}
	m, info, source, err := loadModel(ctx, *path, *system, *backbone)
	if err != nil {
		return err
	}
	if err := checkLeavesTargets("--context", *contextSize, m.Sys.Grid()); err != nil {
		return err
	}
	opt := core.DiagnoseOptions{Tasks: *tasks, Context: *contextSize, Noise: *noise, Seed: *seed, Samples: *samples, Refine: *refine, GaussianTheta: *gaussianTheta, GaussianBands: *gaussianBands}
	var prog *taskProgress
	if env.StderrTerminal {
		prog = newTaskProgress(env, "diagnose")
		opt.Progress = prog.report
	}
	d, err := core.Diagnose(ctx, m, opt)
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		return err
	}
	d.Warnings = append(d.Warnings, unfinishedWarning(info, source)...)
	if *pngPath != "" {
		if err := writeDiagnosticsFigure(ctx, *pngPath, d, m.Sys.Title(), source); err != nil {
			return err
		}
	}
	if *jsonOut {
		err = writeDiagnosisJSON(env, d, checkpointID{source, info.SHA256})
	} else {
		writeDiagnosisText(env, d, m.Sys.Title(), source)
	}
	if err == nil && *pngPath != "" {
		env.noteFigure(*pngPath)
	}
	return err
}

// thetaJSON is a parameter's diagnostics with the summary the text
// prints from them (thetaSummary, verdictLines), so that a script reads
// the verdict and the statistics it rests on without recomputing them.
type thetaJSON struct {
	core.ThetaDiagnostic
	// Verdict is thetaVerdict's word: "calibrated" (within sampling
	// error), "over-confident", "under-confident", "biased, θ̂ above
	// θ", "biased, θ̂ below θ", "miscalibrated", "untested" or "point
	// estimates".
	Verdict string         `json:"verdict"`
	MAE     core.JSONFloat `json:"mae"`
	// The medians and the share of |z| > 2 are over the realizations
	// with a posterior spread: NaN for point estimates.
	ZMedian           core.JSONFloat `json:"z_median"`
	ZBeyond2          core.JSONFloat `json:"z_beyond_2"`
	ContractionMedian core.JSONFloat `json:"contraction_median"`
}

// newThetaJSON summarises th as the text does.
func newThetaJSON(th core.ThetaDiagnostic) thetaJSON {
	zs, con, outside := finiteZ(th)
	beyond := math.NaN()
	if len(zs) > 0 {
		beyond = float64(outside) / float64(len(zs))
	}
	return thetaJSON{ThetaDiagnostic: th, Verdict: thetaVerdict(th), MAE: core.JSONFloat(thetaMAE(th)),
		ZMedian: core.JSONFloat(median(zs)), ZBeyond2: core.JSONFloat(beyond), ContractionMedian: core.JSONFloat(median(con))}
}

// writeDiagnosisJSON prints the diagnostics as one JSON object; its
// theta entries carry the text's summary too (thetaJSON).
func writeDiagnosisJSON(env *Env, d core.Diagnostics, id checkpointID) error {
	theta := make([]thetaJSON, len(d.Theta))
	for i, th := range d.Theta {
		theta[i] = newThetaJSON(th)
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	// Theta, at the outer level, takes the place of the embedded one.
	return enc.Encode(struct {
		core.Diagnostics
		Theta      []thetaJSON `json:"theta"`
		Checkpoint string      `json:"checkpoint"`
		SHA256     string      `json:"checkpoint_sha256"`
	}{d, theta, id.source, id.sha256})
}

// writeDiagnosisText prints the heading, the warnings and the tables.
func writeDiagnosisText(env *Env, d core.Diagnostics, title, source string) {
	fmt.Fprintf(env.Stdout, "%s · %s · %s\n", title, strings.ToUpper(d.Backbone), source)
	fmt.Fprintf(env.Stdout, "%s, %s\n", diagnosisCondition(d), core.Count(d.Refine, "refinement step"))
	for _, w := range d.Warnings {
		fmt.Fprintf(env.Stdout, "warning: %s\n", w)
	}
	fmt.Fprint(env.Stdout, "\n")
	fmt.Fprint(env.Stdout, DiagnosticsText(d, 80, DiagnosticsFull, env.Color))
}

// diagnosisCondition is "200 realizations, context 30, noise 0, seed 1,
// 32 samples".
func diagnosisCondition(d core.Diagnostics) string {
	return fmt.Sprintf("%s, context %d, noise %s, seed %d, %s", core.Count(d.Tasks, "realization"), d.Context,
		trimFloat(d.Noise), d.Seed, core.Count(d.Samples, "sample"))
}

// trimFloat is v in the shortest form that reads back.
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}
