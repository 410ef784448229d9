package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "calibrate",
		Summary: "calibrate your own observations: θ with uncertainty, discrepancy, corrected prediction",
		Usage: `apic calibrate --data FILE|- (--checkpoint FILE | --system SYS [--backbone B]) [--u0 a,b | --u0-file FILE] [--samples K] [--seed N] [--refine N] [--json] [--png FILE]

Runs amortized inference on sparse measurements of a new realization and
reports the physical parameters θ̂ with a 50% and a 95% interval (the
95% one mean ± 1.96 std; the 50% one from the checkpoint's calibrated
shape of θ's intervals, whose errors are heavier-tailed than a
Gaussian's; both cut to the prior range, outside which θ̂ cannot lie),
misspecification warnings, the nominal simulator F(x; θ̂), the learned
discrepancy and the corrected prediction with its 95% band on the
system's grid.

--data is a CSV with a header row naming the grid's state dimensions
then its channels (spring: t,y; lv: t,prey,predator, where an empty cell
means that channel was not observed there, and a channel's column left
out that it was not observed at all; advdiff: t,x,u), one observation
per row, anywhere inside the domain and in any order, each state at most
once (average replicate measurements first; advdiff's x is periodic, so
x = 1 is x = 0; states within 1e-9 of the domain's width in every
coordinate, 1 and 1.0000000000000002, are one, as is a state that close
to a grid point, and one that close outside the domain is at its end);
'-' reads stdin. Column names match in any case, and these aliases are
read too: time for t; for lv, predators for predator and x,y (its
equations' names) for prey,predator, x and y only together, since alone
each is another system's column. Systems with side information need
it, their initial state: --u0 x0,y0 for lv (prey and predator at t =
0), --u0-file (CSV x,u or u,x, one row per grid position, in any order:
x says which, and x = 1 is x = 0 there too) for advdiff. To practise,
'apic simulate --csv FILE' writes such a file, sparse and noisy, and the
command that calibrates it.

Numbers, in the files and in --u0, are decimal or exponent notation
(-1.5, 2e-3, .5, 5., 1E+2) with a decimal point, not a comma, the same
for every system; NaN, Inf, hexadecimal (0x1p1) and digit separators
(1_0) are refused with the file's line. Lines that start with # (after
any blanks) are comments and skipped, in both files, as are blank lines
and rows of empty cells (the ,, a spreadsheet exports below its data).
Lines may end in LF, CRLF or CR alone.

--json prints one object: system, backbone, checkpoint,
checkpoint_sha256 (the SHA-256 of its bytes, as sha256sum gives it),
channels, samples and seed (of the latent draws; a cnp draws one
sample), refine (the refinement steps run), observations (the data rows'
count) and u0 (the side information used; absent for spring); theta (per
parameter: mean, std, lo50, hi50, lo95, hi95, prior_lo and prior_hi, the
prior's range U(lo, hi), and at_prior_bound: θ̂ within 2% of its prior's
width from a bound, where its intervals are the least reliable and its
std is widened so that the 95% interval reaches the bound); noise (per
channel: std, the estimated σ̂, and its lo95, hi95; all three null for a
channel without observations, whose noise the data do not say); on the
grid (t, and x for advdiff), nominal F(x; θ̂), prediction (mean, std,
half95 the half-width of its 95% band: 1.96 std times the checkpoint's
band-shape factor, so the band drawn is not mean ± 1.96 std where a
shape is fitted; observation_std the band of a new noisy observation)
and discrepancy (mean, std, half95), laid out as simulate --json lays
its grid (spring: one value per t; lv: per t, one per channel; advdiff:
per t, one per x); warnings; and checkpoint_validation, what the
checkpoint file records of its own validation at training time (tasks,
the realizations validated; failures, count and realizations; warnings),
null for a file that records none: the text prints its failures and
warnings below the calibration's own.` + inputLimitsHelp(),
		Run: runCalibrate,
	})
}

// inputLimitsHelp is the paragraph of calibrate --help on the limits of
// input files, from core's limits.
func inputLimitsHelp() string {
	return fmt.Sprintf(`

Limits, checked as the file is read: at most %d observations, %d
fields per line, %d bytes per field, %d per line and %d MiB
(%d bytes) in all, blank lines included. An observed value more
than %d times the largest magnitude the system's training saw
(spring: |y| ≤ %d) is refused as a wrong unit or column, on every
system alike; one merely far outside the training range is warned about,
and a calibration the model diverges on (values a million times the
data's) is refused, naming the observations that lie outside training.
Input files must be regular files or unnamed pipes (a shell's <(cmd));
a named pipe goes to '-' (stdin), and Ctrl-C stops the wait for it, or
for a terminal.`,
		core.LimitObservations.Max, core.LimitFieldsPerLine.Max, core.LimitFieldBytes.Max, core.LimitLineBytes.Max,
		core.LimitInputBytes.Max>>20, core.LimitInputBytes.Max, core.SaneFactor, core.SaneFactor)
}

// z95 is the two-sided 95% quantile of the standard normal.
const z95 = 1.959963984540054

