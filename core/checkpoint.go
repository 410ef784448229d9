package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"apic/nets"
)

// Checkpoint format: one safetensors file holding every parameter under
// its stable name, with __metadata__ entries
//
//	format          "apic-checkpoint"
//	format_version  the oldest version that reads the file: 1, or 2 for
//	                a basis decoder (Arch.Basis), which version-1
//	                programs would misread; files newer than
//	                FormatVersion are refused
//	system, backbone
//	config          the full Config as JSON (architecture + training)
//	steps1, steps2  steps completed per stage
//	wall_seconds    training wall time
//	metrics         the last validation Report as JSON (may be empty)
//	init, init_sha256  a fine-tuned file's parent: the --init name as
//	                given (quoted where it holds a control character)
//	                and the SHA-256 of its bytes (absent for a run
//	                from scratch)
//	data_sha256     the SHA-256 of the tensor data (nets.DataChecksumKey),
//	                checked on load; files written before it existed
//	                have none and still load
const (
	FormatName    = "apic-checkpoint"
	FormatVersion = 2
)

// formatVersionOf is the oldest format version that can read m's file.
func formatVersionOf(m *Model) int {
	if m.Config.Arch.Basis > 0 {
		return 2
	}
	return 1
}

// Info is what a checkpoint records besides the weights.
type Info struct {
	Steps1, Steps2 int
	WallSeconds    float64
	Metrics        *Report
	// Unfinished marks the weights of a training run stopped before its
	// end (train's .partial file): its inference settings were fitted to
	// the weights the run started from, or never, not to these.
	Unfinished bool
	// ValidationStep is the stage-2 step (of the run that wrote the
	// file) at which Metrics was measured, when that was not the run's
	// end; 0 otherwise.
	ValidationStep int
	// SHA256 is the hex SHA-256 of the checkpoint's bytes as read (set
	// by the loaders, never stored): which file, exactly, a result came
	// from, for a shipped model as for a file on disk.
	SHA256 string
	// Init and InitSHA256 name the checkpoint a fine-tuning run started
	// from (train --init): as it was given, and its bytes' SHA-256; both
	// empty for a run from scratch. Only the run's own settings are in
	// the config, so this is how a file says what it was tuned from.
	Init, InitSHA256 string
}

// CheckStorable fails, naming the first parameter that is the cause,
// when m's weights cannot be saved in dtype so that LoadCheckpoint reads
// them back: a NaN or ±Inf (a diverged run), or for F32 a finite value
// beyond float32's range, which would be stored as ±Inf.
func CheckStorable(m *Model, dtype nets.DType) error {
	for _, p := range m.Params.List() {
		for _, v := range p.Value.Data {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return fmt.Errorf("parameter %s holds %v", p.Name, v)
			case dtype == nets.F32 && math.IsInf(float64(float32(v)), 0):
				return fmt.Errorf("parameter %s holds %g, beyond the range of the F32 storage type", p.Name, v)
			}
		}
	}
	// The loader refuses these; a diverging run can reach them while
	// every weight is still finite.
	if v, bad := badLogNoise(m.logNoise.Value.Data); bad {
		return fmt.Errorf("parameter obs.lognoise holds %g: %s, which no checkpoint may hold", v, logNoiseRange(v))
	}
	return nil
}

// EncodeCheckpoint writes m and info as safetensors in the given dtype.
// Weights that could not be read back (see CheckStorable) are an error.
func EncodeCheckpoint(w io.Writer, m *Model, info Info, dtype nets.DType) error {
	if err := CheckStorable(m, dtype); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	cfg, err := json.Marshal(m.Config)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	meta := map[string]string{
		"format":         FormatName,
		"format_version": strconv.Itoa(formatVersionOf(m)),
		"system":         m.Config.Arch.System,
		"backbone":       string(m.Config.Arch.Backbone),
		"config":         string(cfg),
		"steps1":         strconv.Itoa(info.Steps1),
		"steps2":         strconv.Itoa(info.Steps2),
		"wall_seconds":   strconv.FormatFloat(info.WallSeconds, 'f', 3, 64),
	}
	if info.Unfinished {
		meta["unfinished"] = "true"
	}
	if info.ValidationStep > 0 {
		meta["validation_step"] = strconv.Itoa(info.ValidationStep)
	}
	if info.InitSHA256 != "" {
		meta["init"], meta["init_sha256"] = storableInitName(info.Init), info.InitSHA256
	}
	if info.Metrics != nil {
		b, err := json.Marshal(info.Metrics)
		if err != nil {
			return fmt.Errorf("checkpoint metrics: %w", err)
		}
		meta["metrics"] = string(b)
	}
	tensors := map[string]*nets.Tensor{}
	for _, p := range m.Params.List() {
		tensors[p.Name] = p.Value
	}
	return nets.EncodeSafetensors(w, tensors, nil, meta, dtype)
}

