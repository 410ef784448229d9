package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

func init() {
	register(Command{
		Name:    "simulate",
		Summary: "print one realization of a system: θ, nominal, true and discrepancy",
		Usage: `apic simulate --system SYS [--seed N | --theta name=value,... [--u0 a,b,... | --u0-file FILE]] [--json] [--csv FILE [--context N] [--noise σ]]

Prints one realization of a benchmark system: the formulas of its nominal
simulator F, its true process G and their discrepancy G − F (--json: as
"formulas"), its parameters θ, its side information u0 (the initial
condition), and on the observation grid F, G and G − F.

By default θ and u0 are drawn from the prior with --seed. --theta sets every
parameter by name instead; u0 then comes from --u0 (comma-separated values)
or --u0-file (CSV with header x,u or u,x and one row per grid position,
in any order: x says which; advdiff's x is periodic, so x = 1 is x = 0),
or, when neither is given, from the --seed draw.

--json prints one object: system, seed (absent with --theta), formulas
(F's, G's and δ's, a line each), theta (each parameter by name), u0 (the
side information; absent for spring), channels, t (the grid's times;
advdiff's x its positions too), and on the grid nominal (F), true (G)
and discrepancy (G − F): spring one value per t; lv per t, one per
channel; advdiff per t, one per x.

--no-discrepancy makes the true process the nominal simulator, G = F:
data with δ = 0, which no realization of a model's training population
has. A model's discrepancy is a prior learned from that population, and
calibrate fits such data with a discrepancy and a θ̂ from it, without
necessarily warning (docs/uncertainty.md, "Where the targets are
missed").` + simulateCSVHelp,
		Run: runSimulate,
	})
}

// simulateStream is the PCG stream of simulate's draws. It is fixed so
// that "--seed N" names the same realization in every version.
const simulateStream = 0x73696d756c617465 // "simulate" in ASCII

// DrawRealization returns the realization that "apic simulate --seed seed"
// shows: sims.Draw from a PCG source on simulate's fixed stream.
func DrawRealization(sys sims.System, seed uint64) sims.Realization {
	return sims.Draw(sys, rand.New(rand.NewPCG(seed, simulateStream)))
}

func runSimulate(ctx context.Context, args []string, env *Env) error {
	fs := env.FlagSet()
	var f simulateFlags
	f.register(fs)
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if f.system == "" {
		return UsageError("--system is required (one of %s)", strings.Join(sims.Names(), ", "))
	}
	sys, err := sims.Lookup(f.system)
	if err != nil {
		return UsageError("%v", err)
	}
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if err := f.checkSide(sys); err != nil {
		return err
	}
	csvReq, err := checkCSVRequest(sys, f.csvPath, f.context, f.noise, f.given, f.u0File)
	if err != nil {
		return err
	}
	r, source, seedUsed, err := f.realization(ctx, env, sys)
	if err != nil {
		return err
	}
	csvReq.noDiscrepancy = f.noDisc
	if f.noDisc {
		r.True = slices.Clone(r.Nominal)
		env.Notef("--no-discrepancy: G = F, so δ = 0, which no realization of the training population has")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkFinite(r); err != nil {
		return err
	}
	if err := checkResolved(sys, r.Theta, r.Side); err != nil {
		return err
	}
	if csvReq.path != "" {
		if err := writeCSVExercise(env, sys, r, csvReq, f.seed); err != nil {
			return err
		}
		seedUsed = true // the points and the noise came from it
	}
	var seedPtr *uint64
	if seedUsed {
		seedPtr = &f.seed
	}
	if f.json {
		return writeRealizationJSON(env, sys, r, seedPtr, f.noDisc)
	}
	return writeRealizationText(env, sys, r, source, f.noDisc)
}

// simulateFlags are simulate's flags; given are those on the command
// line.
type simulateFlags struct {
	system, thetaText, u0Text, u0File, csvPath string
	seed                                       uint64
	context                                    int
	noise                                      float64
	json, noDisc                               bool
	given                                      map[string]bool
}

func (f *simulateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.system, "system", "", "benchmark system: "+strings.Join(sims.Names(), ", "))
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the prior draw of θ and u0, and of --csv's points and noise")
	fs.StringVar(&f.thetaText, "theta", "", fmt.Sprintf("every parameter by name, e.g. omega=5 (overrides the draw of θ; each at most %d times its prior's largest magnitude)", core.SaneFactor))
	fs.StringVar(&f.u0Text, "u0", "", "side information as comma-separated values (with --theta)")
	fs.StringVar(&f.u0File, "u0-file", "", "side information from a CSV `file` with header x,u or u,x (with --theta); '-' reads stdin")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of plots")
	fs.StringVar(&f.csvPath, "csv", "", "also write observations of the true process to this CSV `file`, in calibrate --data's format")
	fs.IntVar(&f.context, "context", 0, "observation points --csv writes, at most the grid's points (0: the system's test context size)")
	fs.Float64Var(&f.noise, "noise", 0, fmt.Sprintf("Gaussian noise σ on the values --csv writes, at most %v", core.MaxNoise))
	fs.BoolVar(&f.noDisc, "no-discrepancy", false, "make the true process the nominal simulator (G = F, δ = 0): data unlike every realization a model was trained on, to see what calibrate makes of them")
}

