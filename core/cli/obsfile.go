package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// An observation file (../shared/BENCHMARKS.md, "Observation files") is a
// CSV with a header row naming the grid's state dimensions followed by its
// channels, e.g.
//
//	t,y              (spring)
//	t,prey,predator  (lv; an empty channel cell means "not observed";
//	                  one channel's column may be left out)
//	t,x,u            (advdiff)
//
// and one observation per row, at any state inside the grid's domain (not
// only at grid points) and in any order. Columns may come in any order;
// names match case-insensitively, and the grid's aliases (sims.ColumnAlias:
// time for t, lv's x,y for prey,predator) stand for them. Everything
// about the layout is derived from sims.Grid, so a new system needs no
// change here.

// stdinName labels errors in an input file read from standard input.
const stdinName = "<stdin>"

// readObservations reads the observation file at path for grid g; path
// "-" reads stdin. sane bounds each channel's |value| (nil: no bound;
// see core.SaneValueBound). Every problem with the file is a
// UsageError; a cancelled ctx ends the wait for input with an
// interruptedError.
func readObservations(ctx context.Context, path string, g sims.Grid, sane []float64) (sims.Context, error) {
	if path == "-" {
		return parseObservations(ctx, stdin, stdinName, g, sane)
	}
	f, err := openInput(ctx, "--data", path)
	if err != nil {
		return sims.Context{}, err
	}
	defer f.Close()
	return parseObservations(ctx, f, path, g, sane)
}

// obsHeader is the expected header of g's observation files.
func obsHeader(g sims.Grid) []string {
	return append(append([]string(nil), g.StateNames...), g.Channels...)
}

// parseObservations parses an observation CSV for grid g. name labels the
// errors, which are UsageErrors of the form "name:line: problem". On
// success every observation has a finite state inside the domain, at least
// one observed channel and finite observed values within sane (when not
// nil); GridIndex is the grid point the state coincides with (within
// gridTol), or -1. Reading stops at the first row beyond
// core.LimitObservations, and whenever ctx ends.
func parseObservations(ctx context.Context, r io.Reader, name string, g sims.Grid, sane []float64) (sims.Context, error) {
	want := obsHeader(g)
	wantText := strings.Join(want, ",")
	recs := newCSVRecords(ctx, r, name)
	defer recs.Close()
	if recs.looksBinary() {
		return sims.Context{}, UsageError("%s: not a CSV text file (%s); want a header %q and one observation per row", name, recs.binaryKind(), wantText)
	}
	header, line, err := recs.next()
	switch {
	case err == io.EOF:
		return sims.Context{}, UsageError("%s: %s; want a header %q and one observation per row", name, recs.noRecordWhat(), wantText)
	case err != nil:
		return sims.Context{}, err
	}
	header = append([]string(nil), header...) // ReuseRecord
	col, err := headerColumns(header, g)
	if err != nil {
		isHeader := func(fields []string) bool {
			_, err := headerColumns(fields, g)
			return err == nil
		}
		hint := headerHint(recs, header, isHeader)
		if hint == "" {
			hint = headerSystemHint(header, &g)
		}
		return sims.Context{}, recs.bad(line, "%v%s", err, hint)
	}
	p := &obsParser{g: g, want: columnLabels(want, header, col), header: header, col: col, sane: sane, bad: recs.bad, loc: newGridLocator(g), firstRows: map[string]firstRow{}}
	p.written = newWrittenStates(p.loc)
	var obs sims.Context
	for {
		rec, line, err := recs.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sims.Context{}, err
		}
		if l := core.LimitObservations; obs.Len() == l.Max {
			return sims.Context{}, recs.bad(line, "more than %d observations, the %s limit (%s)", l.Max, l.Name, l.Why)
		}
		if err := p.row(&obs, rec, line); err != nil {
			return sims.Context{}, err
		}
	}
	if obs.Len() == 0 {
		return sims.Context{}, UsageError("%s: no observations after the header %q", name, strings.Join(header, ","))
	}
	return obs, nil
}