// SaveCheckpoint writes the checkpoint atomically (temporary file, fsync,
// rename): an interrupted save never leaves a partial file at path.
// Only a regular file is replaced (CheckSaveTarget), and only a name
// ending in CheckpointExt is written (CheckCheckpointName).
func SaveCheckpoint(path string, m *Model, info Info, dtype nets.DType) error {
	return saveCheckpointWith(nets.WriteFileAtomic, path, m, info, dtype)
}

// SaveNewCheckpoint writes the checkpoint as SaveCheckpoint does, but
// only where no file is once it is written (nets.WriteNewFileAtomic):
// a file made at path meanwhile stays, and the error is fs.ErrExist.
func SaveNewCheckpoint(path string, m *Model, info Info, dtype nets.DType) error {
	return saveCheckpointWith(nets.WriteNewFileAtomic, path, m, info, dtype)
}

// CheckSaveTarget fails, with a *NotRegularFileError, when path names
// an existing file that is not a regular one (a directory, a device, a
// named pipe, a socket, or a link to one), which no checkpoint is saved
// over (see CheckRegularFile). Every save of a checkpoint applies it
// first: SaveCheckpoint and SaveNewCheckpoint here, train --out before
// its training, and the explorer's save before it picks a file name.
func CheckSaveTarget(path string) error {
	return CheckWriteTarget(path, "a checkpoint")
}

// saveCheckpointWith writes the checkpoint to path with writeFile.
func saveCheckpointWith(writeFile func(string, func(io.Writer) error) error, path string, m *Model, info Info, dtype nets.DType) error {
	if err := CheckSaveTarget(path); err != nil {
		return fmt.Errorf("save checkpoint: %w", err) // the error names path
	}
	if err := CheckCheckpointName(path); err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	err := writeFile(path, func(w io.Writer) error { return EncodeCheckpoint(w, m, info, dtype) })
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	return nil
}

// LoadCheckpoint reads a checkpoint file; a path that names anything
// but a regular file or an unnamed pipe is refused unopened
// (CheckReadableFile).
func LoadCheckpoint(path string) (*Model, Info, error) {
	if err := CheckReadableFile(path); err != nil {
		return nil, Info{}, fmt.Errorf("load checkpoint: %w", err)
	}
	f, err := nets.ReadSafetensorsFile(path, 0)
	if err != nil {
		return nil, Info{}, fmt.Errorf("load checkpoint: %w", nameMissingTensors(err))
	}
	m, info, err := FromSafetensors(f)
	if err != nil {
		return nil, Info{}, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return m, info, nil
}

// DecodeCheckpoint reads a checkpoint held in memory (e.g. embedded).
func DecodeCheckpoint(data []byte) (*Model, Info, error) {
	f, err := nets.DecodeSafetensors(data)
	if err != nil {
		return nil, Info{}, fmt.Errorf("decode checkpoint: %w", nameMissingTensors(err))
	}
	return FromSafetensors(f)
}

// DecodeCheckpointConfig reads the configuration a checkpoint held in
// memory records (architecture and training: λθ, λδ, regulariser),
// from its header alone, without building the model: a listing of many
// checkpoints (the ablation atlas) reads them at little cost.
func DecodeCheckpointConfig(data []byte) (Config, error) {
	meta, err := checkpointMetadata(data)
	if err != nil {
		return Config{}, err
	}
	cfg, err := checkpointConfig(meta)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("config metadata: %w", err)
	}
	return cfg, nil
}

