package cli

import (
	"cmp"
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

// positionTol is how far a file's x may be from the grid position it
// stands for (positions are written with at least ~10 significant digits).
const positionTol = 1e-9

// sideAxis says where a field of side information lives: at the known
// grid positions pos (when non-nil), or else anywhere increasing in
// [lo, hi]. On a periodic axis (advdiff's x) hi is lo again, as it is
// in an observations file.
type sideAxis struct {
	pos      []float64
	lo, hi   float64
	periodic bool
}

// sideAxisOf finds the positions of a system's side-information field
// without knowing the system: on a product grid whose last axis has as
// many points as the side information, the field lives on that axis (an
// initial condition u0(x) of a (t, x) grid). Otherwise only the range of
// the last state dimension is known.
func sideAxisOf(g sims.Grid, n int) sideAxis {
	a := sideAxis{lo: math.Inf(-1), hi: math.Inf(1)}
	if k := len(g.Lo); k > 0 && len(g.Hi) == k {
		a.lo, a.hi = g.Lo[k-1], g.Hi[k-1]
		a.periodic = g.IsPeriodic(k - 1)
	}
	if len(g.Shape) >= 2 && g.Shape[len(g.Shape)-1] == n && len(g.States) >= n {
		a.pos = make([]float64, n)
		for i := range n {
			st := g.States[i] // the first n points run along the last axis
			a.pos[i] = st[len(st)-1]
		}
	}
	return a
}

// readSideCSV reads the side information si from the CSV file path ("-":
// stdin): a header row "x,u" or "u,x" (in any case), then one row per position,
// si.Len rows in all, in any order: each row's x says where its u goes
// (sorted by x where the grid's positions are not known). A cancelled
// ctx ends the wait for input with an interruptedError.
func readSideCSV(ctx context.Context, path string, si sims.SideInfo, axis sideAxis) ([]float64, error) {
	if path == "-" {
		return parseSideCSV(ctx, stdin, stdinName, si, axis)
	}
	f, err := openInput(ctx, "--u0-file", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseSideCSV(ctx, f, path, si, axis)
}

// parseSideCSV is readSideCSV on an open reader; name labels the errors,
// which are usage errors of the form "name:line: problem". Values of u
// beyond core.SaneSideBound are refused.
func parseSideCSV(ctx context.Context, r io.Reader, name string, si sims.SideInfo, axis sideAxis) ([]float64, error) {
	n, sane := si.Len, core.SaneSideBound(si)
	recs := newCSVRecords(ctx, r, name)
	defer recs.Close()
	recs.in.sizeWhy = fmt.Sprintf("the bound of every input file; a --u0-file is a header and %d rows of x,u, a few kilobytes", n)
	bad, read := recs.bad, recs.next
	if recs.looksBinary() {
		return nil, UsageError("%s: not a CSV text file (%s); want a header \"x,u\" and %d rows", name, recs.binaryKind(), n)
	}

	header, line, err := read()
	switch {
	case err == io.EOF:
		return nil, UsageError("%s: %s, want a header \"x,u\" and %d rows", name, recs.noRecordWhat(), n)
	case err != nil:
		return nil, err
	}
	order, ok := sideColumns(header)
	if !ok {
		header = append([]string(nil), header...) // ReuseRecord: headerHint may read on
		hint := headerHint(recs, header, isSideHeader)
		if numberSyntax(header[0]) {
			return nil, bad(line, "missing header row \"x,u\"%s", hint)
		}
		return nil, bad(line, "header is %s, want \"x,u\"%s", core.QuoteInput(strings.Join(header, ",")), hint)
	}

	rows, err := readSideRows(recs, si, sane, order)
	if err != nil {
		return nil, err
	}
	var values []float64
	if axis.pos != nil {
		values, err = placeOnPositions(rows, axis, bad)
	} else {
		values, err = sortedByX(rows, axis, bad)
	}
	switch {
	case err != nil:
		return nil, err
	case len(rows) > n: // after the checks, which may say why (a position twice)
		return nil, bad(rows[n].line, "more than %d data rows", n)
	case len(rows) < n && axis.pos != nil:
		missing := slices.IndexFunc(values, math.IsNaN)
		return nil, UsageError("%s: %d data rows, want %d (one per grid position): none for position %d at x = %s", name, len(rows), n, missing, fmtFloat(axis.pos[missing]))
	case len(rows) < n:
		return nil, UsageError("%s: %d data rows, want %d", name, len(rows), n)
	}
	return values, nil
}

// sideRow is a data row of a side-information file: x, u and its line.
type sideRow struct {
	x, u float64
	line int
}

// readSideRows reads the data rows of a side-information file after its
// header: two numbers each, u within sane. It stops at the row after
// si.Len, which is one too many; the caller says so, unless that row
// repeats a position, which says more.
func readSideRows(recs *csvRecords, si sims.SideInfo, sane float64, order sideOrder) ([]sideRow, error) {
	bad := recs.bad
	var rows []sideRow
	for {
		rec, line, err := recs.next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != 2 {
			if hint := cmp.Or(sideFieldsHint(rec), controlCharHint(rec)); hint != "" {
				return nil, bad(line, "%s, want 2 (%s); %s", core.Count(len(rec), "field"), order.names(), hint)
			}
			return nil, bad(line, "%s, want 2 (%s)", core.Count(len(rec), "field"), order.names())
		}
		var xu [2]float64
		for i, col := range [2]string{"x", "u"} {
			v, err := parseCell(col, rec[order[i]])
			if err != nil {
				if hint := semicolonDecimalHint(strings.Join(rec, ","), 2); hint != "" {
					return nil, bad(line, "%v; %s", err, hint)
				}
				return nil, bad(line, "%v", err)
			}
			xu[i] = v
		}
		if math.Abs(xu[1]) > sane {
			return nil, bad(line, "u = %s is beyond the sane range |u| ≤ %.4g (%d times the largest |%s| the system's training saw): check the units and the columns", fmtFloat(xu[1]), sane, core.SaneFactor, si.Name)
		}
		rows = append(rows, sideRow{x: xu[0], u: xu[1], line: line})
		if len(rows) > si.Len {
			return rows, nil
		}
	}
}

// placeOnPositions puts each row's u at the grid position of axis its
// x names (within positionTol; on a periodic axis x = hi names the
// position at lo), in whatever order the rows come, each position once;
// a position no row names is NaN.
func placeOnPositions(rows []sideRow, axis sideAxis, bad func(int, string, ...any) error) ([]float64, error) {
	pos := axis.pos
	values := make([]float64, len(pos))
	for k := range values {
		values[k] = math.NaN()
	}
	first := make([]sideRow, len(pos)) // line 0: no row yet
	wrapNote := func(x float64) string {
		if axis.periodic && math.Abs(x-axis.hi) <= positionTol {
			return fmt.Sprintf(" (x = %s, where the periodic domain wraps around)", fmtFloat(axis.lo))
		}
		return ""
	}
	for _, r := range rows {
		x, wrap := r.x, wrapNote(r.x)
		if wrap != "" {
			x = axis.lo
		}
		k := nearestPosition(pos, x)
		switch {
		case x < axis.lo-positionTol || x > axis.hi+positionTol:
			// Not "no grid position, the nearest is ...": on a periodic
			// axis the nearest position by distance is not the one the
			// wrap-around would suggest, and the domain is what is wrong.
			return nil, bad(r.line, "x = %s is outside the domain [%s, %s]", fmtFloat(r.x), fmtFloat(axis.lo), fmtFloat(axis.hi))
		case math.Abs(x-pos[k]) > positionTol:
			return nil, bad(r.line, "x = %s is no grid position (the nearest is position %d at x = %s)", fmtFloat(r.x), k, fmtFloat(pos[k]))
		case first[k].line != 0:
			// Quote the first row's x when it wrapped around: its line
			// reads x = 1, not the position's x = 0.
			was := ""
			if wrapNote(first[k].x) != "" && wrap == "" {
				was = fmt.Sprintf(": x = %s, which is x = %s, where the periodic domain wraps around", fmtFloat(first[k].x), fmtFloat(axis.lo))
			}
			return nil, bad(r.line, "x = %s is grid position %d%s again (first at line %d%s); give each position once", fmtFloat(r.x), k, wrap, first[k].line, was)
		}
		values[k], first[k] = r.u, r
	}
	return values, nil
}

// nearestPosition is the index of the position of pos nearest x.
func nearestPosition(pos []float64, x float64) int {
	best := 0
	for k, p := range pos {
		if math.Abs(x-p) < math.Abs(x-pos[best]) {
			best = k
		}
	}
	return best
}

// sortedByX is the rows' u in increasing x, where the positions are not
// known: each x inside the axis's domain and given once.
func sortedByX(rows []sideRow, axis sideAxis, bad func(int, string, ...any) error) ([]float64, error) {
	for _, r := range rows {
		if r.x < axis.lo || r.x > axis.hi {
			return nil, bad(r.line, "x = %s outside the domain [%s, %s]", fmtFloat(r.x), fmtFloat(axis.lo), fmtFloat(axis.hi))
		}
	}
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b sideRow) int { return cmp.Compare(a.x, b.x) })
	for i := 1; i < len(sorted); i++ {
		if first, again := sorted[i-1], sorted[i]; again.x-first.x <= positionTol {
			if again.line < first.line {
				first, again = again, first
			}
			return nil, bad(again.line, "x = %s again (line %d has x = %s); give each position once", fmtFloat(again.x), first.line, fmtFloat(first.x))
		}
	}
	values := make([]float64, len(sorted))
	for i, r := range sorted {
		values[i] = r.u
	}
	return values, nil
}