// checkSide refuses side information the system has no use for, or
// that is given without --theta or in the wrong form.
func (f *simulateFlags) checkSide(sys sims.System) error {
	side := sys.Side()
	switch {
	case f.u0Text != "" && f.u0File != "":
		return UsageError("give --u0 or --u0-file, not both")
	case (f.u0Text != "" || f.u0File != "") && side.Len == 0:
		return UsageError("system %s has no side information, so --u0 and --u0-file do not apply", sys.Name())
	case (f.u0Text != "" || f.u0File != "") && !f.given["theta"]:
		return UsageError("--u0 and --u0-file need --theta (with --seed alone θ and u0 are both drawn)")
	case f.u0File != "" && side.Labels != nil:
		return UsageError("%s's %s is (%s): give it with --u0", sys.Name(), side.Name, strings.Join(side.Labels, ", "))
	}
	return nil
}

// realization is the realization to simulate: drawn from --seed, or
// with θ from --theta and u0 given (or drawn); source says where θ and
// u0 came from, and seedUsed whether --seed drew any of it.
func (f *simulateFlags) realization(ctx context.Context, env *Env, sys sims.System) (r sims.Realization, source string, seedUsed bool, err error) {
	if !f.given["theta"] {
		return DrawRealization(sys, f.seed), fmt.Sprintf("seed %d", f.seed), true, nil
	}
	side := sys.Side()
	source, seedUsed = "θ from --theta", true
	theta, err := parseTheta(f.thetaText, sys.Params(), env)
	if err != nil {
		return r, "", false, err
	}
	var u0 []float64
	switch {
	case f.u0Text != "":
		if u0, err = parseSideValues(f.u0Text, side); err != nil {
			return r, "", false, err
		}
	case f.u0File != "":
		if u0, err = readSideCSV(ctx, f.u0File, side, sideAxisOf(sys.Grid(), side.Len)); err != nil {
			return r, "", false, err
		}
	case side.Len > 0:
		u0 = DrawRealization(sys, f.seed).Side
		env.Notef("%s not given: using the %s drawn with --seed %d", side.Name, side.Name, f.seed)
		source += fmt.Sprintf(", %s from seed %d", side.Name, f.seed)
	default:
		seedUsed = false
	}
	if f.u0Text != "" || f.u0File != "" {
		seedUsed = false
		warnSideRange(env, side, u0)
	}
	r = sims.Realization{Theta: theta, Side: u0, Nominal: sys.Nominal(theta, u0), True: sys.True(theta, u0)}
	if !sys.Valid(r.True) {
		env.Warnf("the true process fails %s's validity check (training data would redraw this realization)", sys.Name())
	}
	return r, source, seedUsed, nil
}