// DecodeCheckpointInfo reads the training record (steps, wall time,
// whether training finished) of a checkpoint from its header alone:
// data needs to hold only the 8-byte length and the header it gives.
func DecodeCheckpointInfo(data []byte) (Info, error) {
	meta, err := checkpointMetadata(data)
	if err != nil {
		return Info{}, err
	}
	return checkpointInfo(meta)
}

// checkpointMetadata is the metadata of a checkpoint held in memory
// (its header at least), refused unless it names apic's format and a
// version this program reads.
func checkpointMetadata(data []byte) (map[string]string, error) {
	meta, err := nets.DecodeSafetensorsMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("decode checkpoint: %w", err)
	}
	if err := checkFormat(meta); err != nil {
		return nil, err
	}
	return meta, nil
}

// checkFormat refuses metadata that does not name apic's format and a
// version this program reads.
func checkFormat(meta map[string]string) error {
	if meta["format"] != FormatName {
		return fmt.Errorf("not an apic checkpoint (metadata format %s)", QuoteInput(meta["format"]))
	}
	return checkFormatVersion(meta["format_version"])
}

// FromSafetensors builds the model and its training record from a
// decoded safetensors file, for callers that also read the file's
// tensors themselves (inspect).
func FromSafetensors(f *nets.File) (*Model, Info, error) {
	meta := f.Metadata
	if err := checkFormat(meta); err != nil {
		return nil, Info{}, err
	}
	cfg, err := checkpointConfig(meta)
	if err != nil {
		return nil, Info{}, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, Info{}, fmt.Errorf("config metadata: %w", err)
	}
	// A config may declare a model of billions of parameters that no
	// tensor of the file backs: refused before NewModel allocates it.
	values := 0
	for _, t := range f.Tensors {
		values += len(t.Data)
	}
	if least := minParams(cfg.Arch); least > values {
		return nil, Info{}, fmt.Errorf("the config declares a model of at least %d parameters, but the file's tensors hold %d values: the config does not match the weights", least, values)
	}
	m, err := NewModel(cfg)
	if err != nil {
		return nil, Info{}, fmt.Errorf("config metadata: %w", err)
	}
	var missing, extra []string
	for _, p := range m.Params.List() {
		t, ok := f.Tensors[p.Name]
		if !ok {
			missing = append(missing, p.Name)
			continue
		}
		// apic writes every tensor as [rows, cols]: a [a, b, c] tensor
		// would read back flattened to the same count and pass unseen.
		if shape := f.Shapes[p.Name]; !slices.Equal(shape, []int{p.Value.Rows, p.Value.Cols}) {
			return nil, Info{}, fmt.Errorf("tensor %q has shape %s, the declared architecture needs %s (a checkpoint from another version of apic's %s features? `apic train` makes a new one)",
				p.Name, strings.ReplaceAll(fmt.Sprint(shape), " ", ", "), p.Value.Shape(), cfg.Arch.System)
		}
		if !t.AllFinite() {
			return nil, Info{}, fmt.Errorf("tensor %q holds NaN or Inf", p.Name)
		}
		if p == m.logNoise {
			if v, bad := badLogNoise(t.Data); bad {
				return nil, Info{}, fmt.Errorf("tensor %q holds %g: %s, which no trained model has (a damaged or edited checkpoint?)", p.Name, v, logNoiseRange(v))
			}
		}
		copy(p.Value.Data, t.Data)
	}
	for name := range f.Tensors {
		if m.Params.Get(name) == nil {
			extra = append(extra, name)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		return nil, Info{}, fmt.Errorf("tensors do not match the declared architecture: %s", mismatchWords(missing, extra))
	}
	info, err := checkpointInfo(meta)
	if err != nil {
		return nil, Info{}, err
	}
	if s := meta["metrics"]; s != "" {
		var r Report
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return nil, Info{}, fmt.Errorf("bad metrics metadata: %s", cutMessage(err))
		}
		if err := checkRecordedReport(r, m.Config.Arch.System); err != nil {
			return nil, Info{}, fmt.Errorf("bad metrics metadata: %w", err)
		}
		info.Metrics = &r
	}
	info.SHA256 = hex.EncodeToString(f.SHA256[:])
	return m, info, nil
}

