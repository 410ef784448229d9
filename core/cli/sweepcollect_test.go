package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"apic/core"
)

// column is the character (not byte) offset of sub in line, -1 if absent.
func column(line, sub string) int {
	i := strings.Index(line, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(line[:i])
}

func interval(mean, half float64) sweepInterval {
	lo, hi := mean-half, mean+half
	return sweepInterval{Mean: &mean, Lo: &lo, Hi: &hi, N: 3}
}

// TestSweepTableColumnsAlign: each header starts in the character
// column of its values, though δ, θ, ± and — are several bytes each.
func TestSweepTableColumnsAlign(t *testing.T) {
	one := 0.2942
	sum := sweepSummary{Axes: []string{"context", "noise"}, Cells: []sweepGroup{
		{Seeds: 3, order: []string{"5", "0"}, Metrics: map[string]sweepInterval{
			core.KeyReconMAE: interval(0.02063, 0.0043), core.KeyDeltaMAE: interval(0.04809, 0.0085), core.KeyThetaMAE: interval(0.1257, 0.028)}},
		{Seeds: 1, order: []string{"30", "0.05"}, Metrics: map[string]sweepInterval{
			core.KeyReconMAE: {Mean: &one, N: 1}, core.KeyDeltaMAE: {}, core.KeyThetaMAE: {Mean: &one, N: 1}}},
	}}
	var b bytes.Buffer
	writeSweepTable(&b, sum)
	lines := strings.Split(b.String(), "\n")
	head, rows := lines[0], lines[1:3]
	want := map[string][]string{
		"noise":     {"0", "0.05"},
		"recon MAE": {"0.02063 ± 0.0043", "0.2942"},
		"δ MAE":     {"0.04809 ± 0.0085", "—"},
		"θ MAE":     {"0.1257 ± 0.028", "0.2942"},
	}
	for label, values := range want {
		at := column(head, label)
		for i, v := range values {
			// The value's first occurrence at or after the header's column.
			got := column(string([]rune(rows[i])[min(at, utf8.RuneCountInString(rows[i])):]), v)
			if at < 0 || got != 0 {
				t.Errorf("header %q at column %d, its value %q not there in row %q\n%s", label, at, v, rows[i], b.String())
			}
		}
	}
	if strings.HasSuffix(head, " ") {
		t.Errorf("header ends in blanks: %q", head)
	}
}

// TestSweepCurvesLabelNearlyFlatSeries: a reg sweep's MAEs differ in
// the fourth digit; the curves' y labels must still differ from row to
// row (three significant digits printed 0.142 on every row), also for
// nearly flat series of tiny and of huge values.
func TestSweepCurvesLabelNearlyFlatSeries(t *testing.T) {
	mae := func(v float64) map[string]sweepInterval {
		return map[string]sweepInterval{core.KeyReconMAE: {Mean: &v, N: 1}, core.KeyDeltaMAE: {Mean: &v, N: 1}, core.KeyThetaMAE: {Mean: &v, N: 1}}
	}
	sum := sweepSummary{Axes: []string{"reg"}, Cells: []sweepGroup{
		{Seeds: 1, order: []string{"l1"}, Metrics: mae(0.14201)},
		{Seeds: 1, order: []string{"l2"}, Metrics: mae(0.14209)},
	}}
	var b bytes.Buffer
	writeSweepCurves(&b, sum, false)
	plots := []string{b.String()}
	for _, v := range [][]float64{{1e-5, 1.00002e-5}, {1e7, 1e7 + 3}, {-0.5, -0.50001}} {
		plots = append(plots, LinePlot{Width: 16, Height: 8}.Render(Series{Values: v}))
	}
	for _, plot := range plots {
		labels := yLabels(plot)
		if len(labels) < 3 {
			t.Fatalf("%d y labels:\n%s", len(labels), plot)
		}
		for i := 1; i < len(labels); i++ {
			if labels[i] == labels[i-1] {
				t.Errorf("y label %q on two rows:\n%s", labels[i], plot)
				break
			}
		}
	}
}

// TestSweepTableSaysWhatPlusMinusIs: the table's ± is a t-based 95%
// half-width over seeds, not eval's standard deviation, and says so
// where it shows one.
func TestSweepTableSaysWhatPlusMinusIs(t *testing.T) {
	one := 0.2942
	single := map[string]sweepInterval{core.KeyReconMAE: {Mean: &one, N: 1}, core.KeyDeltaMAE: {Mean: &one, N: 1}, core.KeyThetaMAE: {Mean: &one, N: 1}}
	seeds := map[string]sweepInterval{core.KeyReconMAE: interval(0.02, 0.004), core.KeyDeltaMAE: {}, core.KeyThetaMAE: {}}
	for _, c := range []struct {
		metrics map[string]sweepInterval
		want    bool
	}{{single, false}, {seeds, true}} {
		var b bytes.Buffer
		writeSweepTable(&b, sweepSummary{Axes: []string{"context"}, Cells: []sweepGroup{{Seeds: 1, order: []string{"5"}, Metrics: c.metrics}}})
		if got := strings.Contains(b.String(), "± half-width of its t-based 95% interval"); got != c.want {
			t.Errorf("table says what ± is: %v, want %v:\n%s", got, c.want, b.String())
		}
	}
}

// TestSweepCurvesLabelTheirX: under each curve plot, every value of the
// first axis is written under the column where its sample is drawn: a
// spike at one value peaks under its label.
func TestSweepCurvesLabelTheirX(t *testing.T) {
	xs := []string{"l1", "l2", "orthogonal", "spectral", "gradpen"}
	for k := range xs {
		sum := sweepSummary{Axes: []string{"reg"}}
		for i, x := range xs {
			v := 0.0
			if i == k {
				v = 1
			}
			m := map[string]sweepInterval{core.KeyReconMAE: {Mean: &v, N: 1}, core.KeyDeltaMAE: {Mean: &v, N: 1}, core.KeyThetaMAE: {Mean: &v, N: 1}}
			sum.Cells = append(sum.Cells, sweepGroup{Seeds: 1, order: []string{x}, Metrics: m})
		}
		var b bytes.Buffer
		writeSweepCurves(&b, sum, false)
		plot := strings.Split(b.String(), "\n\n")[0]
		lines := strings.Split(plot, "\n")
		labelLine := -1
		for i, l := range lines {
			if strings.ContainsAny(l, "┤┼") {
				labelLine = i + 1
			}
		}
		top, under := []rune(lines[1]), []rune(lines[labelLine])
		axis := slices.IndexFunc(top, func(r rune) bool { return r == '┤' || r == '┼' })
		for _, x := range xs {
			if !strings.Contains(string(under), x) {
				t.Errorf("label %s missing under the plot:\n%s", x, plot)
			}
		}
		at := utf8.RuneCountInString(string(under)[:strings.Index(string(under), xs[k])])
		for c := axis + 1; c < len(top); c++ {
			if top[c] != ' ' && (c < at-1 || c > at+len(xs[k])) {
				t.Errorf("the spike at %s is drawn at column %d, its label at %d–%d:\n%s", xs[k], c, at, at+len(xs[k])-1, plot)
			}
		}
	}
}

// TestSweepXLabelsLeaveOutWhatDoesNotFit: a label that would run into
// another, or past the plot, is left out, never overwritten or cut.
func TestSweepXLabelsLeaveOutWhatDoesNotFit(t *testing.T) {
	if got := xLabelRow([]string{"first", "a-long-middle-label", "last"}, 16); strings.Join(strings.Fields(got), " ") != "first last" {
		t.Errorf("labels %q, want first and last alone", got)
	}
	if got := xLabelRow([]string{"/a/long/path/one.safetensors", "/a/long/path/two.safetensors"}, 16); strings.TrimSpace(got) != "" {
		t.Errorf("labels %q, want none", got)
	}
}

// TestSweepLabelsNumbersAsTheySort: a value written with leading zeros
// (context 010, noise 00.05) sorts as its number and is labelled by it
// in the table, the curves, results.csv and summary.json, as the flags
// read it (plain decimal: 010 is 10, not octal 8); a float keeps its
// notation otherwise.
func TestSweepLabelsNumbersAsTheySort(t *testing.T) {
	out := t.TempDir()
	stdout := runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=010,9", "--vary", "noise=00.05,1e-2",
		"--tasks", "2", "--fix", "samples=2", "--out", out)
	var rows []string
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[2] == "1" {
			rows = append(rows, f[0]+" "+f[1])
		}
	}
	if want := []string{"9 1e-2", "9 0.05", "10 1e-2", "10 0.05"}; !slices.Equal(rows, want) {
		t.Errorf("table rows %q, want %q:\n%s", rows, want, stdout)
	}
	if !strings.Contains(stdout, "against context = 9, 10 (values evenly spaced)\n") {
		t.Errorf("curves not labelled 9, 10:\n%s", stdout)
	}
	csv := readText(t, filepath.Join(out, "results.csv"))
	if lines := strings.Split(csv, "\n"); len(lines) < 5 || !strings.HasPrefix(lines[1], "9,1e-2,1,") || !strings.HasPrefix(lines[4], "10,0.05,1,") {
		t.Errorf("results.csv:\n%s", csv)
	}
	if sum := readText(t, filepath.Join(out, "summary.json")); strings.Contains(sum, `"010"`) || strings.Contains(sum, `"00.05"`) {
		t.Errorf("summary.json keeps the leading zeros:\n%s", sum)
	}
}

