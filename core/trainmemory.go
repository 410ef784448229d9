package core

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"apic/nets"
	"apic/sims"
)

// Each flag's bound (limits.go) keeps one size in reach, but not their
// product: a batch of 4096 advdiff realizations, or encoders 4096 wide,
// each within its bound, need tens of gigabytes, and Go ends a run that
// asks for more than the machine has with an unrecoverable "fatal error:
// out of memory" (or the kernel kills it). So a training run's peak
// memory is estimated from its configuration before the model is built,
// and measured on one realization before the first step, and a run
// whose estimate exceeds the memory available is refused. The
// recalibration after training is estimated too (recalmemory.go).

// paramCopies are the float64 copies of every parameter that training
// holds: its value, its gradient and Adam's two moments (nets.Param,
// nets.Adam).
const paramCopies = 4

// arenaSlack is how much more memory a step's arena holds than the
// values its tape asks for: each slab added when none has room is at
// least the size of everything handed out since Reset (nets.Arena), so
// the slabs hold at most about twice a step's values. (Measured peaks
// are 1.3 to 1.6 times the largest step's values: docs/training.md.)
const arenaSlack = 2

// runtimeBytes is what a training process holds beside the model and
// the step: the program, the Go runtime, the drawn batches and the
// validation set, measured at 50 to 70 MB for the small runs of
// docs/training.md.
const runtimeBytes = 64 << 20

// TrainMemory is the estimate of a training run's peak memory.
type TrainMemory struct {
	Params     int   // the model's parameters
	ParamBytes int64 // their values, gradients and Adam's moments
	Batch      int   // realizations per step
	Context    int   // the largest context size a step draws
	// StepBytes is one training step's tape, its arena's slack included,
	// at Batch realizations of Context points. Probed says it was
	// measured on a real step of one realization; otherwise it is a lower
	// bound counted from the encoders' widths.
	StepBytes int64
	Probed    bool
	// AttentionBytes are anp's attention probabilities, [batch·heads,
	// queries, keys] per attention, which live outside the arena in a
	// pool that keeps up to four of a step's (nets.maxFreeBuffers; a step
	// holds the two encoders' at once).
	AttentionBytes int64
	// Recal is the recalibration after training (or instead of it, with
	// --steps1 0 --steps2 0): it runs once the step's memory is free,
	// so the run's peak is the larger of the two.
	Recal RecalMemory
}

// Total is the estimated peak: the parameters, the larger of a step
// and the recalibration, and the runtime.
func (e TrainMemory) Total() int64 {
	return e.ParamBytes + max(e.stepTotal(), e.Recal.Bytes()) + runtimeBytes
}

// stepTotal is a training step's memory: its tape and anp's attention.
func (e TrainMemory) stepTotal() int64 { return e.StepBytes + e.AttentionBytes }

// RecalOnly is the estimate of a run that trains nothing and
// recalibrates: cfg's parameters and the recalibration r.
func RecalOnly(cfg Config, r RecalMemory) TrainMemory {
	e := TrainMemory{Params: ParamCount(cfg), Recal: r}
	e.ParamBytes = int64(e.Params) * paramCopies * 8
	return e
}

// attentionBuffers is the most attention-probability buffers that a
// training step leaves in nets' pool.
const attentionBuffers = 4

// EstimateTrainMemory estimates cfg's training memory without allocating
// the model: its parameters counted from the architecture, and a lower
// bound on a step's tape (the encoders' hidden layers hold an N × hidden
// value per layer, point and encoder). Config.Validate must pass first.
func EstimateTrainMemory(cfg Config) TrainMemory {
	sys, _ := sims.Lookup(cfg.Arch.System)
	a := cfg.Arch
	_, hi := cfg.Train.contextRange(sys)
	e := TrainMemory{Params: ParamCount(cfg), Batch: cfg.Train.Batch, Context: hi}
	e.ParamBytes = int64(e.Params) * paramCopies * 8
	perRealization := int64(2) * int64(a.Layers) * int64(hi) * int64(a.Hidden) * 8
	e.StepBytes = arenaSlack * int64(e.Batch) * perRealization
	if a.Backbone == ANP {
		keys := int64(hi)
		queries := max(keys, int64(len(closureFor(sys, a.Form).Queries())))
		e.AttentionBytes = attentionBuffers * int64(e.Batch) * int64(a.Heads) * queries * keys * 8
	}
	return e
}