// checkRecordedReport refuses a stored validation report that no run
// of the file's system could have written: a count of realizations or
// a context size out of its bounds (shown as "-5 realizations"),
// another system's name, or a text with a control character.
func checkRecordedReport(r Report, system string) error {
	if r.System != "" && r.System != system {
		return fmt.Errorf("the validation is of system %s, the model of %s", QuoteInput(r.System), system)
	}
	if r.Tasks < 0 || r.Tasks > LimitTasks.Max {
		return fmt.Errorf("%d validation realizations, want 0 to %d", r.Tasks, LimitTasks.Max)
	}
	if r.Context < 0 || r.Context > LimitObservations.Max {
		return fmt.Errorf("validation context %d, want 0 to %d", r.Context, LimitObservations.Max)
	}
	if text, ok := controlText(r); ok {
		return fmt.Errorf("the text %s holds a control character, which no run writes", QuoteInput(text))
	}
	return nil
}

// controlText is the first of r's texts (names, keys, warnings, the
// reasons of failures) that holds a control character other than a tab
// or a newline: inspect and calibrate print them to the terminal, where
// an escape sequence would act.
func controlText(r Report) (string, bool) {
	texts := []string{r.System, r.Backbone, r.ThetaPrior}
	for _, m := range []map[string]Summary{r.Metrics, r.ThetaPerParam, r.ThetaBiasPerParam} {
		for k := range m {
			texts = append(texts, k)
		}
	}
	texts = append(texts, r.Warnings...)
	for _, f := range r.Failures.Realizations {
		texts = append(texts, f.Reason)
	}
	for _, t := range texts {
		if strings.ContainsFunc(t, func(c rune) bool { return unicode.IsControl(c) && c != '\t' && c != '\n' }) {
			return t, true
		}
	}
	return "", false
}

// The training record's bounds: a million runs of the longest training
// train allows, and a million years. A fine-tuning run adds its steps
// and time to its --init file's, so a record past them (only an edited
// file has one) would overflow the step count to a negative one, which
// the file written would then be refused for, or print a wall time of
// hundreds of digits.
const (
	maxRecordedSteps   = 1_000_000 * 100_000_000 // LimitTrainSteps.Max per run
	maxRecordedSeconds = 3.2e13
)

// checkpointInfo reads the training record of the metadata: steps1,
// steps2 and validation_step are whole numbers from 0 to
// maxRecordedSteps as EncodeCheckpoint writes them (plain decimal),
// wall_seconds a number from 0 to maxRecordedSeconds, unfinished "true"
// or "false". An entry that is absent reads as 0 (or false); one that
// is present and anything else is refused, naming the key, the value
// and the bound: "-5" steps or a NaN wall time would otherwise be
// shown, added to a fine-tuned model's record and written back, and
// "abc" would silently read as 0.
func checkpointInfo(meta map[string]string) (Info, error) {
	var info Info
	for _, c := range []struct {
		key string
		dst *int
	}{{"steps1", &info.Steps1}, {"steps2", &info.Steps2}, {"validation_step", &info.ValidationStep}} {
		s, ok := meta[c.key]
		if !ok {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > maxRecordedSteps || strconv.Itoa(v) != s {
			return Info{}, fmt.Errorf("bad %s metadata %s: want a whole number of steps from 0 to %d in plain decimal", c.key, QuoteInput(s), maxRecordedSteps)
		}
		*c.dst = v
	}
	if s, ok := meta["wall_seconds"]; ok {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0 && v <= maxRecordedSeconds) {
			return Info{}, fmt.Errorf("bad wall_seconds metadata %s: want a number of seconds from 0 to %g", QuoteInput(s), maxRecordedSeconds)
		}
		info.WallSeconds = v
	}
	switch s, ok := meta["unfinished"]; {
	case !ok || s == "false":
	case s == "true":
		info.Unfinished = true
	default:
		return Info{}, fmt.Errorf("bad unfinished metadata %s: want true or false", QuoteInput(s))
	}
	if err := readInitMetadata(meta, &info); err != nil {
		return Info{}, err
	}
	return info, nil
}