// parseTheta reads "name=value,..." naming every parameter exactly once.
// Values outside the prior are allowed (the simulators are defined
// there) but get a warning, up to SaneFactor times the prior's largest
// magnitude; a parameter with a positive prior must stay positive.
func parseTheta(text string, params []sims.Param, env *Env) ([]float64, error) {
	index := map[string]int{}
	names := make([]string, len(params))
	for i, p := range params {
		index[p.Name] = i
		names[i] = p.Name
	}
	if strings.TrimSpace(text) == "" {
		return nil, UsageError("--theta is empty: give every parameter by name (%s=…), or leave --theta out to draw θ with --seed", strings.Join(names, "=…,"))
	}
	theta := make([]float64, len(params))
	seen := make([]bool, len(params))
	for item := range strings.SplitSeq(text, ",") {
		item = strings.TrimSpace(item)
		name, valueText, ok := strings.Cut(item, "=")
		name, valueText = strings.TrimSpace(name), strings.TrimSpace(valueText)
		if !ok || name == "" {
			return nil, UsageError("--theta: %q is not name=value (parameters: %s)", item, strings.Join(names, ", "))
		}
		name = canonicalName(name, names) // in any case, as a CSV header's
		i, known := index[name]
		if !known {
			return nil, UsageError("--theta: unknown parameter %q (parameters: %s)", name, strings.Join(names, ", "))
		}
		if seen[i] {
			return nil, UsageError("--theta: parameter %s given twice", name)
		}
		v, err := parseFinite(valueText)
		if err != nil {
			return nil, UsageError("--theta: %s=%s: %v", name, valueText, err)
		}
		if sane := core.SaneParamBound(params[i]); math.Abs(v) > sane {
			// sin(1e300 t) is finite, and no process the prior describes.
			return nil, UsageError("--theta: %s=%s is beyond the sane range |%s| ≤ %.4g (%d times the largest magnitude of its prior [%s, %s])",
				name, valueText, name, sane, core.SaneFactor, fmtFloat(params[i].Lo), fmtFloat(params[i].Hi))
		}
		if p := params[i]; v <= 0 && p.Lo > 0 {
			// A parameter with a positive prior is a rate, a frequency or
			// a coefficient the simulators take logarithms of: outside
			// the prior is allowed, but not through zero.
			return nil, UsageError("--theta: %s=%s must be > 0 (its prior is [%s, %s])", name, valueText, fmtFloat(p.Lo), fmtFloat(p.Hi))
		}
		theta[i], seen[i] = v, true
	}
	var missing []string
	for i, ok := range seen {
		if !ok {
			missing = append(missing, names[i])
		}
	}
	if len(missing) > 0 {
		noun := "parameter"
		if len(missing) > 1 {
			noun = "parameters"
		}
		return nil, UsageError("--theta: missing %s %s (give all of %s)", noun, strings.Join(missing, ", "), strings.Join(names, ", "))
	}
	for i, p := range params {
		if theta[i] < p.Lo || theta[i] > p.Hi {
			env.Warnf("%s=%s is outside the prior [%s, %s]", p.Name, fmtFloat(theta[i]), fmtFloat(p.Lo), fmtFloat(p.Hi))
		}
	}
	return theta, nil
}

// parseFinite parses a number flag's value by the grammar of input
// files (parseNumber): decimal or exponent notation, finite.
func parseFinite(s string) (float64, error) { return parseNumber(s) }

// parseSideValues reads --u0: exactly side.Len comma-separated numbers.
func parseSideValues(text string, side sims.SideInfo) ([]float64, error) {
	parts := strings.Split(text, ",")
	if len(parts) != side.Len {
		// "1.0 1.3" or "1.0;1.3" is one value to the split: the want
		// names the separator.
		want := fmt.Sprintf("%d comma-separated values", side.Len)
		if side.Labels != nil {
			want += " (" + strings.Join(side.Labels, ", ") + ")"
		}
		return nil, UsageError("--u0: got %s, want %s", core.Count(len(parts), "value"), want)
	}
	u0 := make([]float64, len(parts))
	for i, p := range parts {
		v, err := parseFinite(strings.TrimSpace(p))
		if err != nil {
			return nil, UsageError("--u0: value %d (%s): %v", i+1, sideLabel(side, i), err)
		}
		if sane := core.SaneSideBound(side); math.Abs(v) > sane {
			return nil, UsageError("--u0: %s = %s is beyond the sane range |%s| ≤ %.4g (%d times the largest the system's training saw)", sideLabel(side, i), fmtFloat(v), sideLabel(side, i), sane, core.SaneFactor)
		}
		if side.Positive && v <= 0 {
			return nil, UsageError("--u0: %s = %s must be > 0", sideLabel(side, i), fmtFloat(v))
		}
		u0[i] = v
	}
	return u0, nil
}