// obsParser reads the rows of an observations file after its header:
// want names the columns a file may have (states, then channels; an
// alias as the header spells it: columnLabels), col
// where each is in the file's header (−1: absent), sane the largest
// magnitude accepted per channel.
type obsParser struct {
	g            sims.Grid
	want, header []string
	col          []int
	sane         []float64
	bad          func(line int, format string, args ...any) error
	loc          gridLocator
	firstRows    map[string]firstRow // duplicate key → its first row
	written      *writtenStates      // the states so far, as written, for near-duplicates
}

// row appends the observation of record rec, at line, to obs.
func (p *obsParser) row(obs *sims.Context, rec []string, line int) error {
	if len(rec) != len(p.header) {
		return p.fieldCountError(rec, line)
	}
	state, err := p.state(rec, line)
	if err != nil {
		if IsUsageError(err) && sameFieldsFold(rec, p.header) {
			return UsageError("%v; the header row again (files joined one after another?): delete it or start it with # (a comment)", err)
		}
		if obs.Len() == 0 && IsUsageError(err) {
			if hint := unitsRowHint(rec); hint != "" {
				return UsageError("%v%s", err, hint)
			}
		}
		return err
	}
	values, mask, err := p.values(rec, line)
	if err != nil {
		return err
	}
	state, idx, err := p.place(state, line)
	if err != nil {
		return err
	}
	obs.States = append(obs.States, state)
	obs.Values = append(obs.Values, values)
	obs.Mask = append(obs.Mask, mask)
	obs.GridIndex = append(obs.GridIndex, idx)
	return nil
}

// fieldCountError is the error for a record with the wrong number of
// fields, with a hint where another separator or decimal comma explains
// it.
func (p *obsParser) fieldCountError(rec []string, line int) error {
	msg := fmt.Sprintf("%s, want %d (%s)", core.Count(len(rec), "field"), len(p.header), strings.Join(p.header, ","))
	if hint := semicolonDecimalHint(strings.Join(rec, ","), len(p.header)); hint != "" {
		msg += "; " + hint
	} else if d := foreignDelimiter(rec); d != "" {
		msg += "; fields are separated by " + d + ", want commas"
	} else if hint := decimalCommaHint(rec, len(p.header)); hint != "" {
		msg += "; " + hint
	} else if hint := controlCharHint(rec); hint != "" {
		msg += "; " + hint
	}
	return p.bad(line, "%s", msg)
}

// controlCharHint says that a record holds a control character, which
// most editors do not show (the Ctrl-Z that old DOS programs end a file
// with), so that "1 field" on a line that looks empty can be found; ""
// for none.
func controlCharHint(rec []string) string {
	for _, f := range rec {
		if r, ok := controlRune(f); ok {
			return fmt.Sprintf("it holds the control character %U, which most editors do not show: delete it", r)
		}
	}
	return ""
}

// state reads a record's state coordinates, each inside the domain.
func (p *obsParser) state(rec []string, line int) ([]float64, error) {
	g := p.g
	state := make([]float64, len(g.StateNames))
	for d := range state {
		text := rec[p.col[d]]
		if text == "" {
			return nil, p.bad(line, "%s is empty", p.want[d])
		}
		v, err := parseCell(p.want[d], text)
		if err != nil {
			return nil, p.bad(line, "%v%s", err, cellHint(rec, text))
		}
		if d < len(g.Lo) && d < len(g.Hi) {
			if _, ok := p.loc.inDomain(d, v); !ok {
				return nil, p.bad(line, "%s = %s is outside the domain [%s, %s]%s", p.want[d], fmtFloat(v), fmtFloat(g.Lo[d]), fmtFloat(g.Hi[d]), farOutsideHint(v, g.Lo[d], g.Hi[d]))
			}
		}
		state[d] = v
	}
	return state, nil
}

// farOutsideHint is the "; ..." to add to the error about a state
// coordinate v outside the domain [lo, hi] when it lies more than the
// domain's width beyond it: times in seconds or milliseconds, say,
// where the simulator's own units are wanted.
func farOutsideHint(v, lo, hi float64) string {
	if w := hi - lo; v > hi+w || v < lo-w {
		return "; far outside it: check the file's units, which must be the simulator's own"
	}
	return ""
}

// noValueHint ends the error about a row that observes nothing: a
// value not measured is an empty cell only beside one that was.
const noValueHint = "; a row needs an observed value: leave out a state where nothing was measured"

