package cli

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"apic/core"
)

// sweepAxis is one flag a sweep may vary: an eval flag (the model is
// re-evaluated) or a train flag (one model is trained per cell and seed).
type sweepAxis struct {
	name  string // as written in --vary: "lambda-theta"
	flag  string // the flag of eval or train it sets
	kind  string // "int", "float", "bool" or "string": how values are checked
	train bool   // a training axis
}

// evalAxes re-evaluate a model. backbone is a training axis in a sweep
// that trains (it is then train's --backbone).
var evalAxes = []sweepAxis{
	{"context", "context", "int", false},
	{"noise", "noise", "float", false},
	{"samples", "samples", "int", false},
	{"refine", "refine", "int", false},
	{"backbone", "backbone", "string", false},
	{"checkpoint", "checkpoint", "string", false},
	{"z-theta-prior", "z-theta-prior", "float", false},
	{"theta-prior-scale", "theta-prior-scale", "float", false},
}

// trainAxes are train's flags; train-noise is train's --noise (noise is
// the evaluation's).
var trainAxes = []sweepAxis{
	{"lambda-theta", "lambda-theta", "float", true},
	{"lambda-delta", "lambda-delta", "float", true},
	{"reg", "reg", "string", true},
	{"trajectories", "trajectories", "int", true},
	{"steps1", "steps1", "int", true},
	{"steps2", "steps2", "int", true},
	{"latent", "latent", "int", true},
	{"latent-delta", "latent-delta", "int", true},
	{"hidden", "hidden", "int", true},
	{"layers", "layers", "int", true},
	{"dec-hidden", "dec-hidden", "int", true},
	{"dec-layers", "dec-layers", "int", true},
	{"dec-act", "dec-act", "string", true},
	{"basis", "basis", "int", true},
	{"heads", "heads", "int", true},
	{"form", "form", "string", true},
	{"batch", "batch", "int", true},
	{"lr", "lr", "float", true},
	{"lr-final", "lr-final", "float", true},
	{"clip", "clip", "float", true},
	{"noise-range", "noise-range", "range", true},
	{"context-range", "context-range", "intrange", true},
	{"train-noise", "noise", "float", true},
	{"recalibrate", "recalibrate", "int", true},
	{"val-tasks", "val-tasks", "int", true},
	{"val-every", "val-every", "int", true},
	{"grid-summary", "grid-summary", "bool", true},
	{"no-theta-hint", "no-theta-hint", "bool", true},
	{"dtype", "dtype", "string", true},
}