// ProbeTrainMemory measures m's training step: one realization at the
// largest context size of m's plan, stage 1 and 2 losses and their
// backward passes on an arena, scaled to the plan's batch (a step's
// values grow in proportion to it). The draws come from a source of
// their own and the gradients are cleared after: the run that follows
// draws and trains as it would without the probe. Call it only when
// EstimateTrainMemory's estimate fits: the probe holds one realization's
// step.
func (m *Model) ProbeTrainMemory() (TrainMemory, error) {
	e := EstimateTrainMemory(m.Config)
	t := m.Config.Train
	t.Batch, t.ContextMin, t.ContextMax = 1, e.Context, e.Context
	t.Seed ^= 0x70726f6265 // "probe": not the run's own draws
	tr := &trainer{m: m, t: t, s: newSampler(m.Sys, t)}
	arena := new(nets.Arena)
	most := 0
	for _, stage := range []int{1, 2} {
		arena.Reset()
		tp := newStepTape(arena)
		loss, _, err := tr.loss(tp, stage)
		if err != nil {
			return e, fmt.Errorf("measuring a training step: %w", err)
		}
		tp.Backward(loss)
		most = max(most, arena.Used())
	}
	m.Params.ZeroGrad()
	e.StepBytes = arenaSlack * int64(e.Batch) * int64(most) * 8
	e.Probed = true
	return e, nil
}

// CheckTrainMemory refuses e when it exceeds MemoryBudget.
func CheckTrainMemory(e TrainMemory) error {
	budget, where, err := MemoryBudget()
	if err != nil {
		return err
	}
	return e.Check(budget, where)
}

// Check refuses the run when its estimate exceeds budget bytes (from
// where, "MemAvailable in /proc/meminfo"); a budget ≤ 0 checks nothing.
func (e TrainMemory) Check(budget int64, where string) error {
	if budget <= 0 || e.Total() <= budget {
		return nil
	}
	// The recalibration is named only where the step alone fits: then
	// a lower --recalibrate is what makes the run fit.
	step := e
	step.Recal = RecalMemory{}
	if step.Total() <= budget {
		return e.recalError(budget, where)
	}
	need := "about"
	if !e.Probed {
		need = "at least"
	}
	return fmt.Errorf("training would need %s %s of memory, more than the %s available (%s): %s for %d parameters with their gradients and Adam's moments, %s for a step of batch %d at context %d; lower --batch (a step's memory grows with it), --hidden, --layers or the largest --context-range (%s=MB sets another budget, 0 none)",
		need, ByteSize(e.Total()), ByteSize(budget), where, ByteSize(e.ParamBytes), e.Params, ByteSize(e.StepBytes+e.AttentionBytes), e.Batch, e.Context, MemoryBudgetEnv)
}

// recalError says that e's recalibration takes the run past budget,
// and what --recalibrate fits.
func (e TrainMemory) recalError(budget int64, where string) error {
	r := e.Recal
	what, later := "the recalibration", ""
	if e.stepTotal() > 0 {
		what = "the recalibration after training"
		later = ", or train with --recalibrate 0 (the trained weights are saved) and recalibrate them where more memory is free (apic train --init FILE --steps1 0 --steps2 0 --recalibrate N)"
	}
	fits := "lower --recalibrate"
	if n := e.mostTasksWithin(budget); n > 0 {
		fits = fmt.Sprintf("lower --recalibrate to %d or less", n)
	} else {
		fits += " (even --recalibrate 1 would not fit)"
	}
	need := "at least"
	batch := ""
	if r.Probed {
		need = "about"
		batch = fmt.Sprintf(", and %s for a batch of %d predicted at context %d", ByteSize(r.PredictBytes()), r.Batch, r.Context)
	}
	return fmt.Errorf("%s would need %s %s of memory, more than the %s available (%s): --recalibrate %d holds %d validation realizations at once (%s), %s each with its prediction on the %d-value grid, twice over for the fits' copies%s; %s%s (%s=MB sets another budget, 0 none)",
		what, need, ByteSize(e.Total()), ByteSize(budget), where, r.Tasks, r.Held, r.heldWords(), ByteSize(r.PerRealization), r.PerRealization/predictionGridVectors/8, batch, fits, later, MemoryBudgetEnv)
}

