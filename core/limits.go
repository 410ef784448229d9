package core

import (
	"fmt"
	"math"
	"strconv"

	"apic/nets"
	"apic/sims"
)

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

// FloatLimit is one documented bound on a real number read from a flag,
// a file or a checkpoint's config, as Limit is on a size: the closed
// interval [Min, Max], or (Min, Max] where MinOpen. NaN and ±Inf are
// outside every bound.
type FloatLimit struct {
	Name     string  // the flag or field, as a user would write it ("lr")
	Min, Max float64 // the bounds
	MinOpen  bool    // Min itself excluded: a value must exceed it
	Why      string  // why the bound is where it is, for errors
}

// Check returns an error naming the value and the bounds when v is
// outside them.
func (l FloatLimit) Check(v float64) error {
	if !(v >= l.Min && v <= l.Max) || (l.MinOpen && v == l.Min) { // NaN fails both
		return fmt.Errorf("%s must be in %s (%s), got %v", l.Name, l.Interval(), l.Why, v)
	}
	return nil
}

// As is l under the name of another flag or field it bounds
// (LimitLossWeight for lambda-delta).
func (l FloatLimit) As(name string) FloatLimit {
	l.Name = name
	return l
}

// Interval writes the bounds as an interval, "(0, 1]" or "[0, 10000]",
// for --help and errors.
func (l FloatLimit) Interval() string {
	open := "["
	if l.MinOpen {
		open = "("
	}
	return open + strconv.FormatFloat(l.Min, 'f', -1, 64) + ", " + strconv.FormatFloat(l.Max, 'f', -1, 64) + "]"
}

// The bounds on training's real-valued settings (train's flags, a
// checkpoint's train config). Each is far from any useful value and
// close enough that a slip of the exponent (--lr 1e3 for 1e-3) is
// refused before it trains a diverged model for hours.
var (
	// LimitLR bounds the Adam learning rate: a step moves each weight
	// by about the rate, so a rate beyond 1 outruns the scale of every
	// weight. The shipped recipes use 1e-3 down to 3e-6.
	LimitLR = FloatLimit{"lr", 0, 1, true, "Adam moves each weight by about the rate per step: more outruns any weight's scale"}
	// LimitLRFinal bounds the cosine schedule's final rate (0: constant);
	// train also keeps it at most the starting rate.
	LimitLRFinal = FloatLimit{"lr-final", 0, 1, false, LimitLR.Why}
	// LimitLossWeight bounds λθ and λδ, the loss terms' weights: a
	// hundred times the largest a shipped model uses (λδ = 100), beyond
	// which the other terms vanish beside the weighted one.
	LimitLossWeight = FloatLimit{"lambda-theta", 0, 10000, false, "100 times the largest a shipped model uses: beyond, the other loss terms vanish beside it"}
	// LimitClip bounds the gradient-norm clipping threshold (0: off):
	// the shipped recipes clip at 10, and a norm of a million is a
	// diverged step, not one any threshold should let through.
	LimitClip = FloatLimit{"clip", 0, 1e6, false, "the shipped models clip at 10, and a gradient norm of a million is a diverged step; 0 turns clipping off"}
)

// MaxNoise bounds every observation-noise level σ read from a flag
// (eval, diagnose and compare --noise, eval --grid-noises, train
// --noise-range): the benchmark data are of order 1, so σ = 1000 is
// already pure noise, and far larger σ overflow the predictive spread
// into NaN metrics or a diverged training run.
const MaxNoise = 1000.0

