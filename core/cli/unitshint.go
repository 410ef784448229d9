package cli

import (
	"fmt"
	"strings"

	"apic/core"
	"apic/sims"
)

// Lab files often carry units: in a column's name ("t (s)", "y [mm]")
// or in a row of their own under the header ("s,mm"). The simulators
// are dimensionless, so neither can be read; these hints say what the
// file should hold instead of leaving "unknown column" or "not a
// number" to be puzzled over.

// unitsSuffixName returns name less a trailing unit annotation in
// parentheses or brackets ("t (s)", "y[mm]" → "t", "y"), and whether it
// had one.
func unitsSuffixName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	for _, p := range [][2]string{{"(", ")"}, {"[", "]"}} {
		if !strings.HasSuffix(name, p[1]) {
			continue
		}
		if i := strings.LastIndex(name, p[0]); i > 0 {
			return strings.TrimSpace(name[:i]), true
		}
	}
	return name, false
}

// unitsColumnHint is the "; ..." to add to the error about header
// column h when h is a name of one of g's columns (or an alias) with
// units after it, or "".
func unitsColumnHint(h string, g sims.Grid) string {
	base, ok := unitsSuffixName(h)
	if !ok {
		return ""
	}
	if names, _ := g.HeaderColumns([]string{base}); names[0] == "" {
		return ""
	}
	return fmt.Sprintf("; units are not read from a column's name: name it %s and give its values in the simulator's units", core.QuoteInput(base))
}

// unitsRowHint is the "; ..." to add to the error about the first row
// after the header when no field of rec holds a number and none is a
// marker of a value not measured (s,mm reads as units; NA,NA does
// not), or "".
func unitsRowHint(rec []string) string {
	for _, f := range rec {
		if f == "" {
			continue
		}
		if _, err := parseNumber(f); err == nil || isMissingMarker(f) {
			return ""
		}
	}
	return "; a row of units under the header? delete it or start it with # (a comment)"
}