// calibration is everything calibrate reports.
type calibration struct {
	sys        sims.System
	model      *core.Model
	checkpoint string // where the weights came from
	sha256     string // the checkpoint's bytes' SHA-256 (core.Info.SHA256)
	data       string // the observation file, for the header
	obs        sims.Context
	side       []float64
	pred       core.Prediction
	warnings   []string
	samples    int // latent samples drawn: 1 for the deterministic CNP, as eval says
	seed       uint64
	refine     int // refinement steps run: --refine, or the checkpoint's setting
	// validation is the report the checkpoint file records of its
	// validation at training time (core.Info.Metrics); nil if none.
	validation *core.Report
}

func runCalibrate(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	var f calibrateFlags
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return withDataFlagHint(err, fs, f.data)
	}
	if err := f.check(); err != nil {
		return err
	}
	m, info, source, err := loadModel(ctx, f.path, f.system, f.backbone)
	if err != nil && f.path == "" && f.system == "" {
		return UsageError("%v%s", err, dataSystemHint(ctx, f.data))
	}
	if err != nil {
		return err
	}
	sys := m.Sys
	// The data first: a file of another system's columns is the error
	// to report, not the --u0 that the system would need.
	obs, err := readObservations(ctx, f.data, sys.Grid(), core.SaneValueBound(sys))
	if err != nil {
		return err
	}
	side, err := calibrationSide(ctx, sys, f.u0Text, f.u0File)
	if err != nil {
		return err
	}
	dataName := f.data // what messages and the report call the data
	if dataName == "-" {
		dataName = stdinName
	}
	steps := f.refine
	if steps < 0 {
		steps = m.Config.Infer.Refine
	}
	p, err := calibrateOne(ctx, m, source, obs, side, core.PredictOptions{Samples: f.samples, Seed: f.seed, Refine: steps})
	if err != nil {
		return blameData(err, sys, obs, side, dataName)
	}
	c := calibration{
		sys: sys, model: m, checkpoint: source, sha256: info.SHA256, data: dataName, obs: obs, side: side,
		pred: p, warnings: append(core.Warnings(m, obs, side, p), unfinishedWarning(info, source)...),
		samples: m.Config.Arch.Backbone.SamplesDrawn(f.samples), seed: f.seed, refine: steps,
		validation: info.Metrics,
	}
	if f.png != "" {
		if err := writeCalibrationFigure(ctx, f.png, c); err != nil {
			return err
		}
	}
	write := writeCalibrationText
	if f.json {
		write = writeCalibrationJSON
	}
	if err := write(env, c); err != nil {
		return err
	}
	if f.png != "" {
		env.noteFigure(f.png)
	}
	return nil
}

// calibrateFlags are calibrate's flags.
type calibrateFlags struct {
	system, path, backbone, data, u0Text, u0File, png string
	samples, refine                                   int
	seed                                              uint64
	json                                              bool
}

func (f *calibrateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.system, "system", "", "system: "+strings.Join(sims.Names(), ", ")+" (with --checkpoint it must match)")
	fs.StringVar(&f.path, "checkpoint", "", "checkpoint `file`, or embedded:NAME for one shipped with the program (default: the embedded one for --system/--backbone)")
	fs.StringVar(&f.backbone, "backbone", "", "backbone of the embedded checkpoint: cnp, lnp or anp (default lnp; with --checkpoint, the file's, which it must match)")
	fs.StringVar(&f.data, "data", "", "observation CSV `file`; '-' reads stdin")
	fs.StringVar(&f.u0Text, "u0", "", "side information as comma-separated values (lv: x0,y0, prey and predator at t = 0)")
	fs.StringVar(&f.u0File, "u0-file", "", "side information from a CSV `file` with header x,u or u,x (advdiff); '-' reads stdin (then --data must be a file)")
	fs.IntVar(&f.samples, "samples", 32, samplesUsage)
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the latent samples")
	fs.IntVar(&f.refine, "refine", -1, refineUsage)
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of the table and plots (its fields are listed above)")
	fs.StringVar(&f.png, "png", "", "also write a figure to this PNG `file` (an existing file is replaced only if it is a PNG)")
}

// check refuses a missing or unreadable --data, two readers of stdin,
// counts out of bounds and a --png that would replace an input or a
// file that is not a PNG.
func (f *calibrateFlags) check() error {
	if f.data == "" {
		return UsageError("--data FILE is required (a CSV of observations; '-' reads stdin)")
	}
	if f.data == "-" && f.u0File == "-" {
		return UsageError("--data - and --u0-file - would both read stdin: give one of them as a file")
	}
	if err := checkDataFile(f.data); err != nil {
		return err
	}
	if err := checkLimit(core.LimitSamples, f.samples); err != nil {
		return err
	}
	if err := checkRefine(f.refine); err != nil {
		return err
	}
	if f.png != "" {
		return checkPNGOutput(f.png, pngInput{"data", f.data}, pngInput{"u0-file", f.u0File}, pngInput{"checkpoint", f.path})
	}
	return nil
}