// sameFieldsFold reports whether records a and b hold the same fields,
// ignoring case: a header row repeated below the first.
func sameFieldsFold(a, b []string) bool {
	return slices.EqualFunc(a, b, strings.EqualFold)
}

// values reads a record's channel values (an empty cell or absent
// column: not observed), each within its sane range, at least one
// observed.
func (p *obsParser) values(rec []string, line int) (values []float64, mask []bool, err error) {
	ns, nc := len(p.g.StateNames), len(p.g.Channels)
	values, mask = make([]float64, nc), make([]bool, nc)
	observed := 0
	for c := range nc {
		if p.col[ns+c] < 0 { // a channel the file has no column for
			continue
		}
		text := rec[p.col[ns+c]]
		if text == "" {
			continue
		}
		name := p.want[ns+c]
		v, err := parseCell(name, text)
		if err != nil {
			return nil, nil, p.bad(line, "%v%s%s", err, cellHint(rec, text), missingHint(text, nc))
		}
		if c < len(p.sane) && math.Abs(v) > p.sane[c] {
			return nil, nil, p.bad(line, "%s = %s is beyond the sane range |%s| ≤ %.4g (%d times the largest |%s| the system's training saw): check the units and the columns",
				name, fmtFloat(v), name, p.sane[c], core.SaneFactor, name)
		}
		values[c], mask[c] = v, true
		observed++
	}
	if observed > 0 {
		return values, mask, nil
	}
	var present []string // the file's channel columns, as its header names them
	for c := range nc {
		if p.col[ns+c] >= 0 {
			present = append(present, p.want[ns+c])
		}
	}
	if len(present) == 1 {
		return nil, nil, p.bad(line, "%s is empty%s", present[0], noValueHint)
	}
	return nil, nil, p.bad(line, "no observed value (%s are all empty)%s", strings.Join(present, ", "), noValueHint)
}

// place puts a state on the grid where it lies on it (within the grid's
// tolerance, a periodic coordinate wrapped), returning the state and its
// grid index (−1: off the grid), and refuses a second observation of a
// state.
func (p *obsParser) place(state []float64, line int) ([]float64, int, error) {
	g := p.g
	written := state
	state, wrapped := p.loc.wrap(p.loc.intoDomain(state))
	unsnapped := state
	idx := p.loc.locate(state)
	key := stateKey(state, idx)
	if idx >= 0 {
		state = append([]float64(nil), g.States[idx]...) // exactly on the grid
	}
	if first, dup := p.firstRows[key]; dup {
		at, same := describeState(g, state), ""
		switch w := describeState(g, written); {
		case w != at:
			same = ", " + sameStateNote(at, wrapped, idx)
			at = w
		case first.written != "" && first.written != at:
			// The first row is the one written otherwise: say how it
			// reads, or the user finds no such state on its line.
			same = ": " + first.written + ", " + first.note
		}
		return nil, 0, p.bad(line, "duplicate observation at %s (first at line %d%s); give each state once, with all its channels in one row", at, first.line, same)
	}
	if err := p.nearDuplicate(unsnapped, written, line); err != nil {
		return nil, 0, err
	}
	first := firstRow{line: line}
	if !slices.Equal(written, state) {
		first.written = describeState(g, written)
		first.note = sameStateNote(describeState(g, state), wrapped, idx)
	}
	p.firstRows[key] = first
	return state, idx, nil
}

// firstRow is the first row of a state: its line and, when it was
// written other than as the state it stands for (a periodic coordinate
// wrapped, a point moved onto the grid), how it reads and why it is
// that state, for the message about a later row of the same state.
type firstRow struct {
	line          int
	written, note string
}

// sameStateNote says why a row written otherwise is the state at (as
// describeState gives it): wrapped, a periodic coordinate wrapped
// around; idx ≥ 0, moved onto that grid point; else moved onto the
// domain's end.
func sameStateNote(at string, wrapped bool, idx int) string {
	switch {
	case wrapped:
		return "the same state as " + at + ", where the periodic domain wraps around"
	case idx >= 0:
		return "the grid point " + at + " within the grid's tolerance"
	default:
		return "the same state as " + at + " within the grid's tolerance"
	}
}

