package core

import "fmt"

// Limit is one documented bound on a size read from a flag, a file or a
// checkpoint's config. Every such size is checked against its Limit up
// front, before anything is allocated, so that a typo or a crafted file
// ends in an error naming the value and the bound, never in the
// allocator's unrecoverable out-of-memory crash or a run of hours.
type Limit struct {
	Name string // the flag or field, as a user would write it ("val-tasks")
	Min  int    // the smallest allowed value
	Max  int    // the largest allowed value
	Why  string // why the bound is where it is, for --help and errors
}

// Check returns an error naming the value and the bounds when v is
// outside [Min, Max].
func (l Limit) Check(v int) error {
	if v < l.Min || v > l.Max {
		return fmt.Errorf("%s must be between %d and %d (%s), got %d", l.Name, l.Min, l.Max, l.Why, v)
	}
	return nil
}

// The resource limits. Each is far above any useful setting and low
// enough that what it sizes fits in memory on a laptop.
var (
	// LimitValTasks bounds validation realizations during training:
	// each is drawn and held in memory (advdiff's take about 100 kB).
	LimitValTasks = Limit{"val-tasks", 0, 2000, "every validation realization is held in memory"}
	// LimitRecalTasks bounds the realizations recalibration fits on.
	LimitRecalTasks = Limit{"recalibrate", 0, 2000, "every recalibration realization is held in memory"}
	// LimitTrajectories bounds the fixed training set (0: fresh draws).
	LimitTrajectories = Limit{"trajectories", 0, 200000, "the training set is held in memory"}
	// LimitRefine bounds Levenberg–Marquardt refinement steps: it
	// converges in a few (the checkpoints use 5).
	LimitRefine = Limit{"refine", 0, 1000, "refinement converges in a few steps; more would run for hours"}
	// LimitSamples bounds Monte-Carlo latent samples.
	LimitSamples = Limit{"samples", 1, 10000, "the sample tensors are held in memory"}
	// LimitTasks bounds the test realizations of eval and compare.
	LimitTasks = Limit{"tasks", 1, 2000, "every realization is held in memory"}
	// LimitMembers bounds Correction-PINN's ensemble members per
	// realization: the paper uses 20, and each costs minutes.
	LimitMembers = Limit{"members", 1, 1000, "each member trains for minutes per realization"}
	// LimitSteps bounds Correction-PINN's Adam steps per member.
	LimitSteps = Limit{"steps", 1, 1000000, "a million full-batch steps already take hours per member"}
	// LimitMCMC bounds BCPI's adaptive Metropolis steps per
	// realization: each factorises the joint covariance.
	LimitMCMC = Limit{"mcmc", 2, 10000000, "each step factorises a covariance matrix"}
	// LimitBCPIStarts bounds BCPI's L-BFGS starts per realization: the
	// authors use 10, and each start costs seconds to minutes.
	LimitBCPIStarts = Limit{"bcpi-starts", 1, 1000, "each start is a full L-BFGS search"}
	// LimitObservations bounds the rows of one observation file: far
	// more than any system's grid has states (advdiff: 64 × 65).
	LimitObservations = Limit{"observations", 1, 100000, "far more than any grid has states"}
	// LimitFieldBytes bounds one CSV field.
	LimitFieldBytes = Limit{"field length", 0, 256, "a number or a column name is never longer"}
	// LimitLineBytes bounds one CSV line.
	LimitLineBytes = Limit{"line length", 0, 4096, "no system has more than a few columns"}
)

// QuoteMax is the most characters of offending input an error message
// quotes: enough to recognise it, never a whole 200 MB line.
const QuoteMax = 80

// QuoteInput quotes s for an error message, cut to its first QuoteMax
// characters with the full length said when longer.
func QuoteInput(s string) string {
	n := 0
	for i := range s { // by rune, without converting a huge s
		if n == QuoteMax {
			return fmt.Sprintf("%q… (%d bytes)", s[:i], len(s))
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}