// TestSweepSummaryIgnoresFilesBesideCells: a file among the cell
// folders (a user's notes, the .DS_Store a file browser leaves) is no
// cell: a rerun's summary and --collect read the cells around it,
// where they once failed opening FILE/eval.json.
func TestSweepSummaryIgnoresFilesBesideCells(t *testing.T) {
	t.Chdir(t.TempDir())
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw", "--json"}
	runSweepOK(t, args...)
	for _, name := range []string{".DS_Store", "notes.txt"} {
		if err := os.WriteFile(filepath.Join("sw", "cells", name), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range [][]string{args, {"sweep", "--collect", "sw", "--json"}} {
		if out := runSweepOK(t, run...); !strings.Contains(out, `"context"`) {
			t.Errorf("%v: summary %q, want the cell context=10 in it", run, out)
		}
	}
}

// TestSweepCollectRefusesControlCharacters: --collect reads folders of
// others (a colleague's, an archive), and printed a cell.json's axis
// names and values to the terminal as they were, an escape sequence
// acting on it. A cell whose name or value holds a control character,
// which no sweep writes, is refused, naming the file; and --vary
// refuses such a value, so that a sweep never writes one.
func TestSweepCollectRefusesControlCharacters(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	cellJSON := filepath.Join("sw", "cells", "context=10_seed=1", "cell.json")
	for _, planted := range []string{
		`{"id": "x", "axes": [{"name": "context", "value": "10\u001b[2J"}], "seed": 1}`,
		`{"id": "x", "axes": [{"name": "\u001b]0;title\u0007", "value": "10"}], "seed": 1}`,
	} {
		if err := os.WriteFile(cellJSON, []byte(planted), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "sweep", "--collect", "sw")
		if want := "holds the control character U+001B"; code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, cellJSON) ||
			strings.Contains(stdout+stderr, "\x1b") {
			t.Errorf("cell.json %s: exit %d, stdout %q, stderr %q; want a refusal naming %s with %q, no escape printed", planted, code, stdout, stderr, cellJSON, want)
		}
	}
	code, stdout, stderr := runCLI(t, "sweep", "--system", "spring", "--vary", "checkpoint=m\x1b[31m.safetensors", "--out", "sw2")
	if want := `checkpoint value "m\x1b[31m.safetensors" holds the control character U+001B`; code != 2 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("--vary with ESC: exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
}

// TestSweepCollectRefusesUnknownAxes: a cell.json naming an axis that
// sweep does not know, or one axis twice, was summarised as a column
// of its own; no sweep writes one, so --collect refuses it, naming the
// file, the axis and the axes there are.
func TestSweepCollectRefusesUnknownAxes(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	cellJSON := filepath.Join("sw", "cells", "context=10_seed=1", "cell.json")
	for planted, want := range map[string]string{
		`{"id": "x", "axes": [{"name": "colour", "value": "10"}], "seed": 1}`:                                     `unknown axis "colour"; evaluation axes: context, noise,`,
		`{"id": "x", "axes": [{"name": "contxt", "value": "10"}], "seed": 1}`:                                     `unknown axis "contxt"; did you mean context?`,
		`{"id": "x", "axes": [{"name": "context", "value": "10"}, {"name": "context", "value": "5"}], "seed": 1}`: `axis "context" is named twice`,
	} {
		if err := os.WriteFile(cellJSON, []byte(planted), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "sweep", "--collect", "sw")
		if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, cellJSON) || stdout != "" {
			t.Errorf("cell.json %s: exit %d, stdout %q, stderr %q; want a refusal naming %s with %q", planted, code, stdout, stderr, cellJSON, want)
		}
	}
}

// TestSweepCollectHugeMetrics: a metric too large to add or square
// (1e308 in two seeds) made summary.json fail with "json: unsupported
// value: +Inf", and no summary at all was written. Its mean and spread
// are now finite; and an eval.json whose counts no evaluation writes
// (negative realizations, more failures than realizations) is refused.
func TestSweepCollectHugeMetrics(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--seeds", "2", "--tasks", "2", "--fix", "samples=2", "--out", "sw")
	for seed, v := range map[int]string{1: "1.7e308", 2: "1.6e308"} {
		path := filepath.Join("sw", "cells", fmt.Sprintf("context=10_seed=%d", seed), "eval.json")
		editJSONFile(t, path, func(rep map[string]any) {
			rep["metrics"].(map[string]any)[core.KeyReconMAE].(map[string]any)["mean"], _ = strconv.ParseFloat(v, 64)
		})
	}
	out := runSweepOK(t, "sweep", "--collect", "sw", "--json")
	var sum sweepSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || len(sum.Cells) != 1 {
		t.Fatalf("summary %q: %v", out, err)
	}
	// Its t interval, 1.65e308 ± 6.4e307, ends beyond float64's range
	// and is left out.
	if iv := sum.Cells[0].Metrics[core.KeyReconMAE]; iv.Mean == nil || math.Abs(*iv.Mean/1.65e308-1) > 1e-12 || iv.N != 2 || iv.Lo != nil {
		t.Errorf("recon MAE %+v, want a mean of 1.65e308 over 2 seeds and no interval", iv)
	}
	for _, counts := range [][2]int{{-3, 0}, {2, -1}, {2, 3}} {
		path := filepath.Join("sw", "cells", "context=10_seed=1", "eval.json")
		editJSONFile(t, path, func(rep map[string]any) {
			rep["tasks"], rep["failures"].(map[string]any)["count"] = counts[0], counts[1]
		})
		code, _, stderr := runCLI(t, "sweep", "--collect", "sw")
		if want := fmt.Sprintf("%d realizations of which %d failed: not the output of apic eval --json", counts[0], counts[1]); code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("counts %v: exit %d, stderr %q; want %q", counts, code, stderr, want)
		}
	}
}