// axisNames lists the axes for usage errors and help.
func axisNames(axes []sweepAxis) string {
	names := make([]string, len(axes))
	for i, a := range axes {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// unknownAxisError refuses axis name, suggesting the axis it is a slip
// of ("contxt": context), as unknown flags get one, and listing them all.
func unknownAxisError(name string) error {
	hint := "; "
	if near := closestName(name, allAxisNames()); near != "" {
		hint = "; did you mean " + near + "? "
	}
	return fmt.Errorf("unknown axis %s%sevaluation axes: %s; training axes: %s", core.QuoteInput(name), hint, axisNames(evalAxes), axisNames(trainAxes))
}

// allAxisNames are the names of every axis, of evaluation then
// training.
func allAxisNames() []string {
	var names []string
	for _, a := range slices.Concat(evalAxes, trainAxes) {
		names = append(names, a.name)
	}
	return names
}

// canonical is v, a value of the axis, as its flag reads it when given
// on the command line (canonicalValue): a name of a fixed list (a
// backbone, a regulariser, …) or a switch's true or false in the
// spelling the flag records, whatever case it was given in.
func (a sweepAxis) canonical(v string) string {
	if a.kind == "bool" {
		return canonicalName(v, boolNames)
	}
	return canonicalValue(a.flag, v)
}

// lookupAxis is the axis named name.
func lookupAxis(name string) (sweepAxis, bool) {
	return findAxis(func(a sweepAxis) bool { return a.name == name })
}

// findAxis is the first axis, of evaluation then training, that match
// accepts.
func findAxis(match func(sweepAxis) bool) (sweepAxis, bool) {
	for _, axes := range [][]sweepAxis{evalAxes, trainAxes} {
		if i := slices.IndexFunc(axes, match); i >= 0 {
			return axes[i], true
		}
	}
	return sweepAxis{}, false
}

// checkValue reports a value that the axis's flag would refuse: one it
// cannot parse, a number outside its flag's bound (axisBoundOf), a name
// not on its flag's list. Caught here, before any cell runs and writes
// its files, and in a cell.json that --collect reads.
func (a sweepAxis) checkValue(v string) error {
	if r, ok := controlRune(v); ok {
		// cell.json would hold it, and the summary print it raw.
		return fmt.Errorf("%s value %s holds the control character %U: give a value without it (a checkpoint: a renamed or linked copy)", a.name, core.QuoteInput(v), r)
	}
	var err error
	switch a.kind {
	case "int":
		var n int
		bound, _ := axisBoundOf(a)
		// strconv.Atoi reads as the int flags do (Env.Parse): plain
		// decimal, 010 as 10, no base prefix or separator.
		if n, err = strconv.Atoi(v); err == nil {
			return bound.check(a.name, strconv.Itoa(n), float64(n))
		}
		if errors.Is(err, strconv.ErrRange) && strings.HasPrefix(v, "-") {
			return fmt.Errorf("%s value %s is below %s", a.name, core.QuoteInput(v), boundNumber(bound.lo))
		}
		if errors.Is(err, strconv.ErrRange) {
			// A whole number beyond int's range: the cells' check
			// (checkCells) refuses it in its flag's words, with the
			// bound the flag's help gives.
			err = nil
		}
	case "float":
		var x float64
		// As the float flags read it (Env.Parse): decimal or exponent
		// notation, no hexadecimal or separators; NaN, Inf and numbers
		// beyond float64's range (1e400, read as ±Inf) get one message.
		x, err = floatFlagValue(v)
		if err != nil && numberSyntax(v) {
			// Written as a number, but too small to read (1e-400):
			// "not a number" would be a riddle.
			return fmt.Errorf("%s value %w", a.name, err)
		}
		if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return fmt.Errorf("%s value %s is not finite", a.name, v)
		}
		if bound, _ := axisBoundOf(a); err == nil {
			return bound.check(a.name, v, x)
		}
	case "bool":
		_, err = strconv.ParseBool(v)
	case "range":
		if _, _, err := parseNoiseRange(v); err != nil {
			return fmt.Errorf("%s value %s is not LO:HI with 0 ≤ LO ≤ HI ≤ %v (e.g. 0:0.1)%s", a.name, core.QuoteInput(v), core.MaxNoise, becauseOf(noiseRangeNumberError(v)))
		}
	case "intrange":
		// The order and bound want the system: checkContextRanges.
		if _, _, err := parseContextSizes(v); err != nil {
			return fmt.Errorf("%s value %s: %v", a.name, core.QuoteInput(v), err)
		}
	default:
		if v == "" {
			err = fmt.Errorf("empty")
		}
		if names, named := namedFlags[a.flag]; named && err == nil && !slices.Contains(names(), v) {
			return fmt.Errorf("%s value %s is none of %s", a.name, core.QuoteInput(v), strings.Join(names(), ", "))
		}
	}
	if err != nil {
		return fmt.Errorf("%s value %s is not %s", a.name, core.QuoteInput(v), kindWords(a.kind, v))
	}
	return nil
}

// kindWords says what a value of an axis of kind must be, as the flags
// of that kind say it ("a whole number (decimal digits only: …)").
func kindWords(kind, v string) string {
	switch kind {
	case "int":
		return "a whole number" + notDecimalWhy(v)
	case "float":
		return "a number (decimal or exponent notation, e.g. 0.05 or 5e-2)"
	case "bool":
		return "true or false"
	}
	return "a " + kind
}

// sameAs is v as the axis's flag reads it, for telling duplicates: two
// spellings of one number (0.1, 0.10 and 1e-1; 5 and 05), boolean
// (true and 1) or range (0:0.1 and 0.0:.1; 5:10 and 05:10) would make
// two cells of one setting. v has passed
// checkValue.
func (a sweepAxis) sameAs(v string) string {
	switch a.kind {
	case "int":
		n, err := strconv.Atoi(v)
		if err != nil { // beyond int's range (checkValue): refused by checkCells
			return v
		}
		return strconv.Itoa(n)
	case "float":
		x, _ := strconv.ParseFloat(v, 64)
		return strconv.FormatFloat(x+0, 'g', -1, 64) // +0: -0 is 0
	case "bool":
		b, _ := strconv.ParseBool(v)
		return strconv.FormatBool(b)
	case "range":
		lo, hi, _ := parseNoiseRange(v)
		return strconv.FormatFloat(lo+0, 'g', -1, 64) + ":" + strconv.FormatFloat(hi+0, 'g', -1, 64)
	case "intrange":
		lo, hi, _ := parseContextSizes(v)
		return strconv.Itoa(lo) + ":" + strconv.Itoa(hi)
	}
	return v
}

// duplicateKey is v as Set tells duplicates by: sameAs, and for a
// checkpoint file the absolute path every cell runs it at
// (absCheckpoint), so that m.safetensors and ./m.safetensors, one model,
// are not two cells.
func (a sweepAxis) duplicateKey(v string) string {
	if a.name == "checkpoint" {
		return strings.TrimPrefix(absCheckpoint("--checkpoint="+v), "--checkpoint=")
	}
	return a.sameAs(v)
}

// axisList is a repeatable AXIS=v1,v2,... flag (--vary), or AXIS=VALUE
// (--fix, single values: a value may then hold commas, as in 0:0.1).
type axisList struct {
	single  bool
	entries []axisValues
}

type axisValues struct {
	axis   sweepAxis
	values []string
}

func (l *axisList) String() string { return "" }

func (l *axisList) Set(s string) error {
	name, list, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want AXIS=VALUES, got %s", core.QuoteInput(s))
	}
	name = canonicalName(name, allAxisNames()) // a value of --vary, in any case
	a, known := lookupAxis(name)
	if !known {
		return unknownAxisError(name)
	}
	for _, e := range l.entries {
		if e.axis.name == name {
			return fmt.Errorf("axis %s given twice", name)
		}
	}
	values := []string{list}
	if !l.single {
		values = strings.Split(list, ",")
	}
	for i, v := range values { // names in any case, as the axis's flag takes them
		values[i] = a.canonical(v)
	}
	seen := map[string]string{} // the value as given, by a.duplicateKey
	for _, v := range values {
		if v == "" {
			return fmt.Errorf("%s has an empty value in %s", name, core.QuoteInput(list))
		}
		if err := a.checkValue(v); err != nil {
			return err
		}
		key := a.duplicateKey(v)
		if w, dup := seen[key]; dup && w == v {
			return fmt.Errorf("%s value %s given twice", name, core.QuoteInput(v))
		} else if dup {
			what := map[string]string{"bool": "value", "range": "range", "intrange": "range", "string": "file"}[a.kind]
			if what == "" {
				what = "number"
			}
			return fmt.Errorf("%s values %s and %s are the same %s: give it once", name, core.QuoteInput(w), core.QuoteInput(v), what)
		}
		seen[key] = v
	}
	l.entries = append(l.entries, axisValues{a, values})
	return nil
}