// calibrateOne calibrates the observations obs with side information
// side, failing where the prediction is not finite, leaves θ
// unresolved, or runs away from the data's scale. Ctrl-C (ctx) stops
// the prediction, whose refinement steps may take long.
func calibrateOne(ctx context.Context, m *core.Model, source string, obs sims.Context, side []float64, o core.PredictOptions) (core.Prediction, error) {
	preds, err := m.PredictContext(ctx, []sims.Context{obs}, [][]float64{side}, o)
	if err != nil {
		return core.Prediction{}, err
	}
	p := preds[0]
	if err := checkPredictionFinite(p, m.Sys, source); err != nil {
		return p, err
	}
	if err := checkResolved(m.Sys, p.Theta, side); err != nil {
		return p, err
	}
	return p, checkPredictionScale(p, obs, side)
}

// withDataFlagHint adds to the error of a stray argument (calibrate
// --system spring spring.csv) that looks like the observation file,
// one that exists or ends in .csv, the flag it needs: --data. A
// directory named *.csv is no such file, and --data would refuse it:
// the hint says so instead. data is --data's value: when given, the
// argument is something else. An error that suggests a flag already
// (--dat for --data) keeps its one suggestion.
func withDataFlagHint(err error, flags *flag.FlagSet, data string) error {
	if flags.NArg() == 0 || data != "" || !IsUsageError(err) || strings.Contains(err.Error(), "; did you mean ") {
		return err
	}
	arg := flags.Arg(0)
	st, statErr := os.Stat(arg)
	isDir := statErr == nil && st.IsDir()
	switch {
	case !strings.EqualFold(filepath.Ext(arg), ".csv") && (statErr != nil || isDir):
		return err
	case isDir:
		return UsageError("%v: %s is a directory; --data takes a CSV file", err, arg)
	}
	return UsageError("%v: did you mean --data %s?", err, arg)
}

// checkDataFile refuses a --data file that does not exist or is not a
// regular file before the model is loaded and the side information
// checked: a mistyped --data is then the error, not the --u0 that the
// system needs. Stat does not block on a FIFO, as an open would.
func checkDataFile(path string) error {
	if path == "-" {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return UsageError("--data %s: %v", path, pathCause(err))
	}
	return notRegularInput("--data", path)
}

// checkOutputPath fails early, before any work, when the file the flag
// names cannot be created: its directory does not exist, takes no new
// file (one on the kernel's /proc or /sys is named so), or the path is
// itself a directory. what is what the file will hold ("a figure"),
// for the refusal of a file that is not a regular one.
func checkOutputPath(flag, path, what string) error {
	switch {
	case path == "-":
		return UsageError("--%s -: the file is written to disk, not to standard output; give a file name", flag)
	case os.IsPathSeparator(path[len(path)-1]):
		return UsageError("--%s %s ends in a path separator: give a file name", flag, path)
	}
	dir := cmp.Or(nets.RawDir(path), ".") // "a/lnk/..": as the system resolves it
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return UsageError("directory %s does not exist (for --%s %s)", trimSeparator(dir), flag, path)
	case err != nil: // "a/file/x.png": the directory named is a file
		return UsageError("--%s %s: %s: %v", flag, path, trimSeparator(dir), pathCause(err))
	case !st.IsDir():
		return UsageError("--%s %s: %s is not a directory", flag, path, trimSeparator(dir))
	}
	if err := checkNotStdStream(flag, path, what); err != nil {
		return err
	}
	// The save replaces only a regular file: a directory, a device, a
	// named pipe or a socket (or a link to one) is refused now, before
	// the work, in the words a checkpoint's save uses
	// (core.CheckSaveTarget); a link is followed to the file the save
	// will write, and one that leads nowhere is refused by AtomicTarget.
	if err := core.CheckWriteTarget(path, what); err != nil {
		return UsageError("--%s: %v", flag, err)
	}
	target, err := nets.AtomicTarget(path)
	if err != nil {
		return UsageError("--%s: %v", flag, err)
	}
	dir = cmp.Or(nets.RawDir(target), ".")
	if name := virtualFileSystem(dir); name != "" {
		return UsageError("--%s %s cannot be written: %s is on the kernel's %s file system, which shows the system's state as files and takes no new ones; choose a directory on disk", flag, path, trimSeparator(dir), name)
	}
	// An existing directory may still refuse the file (read-only, no
	// permission, a full disk), which would otherwise be found only
	// after the work, when saving: create a file there, with one byte
	// in it, the way the save will (a temporary file beside path).
	probe, err := os.CreateTemp(dir, "."+nets.TempBase(filepath.Base(path))+".probe-*")
	if err == nil {
		_, err = probe.Write([]byte{0})
		probe.Close()
		os.Remove(probe.Name())
	}
	if err != nil { // the probe's own name would only confuse
		return UsageError("--%s %s: cannot create a file in %s: %v", flag, path, trimSeparator(dir), pathCause(err))
	}
	return nil
}

