package cli

import (
	"math"
	"slices"
	"strings"
	"testing"

	"apic/core"
)

// TestDiagnosticsPanelTableFits: the panel's reliability table, its
// longest curve names and widest values included, is at most
// DiagnosticsPanelWidth wide, so that the explorer shows it whole beside
// its sidebar with a blank column before the border; at 48 it ran into
// the border at 80 columns.
func TestDiagnosticsPanelTableFits(t *testing.T) {
	levels := []float64{0.1, 0.5, 0.9, 0.95}
	curve := func(name string) core.ReliabilityCurve {
		return core.ReliabilityCurve{Name: name, Signed: core.JSONFloats{-0.999, math.NaN(), 0.999, -1}}
	}
	d := core.Diagnostics{Levels: levels, Reliability: []core.ReliabilityCurve{
		curve("reconstruction"), curve("discrepancy"), curve("theta:omega"), curve("theta:kappa"), curve("theta:alpha"),
	}}
	lines := strings.Split(DiagnosticsPanel(d), "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "coverage − nominal") })
	if head < 0 || len(lines) < head+2+len(d.Reliability) {
		t.Fatalf("no table in the panel:\n%s", strings.Join(lines, "\n"))
	}
	table := lines[head+1 : head+2+len(d.Reliability)]
	for _, line := range table {
		if w := displayWidth(line); w > DiagnosticsPanelWidth {
			t.Errorf("table line %d cells wide, want at most %d: %q", w, DiagnosticsPanelWidth, line)
		}
	}
	if !strings.HasPrefix(table[4], "  θ kappa ") || !strings.HasSuffix(table[0], "max|·|") {
		t.Errorf("a curve's name or the heading is cut:\n%s", strings.Join(table, "\n"))
	}
}
