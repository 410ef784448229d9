package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/stat/distuv"

	"apic/core"
)

// sweepMetrics are the headline metrics of results.csv and summary.json.
var sweepMetrics = []string{core.KeyReconMAE, core.KeyDeltaMAE, core.KeyThetaMAE, core.KeyReconECE, core.KeyDeltaECE, core.KeyReconLL, core.KeyThetaCover,
	onePassPrefix + core.KeyReconMAE, onePassPrefix + core.KeyDeltaMAE, onePassPrefix + core.KeyThetaMAE}

// metricRange is the interval of values sweep column k can take
// (core.MetricRange; one-pass columns share their metric's). The figure
// cuts the seeds' t intervals, which are symmetric about the mean and
// take no account of it, there (summary.json keeps them as computed).
func metricRange(k string) (lo, hi float64) {
	return core.MetricRange(strings.TrimPrefix(k, onePassPrefix))
}

// onePassPrefix names the metrics of a training cell's one-pass
// evaluation (eval-onepass.json); NaN in evaluation sweeps.
const onePassPrefix = "onepass_"

// sweepRow is one finished cell × seed.
type sweepRow struct {
	cell    sweepCell
	metrics map[string]float64
	// system, backbone, tasks, context and noise are its evaluation's,
	// for sweep.png's title.
	system, backbone string
	tasks, context   int
	noise            float64
	// failed counts the realizations of its evaluation (refined, or
	// one pass where more) whose prediction failed: left out of the
	// means, which results.csv does not show.
	failed int
}

// sweepGroup is one cell over its seeds.
type sweepGroup struct {
	Values  map[string]string        `json:"values"`
	Seeds   int                      `json:"seeds"`
	Metrics map[string]sweepInterval `json:"metrics"`
	order   []string                 // the axis values in axis order
}

// sweepInterval is a metric's mean over seeds and its t-based 95%
// interval; the interval is absent with one finite seed, the mean with
// none (a metric undefined for the cell).
type sweepInterval struct {
	Mean *float64 `json:"mean,omitempty"`
	Lo   *float64 `json:"ci95_lo,omitempty"`
	Hi   *float64 `json:"ci95_hi,omitempty"`
	N    int      `json:"n"`
}

type sweepSummary struct {
	Axes  []string     `json:"axes"`
	Cells []sweepGroup `json:"cells"`
}

// readSweep reads every finished cell under dir/cells, ordered by axis
// values (numerically where they are numbers) and seed.
func readSweep(dir string) (axes []string, rows []sweepRow, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, "cells"))
	if err != nil {
		return nil, nil, sweepDirError(dir, err)
	}
	byAxes := map[string][]string{} // the cells' names per list of axes
	for _, e := range entries {
		path := filepath.Join(dir, "cells", e.Name())
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			// A cell is a folder: a file beside them (notes, the
			// .DS_Store a file browser leaves) is none.
			continue
		}
		row, ok, err := readCell(path)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		names := make([]string, len(row.cell.Axes))
		for i, a := range row.cell.Axes {
			names[i] = a.Name
		}
		key := strings.Join(names, ",")
		if len(byAxes) == 0 {
			axes = names
		}
		byAxes[key] = append(byAxes[key], e.Name())
		rows = append(rows, row)
	}
	if len(byAxes) > 1 {
		return nil, nil, mixedSweepsError(dir, byAxes)
	}
	sortRows(axes, rows)
	if err := checkOneEvaluation(dir, axes, rows); err != nil {
		return nil, nil, err
	}
	return axes, rows, nil
}