// The resource limits. Each is far above any useful setting and low
// enough that what it sizes alone fits in memory on a laptop. Sizes
// that multiply (a training run's batch, widths, depths and context)
// can together exceed any machine's memory within their bounds: train
// checks their product against the memory available before it
// allocates the model (trainmemory.go).
var (
	// LimitValTasks bounds validation realizations during training:
	// each is drawn and held in memory (advdiff's take about 100 kB).
	LimitValTasks = Limit{"val-tasks", 0, 2000, "every validation realization is held in memory"}
	// LimitRecalTasks bounds the realizations recalibration fits on.
	LimitRecalTasks = Limit{"recalibrate", 0, 2000, "every recalibration realization is held in memory"}
	// LimitTrajectories bounds the fixed training set (0: fresh draws);
	// TrajectoriesLimit lowers it for systems with large realizations.
	LimitTrajectories = Limit{"trajectories", 0, 200000, "the training set is held in memory"}
	// LimitRefine bounds Levenberg–Marquardt refinement steps: it
	// converges in a few (the checkpoints use 5).
	LimitRefine = Limit{"refine", 0, 1000, "refinement stops within a few steps, once a step lowers its cost by under 1%"}
	// LimitWidth bounds a layer's width or a latent size (hidden,
	// latent, latent-delta, dec-hidden, basis); LimitLayers a network's
	// depth; LimitBatch the realizations of one training step. Each is
	// far above the paper's (128 wide, 3 deep, batch 64). Config.Validate
	// checks a checkpoint's against the same bounds.
	LimitWidth  = Limit{"hidden", 1, maxWidth, "a layer's weights and activations are held in memory"}
	LimitLayers = Limit{"layers", 1, maxLayers, "each layer's activations are held for the backward pass"}
	LimitBatch  = Limit{"batch", 1, maxBatch, "a step holds every realization's activations"}
	// LimitTrainSteps bounds each training stage's steps: the shipped
	// plans take tens of thousands, and a step takes milliseconds, so
	// the bound is days of training.
	LimitTrainSteps = Limit{"steps1", 0, 100_000_000, "a step takes milliseconds: more would train for weeks"}
	// LimitSamples bounds Monte-Carlo latent samples.
	LimitSamples = Limit{"samples", 1, 10000, "the sample tensors are held in memory"}
	// LimitTasks bounds the test realizations of eval and compare.
	LimitTasks = Limit{"tasks", 1, 2000, "every realization is held in memory"}
	// LimitObservations bounds the data rows of one observation file,
	// counted while it is read: ten times more than any system's grid
	// has states (advdiff: 64 × 65 = 4160) and twenty times the most
	// any model trains on (advdiff: 500). The bound is what prediction
	// costs, not the file: attention (anp) holds grid × context
	// matrices, and calibrating 10000 advdiff observations with the
	// embedded anp takes 54 s and 1.8 GB (lnp: 1.3 s, 56 MB); ten times
	// more would not fit in a laptop's memory.
	LimitObservations = Limit{"observations", 1, 10000, "ten times any grid's states; attention over more would not fit in memory"}
	// LimitFieldsPerLine bounds the fields of one CSV line: observation
	// files have the grid's state dimensions and channels (at most 3
	// today), side-information files 2.
	LimitFieldsPerLine = Limit{"fields per line", 1, 64, "no system has more than a few columns"}
	// LimitMembers bounds Correction-PINN's ensemble members per
	// realization: the paper uses 20, and each costs minutes.
	LimitMembers = Limit{"members", 1, 1000, "each member trains for minutes per realization"}
	// LimitSteps bounds Correction-PINN's Adam steps per member.
	LimitSteps = Limit{"steps", 1, 1000000, "a million full-batch steps already take hours per member"}
	// LimitMCMC bounds BCPI's adaptive Metropolis steps per
	// realization: each factorises the joint covariance.
	LimitMCMC = Limit{"mcmc", 2, 10000000, "each step factorises a covariance matrix"}
	// LimitKOHStarts bounds KOH-GP's L-BFGS starts per realization
	// (compare --starts): the default is 8, and each start is a full
	// search of θ and the GP's hyperparameters.
	LimitKOHStarts = Limit{"starts", 1, 1000, "each start is a full L-BFGS search"}
	// LimitBCPIStarts bounds BCPI's L-BFGS starts per realization: the
	// authors use 10, and each start costs seconds to minutes.
	LimitBCPIStarts = Limit{"bcpi-starts", 1, 1000, "each start is a full L-BFGS search"}
	// LimitWorkers bounds compare's parallel baseline fits: each is a
	// goroutine busy on one core, so workers beyond the cores only take
	// turns, and each holds its realization's fit in memory.
	LimitWorkers = Limit{"workers", 0, 256, "workers beyond the cores only take turns"}
	// LimitSweepCells bounds the cells × seeds of one apic sweep: each
	// is at least one evaluation (a training run for training axes), so
	// a thousand already take hours; a typo in a --vary list stops here.
	LimitSweepCells = Limit{"sweep cells × seeds", 1, 1000, "each cell is a full evaluation or training run"}
	// LimitSweepCellFile bounds a file of a sweep's cell folder
	// (cmd.txt, cell.json, eval.json, eval-onepass.json), checked before
	// it is read whole: a sweep writes each at a few kB (eval.json
	// listing all 2000 realizations as failures adds 10 kB), so a larger
	// one is no file of a sweep's, and a multi-gigabyte one put there by
	// mistake ends in this error, not in an out-of-memory crash.
	LimitSweepCellFile = Limit{"sweep cell file size", 0, 16 << 20, "a sweep writes each of a cell's files at a few kB"}
	// LimitSweepSeeds bounds apic sweep's --seeds (replicates per cell).
	LimitSweepSeeds = Limit{"seeds", 1, 100, "replicates beyond a few dozen do not narrow the interval usefully"}
	// LimitFieldBytes bounds one CSV field.
	LimitFieldBytes = Limit{"field length", 0, 256, "a number or a column name is never longer"}
	// LimitInputBytes bounds the bytes of one input file (observations,
	// side information), blank lines and all, counted as it is read:
	// 10000 observations on lines of the longest length allowed take 41
	// MB, so more is no observation file, and an endless source (yes '' |
	// apic calibrate --data -) ends here instead of being read forever.
	LimitInputBytes = Limit{"input size", 1, 64 << 20, "10000 observations of the longest lines allowed are 41 MB"}
	// LimitLineBytes bounds one CSV line (a record: a quoted field's
	// line breaks do not end it), checked byte by byte as it is read,
	// so that a line of 200 MB is refused after its first 4 kB.
	LimitLineBytes = Limit{"line length", 0, 4096, "no system has more than a few columns"}
)