// trimSeparator drops the path separators that end dir, as
// filepath.Split leaves them, but keeps a root ("/") whole.
func trimSeparator(dir string) string {
	trimmed := strings.TrimRightFunc(dir, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	if trimmed == "" || strings.HasSuffix(trimmed, ":") { // "/", or "C:\" on Windows
		return dir
	}
	return trimmed
}

// sameFile reports whether paths a and b name the same file: the same
// file on disk where both exist (links, other spellings), else the same
// cleaned absolute path.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return absA == absB
}

// calibrationSide reads the side information the system needs from --u0
// or --u0-file; it is required when the system has any.
func calibrationSide(ctx context.Context, sys sims.System, u0Text, u0File string) ([]float64, error) {
	side := sys.Side()
	switch {
	case u0Text != "" && u0File != "":
		return nil, UsageError("give --u0 or --u0-file, not both")
	case side.Len == 0 && (u0Text != "" || u0File != ""):
		return nil, UsageError("system %s has no side information, so --u0 and --u0-file do not apply", sys.Name())
	case side.Len == 0:
		return nil, nil
	case u0Text != "":
		u0, err := parseSideValues(u0Text, side)
		if err != nil && side.Labels == nil {
			// A field (advdiff's 64 values) is easier to give as a file.
			return nil, UsageError("%v; or give %s's %s as a CSV file with --u0-file FILE (header x,u)", err, sys.Name(), side.Name)
		}
		return u0, err
	case u0File != "":
		if side.Labels != nil {
			return nil, UsageError("%s's %s is (%s): give it with --u0", sys.Name(), side.Name, strings.Join(side.Labels, ", "))
		}
		return readSideCSV(ctx, u0File, side, sideAxisOf(sys.Grid(), side.Len))
	case side.Labels != nil:
		return nil, UsageError("system %s needs its side information %s (%s: %s): give --u0 %s", sys.Name(), side.Name, strings.Join(side.Labels, ", "), side.Meaning, strings.Join(side.Labels, ","))
	default:
		return nil, UsageError("system %s needs its side information %s (%d values: %s): give --u0-file FILE (CSV with header x,u and one row per grid position, in any order)", sys.Name(), side.Name, side.Len, side.Meaning)
	}
}

// blameData turns a failed prediction (the model diverged, non-finite
// output) into a usage error that points at the data when the
// observations or side information lie far from anything the model was
// trained on, which is then the likely cause: the bare error would read
// as a fault of the model. A divergence on data that look plausible is
// worded for the file too (divergedOn): core's "realization 0" means
// nothing to someone calibrating their own file. data is the data's
// name as messages give it.
func blameData(err error, sys sims.System, obs sims.Context, side []float64, data string) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	diverged := errors.Is(err, core.ErrDiverged)
	w := core.DataWarnings(sys, obs, side)
	switch {
	case len(w) == 0 && diverged:
		return divergedOn(sys, data)
	case len(w) == 0:
		return err
	}
	what := err.Error()
	var nf *nonFiniteError
	switch {
	case errors.As(err, &nf):
		what = nf.fault() // without its guesses at other causes
	case diverged:
		what = divergedWords
	}
	return UsageError("%s: the model failed on these observations, which lie outside what it was trained on: %s (%s)", data, strings.Join(w, "; "), what)
}

// divergedWords say what core.ErrDiverged means, without its
// realization number.
const divergedWords = "the model diverged: every latent sample gave a non-finite prediction"

// divergedOn is the error of a model that diverged on the observations
// of file data that core.DataWarnings finds nothing wrong with: it
// names the file and the values the model was trained on, against
// which to check the file's units and scale.
func divergedOn(sys sims.System, data string) error {
	lo, hi := core.TrainingValueRange(sys)
	ranges := make([]string, len(lo))
	for c, name := range sys.Grid().Channels {
		ranges[c] = fmt.Sprintf("%s in [%.3g, %.3g]", name, lo[c], hi[c])
	}
	return fmt.Errorf("%s: %s; check the file's units and scale (the model was trained on %s), or try another --seed",
		data, divergedWords, strings.Join(ranges, ", "))
}

// nonFiniteError is a prediction with non-finite values in what (its
// "prediction std", say), and hint, the causes to suspect when the
// data are not to blame.
type nonFiniteError struct{ what, hint string }

func (e *nonFiniteError) fault() string {
	return fmt.Sprintf("the model's %s has non-finite values", e.what)
}

func (e *nonFiniteError) Error() string { return e.fault() + " (" + e.hint + ")" }

// checkPredictionFinite fails on non-finite model output, which JSON
// cannot carry. Side information far outside anything sensible can make
// the simulator blow up, and extreme weights in a checkpoint (an
// observation noise of e^1e30) the model; the message names what the
// system has (spring has no side information to blame). blameData then
// names the observations when they are the likelier cause.
func checkPredictionFinite(p core.Prediction, sys sims.System, checkpoint string) error {
	hint := fmt.Sprintf("extreme weights in checkpoint %s? 'apic inspect' shows it", checkpoint)
	if side := sys.Side(); side.Len > 0 {
		hint = fmt.Sprintf("%s far outside its range, or %s", side.Name, hint)
	}
	for _, s := range []struct {
		name   string
		values []float64
	}{{"θ", p.Theta}, {"θ std", p.ThetaStd}, {"prediction", p.Mean}, {"prediction std", p.Std},
		{"discrepancy", p.DeltaMean}, {"discrepancy std", p.DeltaStd}, {"nominal", p.Nominal}} {
		for _, v := range s.values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &nonFiniteError{what: s.name, hint: hint}
			}
		}
	}
	return nil
}