// checkOneEvaluation refuses the cells of dir whose evaluations differ
// in what one sweep keeps the same in every cell: the system, the
// realizations (--tasks) and, unless an axis varies it, the backbone.
// Cells of two sweeps over the same axes, copied into one folder (the
// cells of --plan lines run on two machines, say), would otherwise be
// summarised as one sweep, their systems' metrics averaged together.
func checkOneEvaluation(dir string, axes []string, rows []sweepRow) error {
	if len(rows) == 0 {
		return nil
	}
	first := rows[0]
	backboneVaries := slices.Contains(axes, "backbone") || slices.Contains(axes, "checkpoint")
	for _, r := range rows[1:] {
		what, a, b := "", "", ""
		switch {
		case r.system != first.system:
			what, a, b = "system", first.system, r.system
		case r.tasks != first.tasks:
			what, a, b = "number of realizations (--tasks)", strconv.Itoa(first.tasks), strconv.Itoa(r.tasks)
		case r.backbone != first.backbone && !backboneVaries:
			what, a, b = "backbone", first.backbone, r.backbone
		default:
			continue
		}
		return fmt.Errorf("%s/cells holds the cells of more than one sweep, and a folder holds one: the cell %s was evaluated with %s %s, the cell %s with %s; "+
			"move each sweep's cells to a folder of its own (DIR/cells/ID) and collect them apart",
			dir, first.cell.ID, what, core.QuoteInput(a), r.cell.ID, core.QuoteInput(b))
	}
	return nil
}

// mixedSweepsError says that dir/cells holds the cells of more than one
// sweep (cells by their lists of axes), naming each group's cells, so
// that they can be moved apart: a folder written before sweep refused
// to run another sweep into it.
func mixedSweepsError(dir string, byAxes map[string][]string) error {
	var groups []string
	for _, key := range slices.Sorted(maps.Keys(byAxes)) {
		cells := byAxes[key]
		shown := cells[:min(len(cells), 3)]
		more := ""
		if len(cells) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(cells)-len(shown))
		}
		groups = append(groups, fmt.Sprintf("%s varying %s (%s%s)", core.Count(len(cells), "cell"), key, strings.Join(shown, ", "), more))
	}
	return fmt.Errorf("%s/cells holds the cells of %d sweeps, and a folder holds one: %s; move each sweep's cells to a folder of its own (DIR/cells/ID) and collect them apart",
		dir, len(groups), strings.Join(groups, "; "))
}

// checkSweepDir refuses a --collect folder that is no sweep's --out:
// missing, not a folder, or without a cells folder. A preset's --out,
// whose studies have the cells folders, is one; one that holds both, a
// sweep's cells and a preset's studies, is not: the one collected would
// hide the other.
func checkSweepDir(dir string) error {
	_, err := os.ReadDir(filepath.Join(dir, "cells"))
	studies, name, study := presetOf(dir)
	switch {
	case studies != nil && err == nil:
		return UsageError("--collect %s holds both a sweep (%s) and the studies of --preset %s (%s), and a folder holds one of them: "+
			"move the sweep's cells folder, or the studies' folders, to a folder of its own and collect each apart",
			dir, filepath.Join(dir, "cells"), name, study)
	case studies == nil && err != nil:
		return sweepDirError(dir, err)
	}
	return nil
}

// sweepDirError says, as a usage error, why dir/cells could not be read
// (err): dir missing, not a folder, no sweep's, or unreadable.
func sweepDirError(dir string, err error) error {
	st, serr := os.Stat(dir)
	switch {
	case errors.Is(serr, fs.ErrNotExist):
		return UsageError("--collect %s: no such folder (give the --out DIR of a sweep)", dir)
	case serr == nil && !st.IsDir():
		return UsageError("--collect %s is a file, not a folder (give the --out DIR of a sweep)", dir)
	case serr == nil && errors.Is(err, fs.ErrNotExist):
		return UsageError("--collect %s has no cells folder: not the --out DIR of a sweep, or no cell of it has started", dir)
	case serr != nil:
		return UsageError("--collect %s: %v", dir, serr)
	}
	return UsageError("--collect %s: cannot read its cells: %v", dir, err)
}