// QuoteMax is the most characters of offending input an error message
// quotes: enough to recognise it, never a whole 200 MB line.
const QuoteMax = nets.QuoteMax

// QuoteInput quotes s for an error message, cut to its first QuoteMax
// characters with the full length said when longer. (The one
// implementation is in nets, whose safetensors errors quote with it.)
func QuoteInput(s string) string { return nets.QuoteInput(s) }

// trajectoryPoolBytes is the memory the fixed training set of
// --trajectories may take: a quarter of a small laptop's, beside the
// model, the batches and the validation set.
const trajectoryPoolBytes = min(2<<30, math.MaxInt) // 2 GiB, less on 32-bit systems

// RealizationBytes is the memory one drawn realization holds: its nominal
// and true values on the grid, θ and the side information as float64,
// each slice rounded up as the allocator does (large objects to whole
// 8 KiB pages), plus the slice headers.
func RealizationBytes(sys sims.System) int {
	return 2*allocBytes(8*sys.Grid().Size()) + allocBytes(8*len(sys.Params())) + allocBytes(8*sys.Side().Len) + 4*24
}

// allocBytes is about what the Go allocator takes for an n-byte object:
// small ones to the next 16 bytes (its size classes are finer, at most
// 12.5% apart), large ones (above 32 KiB) to whole 8 KiB pages.
func allocBytes(n int) int {
	if n > 32<<10 {
		return (n + 8<<10 - 1) / (8 << 10) * (8 << 10)
	}
	return (n + 15) / 16 * 16 * 9 / 8
}

// TrajectoriesLimit is LimitTrajectories for sys, lowered so that the
// fixed training set fits in trajectoryPoolBytes: advdiff's realizations
// are 80 kB, so 200000 of them would take 16 GB.
func TrajectoriesLimit(sys sims.System) Limit {
	l := LimitTrajectories
	per := RealizationBytes(sys)
	if most := trajectoryPoolBytes / per; most < l.Max {
		l.Max = most
		l.Why = fmt.Sprintf("the training set is held in memory, %d kB per %s realization, %d MB in all at most", per/1000, sys.Name(), trajectoryPoolBytes>>20)
	}
	return l
}