// nearDuplicate refuses the state written at line (wrapped: a periodic
// coordinate moved to the domain's lower end) when an earlier row's is
// the same up to rounding, and records it otherwise (obsnear.go).
func (p *obsParser) nearDuplicate(wrapped, written []float64, line int) error {
	forms := [][]float64{wrapped}
	if !slices.Equal(wrapped, written) {
		forms = append(forms, written)
	}
	for _, f := range forms {
		if first, dup := p.written.near(f); dup {
			return p.bad(line, "duplicate observation at %s: line %d has %s, the same state up to rounding "+
				"(states within %g of the domain's width in every coordinate are one); give each state once, with all its channels in one row",
				describeExact(p.g, written), first.line, describeExact(p.g, first.written), gridTol)
		}
	}
	for _, f := range forms {
		p.written.add(f, written, line)
	}
	return nil
}

// headerColumns maps each column of g's observation files (obsHeader)
// to its column in header (−1 for a channel the file leaves out), or
// explains what is wrong with the header. A header field may name a
// column or one of its aliases (sims.ColumnAlias). The state columns
// are required; of the channels after them, one is enough (lv's
// t,prey: predators not observed, as an empty cell says row by row).
func headerColumns(header []string, g sims.Grid) ([]int, error) {
	want, ns := obsHeader(g), len(g.StateNames)
	wantText := strings.Join(want, ",")
	accepted := acceptedText(g)
	if len(header) == 1 {
		if d := foreignDelimiter(header); d != "" {
			return nil, fmt.Errorf("header %s: fields are separated by %s, want commas (%q)", core.QuoteInput(header[0]), d, wantText)
		}
	}
	if numberSyntax(header[0]) {
		return nil, fmt.Errorf("missing header row %q (the first row holds numbers)", wantText)
	}
	index := map[string]int{}
	for i, w := range want {
		index[w] = i
	}
	names, lone := g.HeaderColumns(header)
	col := make([]int, len(want))
	for i := range col {
		col[i] = -1
	}
	for j, h := range header {
		i, ok := index[names[j]]
		switch {
		case h == "":
			return nil, fmt.Errorf("header %s has an empty column name (want %s)", core.QuoteInput(strings.Join(header, ",")), accepted)
		case !ok && slices.Contains(lone, h):
			return nil, loneAliasError(g, h, accepted)
		case !ok:
			return nil, fmt.Errorf("unknown column %s (want %s)%s", core.QuoteInput(h), accepted, unitsColumnHint(h, g))
		case col[i] >= 0 && !strings.EqualFold(header[col[i]], h):
			return nil, fmt.Errorf("columns %s and %s both name %s (want %s)", core.QuoteInput(header[col[i]]), core.QuoteInput(h), want[i], accepted)
		case col[i] >= 0:
			return nil, fmt.Errorf("column %s appears twice (want %s)", core.QuoteInput(h), accepted)
		}
		col[i] = j
	}
	var missing []string
	channels := 0
	for i, c := range col {
		switch {
		case c >= 0 && i >= ns:
			channels++
		case c < 0 && i < ns:
			missing = append(missing, want[i])
		}
	}
	if channels == 0 {
		missing = append(missing, want[ns:]...)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing column %s (want %s)", strings.Join(missing, ", "), accepted)
	}
	return col, nil
}

// acceptedText is the quoted header of g's observation files and the
// aliases its columns may be given instead: "t,prey,predator", or time
// for t, predators for predator, x,y for prey,predator.
func acceptedText(g sims.Grid) string {
	text := fmt.Sprintf("%q", strings.Join(obsHeader(g), ","))
	var alone []string
	var pairAliases, pairColumns []string
	for _, a := range g.Aliases {
		if a.Paired {
			pairAliases, pairColumns = append(pairAliases, a.Alias), append(pairColumns, a.Column)
		} else {
			alone = append(alone, a.Alias+" for "+a.Column)
		}
	}
	if len(pairAliases) > 0 {
		alone = append(alone, strings.Join(pairAliases, ",")+" for "+strings.Join(pairColumns, ","))
	}
	if len(alone) == 0 {
		return text
	}
	return text + ", or " + strings.Join(alone, ", ")
}

