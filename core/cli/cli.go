// Package cli is apic's command line: a table of subcommands, each in its
// own file, dispatched by Run.
//
// Adding a command is one new file whose init function calls register with
// a Command. Its Run function builds a flag set with env.FlagSet, parses it
// with env.Parse (which handles --help, reads number flags as plain
// decimal and turns flag problems into usage errors) and returns
// UsageError for bad input (exit 2) or any other error for a runtime
// failure (exit 1).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"

	"apic/core"
	"apic/sims"
)

// Command is one subcommand of apic.
type Command struct {
	Name    string // as typed: "simulate"
	Summary string // one line for the command list
	// Usage is the synopsis (after "usage: "; any further synopsis lines
	// indented under the first's "apic") followed, after a blank line, by
	// an optional description; the flags are listed after it.
	Usage string
	Run   func(ctx context.Context, args []string, env *Env) error
}

// Env is what a command may touch of the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	// Terminal reports whether Stdout is a terminal, so commands may use
	// colour and interactive output there and plain text elsewhere.
	Terminal bool
	// StderrTerminal reports whether Stderr is a terminal: progress is
	// redrawn in place there and printed as plain lines elsewhere (a log
	// file, /dev/null, a pipe).
	StderrTerminal bool
	// Color reports whether ANSI colours are wanted: a terminal and no
	// NO_COLOR in the environment.
	Color bool

	cmd *Command // the command being run, for its help text
	// check, when set, makes train and eval check their arguments as
	// they would before any work, and return there (nil when they pass):
	// a sweep checks every cell's commands before it runs the first.
	check *checkOnly
}

// checkOnly is Env.check: what a command checks its arguments against
// instead of files that do not exist yet.
type checkOnly struct {
	// system is that of eval's --checkpoint, which a training cell's
	// train has not written yet: eval checks its flags against the
	// system's grid instead of loading the file ("" loads it).
	system string
	// grids are the grids of the models eval's checks loaded, by their
	// --checkpoint, --system and --backbone: an evaluation sweep's
	// cells share a few checkpoints, each read once, not once per cell.
	grids map[string]sims.Grid
	// systems are the systems of the checkpoint files those checks
	// loaded, by path (recordSystem).
	systems map[string]string
}

// grid is the grid that eval's --context is checked against: the
// system's, or that of the model that --checkpoint, --system and
// --backbone name, loaded (and checked as loadModel checks them) the
// first time these flags are seen.
func (c *checkOnly) grid(ctx context.Context, path, system, backbone string) (sims.Grid, error) {
	if c.system != "" {
		sys, err := sims.Lookup(c.system)
		if err != nil {
			return sims.Grid{}, UsageError("%v", err)
		}
		return sys.Grid(), nil
	}
	key := path + "\x00" + system + "\x00" + backbone
	if g, ok := c.grids[key]; ok {
		return g, nil
	}
	m, _, _, err := loadModel(ctx, path, system, backbone)
	if err != nil {
		return sims.Grid{}, err
	}
	if c.grids == nil {
		c.grids = map[string]sims.Grid{}
	}
	c.grids[key] = m.Sys.Grid()
	c.recordSystem(path, m.Sys.Name())
	return c.grids[key], nil
}

// Warnf prints "warning: ..." on Stderr; warnings never change the exit
// status.
func (e *Env) Warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "warning: "+format+"\n", args...)
}

// Notef prints an informational line on Stderr, keeping Stdout for the
// command's result.
func (e *Env) Notef(format string, args ...any) {
	fmt.Fprintf(e.Stderr, format+"\n", args...)
}

// noteFigure says on Stderr which file a --png figure went to: the one
// line every command with --png prints once the figure is written, in
// text and JSON modes alike.
func (e *Env) noteFigure(path string) {
	e.Notef("figure written to %s", path)
}