// sideLabel names entry i of the side information.
func sideLabel(side sims.SideInfo, i int) string {
	if i < len(side.Labels) {
		return side.Labels[i]
	}
	return fmt.Sprintf("%s[%d]", side.Name, i)
}

// warnSideRange warns about side information outside its plausible range.
func warnSideRange(env *Env, side sims.SideInfo, u0 []float64) {
	if !(side.Lo < side.Hi) {
		return
	}
	for i, v := range u0 {
		if v < side.Lo || v > side.Hi {
			env.Warnf("%s=%s is outside the plausible range [%s, %s]", sideLabel(side, i), fmtFloat(v), fmtFloat(side.Lo), fmtFloat(side.Hi))
		}
	}
}

// checkFinite fails on non-finite simulator output, which JSON cannot
// carry and which means θ or u0 lies where the simulator breaks down.
func checkFinite(r sims.Realization) error {
	for _, p := range []struct {
		name   string
		values []float64
	}{{"nominal", r.Nominal}, {"true", r.True}} {
		for _, v := range p.values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("the %s process has non-finite values (θ or u0 far outside the prior?)", p.name)
			}
		}
	}
	return nil
}

// checkResolved fails where the system's solver does not resolve the
// nominal process at θ and side (sims.ResolutionChecker): finite output
// that is wrong, as lv's far outside the prior.
func checkResolved(sys sims.System, theta, side []float64) error {
	if rc, ok := sys.(sims.ResolutionChecker); ok {
		return rc.CheckResolved(theta, side)
	}
	return nil
}

// gridAxes returns the coordinate values along each axis of a product
// grid (axis d varies with stride ∏ Shape[d+1:] in the point-major
// layout), or for a one-dimensional grid the first state coordinate of
// every point.
func gridAxes(g sims.Grid) [][]float64 {
	if len(g.Shape) == 0 {
		axis := make([]float64, len(g.States))
		for i, st := range g.States {
			axis[i] = st[0]
		}
		return [][]float64{axis}
	}
	axes := make([][]float64, len(g.Shape))
	stride := 1
	for d := len(g.Shape) - 1; d >= 0; d-- {
		axes[d] = make([]float64, g.Shape[d])
		for k := range g.Shape[d] {
			// A product grid's states have one coordinate per axis.
			axes[d][k] = g.States[k*stride][d]
		}
		stride *= g.Shape[d]
	}
	return axes
}

// valueShape is the array shape of values on the grid: the grid's shape
// (or its point count), then the channels when there is more than one.
func valueShape(g sims.Grid) []int {
	shape := []int{g.Points()}
	if len(g.Shape) > 0 {
		shape = append([]int(nil), g.Shape...)
	}
	if len(g.Channels) > 1 {
		shape = append(shape, len(g.Channels))
	}
	return shape
}

// nest reshapes row-major values to nested slices of the given shape.
func nest(values []float64, shape []int) any {
	if len(shape) == 1 {
		return values
	}
	chunk := len(values) / shape[0]
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nest(values[i*chunk:(i+1)*chunk], shape[1:])
	}
	return out
}

// shaped reshapes grid values, checking that the system's grid and value
// lengths agree.
func shaped(values []float64, g sims.Grid) (any, error) {
	shape := valueShape(g)
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n != len(values) || n != g.Size() {
		return nil, fmt.Errorf("grid of shape %v does not hold %d values", shape, len(values))
	}
	return nest(values, shape), nil
}

// realizationJSON is simulate's --json output.
type realizationJSON struct {
	System   string   `json:"system"`
	Formulas []string `json:"formulas"` // F, G and δ in plain text (shownFormulas)
	// NoDiscrepancy marks a realization whose true process was made the
	// nominal one (--no-discrepancy).
	NoDiscrepancy bool               `json:"no_discrepancy,omitempty"`
	Seed          *uint64            `json:"seed,omitempty"`
	Theta         map[string]float64 `json:"theta"`
	Channels      []string           `json:"channels"`
	T             []float64          `json:"t"`
	X             []float64          `json:"x,omitempty"`
	U0            []float64          `json:"u0,omitempty"`
	Nominal       any                `json:"nominal"`
	True          any                `json:"true"`
	Discrepancy   any                `json:"discrepancy"`
}