// sideOrder is where a side information file's x and u are: their
// columns, x's first.
type sideOrder [2]int

// names is the header the order stands for: x,u or u,x.
func (o sideOrder) names() string {
	if o[0] == 0 {
		return "x,u"
	}
	return "u,x"
}

// sideColumns reads the header of a side information file: x,u or
// u,x, the names matched case-insensitively, as in observation files,
// whose columns may come in any order too.
func sideColumns(fields []string) (sideOrder, bool) {
	if len(fields) != 2 {
		return sideOrder{}, false
	}
	switch {
	case strings.EqualFold(fields[0], "x") && strings.EqualFold(fields[1], "u"):
		return sideOrder{0, 1}, true
	case strings.EqualFold(fields[0], "u") && strings.EqualFold(fields[1], "x"):
		return sideOrder{1, 0}, true
	}
	return sideOrder{}, false
}

// isSideHeader reports whether fields are the header of a side
// information file (sideColumns).
func isSideHeader(fields []string) bool {
	_, ok := sideColumns(fields)
	return ok
}

// sideFieldsHint explains a row of other than two fields that a
// spreadsheet wrote with decimal commas, separated by semicolons
// (0,5;1,5) or by commas (0,5,1,5), or returns "".
func sideFieldsHint(rec []string) string {
	if hint := semicolonDecimalHint(strings.Join(rec, ","), 2); hint != "" {
		return hint
	}
	return decimalCommaHint(rec, 2)
}

// fmtFloat formats v in the shortest form that reads back exactly.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