// checkFormatVersion refuses a format_version this program does not
// read: not a plain decimal integer, or outside 1 … FormatVersion.
func checkFormatVersion(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(v) != s {
		return fmt.Errorf("bad format_version %s: this program reads checkpoint format versions 1 to %d", QuoteInput(s), FormatVersion)
	}
	if v > FormatVersion {
		return fmt.Errorf("checkpoint format version %d is newer than this program's %d; upgrade apic", v, FormatVersion)
	}
	if v < 1 {
		return fmt.Errorf("unknown checkpoint format version %d: this program reads versions 1 to %d", v, FormatVersion)
	}
	return nil
}

// checkpointConfig decodes the config metadata and checks that it
// declares an architecture matching the system and backbone entries.
func checkpointConfig(meta map[string]string) (Config, error) {
	var cfg Config
	if err := json.Unmarshal([]byte(meta["config"]), &cfg); err != nil {
		return Config{}, fmt.Errorf("bad config metadata: %s", cutMessage(err))
	}
	if lit, ok := underflowingNumber(meta["config"]); ok {
		return Config{}, fmt.Errorf("bad config metadata: the number %s is nonzero but below float64's smallest magnitude (%g), so it would read as 0: the file is damaged or was not written by apic", QuoteInput(lit), math.SmallestNonzeroFloat64)
	}
	if cfg.Arch.System == "" || cfg.Arch.Backbone == "" {
		return Config{}, fmt.Errorf("the config metadata declares no architecture (its \"arch\" has no system or backbone): the file is damaged or was not written by apic")
	}
	if cfg.Arch.System != meta["system"] || string(cfg.Arch.Backbone) != meta["backbone"] {
		return Config{}, fmt.Errorf("metadata disagree: the system and backbone entries say %s/%s, the config %s/%s",
			QuoteInput(meta["system"]), QuoteInput(meta["backbone"]), QuoteInput(cfg.Arch.System), QuoteInput(string(cfg.Arch.Backbone)))
	}
	return cfg, nil
}

// underflowingNumber is the first number literal of the JSON text
// data that names a nonzero value yet reads as 0 (1e-400), which
// encoding/json takes silently: a theta_std_scale of 0 means "not
// fitted", not the tiny value written. data is valid JSON already.
func underflowingNumber(data string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		if v, _ := strconv.ParseFloat(n.String(), 64); v == 0 && NonzeroMantissa(n.String()) {
			return n.String(), true
		}
	}
}

// maxAbsLogNoise bounds the stored log noise variances: e^±100 is far
// beyond any trained value (the shipped checkpoints hold about -5), and
// beyond it the variance overflows to +Inf or vanishes once scaled, so
// that every prediction's spread would be infinite or zero.
const maxAbsLogNoise = 100

// badLogNoise returns the first log noise variance outside
// ±maxAbsLogNoise, the rule that the loader and CheckStorable share.
func badLogNoise(logVar []float64) (float64, bool) {
	for _, v := range logVar {
		if math.Abs(v) > maxAbsLogNoise {
			return v, true
		}
	}
	return 0, false
}

// logNoiseRange says why a log noise variance v is refused.
func logNoiseRange(v float64) string {
	return fmt.Sprintf("the observation noise variance exp(%g) is outside e^±%d", v, maxAbsLogNoise)
}

// nameMissingTensors turns a decoding error about bytes that belong to
// no tensor into one naming the tensors the file's own config expects
// and its header lacks, when the config can say: a removed header entry
// is the usual cause.
func nameMissingTensors(err error) error {
	var ue *nets.UnindexedError
	if !errors.As(err, &ue) {
		return err
	}
	cfg, cerr := checkpointConfig(ue.File.Metadata)
	if cerr != nil {
		return err
	}
	m, merr := NewModel(cfg)
	if merr != nil {
		return err
	}
	var missing []string
	for _, p := range m.Params.List() {
		if _, ok := ue.File.Tensors[p.Name]; !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) == 0 {
		return err
	}
	sort.Strings(missing)
	return fmt.Errorf("the header has no entry for tensor(s) %s, which the config declares (bytes [%d, %d) of the %d-byte data section belong to no tensor)",
		nameList(missing), ue.Begin, ue.End, ue.Section)
}