// readCell reads one cell directory; ok is false for an unfinished cell.
func readCell(dir string) (row sweepRow, ok bool, err error) {
	result, err := readCellFile(filepath.Join(dir, "eval.json"))
	if errors.Is(err, os.ErrNotExist) || err == nil && len(result) == 0 {
		return row, false, nil // an empty one is no result (evalWritten)
	} else if err != nil {
		return row, false, err
	}
	meta, err := readCellFile(filepath.Join(dir, "cell.json"))
	if errors.Is(err, os.ErrNotExist) {
		return row, false, fmt.Errorf("the cell %s is finished (eval.json) but has no cell.json, which names its values in the results: "+
			"remove that cell's folder (%s) and rerun its sweep to run it again", filepath.Base(dir), dir)
	} else if err != nil {
		return row, false, err // it names the file
	}
	if row.cell, err = parseCellJSON(meta); err == nil {
		err = checkCellID(row.cell, filepath.Base(dir))
	}
	if err != nil {
		return row, false, unreadableCellFile(dir, "cell.json", err)
	}
	rep, err := parseEvalReport(result)
	if err == nil {
		err = checkReportIsCell(row.cell, rep)
	}
	if err != nil {
		return row, false, unreadableCellFile(dir, "eval.json", err)
	}
	for i, a := range row.cell.Axes {
		row.cell.Axes[i].Value = valueLabel(a)
	}
	row.system, row.backbone, row.tasks, row.failed = rep.System, rep.Backbone, rep.Tasks, rep.Failures.Count
	row.context, row.noise = rep.Context, rep.Noise
	row.metrics = map[string]float64{}
	for _, k := range sweepMetrics {
		row.metrics[k] = math.NaN()
		if v, have := rep.Metrics[k]; have {
			row.metrics[k] = v.Mean
		}
	}
	onePassFailed, err := readOnePass(dir, row.metrics)
	if err != nil {
		return row, false, err
	}
	row.failed = max(row.failed, onePassFailed)
	return row, true, nil
}

// parseEvalReport is the report of an 'apic eval --json' output, refused
// where data is JSON but no such report ({}, null): read as one, every
// metric of the cell would be missing, and the cell would silently drop
// out of its means instead of being run again. A key no report has, a
// key every report has missing, or a value no evaluation gives (a
// hand edit) is refused too (checkReportKeys, checkReportValues).
func parseEvalReport(data []byte) (rep core.Report, err error) {
	var out evalOutput
	if err := decodeStrict(data, &out); err != nil {
		return rep, err
	}
	rep = out.Report
	if rep.System == "" || rep.Metrics == nil {
		return rep, errors.New("no system or no metrics: not the output of apic eval --json")
	}
	if err := checkReportKeys(data); err != nil {
		return rep, err
	}
	if rep.Tasks < 1 || rep.Failures.Count < 0 || rep.Failures.Count > rep.Tasks {
		return rep, fmt.Errorf("%d realizations of which %d failed: not the output of apic eval --json", rep.Tasks, rep.Failures.Count)
	}
	return rep, checkReportValues(rep)
}

// unreadableCellFile says that the file name of the cell folder dir
// could not be read (err), and how to run the cell again.
func unreadableCellFile(dir, name string, err error) error {
	return fmt.Errorf("%s: %w: remove that cell's folder (%s) and rerun its sweep to run it again", filepath.Join(dir, name), err, dir)
}

// readOnePass adds the one-pass metrics of dir's eval-onepass.json, if
// the cell has one.
func readOnePass(dir string, metrics map[string]float64) (failed int, err error) {
	data, err := readCellFile(filepath.Join(dir, onePassFile))
	if errors.Is(err, os.ErrNotExist) || err == nil && len(data) == 0 {
		return 0, nil // an empty one, as cmd.txt's redirection leaves it, is none
	} else if err != nil {
		return 0, err
	}
	rep, err := parseEvalReport(data)
	if err != nil {
		return 0, unreadableCellFile(dir, onePassFile, err)
	}
	for _, k := range sweepMetrics {
		if base, ok := strings.CutPrefix(k, onePassPrefix); ok {
			if v, have := rep.Metrics[base]; have {
				metrics[k] = v.Mean
			}
		}
	}
	return rep.Failures.Count, nil
}