// loneAliasError refuses the paired alias h (lv's y) in a header without
// its partners: alone it may be another system's column (spring's t,y),
// so it is not read as this grid's, and the error says what to write.
func loneAliasError(g sims.Grid, h, accepted string) error {
	var column string
	var partners []string
	for _, a := range g.Aliases {
		switch {
		case !a.Paired:
		case strings.EqualFold(a.Alias, h):
			column = a.Column
		default:
			partners = append(partners, strconv.Quote(a.Alias))
		}
	}
	return fmt.Errorf("column %s is read as %s only beside %s; alone it is ambiguous, another system's column name: name it %q (want %s)",
		core.QuoteInput(h), column, strings.Join(partners, " and "), column, accepted)
}

// columnLabels names each of want's columns in the row errors: as the
// file's header spells an alias (x = "abc" is not a number, where the
// header says x for prey), else by its own name.
func columnLabels(want, header []string, col []int) []string {
	labels := append([]string(nil), want...)
	for i, c := range col {
		if c >= 0 && !strings.EqualFold(header[c], want[i]) {
			labels[i] = header[c]
		}
	}
	return labels
}

// cellHint explains why text, a cell of rec that is not a number, is
// none, or returns "": rec is a row separated by semicolons with
// decimal commas (0;1,5 read as the cells "0;1" and "5"), text is a
// number with a decimal comma (a quoted "0,5"), or a number followed
// by a comment (0.5 # gauge 2).
func cellHint(rec []string, text string) string {
	if hint := semicolonDecimalHint(strings.Join(rec, ","), len(rec)); hint != "" {
		return "; " + hint
	}
	if hint := decimalCommaCellHint(text); hint != "" {
		return "; " + hint
	}
	return trailingCommentHint(text)
}

// trailingCommentHint says, as "; ...", that text is a number followed
// by a # comment, which the files do not read after data (only whole
// lines are comments); or returns "".
func trailingCommentHint(text string) string {
	before, _, found := strings.Cut(text, "#")
	if !found || !numberSyntax(strings.TrimSpace(before)) {
		return ""
	}
	return "; a comment may only take a whole line (one that starts with #), not follow a value"
}

// missingMarkers are what spreadsheets, R (NA), pandas and NumPy (nan)
// and databases (NULL) write for a value that was not measured, in
// lower case.
var missingMarkers = []string{"na", "n/a", "#n/a", "nan", "null", "none", "missing", "-", "?"}

// isMissingMarker reports whether text is one of missingMarkers.
func isMissingMarker(text string) bool {
	return slices.Contains(missingMarkers, strings.ToLower(text))
}

// missingHint says, as "; ...", how a file says that a channel was not
// measured, when text, a channel's cell, is one of missingMarkers; or
// returns "". With more than one channel an empty cell does (the row
// keeps the others); with one, the row has nothing to give.
func missingHint(text string, channels int) string {
	if !isMissingMarker(text) {
		return ""
	}
	if channels > 1 {
		return "; if it marks a value not measured, leave the cell empty"
	}
	return "; if it marks a value not measured, leave the row out"
}

// foreignDelimiter names the separator of a row that was evidently split
// with something other than commas (semicolons or tabs, as spreadsheets
// in many locales write), or returns "".
func foreignDelimiter(rec []string) string {
	for _, f := range rec {
		switch {
		case strings.Contains(f, ";"):
			return "semicolons"
		case strings.Contains(f, "\t"):
			return "tabs"
		case strings.Contains(f, "|"):
			return "'|'"
		}
	}
	return ""
}

// parseCell parses one numeric cell of column name (parseNumber's
// grammar).
func parseCell(name, text string) (float64, error) {
	v, err := parseNumber(text)
	if err != nil {
		return 0, fmt.Errorf("%s = %w", name, err)
	}
	return v, nil
}

// describeState formats a state as "t = 1.5, x = 0.25".
func describeState(g sims.Grid, state []float64) string {
	parts := make([]string, len(state))
	for d, v := range state {
		n := fmt.Sprintf("s%d", d)
		if d < len(g.StateNames) {
			n = g.StateNames[d]
		}
		parts[d] = n + " = " + strconv.FormatFloat(v, 'g', 6, 64)
	}
	return strings.Join(parts, ", ")
}

// stateKey identifies a state for duplicate detection: its grid point, or
// its exact coordinates off the grid.
func stateKey(state []float64, idx int) string {
	if idx >= 0 {
		return "g" + strconv.Itoa(idx)
	}
	var b strings.Builder
	for _, v := range state {
		b.WriteString(strconv.FormatUint(math.Float64bits(v+0), 16)) // +0 folds −0 into 0
		b.WriteByte(',')
	}
	return b.String()
}