// sweepSpec is a whole sweep: fixed settings, varied axes and seeds.
type sweepSpec struct {
	system, backbone string
	vary, fix        []axisValues
	seeds, tasks     int
	training         bool // some axis or fixed setting is a train flag
}

// sweepCell is one cell × seed: a value per varied axis.
type sweepCell struct {
	ID     string        `json:"id"`
	Axes   []cellSetting `json:"axes"`
	Seed   int           `json:"seed"`
	values []sweepAxis
}

type cellSetting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// cellID is the directory name of the cell of these settings and seed:
// each axis=value, its value's characters idUnsafe as _, then seed=N.
func cellID(settings []cellSetting, seed int) string {
	var parts []string
	for _, a := range settings {
		parts = append(parts, a.Name+"="+idUnsafe.ReplaceAllString(a.Value, "_"))
	}
	return strings.Join(append(parts, "seed="+strconv.Itoa(seed)), "_")
}

// idUnsafe are the characters a cell directory name does not keep.
var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9.+-]+`)

// cells is the cartesian product of the varied axes (the first varying
// slowest) × seeds 1..K, each with a directory name of its own.
func (s sweepSpec) cells() ([]sweepCell, error) {
	n := s.seeds
	for _, v := range s.vary {
		n *= len(v.values)
		if n > core.LimitSweepCells.Max {
			break
		}
	}
	if err := core.LimitSweepCells.Check(n); err != nil {
		return nil, UsageError("%v: fewer --vary values or --seeds", err)
	}
	out := make([]sweepCell, 0, n)
	idx := make([]int, len(s.vary))
	for {
		for seed := 1; seed <= s.seeds; seed++ {
			c := sweepCell{Seed: seed}
			for i, v := range s.vary {
				c.Axes = append(c.Axes, cellSetting{v.axis.name, v.values[idx[i]]})
				c.values = append(c.values, v.axis)
			}
			c.ID = cellID(c.Axes, seed)
			out = append(out, c)
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(s.vary[i].values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	seen := map[string]bool{}
	for _, c := range out {
		if len(c.ID) > maxCellIDBytes {
			return nil, cellIDTooLong(c)
		}
		if seen[c.ID] {
			return nil, UsageError("two cells share the directory name %s (values that differ only in characters other than letters, digits, '.', '+' and '-'): rename a --vary value", c.ID)
		}
		seen[c.ID] = true
	}
	return out, nil
}

// maxCellIDBytes is the longest cell directory name: a file name's
// limit (NAME_MAX) on Linux and macOS file systems. A longer one would
// fail every cell as it starts, not the sweep before its first.
const maxCellIDBytes = 255

// cellIDTooLong refuses cell c, whose directory name is beyond
// maxCellIDBytes, naming its longest value, the one to shorten.
func cellIDTooLong(c sweepCell) error {
	longest := c.Axes[0]
	for _, a := range c.Axes[1:] {
		if len(a.Value) > len(longest.Value) {
			longest = a
		}
	}
	hint := ""
	if longest.Name == "checkpoint" {
		hint = " (link the file under a shorter path, or run the sweep in its folder)"
	}
	return UsageError("the cell directory name for %s=%s would be %d bytes, beyond the %d a file name can take: shorten that --vary value%s",
		longest.Name, core.QuoteInput(longest.Value), len(c.ID), maxCellIDBytes, hint)
}

// settingArgs are --flag=value arguments of the settings for eval
// (train false) or train.
func (s sweepSpec) settingArgs(c sweepCell, train bool) []string {
	var args []string
	add := func(a sweepAxis, v string) {
		isTrain := a.train || (a.name == "backbone" && s.training)
		if isTrain == train {
			args = append(args, "--"+a.flag+"="+v)
		}
	}
	for _, f := range s.fix {
		add(f.axis, f.values[0])
	}
	for i, a := range c.values {
		add(a, c.Axes[i].Value)
	}
	return args
}

// checkpointOf is the checkpoint axis's or --fix's value, "" if none.
func (s sweepSpec) checkpointOf(c sweepCell) string {
	for _, f := range s.fix {
		if f.axis.name == "checkpoint" {
			return f.values[0]
		}
	}
	for i, a := range c.values {
		if a.name == "checkpoint" {
			return c.Axes[i].Value
		}
	}
	return ""
}

// commands are the train arguments (nil for an evaluation sweep) and
// the eval arguments of cell c whose files are in dir.
func (s sweepSpec) commands(c sweepCell, model string) (train, eval []string) {
	seed := strconv.Itoa(c.Seed)
	if s.training {
		train = []string{"--system", s.system}
		if s.backbone != "" {
			train = append(train, "--backbone", s.backbone)
		}
		train = append(train, s.settingArgs(c, true)...)
		train = append(train, "--seed", seed, "--out", model)
		eval = append([]string{"--checkpoint", model}, s.settingArgs(c, false)...)
		return train, append(eval, "--tasks", strconv.Itoa(s.tasks), "--json")
	}
	if ckpt := s.checkpointOf(c); ckpt != "" {
		eval = []string{}
	} else {
		eval = []string{"--system", s.system}
		if s.backbone != "" {
			eval = append(eval, "--backbone", s.backbone)
		}
	}
	eval = append(eval, s.settingArgs(c, false)...)
	return nil, append(eval, "--seed", seed, "--tasks", strconv.Itoa(s.tasks), "--json")
}

// onePassEval is the eval arguments that score a training cell's model
// without refinement as well (--refine 0): the amortized one pass beside
// the default calibration, for an ablation whose effect refinement may
// hide. Nil for evaluation sweeps and where the cell sets refine itself:
// varied, or fixed to another value than eval's default, -1, which runs
// as no setting does (evalDefaults), and so keeps the one pass.
func (s sweepSpec) onePassEval(c sweepCell, model string) []string {
	_, eval := s.commands(c, model)
	if !s.training || !s.refinesAsDefault() {
		return nil
	}
	var args []string
	for _, a := range eval[:len(eval)-1] { // less --json
		if !strings.HasPrefix(a, "--refine=") {
			args = append(args, a)
		}
	}
	return append(args, "--refine", "0", "--json")
}

// refinesAsDefault reports whether the sweep's evaluations refine as
// eval does by default: refine neither varied nor fixed but to the
// default.
func (s sweepSpec) refinesAsDefault() bool {
	for _, v := range s.vary {
		if v.axis.name == "refine" {
			return false
		}
	}
	for _, f := range s.fix {
		if f.axis.name == "refine" && f.axis.sameAs(f.values[0]) != evalDefaults["refine"] {
			return false
		}
	}
	return true
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// sortValues orders axis values numerically when all are numbers, else
// as strings.
func sortValues(vs []string) {
	numeric := true
	for _, v := range vs {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return lessValue(vs[i], vs[j], numeric) })
}

func lessValue(a, b string, numeric bool) bool {
	if numeric {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return x < y
	}
	return a < b
}
