// Package tui is the explorer: a Bubble Tea terminal UI over the APIC
// engine, opened by "apic" alone on a terminal or "apic explore".
//
// The screen has a header (system, backbone, where the weights came from,
// the realization's seed, and the status: idle, training, computing
// (the baselines, a diagnosis or the ablation points, each with the time
// it has taken), stale or untrained), four panels, a sidebar and a help
// line, which offers the keys that act now, the views d, c and A before
// the keys that move to other data, in a word each ("d diag") where the
// terminal is too narrow for their descriptions:
//
//  1. the simulator output F(x; θ̂) with the context points,
//  2. the learned discrepancy δ̂ with its 95% band against the true
//     δ = G − F(x; θ),
//  3. the corrected prediction with its 95% band and the context points,
//  4. the ground truth drawn over the prediction, the nominal dimmed.
//
// A "95% band" is the central 95.4% interval (±2σ's level): μ ± 2σ where the
// checkpoint's bands are Gaussian, the interval of that level under the
// calibrated shape of the band at the context's condition where it has
// one (core.BandShape: pooled over realizations, δ's errors are
// heavy-tailed, and a Gaussian band of the scale that fits its inner
// levels covers far less than 95%).
//
// Lotka–Volterra draws prey and predator as two coloured series.
// Advection–diffusion shows a time slice ([ and ] move it) or, on v,
// half-block heatmaps of truth, prediction, δ̂ and |error| on fixed
// per-panel ranges with colour bars. Terminals of at least 120×36 get all
// four panels in a 2×2 grid; smaller ones (down to 80×22, so that 80×24
// inside tmux or screen fits) show two at a time (p flips); below that a
// "terminal too small" screen.
//
// The sidebar holds the controls (↑/↓ select, ←/→ change): system,
// backbone, context size, noise σ, λθ, λδ, regularizer, training mode, the
// advdiff time slice, and one row per parameter showing θ̂ ± 1σ against the
// true θ, where ←/→ set θ by hand (a: back to θ̂) so the panels show what
// the discrepancy must absorb. Below them are the metrics of the
// realization on screen (core.Score: recon MAE, δ MAE, θ MAE, recon LL,
// recon ECE) and the training box (stage, step, loss, the stage's ETA and a loss
// sparkline).
//
// Keys: ↑↓ select, ←→ change, tab/shift+tab system, b backbone, r new
// realization, a θ back to the estimate, 0 context, noise, θ, slice and
// seed back to the start, t train, m training mode, esc stop training (else baseline fits), u undo the last training, open or atlas model (back to
// the system and backbone shown before a file of another), [ ] { } time
// slice, v heatmaps, p other panels, d diagnostics, c baselines, s save,
// o open, ? help, q or ctrl+c quit. A key that would show another system or
// backbone while a run trains (or another system while the baselines
// fit) asks first, as q does; the same key again goes ahead and stops
// that work. So does o while a run trains: the run stops once a file
// opens. u over weights trained here and saved in no file asks first
// too; u again drops them.
//
// c runs the paper's three per-realization baselines (KOH-GP, BCPI and
// Correction-PINN, with interactive budgets) on the task on screen, one
// command each; their corrected predictions and δ̂ are drawn over panels
// 3 and 2 (marks k, b, p), their θ̂ and wall times listed under the θ
// rows. In the advdiff heatmap view panel 4 (|error|) gives way to the
// ▸ time slice with the truth, the prediction and the baselines'. Another realization, system, context size or noise, or c again,
// cancels them and drops late results; the status line says when a
// change did, and that c runs them again. esc stops the fits still
// running and keeps those that ended.
//
// No numerics live here: inference and training are package core's. The
// UI stays responsive because inference runs in commands off the UI
// goroutine, one at a time, tagged with a generation so results of older
// requests are dropped; a one-pass amortized answer comes at once and the
// model's refinement follows when the controls rest. A switch to another
// system, backbone or file keeps the panels before it on screen, dimmed
// and marked, until the new model's answer comes (stalePanels). Training runs in a
// goroutine of its own on a copy of the model, reporting progress and
// throttled weight snapshots through a channel that a command reads; the
// plots re-infer from the snapshots in one pass, which the θ rows'
// heading then says. esc cancels through a context, and quitting waits
// for the goroutine to end, and for a save's file to be written. A
// diagnosis and an ablation point report the realizations done to the
// status line the same way (workProgress).
package tui