// checkPredictionScale fails when the prediction has run away from the
// data (core.Prediction.Runaway): finite numbers that mean nothing,
// which would otherwise be reported as a result. blameData then names
// the observations when they lie outside the training range.
func checkPredictionScale(p core.Prediction, obs sims.Context, side []float64) error {
	if why := p.Runaway(obs, side); why != "" {
		return errors.New(why)
	}
	return nil
}

// thetaInterval is one parameter's posterior summary in the JSON output.
type thetaInterval struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Lo50 float64 `json:"lo50"`
	Hi50 float64 `json:"hi50"`
	Lo95 float64 `json:"lo95"`
	Hi95 float64 `json:"hi95"`
	// PriorLo and PriorHi are the prior's range U(lo, hi), which every
	// estimate and interval lies within: a script needs them to read
	// at_prior_bound or an interval cut at a bound.
	PriorLo float64 `json:"prior_lo"`
	PriorHi float64 `json:"prior_hi"`
	// AtPriorBound marks θ̂ pressed against its prior's bound, the least
	// reliable estimates, whose 95% intervals reach the bound (see the
	// warnings).
	AtPriorBound bool `json:"at_prior_bound"`
}

// interval is parameter i's central 50% and 95% intervals (the 95% one
// mean ± 1.96 std; the 50% one the calibrated shape's where the
// checkpoint has one, else mean ± 0.674 std), cut to the parameter's
// prior range [lo, hi]: the model maps every latent into that range, so
// a tail beyond it would claim values θ̂ cannot take.
func (c calibration) interval(i int) thetaInterval {
	m, s := c.pred.Theta[i], c.pred.ThetaStd[i]
	p := c.sys.Params()[i]
	h50 := c.pred.ThetaHalfWidth(i, 0.5)
	return thetaInterval{Mean: m, Std: s, Lo50: max(m-h50, p.Lo), Hi50: min(m+h50, p.Hi), Lo95: max(m-z95*s, p.Lo), Hi95: min(m+z95*s, p.Hi),
		PriorLo: p.Lo, PriorHi: p.Hi, AtPriorBound: core.AtPriorBound(p, m)}
}

// meanStd is a grid field's mean, standard deviation and the
// half-width of its 95% band (the Gaussian's 1.96 std, or the
// checkpoint's calibrated band shape's), shaped as the grid.
type meanStd struct {
	Mean   any `json:"mean"`
	Std    any `json:"std"`
	Half95 any `json:"half95"`
}

// calibrationJSON is calibrate's --json output.
type calibrationJSON struct {
	System     string   `json:"system"`
	Backbone   string   `json:"backbone"`
	Checkpoint string   `json:"checkpoint"`
	SHA256     string   `json:"checkpoint_sha256"`
	Channels   []string `json:"channels"` // the columns of lv's [t][channel] arrays
	Samples    int      `json:"samples"`  // latent samples drawn: 1 for a cnp
	Seed       uint64   `json:"seed"`
	Refine     int      `json:"refine"` // refinement steps run (0: one pass)
	// Observations counts the data rows, as the text's header does.
	Observations int                       `json:"observations"`
	U0           []float64                 `json:"u0,omitempty"` // the side information used
	Theta        map[string]thetaInterval  `json:"theta"`
	T            []float64                 `json:"t"`
	X            []float64                 `json:"x,omitempty"`
	Nominal      any                       `json:"nominal"`
	Prediction   predictionBands           `json:"prediction"`
	Discrepancy  meanStd                   `json:"discrepancy"`
	Noise        map[string]*noiseEstimate `json:"noise"` // σ̂ per channel
	Warnings     []string                  `json:"warnings"`
	// CheckpointValidation is the checkpoint's own validation at
	// training time, as recorded in the file; null when it records none.
	CheckpointValidation *validationJSON `json:"checkpoint_validation"`
}

// predictionBands is the reconstruction's mean and its two bands: std,
// the function band (the true process G), and observation_std, the
// observation band (a new noisy observation: the function band plus the
// estimated noise σ̂).
type predictionBands struct {
	Mean           any `json:"mean"`
	Std            any `json:"std"`
	Half95         any `json:"half95"` // the function band's 95% half-width, as meanStd's
	ObservationStd any `json:"observation_std"`
}

// noiseEstimate is the estimated observation noise σ̂ of one channel of
// the data and its 95% interval.
// The fields are null for a channel without observations.
type noiseEstimate struct {
	Std  *float64 `json:"std"`
	Lo95 *float64 `json:"lo95"`
	Hi95 *float64 `json:"hi95"`
}

