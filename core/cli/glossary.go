package cli

import (
	"strings"

	"apic/core"
)

// thetaCoverLabel and obsCoverLabel name θ's and the observation
// band's 95% coverage wherever a table prints them (eval, eval --grid,
// compare), as the glossary defines them: one name each, so that a
// reader can look up what a column says. thetaBiasLabel heads eval's
// per-parameter bias rows.
const (
	thetaCoverLabel = "θ cover95"
	// thetaAtBoundLabel counts the θ intervals that hold the truth among
	// the estimates at a prior bound.
	thetaAtBoundLabel = "θ at a bound"
	obsCoverLabel     = "obs cover95"
	thetaBiasLabel    = "θ bias"
)

// metricGlossary is the legend of the metrics that eval, compare and
// diagnose print, for their --help: a reader meets "recon ECE" or
// "δ LL" in a table with nothing else to say what it measures or which
// way is better. The definitions are docs/benchmarks.md's, in a line
// each.
const metricGlossary = `

Metrics (each over a realization's target points, then over realizations):
  recon MAE    mean |prediction − G|, the corrected prediction's error;
               lower is better
  δ MAE        mean |δ̂ − δ|, the learned discrepancy's error; lower is better
  θ MAE        mean |θ̂ − θ|, per parameter and averaged; lower is better
  θ bias       mean θ̂ − θ per parameter; 0 is unbiased
  F(θ̂) MAE     mean |F(x; θ̂) − F(x; θ)|, the simulator at θ̂; lower is better
  recon LL     mean log-density of G under the Gaussian band N(μ, σ²);
  δ LL         the same for δ; higher is better
  recon ECE    calibration error: mean |share inside − level| of the central
  δ ECE        intervals at levels 0.1, …, 0.9; 0 is perfect
  θ cover95    share of the true θ inside θ̂ ± 1.96σ_θ; 0.95 is calibrated,
               lower over-confident
  θ at a bound
               of the θ̂ within 2% of the prior's width of a bound, how
               many have an interval holding θ (eval prints it when any are)
  obs cover95  share of held-out noisy observations inside the 95% band of
               a new observation; 0.95 is calibrated, lower over-confident
  obs ECE      the observation band's calibration error on those
               observations; 0 is perfect
  ECE pooled   eval's recon and δ ECE over all realizations' targets at
               once, as diagnose's reliability reads them; 0 is perfect

In --json (eval: metrics.KEY; compare: methods.NAME.metrics.KEY) each is
a {mean, std}, KEY one of recon_mae, delta_mae, theta_mae, nominal_mae
(F(θ̂) MAE), recon_ll, delta_ll, recon_ece, delta_ece, theta_cover95,
obs_cover95, obs_ece; theta_mae_per_param and theta_bias_per_param hold
each θ's by name, failures {count, realizations} the realizations left
out, eval's theta_at_bound {estimates, at_bound, covered} the count,
and eval's theta_cover_realizations how many realizations' θ̂ had a
deviation (theta_cover95's mean is over those). A value that does not
exist is the string "NaN".`

// evalJSONFields names the rest of eval --json's object, so that a
// script reading it need not guess what a key holds.
const evalJSONFields = `

The object also holds the run's settings: system, backbone, checkpoint
and checkpoint_sha256 (the SHA-256 of its bytes, as sha256sum gives it),
tasks, context, noise, seed, samples, refine, theta_prior and
theta_prior_scale (refinement's prior on θ; absent in one pass),
true_theta and raw_spread (with those flags); pooled_ece {recon, delta},
the bands' ECE over every realization's targets together
(docs/uncertainty.md); and warnings: the condition outside the model's
training, θ intervals nearly as wide as the prior, θ̂ that misses θ by
at least half what the prior's centre does, θ̂ that refinement brought
within that from the network's own, which missed by as much (refinement,
not the network, calibrating), and a corrected prediction no closer to G
than a flat line at each channel's mean over the context. With --grid it
is {system, backbone, checkpoint, tasks, seed, warnings, cells}, each
cell {context, noise, report (the object above), misses (the targets the
cell fails, as the table marks them)}.`

// compareJSONFields names the rest of compare --json's object: its
// settings, and each method's times beside its metrics.
const compareJSONFields = `

The object also holds system, tasks, context, noise, seed, samples
(APIC's latent samples, when an APIC model ran), raw_spread (with
--raw-spread), failed_methods [{name, reason}] and methods.NAME with,
beside its metrics: source (an APIC checkpoint) and source_sha256 (the
SHA-256 of its bytes), refine (APIC's steps), seconds_per_realization
(the median), seconds_per_realization_min_max, seconds_total,
cpu_seconds_per_realization (absent where the platform gives no CPU
time), warnings and failures; for a baseline wall_seconds, workers,
realizations_per_second (on those workers) and its budget (starts,
members and steps, or mcmc_steps); for APIC
realizations_per_second_batched and cpu_seconds_per_realization_batched,
and the same for its one pass, timed too:
one_pass_seconds_per_realization,
one_pass_realizations_per_second_batched and
one_pass_cpu_seconds_per_realization_batched. With KOH-GP in the run,
speedup_vs_koh_gp and speedup_vs_koh_gp_cpu are KOH-GP's median wall and
CPU time per realization over the method's, and APIC's one pass adds
one_pass_speedup_vs_koh_gp (over its median latency),
one_pass_batched_speedup_vs_koh_gp and
one_pass_batched_cpu_speedup_vs_koh_gp (over its batch time per
realization) and one_pass_throughput_ratio_vs_koh_gp (realizations per
second on the same cores).`

// sdFooter is the line under a table of mean ± std that says what the
// ± is: the spread of single realizations, not an interval of the
// mean (the explorer's sidebar shows that one, and says so). n is the
// realizations scored; with each (compare, where a method that failed
// some scores fewer) the count is each method's own.
func sdFooter(n int, each bool) string {
	over := core.Count(n, "realization")
	if each {
		over = "each method's scored realizations"
	}
	return "± : standard deviation over " + over + ", not an interval of the mean"
}

// metricBetter is which way each metric of compare's table is better:
// "lower", "higher", or the value it targets.
var metricBetter = map[string]string{
	core.KeyReconMAE: "lower", core.KeyDeltaMAE: "lower", core.KeyThetaMAE: "lower",
	core.KeyReconECE: "lower", core.KeyDeltaECE: "lower",
	core.KeyReconLL: "higher", core.KeyDeltaLL: "higher",
	core.KeyObsCover: "0.95",
}

// betterLine says which way each of compare's columns keys is better,
// in their order: a reader of a row of numbers needs it to tell the
// winner, and that a coverage is best at its target, not at 1.
func betterLine(keys []string) string {
	var lower, higher, target []string
	for _, k := range keys {
		switch head, way := compareHeads[k], metricBetter[k]; way {
		case "lower":
			lower = append(lower, head)
		case "higher":
			higher = append(higher, head)
		default:
			target = append(target, head+" targets "+way)
		}
	}
	parts := []string{"lower is better: " + strings.Join(lower, ", ")}
	if len(higher) > 0 {
		parts = append(parts, "higher is better: "+strings.Join(higher, ", "))
	}
	return strings.Join(append(parts, target...), "; ")
}
