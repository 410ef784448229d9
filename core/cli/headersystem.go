package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"apic/sims"
)

// headerSystems are the systems whose observation files a header of
// fields is, but for those whose grid's header is skip's (the system it
// was read for; nil for none). One file's header names a system: t,y is
// spring's, t,prey,predator lv's, t,x,u advdiff's.
func headerSystems(fields []string, skip *sims.Grid) []string {
	var out []string
	for _, name := range sims.Names() {
		sys, err := sims.Lookup(name)
		if err != nil {
			continue
		}
		g := sys.Grid()
		want := obsHeader(g)
		if skip != nil && slices.Equal(want, obsHeader(*skip)) {
			continue
		}
		if _, err := headerColumns(fields, g); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// headerSystemHint is "; "t,prey,predator" is the header of lv's
// observations: calibrate them with a model of lv (--system lv, or
// --checkpoint FILE trained on lv)" for a
// header that another system's files have, "" for one that none has.
// skip is as for headerSystems. A user who typed --system spring, or a
// spring --checkpoint, for lv's data, or no system at all, learns which
// one the file is of.
func headerSystemHint(fields []string, skip *sims.Grid) string {
	names := headerSystems(fields, skip)
	if len(names) == 0 {
		return ""
	}
	flags := make([]string, len(names))
	for i, n := range names {
		flags[i] = "--system " + n
	}
	// Both ways to pick the model are named: the user may have given
	// --checkpoint, for which "--system lv" alone would clash.
	return fmt.Sprintf("; %q is the header of %s's observations: calibrate them with a model of %s (%s, or --checkpoint FILE trained on %[3]s)",
		strings.Join(fields, ","), strings.Join(names, "'s or "), strings.Join(names, " or "), strings.Join(flags, " or "))
}

// dataSystemHint is headerSystemHint for the header of the --data file
// at path, read for the purpose (not stdin, which only one read may
// take); "" where the file or its header does not tell.
func dataSystemHint(ctx context.Context, path string) string {
	if path == "-" {
		return ""
	}
	f, err := openInput(ctx, "--data", path)
	if err != nil {
		return ""
	}
	defer f.Close()
	recs := newCSVRecords(ctx, io.LimitReader(f, 1<<20), path)
	defer recs.Close()
	if recs.looksBinary() {
		return ""
	}
	header, _, err := recs.next()
	if err != nil {
		return ""
	}
	return headerSystemHint(append([]string(nil), header...), nil)
}