// noiseEstimates is each channel's σ̂ and its 95% interval, nil for a
// channel without observations: the model's σ̂ there (which the
// observation band still uses) is no estimate from the data.
func noiseEstimates(c calibration) []*noiseEstimate {
	lo, hi := core.NoiseInterval(c.pred, c.obs)
	out := make([]*noiseEstimate, len(c.pred.NoiseStd))
	for ch, s := range c.pred.NoiseStd {
		if !math.IsInf(hi[ch], 1) { // NoiseInterval: [0, +Inf) for a channel without observations
			out[ch] = &noiseEstimate{Std: &s, Lo95: &lo[ch], Hi95: &hi[ch]}
		}
	}
	return out
}

func writeCalibrationJSON(env *Env, c calibration) error {
	g := c.sys.Grid()
	out := calibrationJSON{
		System:               c.sys.Name(),
		Checkpoint:           c.checkpoint,
		SHA256:               c.sha256,
		Channels:             g.Channels,
		Samples:              c.samples,
		Seed:                 c.seed,
		Refine:               c.refine,
		Observations:         c.obs.Len(),
		U0:                   c.side,
		Theta:                map[string]thetaInterval{},
		Warnings:             append([]string{}, c.warnings...), // [] rather than null
		CheckpointValidation: checkpointValidation(c.validation),
	}
	if c.model != nil {
		out.Backbone = string(c.model.Config.Arch.Backbone)
	}
	for i, p := range c.sys.Params() {
		out.Theta[p.Name] = c.interval(i)
	}
	out.Noise = map[string]*noiseEstimate{}
	for ch, est := range noiseEstimates(c) {
		out.Noise[g.Channels[ch]] = cmp.Or(est, &noiseEstimate{}) // no data: all null
	}
	axes := gridAxes(g)
	out.T = axes[0]
	if len(axes) > 1 {
		out.X = axes[len(axes)-1]
	}
	fields := []struct {
		name string
		dst  *any
		vals []float64
	}{
		{"nominal", &out.Nominal, c.pred.Nominal},
		{"prediction mean", &out.Prediction.Mean, c.pred.Mean},
		{"prediction std", &out.Prediction.Std, c.pred.Std},
		{"prediction observation std", &out.Prediction.ObservationStd, c.pred.ObservationStd()},
		{"discrepancy mean", &out.Discrepancy.Mean, c.pred.DeltaMean},
		{"discrepancy std", &out.Discrepancy.Std, c.pred.DeltaStd},
		{"prediction half95", &out.Prediction.Half95, halfWidths95(c.pred.Std, c.pred.ReconShape)},
		{"discrepancy half95", &out.Discrepancy.Half95, halfWidths95(c.pred.DeltaStd, c.pred.DeltaShape)},
	}
	for _, f := range fields {
		v, err := shaped(f.vals, g)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = v
	}
	if err := json.NewEncoder(env.Stdout).Encode(out); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// halfWidths95 is the half-width of the 95% band at each grid value
// of deviation std under shape (Gaussian where nil): linear in the
// deviation, one factor times it.
func halfWidths95(std []float64, shape *core.BandShape) []float64 {
	f := shape.HalfWidth(1, 0.95)
	out := make([]float64, len(std))
	for i, s := range std {
		out[i] = f * s
	}
	return out
}

// noiseSummary is one line of the estimated observation noise σ̂ per
// channel with its 95% interval: the observation band is the function
// band (the plots' 95% band) widened by it.
func noiseSummary(c calibration) string {
	if len(c.pred.NoiseStd) == 0 {
		return ""
	}
	return "  noise σ̂ (noise and the model's misfit together; 95% interval): " + noiseEstimateWords(c) + "\n"
}

// noiseEstimateWords is each channel's σ̂ and its 95% interval: "prey
// 0.0279 [0.022, 0.0382], predator — (no data)".
func noiseEstimateWords(c calibration) string {
	parts := make([]string, len(c.pred.NoiseStd))
	for ch, est := range noiseEstimates(c) {
		name := c.sys.Grid().Channels[ch]
		if est == nil {
			parts[ch] = name + " — (no data)"
			continue
		}
		parts[ch] = fmt.Sprintf("%s %.3g [%.3g, %.3g]", name, *est.Std, *est.Lo95, *est.Hi95)
	}
	return strings.Join(parts, ", ")
}

// writeCalibrationText prints the parameter table, the warnings and the
// plots.
func writeCalibrationText(env *Env, c calibration) error {
	var b strings.Builder
	g := c.sys.Grid()
	fmt.Fprintf(&b, "%s (%s) · %s\n", c.sys.Title(), c.sys.Name(), c.checkpoint)
	fmt.Fprintf(&b, "%s from %s · %s · seed %d · %s\n\n", core.Count(c.obs.Len(), "observation"), c.data, core.Count(c.samples, "sample"), c.seed, core.Count(c.refine, "refinement step"))

	params := c.sys.Params()
	nameWidth := len("parameter")
	for _, p := range params {
		nameWidth = max(nameWidth, len(p.Name))
	}
	fmt.Fprintf(&b, "  %-*s  %11s  %10s  %-25s  %-25s  %s\n", nameWidth, "parameter", "estimate", "std", "50% interval", "95% interval", "prior")
	for i, p := range params {
		iv := c.interval(i)
		c50 := fmt.Sprintf("[%.5g, %.5g]", iv.Lo50, iv.Hi50)
		c95 := fmt.Sprintf("[%.5g, %.5g]", iv.Lo95, iv.Hi95)
		mark := ""
		if iv.AtPriorBound {
			mark = "  ! at a bound (warnings)"
		}
		fmt.Fprintf(&b, "  %-*s  %11.5g  %10.3g  %-25s  %-25s  U(%s, %s)%s\n", nameWidth, p.Name, iv.Mean, iv.Std, c50, c95, fmtFloat(p.Lo), fmtFloat(p.Hi), mark)
	}
	if !gaussian50(c.pred) {
		b.WriteString("  50% intervals: the checkpoint's calibrated shape of θ's errors, not a Gaussian's ± 0.674 std; 95%: ± 1.96 std; both cut to the prior\n")
	}
	b.WriteString(sideSummary(c.sys.Side(), c.side))
	b.WriteString(noiseSummary(c))
	b.WriteString("\n")
	if len(c.warnings) == 0 {
		b.WriteString("warnings: none\n\n")
	} else {
		b.WriteString("warnings:\n")
		for _, w := range c.warnings {
			fmt.Fprintf(&b, "  ! %s\n", w)
		}
		b.WriteString("\n")
	}
	writeValidationNotes(&b, c)

	axes := gridAxes(g)
	if len(g.Shape) == 2 {
		writeCalibrationProduct(&b, env, g, axes, c)
	} else {
		writeCalibrationLines(&b, env, g, axes[0], c)
	}
	_, err := fmt.Fprint(env.Stdout, b.String())
	return err
}

// gaussian50 reports whether every parameter's 50% interval is the
// Gaussian one, ± 0.674 std (to 1%). Where the checkpoint's calibrated
// shape makes it narrower or wider, the 50% column would otherwise look
// inconsistent with the std column beside it (lv's η: std 0.00273, 50%
// half-width 0.00058), explained only in calibrate --help.
func gaussian50(p core.Prediction) bool {
	for q, s := range p.ThetaStd {
		g := core.CentralZ(0.5) * s
		if math.Abs(p.ThetaHalfWidth(q, 0.5)-g) > 0.01*g {
			return false
		}
	}
	return true
}

// band returns mean − k·std and mean + k·std.
func band(mean, std []float64, k float64) (lo, hi []float64) {
	lo, hi = make([]float64, len(mean)), make([]float64, len(mean))
	for i := range mean {
		lo[i], hi[i] = mean[i]-k*std[i], mean[i]+k*std[i]
	}
	return lo, hi
}

// resample interpolates values, sampled evenly over an axis, at width
// evenly spaced points of the same axis. LinePlot pads shorter series
// with gaps before its own resampling, so every series of one plot is
// brought to the plot's width here, the observations included.
func resample(values []float64, width int) []float64 {
	n := len(values)
	out := make([]float64, width)
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	for i := range out {
		if n == 1 || width == 1 {
			out[i] = values[0]
			continue
		}
		pos := float64(i) * float64(n-1) / float64(width-1)
		k := min(int(pos), n-2)
		f := pos - float64(k)
		out[i] = values[k] + (values[k+1]-values[k])*f
	}
	return out
}

// scatterSeries places points (pos[i], val[i]) on width columns spanning
// [lo, hi]; empty columns are gaps (NaN), and points sharing a column are
// averaged.
func scatterSeries(pos, val []float64, lo, hi float64, width int) []float64 {
	out := make([]float64, width)
	count := make([]int, width)
	for i := range out {
		out[i] = math.NaN()
	}
	for i, x := range pos {
		col := 0
		if hi > lo {
			col = int(math.Round((x - lo) / (hi - lo) * float64(width-1)))
		}
		col = min(max(col, 0), width-1)
		if count[col] == 0 {
			out[col] = 0
		}
		out[col] += val[i]
		count[col]++
	}
	for i, n := range count {
		if n > 1 {
			out[i] /= float64(n)
		}
	}
	return out
}

// observedChannel lists the observations of channel c: the given state
// coordinate and the value, for the observations keep accepts.
func observedChannel(obs sims.Context, c, coord int, keep func(st []float64) bool) (pos, val []float64) {
	for i, st := range obs.States {
		if c < len(obs.Mask[i]) && obs.Mask[i][c] && (keep == nil || keep(st)) {
			pos = append(pos, st[coord])
			val = append(val, obs.Values[i][c])
		}
	}
	return pos, val
}

// writeCalibrationLines draws, over a one-dimensional grid and per
// channel, the observations with the nominal and the corrected prediction
// with its 95% band, then the learned discrepancy with its band.
func writeCalibrationLines(b *strings.Builder, env *Env, g sims.Grid, axis []float64, c calibration) {
	nc := len(g.Channels)
	p := c.pred
	bandY, bandD := p.BandDeviations()
	w := plotWidth
	plot := LinePlot{Width: w, Height: plotHeight, XLo: axis[0], XHi: axis[len(axis)-1], Color: env.Color}
	for ch, name := range g.Channels {
		prefix := ""
		if nc > 1 {
			prefix = name + ": "
		}
		mean, std := channel(p.Mean, ch, nc), channel(bandY, ch, nc)
		lo, hi := band(mean, std, 2)
		pos, val := observedChannel(c.obs, ch, 0, nil)
		plot.Title = prefix + "observations, nominal F(θ̂) and corrected prediction, " + figBandLabel
		b.WriteString(plot.Render(
			Series{Name: "prediction", Values: resample(mean, w)},
			Series{Name: "nominal", Values: resample(channel(p.Nominal, ch, nc), w)},
			Series{Name: figBandLabel, Values: resample(lo, w), Mark: "·", Under: true},
			Series{Values: resample(hi, w), Mark: "·", Under: true},
			Series{Name: fmt.Sprintf("observations (%d)", len(pos)), Values: scatterSeries(pos, val, plot.XLo, plot.XHi, w)},
		))
		b.WriteString("\n")
		dm, ds := channel(p.DeltaMean, ch, nc), channel(bandD, ch, nc)
		dlo, dhi := band(dm, ds, 2)
		plot.Title = prefix + "learned discrepancy = prediction − nominal, " + figBandLabel
		b.WriteString(plot.Render(
			Series{Name: "discrepancy", Values: resample(dm, w)},
			Series{Name: figBandLabel, Values: resample(dlo, w), Mark: "·", Under: true},
			Series{Values: resample(dhi, w), Mark: "·", Under: true},
		))
		if ch < nc-1 {
			b.WriteString("\n")
		}
	}
}

// sliceRows are the rows of a product grid shown as slices: the first,
// middle and last.
func sliceRows(nr int) []int {
	rows := []int{0}
	for _, k := range []int{nr / 2, nr - 1} {
		if k != rows[len(rows)-1] {
			rows = append(rows, k)
		}
	}
	return rows
}

// nearRow reports whether the first coordinate of st is within half a
// row spacing of row k of axis.
func nearRow(axis []float64, k int) func(st []float64) bool {
	half := math.Inf(1)
	if len(axis) > 1 {
		half = (axis[len(axis)-1] - axis[0]) / float64(len(axis)-1) / 2
	}
	return func(st []float64) bool { return math.Abs(st[0]-axis[k]) <= half }
}

// writeCalibrationProduct draws, over a two-dimensional grid and per
// channel, slices at the first, middle and last row (observations near
// the slice, nominal, corrected prediction with its 95% band) and the learned
// discrepancy as a heatmap.
func writeCalibrationProduct(b *strings.Builder, env *Env, g sims.Grid, axes [][]float64, c calibration) {
	nc := len(g.Channels)
	nr, ncol := g.Shape[0], g.Shape[1]
	rowName, colName := "row", "column"
	if len(g.StateNames) == 2 {
		rowName, colName = g.StateNames[0], g.StateNames[1]
	}
	p := c.pred
	bandY, _ := p.BandDeviations()
	w := plotWidth
	for ch, name := range g.Channels {
		prefix := ""
		if nc > 1 {
			prefix = name + ": "
		}
		mean, std, nom := channel(p.Mean, ch, nc), channel(bandY, ch, nc), channel(p.Nominal, ch, nc)
		lo, hi := band(mean, std, 2)
		_, allVal := observedChannel(c.obs, ch, 1, nil)
		yLo, yHi := finiteRange([]Series{{Values: lo}, {Values: hi}, {Values: nom}, {Values: allVal}})
		plot := LinePlot{Width: w, Height: sliceHeight, XLo: axes[1][0], XHi: axes[1][ncol-1], YLo: yLo, YHi: yHi, Color: env.Color}
		for _, k := range sliceRows(nr) {
			row := func(v []float64) []float64 { return resample(v[k*ncol:(k+1)*ncol], w) }
			pos, val := observedChannel(c.obs, ch, 1, nearRow(axes[0], k))
			plot.Title = fmt.Sprintf("%sprediction with its %s, nominal and observations at %s = %.4g", prefix, figBandLabel, rowName, axes[0][k])
			b.WriteString(plot.Render(
				Series{Name: "prediction", Values: row(mean)},
				Series{Name: "nominal", Values: row(nom)},
				Series{Name: figBandLabel, Values: row(lo), Mark: "·", Under: true},
				Series{Values: row(hi), Mark: "·", Under: true},
				Series{Name: fmt.Sprintf("observations (%d)", len(pos)), Values: scatterSeries(pos, val, plot.XLo, plot.XHi, w)},
			))
			b.WriteString("\n")
		}
		d := channel(p.DeltaMean, ch, nc)
		field := make([][]float64, nr)
		for k := range field {
			field[k] = d[k*ncol : (k+1)*ncol]
		}
		hm := Heatmap{Title: prefix + "learned discrepancy = prediction − nominal", Rows: 16, Cols: plotWidth, RowName: rowName, ColName: colName}
		b.WriteString(hm.Render(field, axes[0], axes[1]))
	}
}