// cutMessage is err's message cut to a few hundred bytes: JSON errors
// may quote a value of the file, which may be megabytes long.
func cutMessage(err error) string {
	const most = 4 * QuoteMax
	msg := err.Error()
	if len(msg) <= most {
		return msg
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// minParams is a lower bound on the parameter count of a model of a
// valid architecture a: the weight matrices of the two encoders' hidden
// layers and heads, of g_φ and of f_ψ's hidden layers, without biases or
// input layers. (Validate bounds each size, so this cannot overflow.)
func minParams(a Arch) int {
	enc := a.Layers*a.Hidden*a.Hidden + a.Hidden*2*min(a.LatentTheta, a.LatentDelta)
	return 2*enc + a.DecHidden*a.DecHidden*a.DecLayers
}

// mismatchWords names the missing and the unexpected tensors, each list
// only where it has a name.
func mismatchWords(missing, extra []string) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+nameList(missing))
	}
	if len(extra) > 0 {
		parts = append(parts, "unexpected "+nameList(extra))
	}
	return strings.Join(parts, ", ")
}

// nameList prints tensor names for an error message: the first few, each
// quoted when long or unprintable (a file's names may be anything).
func nameList(names []string) string {
	const most = 8
	shown := make([]string, 0, most)
	for _, n := range names[:min(len(names), most)] {
		if len(n) > QuoteMax || strings.ContainsFunc(n, func(r rune) bool { return !unicode.IsPrint(r) }) {
			// A name a file made up goes to the terminal quoted: an
			// escape sequence in it would act there.
			n = QuoteInput(n)
		}
		shown = append(shown, n)
	}
	if len(names) > most {
		shown = append(shown, fmt.Sprintf("and %d more", len(names)-most))
	}
	return "[" + strings.Join(shown, " ") + "]"
}

// maxInitName bounds the length of a checkpoint's recorded --init name,
// as a path the system could open is bounded.
const maxInitName = 4096

// storableInitName is the --init name as a checkpoint records it: as
// given where readInitMetadata takes it back, else quoted (a file name
// may hold a tab or newline, which the reader refuses since it prints
// the name) and cut to maxInitName bytes, so that no training run
// writes a file that fails to load.
func storableInitName(name string) string {
	if initNameReadable(name) {
		return name
	}
	q := strconv.Quote(name)
	if len(q) <= maxInitName {
		return q
	}
	cut := maxInitName - len("…")
	for !utf8.RuneStart(q[cut]) {
		cut--
	}
	return q[:cut] + "…"
}

// initNameReadable reports whether readInitMetadata takes name back as
// a recorded --init name: 1 to maxInitName bytes, no control character
// (it is printed to the terminal).
func initNameReadable(name string) bool {
	return name != "" && len(name) <= maxInitName && !strings.ContainsFunc(name, unicode.IsControl)
}

// readInitMetadata reads the fine-tuning parent (Info.Init, InitSHA256)
// from meta, refusing a hash that is not 64 lowercase hex digits and a
// name too long or holding a control character (it is printed).
func readInitMetadata(meta map[string]string, info *Info) error {
	sum, hasSum := meta["init_sha256"]
	name, hasName := meta["init"]
	if !hasSum && !hasName {
		return nil
	}
	if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size || strings.ToLower(sum) != sum {
		return fmt.Errorf("bad init_sha256 metadata %s: want %d lowercase hex digits", QuoteInput(sum), 2*sha256.Size)
	}
	if !initNameReadable(name) {
		return fmt.Errorf("bad init metadata %s: want the --init name, 1 to %d bytes without control characters", QuoteInput(name), maxInitName)
	}
	info.Init, info.InitSHA256 = name, sum
	return nil
}

// NonzeroMantissa reports whether text, a decimal number (JSON's or
// strconv's grammar), has a nonzero digit before its exponent: whether
// it names a value other than 0, however small. A literal such as
// 1e-400 that reads as 0 is thus told from 0e-400, which is 0.
func NonzeroMantissa(text string) bool {
	mantissa := text
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mantissa = text[:i]
	}
	return strings.ContainsAny(mantissa, "123456789")
}