// warnFailedRealizations says which finished cells' means leave out
// realizations whose prediction failed, as eval's own output does:
// results.csv and the summary have only the means, which would read as
// over every realization. A few cells by name, then a count.
func warnFailedRealizations(dir string, rows []sweepRow, env *Env) {
	const named = 5
	var lines []string
	for _, r := range rows {
		if r.failed > 0 {
			lines = append(lines, fmt.Sprintf("%s: %d of %d", r.cell.ID, r.failed, r.tasks))
		}
	}
	if len(lines) == 0 {
		return
	}
	more := ""
	if len(lines) > named {
		lines, more = lines[:named], fmt.Sprintf("; %d more cells", len(lines)-named)
	}
	env.Warnf("in %s, realizations failed and are left out of the means of: %s%s (each cell's eval.json lists them)",
		dir, strings.Join(lines, "; "), more)
}

// leadingZeros are the zeros before a number's first digit that it
// does not need: those of 010 and -00.5.
var leadingZeros = regexp.MustCompile(`^([+-]?)0+([0-9])`)

// valueLabel is a cell's value as the results name it: a number of an
// axis as its flag reads it, plain decimal, so that 010 is labelled 10,
// the number it sorts as (sortRows), not by a spelling that reads as
// another (octal 8). An int is written as strconv writes it (sameAs),
// a float less its leading zeros only: 5e-2 stays as given, the number
// it sorts as. Other values, and values their axis refuses, as given.
func valueLabel(s cellSetting) string {
	a, ok := lookupAxis(s.Name)
	if !ok || a.checkValue(s.Value) != nil {
		return s.Value
	}
	switch a.kind {
	case "int", "intrange":
		return a.sameAs(s.Value)
	case "float":
		return leadingZeros.ReplaceAllString(s.Value, "$1$2")
	}
	return s.Value
}

func sortRows(axes []string, rows []sweepRow) {
	numeric := make([]bool, len(axes))
	for i := range axes {
		numeric[i] = true
		for _, r := range rows {
			if _, err := strconv.ParseFloat(r.cell.Axes[i].Value, 64); err != nil {
				numeric[i] = false
			}
		}
	}
	sort.SliceStable(rows, func(a, b int) bool {
		for i := range axes {
			x, y := rows[a].cell.Axes[i].Value, rows[b].cell.Axes[i].Value
			if x != y {
				return lessValue(x, y, numeric[i])
			}
		}
		return rows[a].cell.Seed < rows[b].cell.Seed
	})
}