// ByteSize writes n bytes in MB or GB (decimal, one decimal place).
func ByteSize(n int64) string {
	if n >= 1e9 {
		return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// MemoryBudgetEnv names the environment variable that sets the training
// memory budget in MB (0: no check) instead of the memory available.
const MemoryBudgetEnv = "APIC_MEMORY_BUDGET"

// maxMemoryBudgetMB bounds $APIC_MEMORY_BUDGET: about an exabyte, far
// above any machine's memory, and below where MB × 1e6 bytes overflows.
const maxMemoryBudgetMB = 1 << 40

// MemoryBudget is the memory a training run may take, in bytes, and
// where that figure comes from: $APIC_MEMORY_BUDGET megabytes when set
// and not empty (APIC_MEMORY_BUDGET= clears it, as a shell script that
// passes on an unset variable does), otherwise the memory the kernel
// says is available (MemAvailable in /proc/meminfo). It is 0 (no
// check) where neither is readable, as on systems without /proc.
func MemoryBudget() (int64, string, error) {
	if s := os.Getenv(MemoryBudgetEnv); strings.TrimSpace(s) != "" {
		mb, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || mb < 0 || mb > maxMemoryBudgetMB {
			return 0, "", fmt.Errorf("%s=%s: want a whole number of megabytes from 0 (no memory check) to %d", MemoryBudgetEnv, QuoteInput(s), maxMemoryBudgetMB)
		}
		return mb * 1e6, MemoryBudgetEnv, nil
	}
	return memAvailable("/proc/meminfo"), "MemAvailable in /proc/meminfo", nil
}

// memAvailable reads MemAvailable (kB) from a meminfo file, 0 when it
// cannot.
func memAvailable(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// ParamCount is the number of parameters NewModel(cfg) makes, counted
// from the architecture without allocating them.
func ParamCount(cfg Config) int {
	sys, _ := sims.Lookup(cfg.Arch.System)
	a := cfg.Arch
	cl := closureFor(sys, a.Form)
	fq := 0
	if q := cl.Queries(); len(q) > 0 && len(q[0]) > 0 {
		fq = sys.QueryFeatureLen()
	}
	P := len(sys.Params())
	summary := newGridSummary(sys.Grid()).Len()
	n := encoderParams(sys.FeatureLen(), summary, a, a.LatentTheta) + encoderParams(sys.FeatureLen(), summary, a, a.LatentDelta)
	n += mlpParams([]int{a.LatentTheta, a.DecHidden, a.DecHidden, P})
	in := fq + a.LatentTheta + a.LatentDelta + P
	if sf, ok := sys.(sims.SideFeaturer); ok {
		in += sf.SideFeatureLen()
	}
	if a.Backbone == ANP && fq > 0 && a.Basis == 0 {
		n += linearParams(fq, a.Hidden) + attentionParams(a.Hidden)
		in += a.Hidden
	}
	out := cl.Outputs()
	if a.Basis > 0 {
		in -= fq
		out = a.Basis
		n += mlpParams(mlpSizes(fq, a.DecHidden, a.DecLayers, a.Basis))
	}
	n += mlpParams(mlpSizes(in, a.DecHidden, a.DecLayers, out))
	return n + len(sys.Grid().Channels) // the observation noise
}

// encoderParams counts newEncoder's parameters.
func encoderParams(in, summary int, a Arch, latent int) int {
	n := mlpParams(mlpSizes(in, a.Hidden, a.Layers, a.Hidden))
	n += linearParams(in, a.Hidden) + linearParams(a.Hidden, 2*latent)
	if a.GridSummary {
		n += mlpParams([]int{summary, a.Hidden, a.Hidden})
	}
	if a.Backbone == ANP {
		n += 2*attentionParams(a.Hidden) + a.Hidden
	}
	return n
}

func linearParams(in, out int) int { return in*out + out }

func mlpParams(sizes []int) int {
	n := 0
	for k := range len(sizes) - 1 {
		n += linearParams(sizes[k], sizes[k+1])
	}
	return n
}

// attentionParams counts a dim-wide nets.MultiHeadAttention's: four
// dim × dim projections.
func attentionParams(dim int) int { return 4 * linearParams(dim, dim) }
