package cli

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"apic/core"
)

// extremeValues are finite values a table may be handed: a badly
// trained checkpoint's log-likelihoods and the largest floats.
var extremeValues = []float64{-123456.7, -1.2e+09, 999999.99999, -math.MaxFloat64, 4.87, 0}

func TestTableNumber(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		decimals int
		want     string
	}{
		{4.86942, 4, "4.8694"},
		{-123456.7, 4, "-123456.7000"},
		{-1.2e+09, 4, "-1.200e+09"},
		{-1.2e+09, 1, "-1.200e+09"},
		{1e6, 3, "1.000e+06"},
		{-math.MaxFloat64, 4, "-1.798e+308"},
		{math.NaN(), 4, "NaN"},
	} {
		if got := tableNumber(tc.v, tc.decimals); got != tc.want {
			t.Errorf("tableNumber(%g, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
}

// extremeReport is a report whose every summary is v ± |v|/3.
func extremeReport(v float64) core.Report {
	s := core.Summary{Mean: v, Std: math.Abs(v) / 3}
	rep := core.Report{Tasks: 8, Metrics: map[string]core.Summary{},
		ThetaPerParam: map[string]core.Summary{"omega": s}, ThetaBiasPerParam: map[string]core.Summary{"omega": s}}
	for _, k := range append(append([]string{}, core.MetricKeys...), core.DiagnosticKeys...) {
		rep.Metrics[k] = core.Summary{Mean: 0.5, Std: 0.1}
	}
	rep.Metrics[core.KeyReconLL] = s
	rep.Metrics[core.KeyDeltaLL] = core.Summary{Mean: 4.87, Std: 0.22}
	return rep
}

// eval's table keeps its columns whatever the values: every "±" and
// every "(diagnostic:" of a table starts in one terminal column.
func TestReportTableAlignsExtremeValues(t *testing.T) {
	for _, v := range extremeValues {
		var b bytes.Buffer
		writeReportTable(&b, extremeReport(v))
		for _, mark := range []string{"±", "(diagnostic:"} {
			cols := map[int]bool{}
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if mark == "±" { // the values' ±, not a note's
					line, _, _ = strings.Cut(line, "(diagnostic:")
				}
				if i := strings.Index(line, mark); i >= 0 {
					cols[displayWidth(line[:i])] = true
				}
			}
			if len(cols) != 1 {
				t.Errorf("value %g: %q in %d different columns:\n%s", v, mark, len(cols), b.String())
			}
		}
	}
}

// eval --grid's table keeps its columns whatever the values: each
// number of a row ends in the column its head ends in, and the misses
// start in one column.
func TestGridTableAlignsExtremeValues(t *testing.T) {
	for _, v := range extremeValues {
		rep := extremeReport(v)
		rep.Pooled = core.PooledECE{Recon: 0.1, Delta: 0.2}
		outs := []cellOut{
			{GridCell: core.GridCell{Condition: core.Condition{Context: 5}, Report: &rep}, Misses: []string{"recon LL"}},
			{GridCell: core.GridCell{Condition: core.Condition{Context: 4160, Noise: 0.0123456789}, Report: &rep}, Misses: []string{"δ ECE"}},
			{GridCell: core.GridCell{Condition: core.Condition{Context: 10, Noise: 1000}, Error: "diverged"}},
		}
		var b bytes.Buffer
		writeGridTable(&b, outs)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		heads := endColumns(lines[0], gridHeads)
		for i, line := range lines[1:] {
			fields := strings.Fields(line)
			n := len(gridHeads)
			if outs[i].Report == nil {
				n = 2 // context and noise, then why it failed
			}
			if got := endColumns(line, fields[:n]); !slices.Equal(got, heads[:n]) {
				t.Errorf("value %g: the cells of\n%s\nend in columns %v, their heads in %v:\n%s", v, line, got, heads[:n], b.String())
			}
			if outs[i].Report == nil {
				continue
			}
			misses := strings.Join(outs[i].Misses, ", ")
			if got, want := displayWidth(line[:strings.LastIndex(line, misses)]), displayWidth(lines[0][:strings.LastIndex(lines[0], "misses")]); got != want {
				t.Errorf("value %g: misses in column %d, their head in %d:\n%s", v, got, want, b.String())
			}
		}
	}
}

// endColumns are the terminal columns where each of cells, found in
// line in turn, ends.
func endColumns(line string, cells []string) []int {
	var ends []int
	at := 0
	for _, c := range cells {
		i := strings.Index(line[at:], c)
		if i < 0 {
			return append(ends, -1)
		}
		at += i + len(c)
		ends = append(ends, displayWidth(line[:at]))
	}
	return ends
}
