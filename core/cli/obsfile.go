package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"apic/sims"
)

// An observation file (../shared/BENCHMARKS.md, "Observation files") is a
// CSV with a header row naming the grid's state dimensions followed by its
// channels, e.g.
//
//	t,y              (spring)
//	t,prey,predator  (lv; an empty channel cell means "not observed")
//	t,x,u            (advdiff)
//
// and one observation per row, at any state inside the grid's domain (not
// only at grid points) and in any order. Columns may come in any order;
// names match case-insensitively. Everything about the layout is derived
// from sims.Grid, so a new system needs no change here.

// stdinName labels errors in observations read from standard input.
const stdinName = "<stdin>"

// readObservations reads the observation file at path for grid g; path
// "-" reads stdin. Every problem with the file is a UsageError.
func readObservations(path string, stdin io.Reader, g sims.Grid) (sims.Context, error) {
	if path == "-" {
		return parseObservations(stdin, stdinName, g)
	}
	f, err := openInput("--data", path)
	if err != nil {
		return sims.Context{}, err
	}
	defer f.Close()
	return parseObservations(f, path, g)
}

// openInput opens the input file a flag names. Its errors are usage
// errors naming the flag; so is a directory, which would otherwise fail
// only at the first read, with a message that names neither the flag
// nor the cause plainly.
func openInput(flag, path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, UsageError("%s: %v", flag, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, UsageError("%s: %s is a directory", flag, path)
	}
	return f, nil
}

// obsHeader is the expected header of g's observation files.
func obsHeader(g sims.Grid) []string {
	return append(append([]string(nil), g.StateNames...), g.Channels...)
}

