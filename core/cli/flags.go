package cli

import "math"

// maxSamples bounds --samples: far more Monte-Carlo latent samples than
// any estimate needs, and few enough that the sample tensors fit in
// memory (an out-of-memory crash cannot be recovered or reported).
const maxSamples = 10000

// checkSamples refuses a --samples above maxSamples.
func checkSamples(n int) error {
	if n > maxSamples {
		return UsageError("--samples must be at most %d, got %d", maxSamples, n)
	}
	return nil
}

// maxTasks bounds --tasks of eval and compare: every test realization is
// drawn and held in memory before the scoring (advdiff's take about
// 100 kB each, so 100000 of them would need 10 GB), and 2000 already
// give each metric's mean a standard error of about 2% of its spread.
const maxTasks = 2000

// maxRefine bounds --refine: refinement converges in a few steps (the
// checkpoints use 5), and each costs as much as several one-pass
// predictions, so far larger counts are typos that would run for hours.
const maxRefine = 1000

// checkRefine refuses a --refine above maxRefine.
func checkRefine(n int) error {
	if n > maxRefine {
		return UsageError("--refine must be at most %d, got %d", maxRefine, n)
	}
	return nil
}

// checkCounts validates the evaluation flags eval and compare share,
// naming the first one that is wrong.
func checkCounts(tasks, samples, context int, noise float64, refine int) error {
	switch {
	case tasks < 1:
		return UsageError("--tasks must be ≥ 1, got %d", tasks)
	case tasks > maxTasks:
		return UsageError("--tasks must be at most %d (every realization is held in memory), got %d", maxTasks, tasks)
	case samples < 1:
		return UsageError("--samples must be ≥ 1, got %d", samples)
	case context < 0:
		return UsageError("--context must be ≥ 0 (0: the system's test size), got %d", context)
	case !(noise >= 0) || math.IsInf(noise, 0):
		return UsageError("--noise must be finite and ≥ 0, got %v", noise)
	case refine < -1:
		return UsageError("--refine must be ≥ 0, or -1 for the checkpoint's setting, got %d", refine)
	}
	if err := checkRefine(refine); err != nil {
		return err
	}
	return checkSamples(samples)
}