// writeRealizationJSON prints r as one realizationJSON object; seed is nil
// when nothing was drawn from it.
func writeRealizationJSON(env *Env, sys sims.System, r sims.Realization, seed *uint64, noDisc bool) error {
	g := sys.Grid()
	out := realizationJSON{
		System:        sys.Name(),
		Formulas:      shownFormulas(sys, noDisc),
		NoDiscrepancy: noDisc,
		Seed:          seed,
		Theta:         map[string]float64{},
		Channels:      g.Channels,
	}
	for i, p := range sys.Params() {
		out.Theta[p.Name] = r.Theta[i]
	}
	axes := gridAxes(g)
	out.T = axes[0]
	if len(axes) > 1 {
		out.X = axes[len(axes)-1]
	}
	if sys.Side().Len > 0 {
		out.U0 = r.Side
	}
	var err error
	if out.Nominal, err = shaped(r.Nominal, g); err != nil {
		return fmt.Errorf("nominal: %w", err)
	}
	if out.True, err = shaped(r.True, g); err != nil {
		return fmt.Errorf("true: %w", err)
	}
	if out.Discrepancy, err = shaped(r.Discrepancy(), g); err != nil {
		return fmt.Errorf("discrepancy: %w", err)
	}
	enc := json.NewEncoder(env.Stdout)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// shownFormulas are the formulas simulate prints: sys's F, G and δ
// (sims.System.Formulas, in that order), or with --no-discrepancy F
// and what replaced G and δ.
func shownFormulas(sys sims.System, noDisc bool) []string {
	f := sys.Formulas()
	if !noDisc || len(f) == 0 {
		return f
	}
	return []string{f[0], "G = F  (--no-discrepancy)", "δ = 0"}
}

// Plot sizes of simulate's text output.
const (
	plotWidth   = 64
	plotHeight  = 10
	sliceHeight = 8
)

// writeRealizationText prints the header and plots; source says where θ
// and u0 came from.
func writeRealizationText(env *Env, sys sims.System, r sims.Realization, source string, noDisc bool) error {
	var b strings.Builder
	g := sys.Grid()
	fmt.Fprintf(&b, "%s (%s), %s\n\n", sys.Title(), sys.Name(), source)
	for _, line := range shownFormulas(sys, noDisc) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	b.WriteString("\n")

	params := sys.Params()
	nameWidth := 0
	for _, p := range params {
		nameWidth = max(nameWidth, len(p.Name))
	}
	for i, p := range params {
		fmt.Fprintf(&b, "  %-*s = %-12.6g prior U(%s, %s)\n", nameWidth, p.Name, r.Theta[i], fmtFloat(p.Lo), fmtFloat(p.Hi))
	}
	b.WriteString(sideSummary(sys.Side(), r.Side))
	b.WriteString(gridSummary(g))
	b.WriteString("\n")

	disc := r.Discrepancy()
	axes := gridAxes(g)
	if len(g.Shape) == 2 {
		writeProductPlots(&b, env, g, axes, r, disc)
	} else {
		writeLinePlots(&b, env, g, axes[0], r, disc)
	}
	_, err := fmt.Fprint(env.Stdout, b.String())
	return err
}

// sideSummary is the header line on the side information: labelled values
// in full, a field as its range and a sparkline.
func sideSummary(side sims.SideInfo, u0 []float64) string {
	switch {
	case side.Len == 0:
		return "  (no side information)\n"
	case side.Labels != nil:
		parts := make([]string, len(u0))
		for i, v := range u0 {
			parts[i] = fmt.Sprintf("%s = %.6g", sideLabel(side, i), v)
		}
		return fmt.Sprintf("  %s: %s\n", side.Name, strings.Join(parts, ", "))
	default:
		lo, hi := finiteRange([]Series{{Values: u0}})
		return fmt.Sprintf("  %s: %d values in [%.4g, %.4g]  %s\n", side.Name, len(u0), lo, hi, Sparkline(u0, plotWidth))
	}
}

// gridSummary describes the grid in one line.
func gridSummary(g sims.Grid) string {
	var dims []string
	for d, name := range g.StateNames {
		if d < len(g.Lo) && d < len(g.Hi) {
			dim := fmt.Sprintf("%s ∈ [%.4g, %.4g]", name, g.Lo[d], g.Hi[d])
			if g.IsPeriodic(d) {
				// Hi is Lo again: the grid stops one step short of it.
				dim = fmt.Sprintf("%s ∈ [%.4g, %.4g) periodic", name, g.Lo[d], g.Hi[d])
			}
			dims = append(dims, dim)
		}
	}
	shape := fmt.Sprintf("%d points", g.Points())
	if len(g.Shape) > 0 {
		s := make([]string, len(g.Shape))
		for i, n := range g.Shape {
			s[i] = strconv.Itoa(n)
		}
		shape = strings.Join(s, " × ") + " (" + strings.Join(g.StateNames, ", ") + ")"
	}
	return fmt.Sprintf("  grid: %s, %s; channels: %s\n", shape, strings.Join(dims, ", "), strings.Join(g.Channels, ", "))
}

// channel extracts channel c from point-major values.
func channel(values []float64, c, channels int) []float64 {
	out := make([]float64, len(values)/channels)
	for i := range out {
		out[i] = values[i*channels+c]
	}
	return out
}

// writeLinePlots draws, over a one-dimensional grid, true vs nominal for
// each channel and the discrepancy with one series per channel.
func writeLinePlots(b *strings.Builder, env *Env, g sims.Grid, axis []float64, r sims.Realization, disc []float64) {
	nc := len(g.Channels)
	plot := LinePlot{Width: plotWidth, Height: plotHeight, XLo: axis[0], XHi: axis[len(axis)-1], Color: env.Color}
	for c, name := range g.Channels {
		plot.Title = "true vs nominal"
		if nc > 1 {
			plot.Title = name + ": " + plot.Title
		}
		b.WriteString(plot.Render(
			Series{Name: "true", Values: channel(r.True, c, nc)},
			Series{Name: "nominal", Values: channel(r.Nominal, c, nc)},
		))
		b.WriteString("\n")
	}
	series := make([]Series, nc)
	for c, name := range g.Channels {
		series[c] = Series{Values: channel(disc, c, nc)}
		if nc > 1 {
			series[c].Name = name
		}
	}
	plot.Title = "discrepancy = true − nominal"
	b.WriteString(plot.Render(series...))
}

// writeProductPlots draws, over a two-dimensional (rows × columns) grid,
// true vs nominal along the columns at the first, middle and last row,
// and the discrepancy as a heatmap, per channel.
func writeProductPlots(b *strings.Builder, env *Env, g sims.Grid, axes [][]float64, r sims.Realization, disc []float64) {
	nc := len(g.Channels)
	nr, ncol := g.Shape[0], g.Shape[1]
	rowName, colName := "row", "column"
	if len(g.StateNames) == 2 {
		rowName, colName = g.StateNames[0], g.StateNames[1]
	}
	rows := []int{0}
	for _, k := range []int{nr / 2, nr - 1} {
		if k != rows[len(rows)-1] {
			rows = append(rows, k)
		}
	}
	for c, name := range g.Channels {
		tr, nom, d := channel(r.True, c, nc), channel(r.Nominal, c, nc), channel(disc, c, nc)
		prefix := ""
		if nc > 1 {
			prefix = name + ": "
		}
		// One vertical range for all slices, so they compare at a glance.
		lo, hi := finiteRange([]Series{{Values: tr}, {Values: nom}})
		plot := LinePlot{Width: plotWidth, Height: sliceHeight, XLo: axes[1][0], XHi: axes[1][ncol-1], YLo: lo, YHi: hi, Color: env.Color}
		for _, k := range rows {
			plot.Title = fmt.Sprintf("%strue vs nominal at %s = %.4g", prefix, rowName, axes[0][k])
			b.WriteString(plot.Render(
				Series{Name: "true", Values: tr[k*ncol : (k+1)*ncol]},
				Series{Name: "nominal", Values: nom[k*ncol : (k+1)*ncol]},
			))
			b.WriteString("\n")
		}
		field := make([][]float64, nr)
		for k := range field {
			field[k] = d[k*ncol : (k+1)*ncol]
		}
		hm := Heatmap{Title: prefix + "discrepancy = true − nominal", Rows: 16, Cols: plotWidth, RowName: rowName, ColName: colName}
		b.WriteString(hm.Render(field, axes[0], axes[1]))
	}
}
