package cli

import (
	"fmt"

	"apic/core"
)

// checkLimit refuses a flag's value outside its core.Limit, naming the
// flag, the bounds and why they are there. The limits live in
// core/limits.go, where core.Config.Validate checks the same values
// read from a checkpoint's config.
func checkLimit(l core.Limit, v int) error {
	if err := l.Check(v); err != nil {
		return UsageError("--%v", err)
	}
	return nil
}

// refineUsage is the help of --refine, the refinement steps on the
// context of a command that predicts from a checkpoint.
var refineUsage = fmt.Sprintf("refinement steps on the context, at most %d (0: one-pass amortized; -1: the checkpoint's setting)", core.LimitRefine.Max)

// samplesUsage is the help of --samples, the Monte-Carlo latent
// samples of a command that predicts from a checkpoint. A cnp's latents
// have no spread to sample, so it draws one whatever the flag says
// (and the header of its output says "1 sample").
var samplesUsage = fmt.Sprintf("Monte-Carlo latent samples, at most %d; a cnp checkpoint is deterministic and draws one", core.LimitSamples.Max)

// checkRefine refuses a --refine outside core.LimitRefine; -1 (the
// checkpoint's setting) is the one value below it allowed.
func checkRefine(n int) error {
	if n == -1 {
		return nil
	}
	if n < -1 {
		return UsageError("--refine must be ≥ 0, or -1 for the checkpoint's setting, got %d", n)
	}
	return checkLimit(core.LimitRefine, n)
}

// checkCounts validates the evaluation flags eval and compare share,
// naming the first one that is wrong.
func checkCounts(tasks, samples, context int, noise float64, refine int) error {
	if err := checkLimit(core.LimitTasks, tasks); err != nil {
		return err
	}
	if err := checkLimit(core.LimitSamples, samples); err != nil {
		return err
	}
	if context < 0 {
		return UsageError("--context must be ≥ 0 (0: the system's test size), got %d", context)
	}
	if err := checkNoise(noise); err != nil {
		return err
	}
	return checkRefine(refine)
}

// checkNoise refuses a --noise σ outside 0 to core.MaxNoise (NaN and
// ±Inf included), for every command that has the flag.
func checkNoise(noise float64) error {
	if !(noise >= 0) || !(noise <= core.MaxNoise) {
		return UsageError("--noise must be between 0 and %v (the data are of order 1), got %v", core.MaxNoise, noise)
	}
	return nil
}

// contextUsage is the help of --context, the context size of a command
// that evaluates test realizations (eval, compare, diagnose).
const contextUsage = "context size, at most the grid's points less one (0, the default: the system's test size; the points left are the targets)"