// usageError is a problem with what the user typed; Run exits 2 on it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// UsageError returns an error that makes Run print "apic CMD: message" and
// exit with status 2 (bad flag, bad value, unknown name, unreadable input).
func UsageError(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// IsUsageError reports whether err is, or wraps, a UsageError or a
// CheckpointError that the input is at fault for.
func IsUsageError(err error) bool {
	var u *usageError
	var c *CheckpointError
	return errors.As(err, &u) || errors.As(err, &c) && c.usage
}

var commands = map[string]*Command{}

// register adds a command; command files call it from init. A duplicate
// or incomplete command is a programming error and panics.
func register(c Command) {
	if c.Name == "" || c.Run == nil {
		panic("cli: command without name or Run")
	}
	if _, dup := commands[c.Name]; dup {
		panic("cli: duplicate command " + c.Name)
	}
	commands[c.Name] = &c
}

// commandOrder is the workflow order of the command list; commands not
// named here follow alphabetically.
var commandOrder = []string{"simulate", "train", "eval", "inspect", "calibrate", "compare", "explore"}

// Commands returns the registered commands in list order.
func Commands() []Command {
	rank := map[string]int{}
	for i, n := range commandOrder {
		rank[n] = i
	}
	out := make([]Command, 0, len(commands))
	for _, c := range commands {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, iok := rank[out[i].Name]
		rj, jok := rank[out[j].Name]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// defaultCommand runs when apic is started without arguments on a
// terminal, once a command of that name is registered (the explorer).
const defaultCommand = "explore"

// Run executes the command line args (without the program name) and
// returns the process exit status: 0 on success or help, 2 on a usage
// error, 1 on a runtime failure, output that could not be written
// included (silently for a closed pipe).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &outputWriter{w: stdout}
	code := dispatch(ctx, args, out, isTerminal(stdout), stderr)
	if code == 0 && out.err != nil { // help, the list or the version
		if !errors.Is(out.err, syscall.EPIPE) {
			fmt.Fprintf(stderr, "apic: writing the output: %v\n", out.err)
		}
		return 1
	}
	return code
}

// dispatch is Run with standard output wrapped as out; term is whether
// it is a terminal.
func dispatch(ctx context.Context, args []string, out *outputWriter, term bool, stderr io.Writer) int {
	env := &Env{
		Stdout:         out,
		Stderr:         stderr,
		Terminal:       term,
		StderrTerminal: isTerminal(stderr),
		Color:          term && os.Getenv("NO_COLOR") == "",
	}
	if len(args) == 0 {
		if c, ok := commands[defaultCommand]; ok && term {
			return runCommand(ctx, c, nil, env)
		}
		printCommands(out)
		return 0
	}
	switch name := args[0]; {
	case name == "help" || isHelpFlag(name):
		// "apic --help eval" is "apic help eval".
		return help(ctx, afterTerminator(args[1:]), env)
	case name == "version" || name == "--version" || name == "-version":
		rest := afterTerminator(args[1:])
		switch {
		case len(args) == 2 && isHelpFlag(args[1]):
			fmt.Fprintln(out, versionUsage)
			return 0
		case len(rest) > 0:
			fmt.Fprintf(stderr, "apic version: unexpected argument %q\nrun 'apic help version' for usage\n", rest[0])
			return 2
		}
		fmt.Fprintln(out, versionLine())
		return 0
	case name == "-v" || name == "--v" || name == "-V" || name == "--V":
		// Not the default command's unknown flag ("apic explore: flag
		// provided but not defined"): what was likely meant.
		fmt.Fprintf(stderr, "apic: no flag %s: apic --version prints the version, apic help lists the commands\n", name)
		return 2
	default:
		c, ok := commands[name]
		if d, isDefault := commands[defaultCommand]; !ok && isDefault && strings.HasPrefix(name, "-") {
			// "apic --system lv": flags without a command are the
			// default command's, as "apic" alone is.
			return runCommand(ctx, d, args, env)
		}
		if !ok && looksLikeCheckpoint(name) {
			fmt.Fprintf(stderr, "apic: unknown command %q: a checkpoint opens in the explorer with apic --checkpoint %s (apic inspect %s describes it)\n", name, name, name)
			return 2
		}
		if !ok {
			fmt.Fprintf(stderr, "apic: unknown command %q%s (run 'apic help' for the list)\n", name, didYouMean(name, "", commandNames()))
			return 2
		}
		return runCommand(ctx, c, args[1:], env)
	}
}

// help runs "apic help [COMMAND]", rest being what follows help. An
// unknown command is named before any extra argument: "apic help foo
// bar" is about foo.
func help(ctx context.Context, rest []string, env *Env) int {
	var c *Command
	if len(rest) > 0 && rest[0] != "version" && rest[0] != "help" && !isHelpFlag(rest[0]) {
		var ok bool
		if c, ok = commands[rest[0]]; !ok {
			fmt.Fprintf(env.Stderr, "apic help: unknown command %q%s (run 'apic help' for the list)\n", rest[0], didYouMean(rest[0], "", commandNames()))
			return 2
		}
	}
	switch {
	case len(rest) > 1:
		// "apic help eval extra": a command takes no arguments either.
		fmt.Fprintf(env.Stderr, "apic help: unexpected argument %q (apic help COMMAND shows one command's help)\n", rest[1])
		return 2
	case c != nil:
		return runCommand(ctx, c, []string{"--help"}, env)
	case len(rest) == 1 && rest[0] == "version":
		fmt.Fprintln(env.Stdout, versionUsage)
		return 0
	}
	printCommands(env.Stdout)
	return 0
}

// afterTerminator is args without a lone "--" at its start: it ends
// the flags of help and version as it does any command's.
func afterTerminator(args []string) []string {
	if len(args) > 0 && args[0] == "--" {
		return args[1:]
	}
	return args
}

// versionUsage is the help of apic version, which takes no flags.
const versionUsage = "usage: apic version (or apic --version)\n\nPrints the program's version: the module version and, for a build\nfrom a checkout, its VCS revision, and the Go version that built it."

// isHelpFlag reports whether arg asks for help ("apic help --help").
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// runCommand runs c and maps its error to an exit status.
func runCommand(ctx context.Context, c *Command, args []string, env *Env) int {
	env.cmd = c
	err := c.Run(ctx, args, env)
	if ow, ok := env.Stdout.(*outputWriter); ok && ow.err != nil {
		switch {
		case errors.Is(ow.err, syscall.EPIPE) && (err == nil || errors.Is(err, syscall.EPIPE)):
			// The reader has gone ("apic eval | head"): what it wanted
			// it has, and a message about the pipe would be noise.
			return 1
		case err == nil:
			err = fmt.Errorf("writing the output: %w", ow.err)
		}
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case IsUsageError(err):
		fmt.Fprintf(env.Stderr, "apic %s: %v\n", c.Name, err)
		fmt.Fprintf(env.Stderr, "run 'apic %s --help' for usage\n", c.Name)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(env.Stderr, "apic %s: %s\n", c.Name, interruptedWords(err))
		return 1
	default:
		fmt.Fprintf(env.Stderr, "apic %s: %v\n", c.Name, err)
		return 1
	}
}

// interruptedWords is what Run prints for an error that wraps
// context.Canceled: "interrupted" ("interrupted while reading --data
// obs.csv" for an interruptedError), followed by where train kept the
// weights of a run it stopped (a keptWeightsError). The rest of the
// error's text ("realization 3: context canceled") says where the work
// stopped, noise to whoever pressed Ctrl-C.
func interruptedWords(err error) string {
	words := "interrupted"
	var ie *interruptedError
	if errors.As(err, &ie) {
		words = ie.Error()
	}
	var kept *keptWeightsError
	if errors.As(err, &kept) {
		words += "; " + kept.kept
	}
	return words
}

// outputWriter is standard output as the commands see it. It keeps the
// first write error, so that output lost to a full disk or a closed pipe
// fails the command even where the command prints with fmt.Fprintf and
// never looks at the error; every later write fails with it too.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// printCommands writes the top-level help: the command list, systems
// and backbones.
func printCommands(w io.Writer) {
	fmt.Fprintln(w, "apic: amortized physics-informed calibration with neural processes")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: apic COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	cmds := Commands()
	width := len("version")
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "  %-*s  %s\n", width, "help", "show this list, or 'apic help COMMAND' for a command's flags")
	fmt.Fprintf(w, "  %-*s  %s\n", width, "version", "print the program's version and build (also --version)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "systems: %s\n", strings.Join(sims.Names(), ", "))
	fmt.Fprintf(w, "backbones: %s (default %s)\n", strings.Join(core.BackboneNames(), ", "), core.LNP)
}

// FlagSet returns an empty flag set for the running command. Errors are
// reported by Parse, not by the flag package, so its output is stderr
// only for explicit PrintDefaults calls.
func (e *Env) FlagSet() *flag.FlagSet {
	name := "apic"
	if e.cmd != nil {
		name = e.cmd.Name
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	return fs
}

// Parse parses args into fs. On -h/--help it prints the command's usage
// and flags on Stdout and returns flag.ErrHelp (exit 0); on a bad flag,
// a bad flag value or a stray positional argument it returns a UsageError.
// Number flags read plain decimal only (see decimalFlag); flags that
// take a name from a fixed list take it in any case (canonicalValue).
func (e *Env) Parse(fs *flag.FlagSet, args []string) error {
	// The flag package would print its own message and the whole usage
	// on every error; keep errors to one line and help on demand.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	numbers := decimalFlags(fs)
	once := onceFlags(fs)
	err := fs.Parse(args)
	// What follows --help is parsed too: "apic eval --help extra" is
	// refused as "apic eval extra" is, and as "apic help eval extra".
	for errors.Is(err, flag.ErrHelp) && fs.NArg() > 0 {
		if err = fs.Parse(fs.Args()); err == nil {
			err = flag.ErrHelp // with any argument left, refused below
			break
		}
	}
	empty := once.restore() // before numbers: it wraps their wrappers
	refused := numbers.restore()
	fs.SetOutput(out)
	switch {
	case empty != nil:
		return empty
	case refused != nil:
		return UsageError("%v", refused)
	case errors.Is(err, flag.ErrHelp) && fs.NArg() > 0:
		return UsageError("unexpected argument %q", fs.Arg(0))
	case errors.Is(err, flag.ErrHelp):
		e.printUsage(fs)
		return flag.ErrHelp
	case err != nil:
		if m := badBool.FindStringSubmatch(err.Error()); m != nil {
			return UsageError("--%s is a switch: give it alone, or as --%s=true or --%s=false (got %s)", m[2], m[2], m[2], m[1])
		}
		if m := badValue.FindStringSubmatch(err.Error()); m != nil {
			// A Value's own Set error names the value already.
			return UsageError("--%s: %s", m[1], m[2])
		}
		// The flag package names flags with one dash; apic's help and
		// README use two.
		msg := flagName.ReplaceAllString(err.Error(), "$1--$2")
		if name, ok := strings.CutPrefix(err.Error(), undefinedFlag); ok {
			msg += didYouMean(strings.TrimLeft(name, "-"), "--", flagNames(fs))
		}
		return UsageError("%s", msg)
	case fs.NArg() > 0:
		return UsageError("unexpected argument %q%s", fs.Arg(0), switchValueHint(fs, args))
	}
	return nil
}

// badBool matches the flag package's error for a switch given a value
// it does not read: the value, quoted, and the flag's name.
var badBool = regexp.MustCompile(`^invalid boolean value ("(?:[^"\\]|\\.)*") for -([\w-]+): parse error$`)

// badValue matches the flag package's error for a value a flag's own
// Set refused (--vary, --fix, --theta; a switch's, onceFlag): its name
// and Set's error.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(?:[^"\\]|\\.)*" for (?:flag )?-([\w-]+): (.*)$`)

// printUsage writes the running command's usage text and its flags with
// their defaults.
func (e *Env) printUsage(fs *flag.FlagSet) {
	w := e.Stdout
	if e.cmd != nil && e.cmd.Usage != "" {
		fmt.Fprintf(w, "usage: %s\n", strings.TrimSpace(e.cmd.Usage))
	} else {
		fmt.Fprintf(w, "usage: apic %s [flags]\n", fs.Name())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "flags:")
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if typ != "" {
			head += " " + typ
		}
		fmt.Fprintln(w, head)
		line := "      " + usage
		// Booleans (no type word) default to false; say so only otherwise,
		// and not where the usage already says what the default is (a
		// sentinel such as -1 or 0 would only confuse).
		if def := f.DefValue; def != "" && !(typ == "" && def == "false") && !statesDefault.MatchString(usage) {
			line += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, line)
	})
}

// numberKind is the kind of number a flag of the flag package holds.
type numberKind int

const (
	notNumber numberKind = iota
	signedNumber
	unsignedNumber
	floatNumber
)

// decimalFlag stands in, while Env.Parse parses, for a number flag of
// the flag package, which reads Go's syntax: 030 as octal 24, 0x10,
// 0b11 and 1_000 as 16, 3 and 1000, and 0x1p-4 as 0.0625, silently.
// It reads plain decimal instead, for every command's flags in one
// place: whole numbers as digits, with a sign unless unsigned (leading
// zeros are decimal, 030 is 30), and floats by parseNumber's grammar,
// that of the data files, except that NaN, Inf and numbers beyond
// float64's range are left to each command's check (floatFlagValue).
// What it reads it hands on as canonical text.
type decimalFlag struct {
	flag.Value // the flag package's own
	fl         *flag.Flag
	kind       numberKind
	bits       int
	refused    error // why Set refused a value, for Parse to report
}

// decimalFlagSet is the number flags of a flag set being parsed.
type decimalFlagSet []*decimalFlag

// decimalFlags puts a decimalFlag in place of every number flag of fs.
func decimalFlags(fs *flag.FlagSet) decimalFlagSet {
	var set decimalFlagSet
	fs.VisitAll(func(f *flag.Flag) {
		if kind, bits := numberKindOf(f.Value); kind != notNumber {
			d := &decimalFlag{Value: f.Value, fl: f, kind: kind, bits: bits}
			f.Value = d
			set = append(set, d)
		}
	})
	return set
}

// restore puts the flag package's values back (its help names their
// types: "--seed uint") and returns the first value refused, if any.
func (set decimalFlagSet) restore() error {
	var refused error
	for _, d := range set {
		d.fl.Value = d.Value
		if refused == nil {
			refused = d.refused
		}
	}
	return refused
}

// numberKindOf says which number a value of the flag package holds and
// its size in bits; a Value of another package (a list, a custom type)
// is notNumber, whatever its Get returns.
func numberKindOf(v flag.Value) (numberKind, int) {
	g, ok := v.(flag.Getter)
	if t := reflect.TypeOf(v); !ok || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != "flag" {
		return notNumber, 0
	}
	switch g.Get().(type) {
	case int:
		return signedNumber, strconv.IntSize
	case int64:
		return signedNumber, 64
	case uint:
		return unsignedNumber, strconv.IntSize
	case uint64:
		return unsignedNumber, 64
	case float64:
		return floatNumber, 64
	}
	return notNumber, 0
}

func (d *decimalFlag) Set(text string) error {
	canonical, err := d.decimal(text)
	if err != nil {
		d.refused = err
		return err
	}
	return d.Value.Set(canonical)
}

// decimal reads text by the flag's rule and returns its canonical
// decimal form, or an error naming the flag, the value and the rule.
func (d *decimalFlag) decimal(text string) (string, error) {
	switch d.kind {
	case floatNumber:
		v, err := floatFlagValue(text)
		if err != nil {
			return "", fmt.Errorf("--%s: %w", d.fl.Name, err)
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case unsignedNumber:
		v, err := strconv.ParseUint(text, 10, d.bits)
		if err != nil {
			return "", d.wholeNumberError(text, err)
		}
		return strconv.FormatUint(v, 10), nil
	}
	v, err := strconv.ParseInt(text, 10, d.bits)
	if err != nil {
		return "", d.wholeNumberError(text, err)
	}
	return strconv.FormatInt(v, 10), nil
}

// floatFlagValue reads a float flag's text by parseNumber's grammar,
// except that NaN, Inf and a number beyond float64's range (1e999, which
// is +Inf as float64 reads it) are handed on, as NaN and ±Inf, for the
// command to refuse with the flag's own range: "--noise 1e999" and
// "--noise inf" are one mistake, and read as one ("--noise must be
// between 0 and 1000 …, got +Inf").
func floatFlagValue(text string) (float64, error) {
	v, err := parseNumber(text)
	if err == nil {
		return v, nil
	}
	if w, ok := nonFinite(text); ok {
		return w, nil
	}
	if numberSyntax(text) {
		if w, rerr := strconv.ParseFloat(text, 64); errors.Is(rerr, strconv.ErrRange) && math.IsInf(w, 0) {
			return w, nil
		}
	}
	return 0, err
}

// wholeNumberError says why text is no value of a whole-number flag.
func (d *decimalFlag) wholeNumberError(text string, err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return d.rangeError(text)
	}
	want, why := "a whole number", notDecimalWhy(text)
	if d.kind == unsignedNumber {
		least := "0"
		if m := boundAtLeast.FindStringSubmatch(d.fl.Usage); m != nil {
			least = m[1]
		}
		want += " ≥ " + least
		if strings.HasPrefix(text, "+") || strings.HasPrefix(text, "-") {
			why = " (digits only: no sign)" // even -0, which is ≥ 0
		}
	}
	return fmt.Errorf("--%s must be %s, got %s%s", d.fl.Name, want, core.QuoteInput(text), why)
}

// rangeError refuses a whole number beyond its type's range with the
// bound the flag's help gives (documentedBound: "at most 10000"), the
// one the value would have been refused by once read; a flag whose help
// gives none is bounded by its type alone, whose bound is said.
func (d *decimalFlag) rangeError(text string) error {
	q := core.QuoteInput(text)
	lo, hi, ranged := documentedBound(d.fl.Usage)
	switch {
	case d.kind == unsignedNumber:
		max := uint64(math.MaxUint64) >> (64 - d.bits)
		return fmt.Errorf("--%s %s is too large: it must be at most %d", d.fl.Name, q, max)
	case ranged && lo != "":
		small := map[bool]string{true: "small", false: "large"}[strings.HasPrefix(text, "-")]
		return fmt.Errorf("--%s %s is too %s: it must be between %s and %s", d.fl.Name, q, small, lo, hi)
	case strings.HasPrefix(text, "-") && ranged:
		return fmt.Errorf("--%s %s is too small: it is below any value the flag takes (at most %s; --help gives its range)", d.fl.Name, q, hi)
	case strings.HasPrefix(text, "-"):
		return fmt.Errorf("--%s %s is too small: it must be at least %d", d.fl.Name, q, int64(-1)<<(d.bits-1))
	case ranged:
		return fmt.Errorf("--%s %s is too large: it must be at most %s", d.fl.Name, q, hi)
	}
	return fmt.Errorf("--%s %s is too large: it must be at most %d", d.fl.Name, q, int64(uint64(1)<<(d.bits-1)-1))
}

// Bounds as a flag's help gives them: "1 to 2000", "between 1 and 10",
// "at most 10000" and "at most the grid's" (up to a ; or parenthesis).
var (
	boundRange  = regexp.MustCompile(`\b(\d+) to (\d+)\b|\bbetween (\d+) and (\d+)\b`)
	boundAtMost = regexp.MustCompile(`\bat most ([^;()]*[^;() ])`)
	// boundAtLeast is an unsigned flag's lower bound above 0 in its help
	// ("≥ 1"), so that "-1" is refused with the bound "0" is.
	boundAtLeast = regexp.MustCompile(`≥ ([1-9]\d*)\b`)
)

// documentedBound is the bound that usage, a flag's help, gives its
// value: lo and hi of a range, or hi alone (lo "") of an upper bound;
// ok is false where it gives none.
func documentedBound(usage string) (lo, hi string, ok bool) {
	if m := boundRange.FindStringSubmatch(usage); m != nil {
		if m[1] != "" {
			return m[1], m[2], true
		}
		return m[3], m[4], true
	}
	if m := boundAtMost.FindStringSubmatch(usage); m != nil {
		return "", m[1], true
	}
	return "", "", false
}

// notDecimalWhy says, as " (...)", what Go syntax a whole number's
// text holds that apic does not read ("" for none).
func notDecimalWhy(text string) string {
	digits := strings.ToLower(strings.TrimLeft(text, "+-"))
	switch {
	case len(digits) > 1 && digits[0] == '0' && strings.ContainsRune("xob", rune(digits[1])):
		return " (decimal digits only: 0x, 0o and 0b prefixes are not read)"
	case strings.Contains(text, "_"):
		return " (decimal digits only: _ separators are not read)"
	case strings.ContainsRune(digits, 'e') && numberSyntax(text):
		// 1e1 is a whole number to a reader, but no int flag takes it
		// (Go's and the flag package's integers are digits), so say how
		// to write it rather than leave "not a whole number" a riddle.
		x, _ := strconv.ParseFloat(text, 64)
		switch {
		case x == math.Trunc(x) && math.Abs(x) < 1e15:
			return fmt.Sprintf(" (decimal digits only: exponent notation is not read; write %d)", int64(x))
		case x == math.Trunc(x): // 1e30: integral, but its digits are no help
			return " (decimal digits only: exponent notation is not read)"
		}
	}
	return ""
}

// undefinedFlag opens the flag package's error for a flag fs does not
// define; the name as typed, with its dashes, follows.
const undefinedFlag = "flag provided but not defined: "

// flagName matches a flag named with one dash in the flag package's
// errors ("flag needs an argument: -tasks").
var flagName = regexp.MustCompile(`(^|\s)-([A-Za-z][\w-]*)`)

// statesDefault matches a usage line that says its own default
// ("(default: the system's)", "; default 500)").
var statesDefault = regexp.MustCompile(`\bdefault[ :]`)

// isTerminal reports whether w is a terminal (not merely a character
// device such as /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// versionLine is "apic MODULE-VERSION (REVISION[, modified])" from the
// binary's build information: the module version a `go install` gives,
// or "(devel)" and the VCS revision for a build from a checkout.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "apic (no build information)"
	}
	line := "apic " + bi.Main.Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev != "" {
		line += " (" + rev + modified + ")"
	}
	return line + " " + bi.GoVersion
}

// looksLikeCheckpoint reports whether a word given where a command goes
// names a checkpoint file ("apic model.safetensors"): one that ends in
// the checkpoint extension or an embedded name.
func looksLikeCheckpoint(word string) bool {
	return strings.HasSuffix(word, ".safetensors") || strings.HasPrefix(word, "embedded:")
}