// parseObservations parses an observation CSV for grid g. name labels the
// errors, which are UsageErrors of the form "name:line: problem". On
// success every observation has a finite state inside the domain, at least
// one observed channel and finite observed values; GridIndex is the grid
// point the state coincides with (within gridTol), or -1.
func parseObservations(r io.Reader, name string, g sims.Grid) (sims.Context, error) {
	want := obsHeader(g)
	wantText := strings.Join(want, ",")
	bad := func(line int, format string, args ...any) error {
		return UsageError("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}

	br := bufio.NewReader(r)
	// A text CSV has no NUL bytes; catching binary data up front gives a
	// clearer message than the CSV reader's complaint about quotes.
	if head, _ := br.Peek(4096); bytes.IndexByte(head, 0) >= 0 {
		return sims.Context{}, UsageError("%s: not a CSV text file (binary data); want a header %q and one observation per row", name, wantText)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // count fields ourselves for a clearer message
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	read := func() (rec []string, line int, err error) {
		rec, err = cr.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, pe.Line, bad(pe.Line, "not valid CSV: %v", pe.Err)
			}
			if err == io.EOF {
				return nil, 0, err
			}
			return nil, 0, UsageError("%s: %v", name, err)
		}
		line, _ = cr.FieldPos(0)
		for i := range rec {
			if !utf8.ValidString(rec[i]) || strings.IndexByte(rec[i], 0) >= 0 {
				return nil, line, bad(line, "not a CSV text file (binary data)")
			}
			rec[i] = strings.TrimSpace(rec[i])
		}
		return rec, line, nil
	}

	header, line, err := read()
	switch {
	case err == io.EOF:
		return sims.Context{}, UsageError("%s: empty file; want a header %q and one observation per row", name, wantText)
	case err != nil:
		return sims.Context{}, err
	}
	header = append([]string(nil), header...)                              // ReuseRecord
	header[0] = strings.TrimSpace(strings.TrimPrefix(header[0], "\ufeff")) // spreadsheet BOM
	col, err := headerColumns(header, want)
	if err != nil {
		return sims.Context{}, bad(line, "%v", err)
	}

	ns, nc := len(g.StateNames), len(g.Channels)
	loc := newGridLocator(g)
	var ctx sims.Context
	firstLine := map[string]int{} // duplicate key → line of its first row
	for {
		rec, line, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sims.Context{}, err
		}
		if len(rec) != len(want) {
			msg := fmt.Sprintf("%d fields, want %d (%s)", len(rec), len(want), wantText)
			if d := foreignDelimiter(rec); d != "" {
				msg += "; fields are separated by " + d + ", want commas"
			}
			return sims.Context{}, bad(line, "%s", msg)
		}
		state := make([]float64, ns)
		for d := range ns {
			text := rec[col[d]]
			if text == "" {
				return sims.Context{}, bad(line, "%s is empty", want[d])
			}
			v, err := parseCell(want[d], text)
			if err != nil {
				return sims.Context{}, bad(line, "%v", err)
			}
			if d < len(g.Lo) && d < len(g.Hi) && (v < g.Lo[d] || v > g.Hi[d]) {
				return sims.Context{}, bad(line, "%s = %s is outside the domain [%s, %s]", want[d], text, fmtFloat(g.Lo[d]), fmtFloat(g.Hi[d]))
			}
			state[d] = v
		}
		values, mask := make([]float64, nc), make([]bool, nc)
		observed := 0
		for c := range nc {
			text := rec[col[ns+c]]
			if text == "" {
				continue
			}
			v, err := parseCell(want[ns+c], text)
			if err != nil {
				return sims.Context{}, bad(line, "%v", err)
			}
			values[c], mask[c] = v, true
			observed++
		}
		if observed == 0 {
			if nc == 1 {
				return sims.Context{}, bad(line, "%s is empty", g.Channels[0])
			}
			return sims.Context{}, bad(line, "no observed value (%s are all empty)", strings.Join(g.Channels, ", "))
		}
		idx := loc.locate(state)
		key := stateKey(state, idx)
		if idx >= 0 {
			state = append([]float64(nil), g.States[idx]...) // exactly on the grid
		}
		if first, dup := firstLine[key]; dup {
			return sims.Context{}, bad(line, "duplicate observation at %s (first at line %d); give each state once, with all its channels in one row", describeState(g, state), first)
		}
		firstLine[key] = line
		ctx.States = append(ctx.States, state)
		ctx.Values = append(ctx.Values, values)
		ctx.Mask = append(ctx.Mask, mask)
		ctx.GridIndex = append(ctx.GridIndex, idx)
	}
	if ctx.Len() == 0 {
		return sims.Context{}, UsageError("%s: no observations after the header %q", name, wantText)
	}
	return ctx, nil
}

// headerColumns maps each wanted name to its column in header, or explains
// what is wrong with the header.
func headerColumns(header, want []string) ([]int, error) {
	wantText := strings.Join(want, ",")
	if len(header) == 1 {
		if d := foreignDelimiter(header); d != "" {
			return nil, fmt.Errorf("header %q: fields are separated by %s, want commas (%q)", header[0], d, wantText)
		}
	}
	if numberSyntax(header[0]) {
		return nil, fmt.Errorf("missing header row %q (the first row holds numbers)", wantText)
	}
	index := map[string]int{}
	for i, w := range want {
		index[strings.ToLower(w)] = i
	}
	col := make([]int, len(want))
	for i := range col {
		col[i] = -1
	}
	for j, h := range header {
		i, ok := index[strings.ToLower(h)]
		switch {
		case h == "":
			return nil, fmt.Errorf("header %q has an empty column name (want %q)", strings.Join(header, ","), wantText)
		case !ok:
			return nil, fmt.Errorf("unknown column %q (want %q)", h, wantText)
		case col[i] >= 0:
			return nil, fmt.Errorf("column %q appears twice (want %q)", h, wantText)
		}
		col[i] = j
	}
	var missing []string
	for i, c := range col {
		if c < 0 {
			missing = append(missing, want[i])
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing column %s (want %q)", strings.Join(missing, ", "), wantText)
	}
	return col, nil
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