// writeResultsCSV writes one row per cell × seed.
func writeResultsCSV(path string, axes []string, rows []sweepRow) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	keys := reportedMetrics(rows)
	head := append(append(append([]string{}, axes...), "seed"), keys...)
	if err := w.Write(head); err != nil {
		return err
	}
	for _, r := range rows {
		rec := make([]string, 0, len(head))
		for _, a := range r.cell.Axes {
			rec = append(rec, a.Value)
		}
		rec = append(rec, strconv.Itoa(r.cell.Seed))
		for _, k := range keys {
			rec = append(rec, strconv.FormatFloat(r.metrics[k], 'g', -1, 64))
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeBytesAtomic(path, buf.Bytes())
}

// reportedMetrics are the sweep metrics of the results, less the
// one-pass columns where no cell has a one-pass evaluation.
func reportedMetrics(rows []sweepRow) []string {
	var keys []string
	for _, k := range sweepMetrics {
		if strings.HasPrefix(k, onePassPrefix) && !anyFinite(rows, k) {
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

func anyFinite(rows []sweepRow, k string) bool {
	for _, r := range rows {
		if v := r.metrics[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// summarize groups the rows by cell (axis values), in row order.
func summarize(axes []string, rows []sweepRow) sweepSummary {
	sum := sweepSummary{Axes: axes, Cells: []sweepGroup{}}
	index := map[string]int{}
	values := map[int]map[string][]float64{}
	for _, r := range rows {
		order := make([]string, len(r.cell.Axes))
		for i, a := range r.cell.Axes {
			order[i] = a.Value
		}
		key := strings.Join(order, "\x00")
		g, ok := index[key]
		if !ok {
			g = len(sum.Cells)
			index[key] = g
			vals := map[string]string{}
			for _, a := range r.cell.Axes {
				vals[a.Name] = a.Value
			}
			sum.Cells = append(sum.Cells, sweepGroup{Values: vals, order: order, Metrics: map[string]sweepInterval{}})
			values[g] = map[string][]float64{}
		}
		sum.Cells[g].Seeds++
		for _, k := range sweepMetrics {
			if v := r.metrics[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				values[g][k] = append(values[g][k], v)
			}
		}
	}
	for g := range sum.Cells {
		for _, k := range sweepMetrics {
			sum.Cells[g].Metrics[k] = tInterval(values[g][k])
		}
	}
	return sum
}

// tInterval is the mean of xs and its 95% interval mean ± t·s/√n with
// Student's t at n−1 degrees of freedom. Finite metrics of any size (a
// diverged seed's 1e300) give a finite mean and spread, not the ±Inf
// that summary.json cannot hold (spreadOf); an interval whose ends
// still lie beyond float64's range is left out.
func tInterval(xs []float64) sweepInterval {
	n := len(xs)
	iv := sweepInterval{N: n}
	if n == 0 {
		return iv
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if math.IsInf(mean, 0) { // the sum overflowed: a running mean does not
		mean = 0
		for k, x := range xs {
			mean += (x - mean) / float64(k+1)
		}
	}
	iv.Mean = &mean
	if n < 2 {
		return iv
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * spreadOf(xs, mean) / math.Sqrt(float64(n))
	lo, hi := mean-half, mean+half
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(half) {
		return iv
	}
	iv.Lo, iv.Hi = &lo, &hi
	return iv
}

// spreadOf is the sample standard deviation of xs about mean; where the
// squares overflow, it is computed on the deviations scaled by the
// largest.
func spreadOf(xs []float64, mean float64) float64 {
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if !math.IsInf(ss, 0) {
		return math.Sqrt(ss / float64(len(xs)-1))
	}
	scale := 0.0
	for _, x := range xs {
		scale = max(scale, math.Abs(x-mean))
	}
	ss = 0
	for _, x := range xs {
		ss += ((x - mean) / scale) * ((x - mean) / scale)
	}
	return scale * math.Sqrt(ss/float64(len(xs)-1))
}

// sweepOutput is what finishSweep prints and draws.
type sweepOutput struct {
	json, png bool
	// collect is --collect, which may summarise a sweep in a folder this
	// user cannot write to (a colleague's, a read-only archive): the
	// summary is what was asked for, so results.csv and summary.json that
	// cannot be written there are a warning, not an error. After a sweep
	// ran, its folder took every cell: a failed write is an error.
	collect bool
}

// flag is the flag that named the sweep's folder, as refusals say it.
func (o sweepOutput) flag() string {
	if o.collect {
		return "collect"
	}
	return "out"
}

// The files finishSweep writes in a sweep's folder.
const (
	sweepResultsFile = "results.csv"
	sweepSummaryFile = "summary.json"
)

// checkSweepSummaries refuses, in each sweep folder of dirs (named by
// --flag), a results.csv or summary.json that the summary must not
// replace: a directory, pipe or device (or a link to one), or a file
// the sweep did not write, such as a link to the user's own table
// (replaceonly.go). A run checks before its first cell; the summary
// checks again, as a --collect finds the folder.
func checkSweepSummaries(flag string, dirs ...string) error {
	files := []struct {
		name, kind string
		is         func(head []byte, size int64) bool
	}{
		{sweepResultsFile, "a sweep's results table", isSweepResultsCSV},
		{sweepSummaryFile, "a sweep's summary", isSweepSummaryJSON},
	}
	for _, dir := range dirs {
		for _, f := range files {
			path := filepath.Join(dir, f.name)
			if err := core.CheckWriteTarget(path, f.kind); err != nil {
				return UsageError("--%s: %v", flag, err)
			}
			if err := checkReplacesOnly(flag, path, f.kind, f.is); err != nil {
				return err
			}
		}
	}
	return nil
}

// isSweepResultsCSV reports whether head, a file's first bytes, opens
// with a results.csv header as writeResultsCSV writes it: the axes,
// then seed and the first metric.
func isSweepResultsCSV(head []byte, _ int64) bool {
	line, _, _ := strings.Cut(string(head), "\n")
	fields := strings.Split(strings.TrimSuffix(line, "\r"), ",")
	i := slices.Index(fields, "seed")
	return i >= 1 && i+1 < len(fields) && fields[i+1] == sweepMetrics[0]
}

// isSweepSummaryJSON reports whether head opens a summary.json as
// finishSweep writes it: an object whose first key is "axes".
func isSweepSummaryJSON(head []byte, _ int64) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(string(head), " \t\r\n"), "{")
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), `"axes"`)
}

// finishSweep writes results.csv and summary.json from the finished
// cells of dir, then prints the curves (or the summary as JSON) and
// draws the figure with png.
func finishSweep(ctx context.Context, dir string, o sweepOutput, env *Env) error {
	axes, rows, err := readSweep(dir)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: no finished cell yet (a cell is finished once its cells/ID/eval.json is written)", dir)
	}
	warnFailedRealizations(dir, rows, env)
	sum := summarize(axes, rows)
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	csvPath, sumPath := filepath.Join(dir, sweepResultsFile), filepath.Join(dir, sweepSummaryFile)
	// The atomic writes' errors name the file.
	werr := checkSweepSummaries(o.flag(), dir)
	if werr == nil {
		werr = writeResultsCSV(csvPath, axes, rows)
	}
	if werr == nil {
		werr = writeBytesAtomic(sumPath, data)
	}
	switch {
	case werr != nil && !o.collect:
		return werr
	case werr != nil:
		env.Warnf("results.csv and summary.json could not be written in %s (%v); the summary printed is of every finished cell all the same", dir, werr)
	}
	if o.json {
		if _, err := env.Stdout.Write(data); err != nil {
			return err
		}
	} else {
		files := fmt.Sprintf(": %s, %s", csvPath, sumPath)
		if werr != nil {
			files = " (not saved: see the warning)"
		}
		fmt.Fprintf(env.Stdout, "%d finished cell × seed runs in %s%s\n\n", len(rows), dir, files)
		writeSweepTable(env.Stdout, sum)
		writeSweepCurves(env.Stdout, sum, env.Color)
	}
	// Drawn last: a figure that cannot be written fails the command,
	// since --png asked for the file, but after the summary is printed.
	if o.png {
		fig := filepath.Join(dir, "sweep.png")
		if err := writeSweepFigure(ctx, fig, sum, sweepFigureTitle(axes, rows, sum)); err != nil {
			return err
		}
		env.noteFigure(fig)
	}
	return nil
}

// writeSweepTable prints each cell's MAEs as mean ± half-interval, a
// column per axis. Columns are as wide as their widest entry, counted in
// characters, not bytes: δ, θ, ± and — take two or three bytes each, and
// byte padding would leave each header short of its column.
func writeSweepTable(w io.Writer, sum sweepSummary) {
	head := append(append([]string{}, sum.Axes...), "seeds", "recon MAE", "δ MAE", "θ MAE")
	seeds := len(sum.Axes) // the column of the seed counts, right-aligned
	table := [][]string{head}
	anyInterval := false // some cell has a ± (two seeds or more)
	for _, g := range sum.Cells {
		row := append(append([]string{}, g.order...), strconv.Itoa(g.Seeds))
		for _, k := range sweepMetrics[:3] {
			row = append(row, g.Metrics[k].text())
			anyInterval = anyInterval || g.Metrics[k].Lo != nil
		}
		table = append(table, row)
	}
	width := make([]int, len(head))
	for _, row := range table {
		for i, cell := range row {
			width[i] = max(width[i], displayWidth(cell))
		}
	}
	for _, row := range table {
		var line strings.Builder
		for i, cell := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			gap := strings.Repeat(" ", width[i]-displayWidth(cell))
			if i == seeds {
				line.WriteString(gap + cell)
			} else {
				line.WriteString(cell + gap)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
	if anyInterval {
		// eval's ± is a standard deviation over realizations: say which
		// this one is.
		fmt.Fprintln(w, "mean over seeds ± half-width of its t-based 95% interval")
	}
	fmt.Fprintln(w)
}

func (iv sweepInterval) text() string {
	switch {
	case iv.Mean == nil:
		return "—"
	case iv.Lo == nil:
		return fmt.Sprintf("%.4g", *iv.Mean)
	}
	return fmt.Sprintf("%.4g ± %.2g", *iv.Mean, *iv.Hi-*iv.Mean)
}

// sweepSeries is one curve of a metric against the first axis: the cells
// sharing the other axes' values.
type sweepSeries struct {
	name  string
	cells []*sweepGroup // one per first-axis value, nil where missing
}

// sweepCurves splits the cells into the first axis's values (x) and
// series by the other axes' values.
func sweepCurves(sum sweepSummary) (xs []string, series []sweepSeries) {
	xIndex := map[string]int{}
	for _, g := range sum.Cells {
		if _, ok := xIndex[g.order[0]]; !ok {
			xIndex[g.order[0]] = len(xs)
			xs = append(xs, g.order[0])
		}
	}
	sIndex := map[string]int{}
	for i := range sum.Cells {
		g := &sum.Cells[i]
		var parts []string
		for j, v := range g.order[1:] {
			parts = append(parts, sum.Axes[j+1]+"="+v)
		}
		name := strings.Join(parts, " ")
		s, ok := sIndex[name]
		if !ok {
			s = len(series)
			sIndex[name] = s
			series = append(series, sweepSeries{name: name, cells: make([]*sweepGroup, len(xs))})
		}
		series[s].cells[xIndex[g.order[0]]] = g
	}
	return xs, series
}

// writeSweepCurves draws the MAEs against the first axis, one line per
// value of the other axes.
func writeSweepCurves(w io.Writer, sum sweepSummary, color bool) {
	xs, series := sweepCurves(sum)
	if len(xs) < 2 {
		return
	}
	labels := map[string]string{core.KeyReconMAE: "recon MAE", core.KeyDeltaMAE: "δ MAE", core.KeyThetaMAE: "θ MAE"}
	for _, k := range sweepMetrics[:3] {
		var ss []Series
		for _, s := range series {
			v := make([]float64, len(xs))
			for i, g := range s.cells {
				v[i] = math.NaN()
				if g != nil && g.Metrics[k].Mean != nil {
					v[i] = *g.Metrics[k].Mean
				}
			}
			name := s.name
			if name == "" {
				name = "mean over seeds"
			}
			ss = append(ss, Series{Name: name, Values: v})
		}
		// The columns are the values in order, evenly spaced, where the
		// --png figure has a numeric axis: the title says so, lest 5, 10,
		// 20 read as a linear axis.
		title := fmt.Sprintf("%s against %s = %s (values evenly spaced)", labels[k], sum.Axes[0], strings.Join(xs, ", "))
		p := LinePlot{Title: title, Height: 8, Width: curveWidth(xs), XLabels: xs, Color: color}
		fmt.Fprintln(w, p.Render(ss...))
	}
}

// curveWidth is the width of a sweep's curves: room for each value of
// the first axis to be labelled under its column, within 16 to 64.
func curveWidth(xs []string) int {
	longest := 0
	for _, x := range xs {
		longest = max(longest, utf8.RuneCountInString(x))
	}
	return max(16, min(64, max(8, longest+2)*len(xs)))
}
