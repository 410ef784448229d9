package cli

import (
	"context"
	"fmt"
	"io"
	"math"
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
// [lo, hi].
type sideAxis struct {
	pos    []float64
	lo, hi float64
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
// stdin): a header row "x,u" (in any case), then one row per position in
// increasing x, si.Len rows in all. A cancelled ctx ends the wait for
// input with an interruptedError.
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
		return nil, UsageError("%s: not a CSV text file (binary data); want a header \"x,u\" and %d rows", name, n)
	}

	header, line, err := read()
	switch {
	case err == io.EOF:
		return nil, UsageError("%s: %s, want a header \"x,u\" and %d rows", name, recs.noRecordWhat(), n)
	case err != nil:
		return nil, err
	}
	if !isSideHeader(header) {
		header = append([]string(nil), header...) // ReuseRecord: headerHint may read on
		hint := headerHint(recs, header, isSideHeader)
		if numberSyntax(header[0]) {
			return nil, bad(line, "missing header row \"x,u\"%s", hint)
		}
		return nil, bad(line, "header is %s, want \"x,u\"%s", core.QuoteInput(strings.Join(header, ",")), hint)
	}

	values := make([]float64, 0, n)
	prevX := math.Inf(-1)
	for {
		rec, line, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != 2 {
			if hint := sideFieldsHint(rec); hint != "" {
				return nil, bad(line, "%s, want 2 (x,u); %s", core.Count(len(rec), "field"), hint)
			}
			return nil, bad(line, "%s, want 2 (x,u)", core.Count(len(rec), "field"))
		}
		if len(values) == n {
			return nil, bad(line, "more than %d data rows", n)
		}
		var xu [2]float64
		for i, col := range [2]string{"x", "u"} {
			v, err := parseCell(col, rec[i])
			if err != nil {
				if hint := semicolonDecimalHint(strings.Join(rec, ","), 2); hint != "" {
					return nil, bad(line, "%v; %s", err, hint)
				}
				return nil, bad(line, "%v", err)
			}
			xu[i] = v
		}
		x, u := xu[0], xu[1]
		if axis.pos != nil {
			if want := axis.pos[len(values)]; math.Abs(x-want) > positionTol {
				return nil, bad(line, "x = %s, want grid position %d at x = %s", fmtFloat(x), len(values), fmtFloat(want))
			}
		} else {
			if x <= prevX {
				return nil, bad(line, "x = %s does not increase (previous x = %s)", fmtFloat(x), fmtFloat(prevX))
			}
			if x < axis.lo || x > axis.hi {
				return nil, bad(line, "x = %s outside the domain [%s, %s]", fmtFloat(x), fmtFloat(axis.lo), fmtFloat(axis.hi))
			}
			prevX = x
		}
		if math.Abs(u) > sane {
			return nil, bad(line, "u = %s is beyond the sane range |u| ≤ %.4g (%d times the largest |%s| the system's training saw): check the units and the columns", fmtFloat(u), sane, core.SaneFactor, si.Name)
		}
		values = append(values, u)
	}
	if len(values) != n {
		return nil, UsageError("%s: %d data rows, want %d", name, len(values), n)
	}
	return values, nil
}

// isSideHeader reports whether fields are the header of a side
// information file: x,u, the names matched case-insensitively, as in
// observation files ("X,U").
func isSideHeader(fields []string) bool {
	return len(fields) == 2 && strings.EqualFold(fields[0], "x") && strings.EqualFold(fields[1], "u")
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