// gridTol is the relative tolerance (of the domain width) within which a
// state counts as sitting on a grid point: files written with ten or more
// significant digits land on the grid.
const gridTol = 1e-9

// gridLocator finds the grid point a state coincides with. Product grids
// and one-dimensional grids are searched axis by axis; any other grid
// point by point.
type gridLocator struct {
	g      sims.Grid
	axes   [][]float64 // per state dimension (product or 1-D grids); nil otherwise
	stride []int
	tol    []float64
}

func newGridLocator(g sims.Grid) gridLocator {
	l := gridLocator{g: g, tol: make([]float64, len(g.StateNames))}
	for d := range l.tol {
		width := 1.0
		if d < len(g.Lo) && d < len(g.Hi) {
			width = max(width, g.Hi[d]-g.Lo[d])
		}
		l.tol[d] = gridTol * width
	}
	if g.Points() == 0 {
		return l
	}
	switch {
	case len(g.Shape) > 0 && len(g.Shape) == len(g.StateNames):
		l.axes = gridAxes(g)
		l.stride = make([]int, len(g.Shape))
		s := 1
		for d := len(g.Shape) - 1; d >= 0; d-- {
			l.stride[d] = s
			s *= g.Shape[d]
		}
	case len(g.Shape) == 0 && len(g.StateNames) == 1:
		l.axes = gridAxes(g)
		l.stride = []int{1}
	}
	return l
}

// inDomain returns coordinate d's value v inside its domain and whether
// it lies there: a value beyond a bound by no more than the grid's
// tolerance is that bound, as a state that close to a grid point is the
// grid point, so that a time computed with rounding (4.000000000000001
// for 4) is read as the end of the domain rather than refused.
func (l gridLocator) inDomain(d int, v float64) (float64, bool) {
	lo, hi := l.g.Lo[d], l.g.Hi[d]
	switch {
	case v >= lo && v <= hi:
		return v, true
	case v < lo && lo-v <= l.tol[d]:
		return lo, true
	case v > hi && v-hi <= l.tol[d]:
		return hi, true
	}
	return v, false
}

// intoDomain returns state with each coordinate that lies beyond its
// bound within the tolerance moved onto the bound (inDomain).
func (l gridLocator) intoDomain(state []float64) []float64 {
	var moved []float64
	for d, v := range state {
		if d >= len(l.g.Lo) || d >= len(l.g.Hi) {
			continue
		}
		if in, _ := l.inDomain(d, v); in != v {
			if moved == nil {
				moved = append([]float64(nil), state...)
			}
			moved[d] = in
		}
	}
	if moved == nil {
		return state
	}
	return moved
}

// wrap returns state with each periodic coordinate at its domain's
// upper end (within the grid's tolerance) moved to the lower end, the
// same point (advdiff's x = 1 is x = 0), and whether any was: the
// refinement already reads it there, the encoder then does too, and a
// second observation of that point is a duplicate.
func (l gridLocator) wrap(state []float64) ([]float64, bool) {
	var wrapped []float64
	for d, v := range state {
		if l.g.IsPeriodic(d) && d < len(l.g.Hi) && math.Abs(v-l.g.Hi[d]) <= l.tol[d] {
			if wrapped == nil {
				wrapped = append([]float64(nil), state...)
			}
			wrapped[d] = l.g.Lo[d]
		}
	}
	if wrapped == nil {
		return state, false
	}
	return wrapped, true
}

// locate returns the index of the grid point at state, or -1.
func (l gridLocator) locate(state []float64) int {
	if l.axes == nil {
		for p, st := range l.g.States {
			if l.near(st, state) {
				return p
			}
		}
		return -1
	}
	idx := 0
	for d, axis := range l.axes {
		k := -1
		for i, a := range axis {
			if math.Abs(a-state[d]) <= l.tol[d] {
				k = i
				break
			}
		}
		if k < 0 {
			return -1
		}
		idx += k * l.stride[d]
	}
	return idx
}

func (l gridLocator) near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for d := range a {
		if math.Abs(a[d]-b[d]) > l.tol[d] {
			return false
		}
	}
	return true
}