// editJSONFile rewrites the JSON object in path through edit.
func editJSONFile(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	edit(obj)
	if data, err = json.Marshal(obj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTIntervalBeyondSquares: seeds whose deviations square beyond
// float64's range still get their interval, as the same seeds scaled
// down by 1e190 do scaled up.
func TestTIntervalBeyondSquares(t *testing.T) {
	small, huge := tInterval([]float64{1e10, -1e10, 3e10}), tInterval([]float64{1e200, -1e200, 3e200})
	if huge.Lo == nil || small.Lo == nil {
		t.Fatalf("no interval: %+v, %+v", huge, small)
	}
	for _, pair := range [][2]float64{{*huge.Mean, *small.Mean}, {*huge.Lo, *small.Lo}, {*huge.Hi, *small.Hi}} {
		if math.Abs(pair[0]/1e190/pair[1]-1) > 1e-12 {
			t.Errorf("%g is not %g × 1e190", pair[0], pair[1])
		}
	}
}

// TestSweepCollectRefusesMixedEvaluations: the cells of two sweeps over
// the same axis, copied into one folder, were summarised as one sweep,
// spring's metrics and lv's side by side on one curve (a run into the
// folder refused them, --collect did not). They are refused, naming a
// cell of each and what differs.
func TestSweepCollectRefusesMixedEvaluations(t *testing.T) {
	t.Chdir(t.TempDir())
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=5", "--tasks", "2", "--fix", "samples=2", "--out", "a")
	runSweepOK(t, "sweep", "--system", "lv", "--vary", "context=10", "--tasks", "2", "--fix", "samples=2", "--out", "b")
	runSweepOK(t, "sweep", "--system", "spring", "--vary", "context=10", "--tasks", "3", "--fix", "samples=2", "--out", "c")
	for from, want := range map[string]string{
		"b": `evaluated with system "spring", the cell context=10_seed=1 with "lv"`,
		"c": `evaluated with number of realizations (--tasks) "2", the cell context=10_seed=1 with "3"`,
	} {
		merged := "merged-" + from
		for _, src := range []string{"a", from} {
			if err := os.CopyFS(merged, os.DirFS(src)); err != nil && !errors.Is(err, fs.ErrExist) {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := runCLI(t, "sweep", "--collect", merged)
		if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "holds the cells of more than one sweep") || stdout != "" {
			t.Errorf("a and %s merged: exit %d, stdout %q, stderr %q; want %q", from, code, stdout, stderr, want)
		}
	}
}
