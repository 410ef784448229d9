package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The ? help defines each metric the sidebar shows and which way it is
// better, what each ± means, and the band; every line fits 80 columns.
func TestHelpDefinesMetricsAndPlusMinus(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	lines := helpAt(m, 80)
	whole := strings.Join(lines, "\n")
	for _, want := range []string{
		"recon MAE: mean |G − prediction|", "δ MAE", "θ MAE", "lower is better",
		"recon LL: mean log-density", "higher is better", "recon ECE: calibration error", "0 is perfect",
		"refined (N LM steps)", "θ̂±1σ", "1.13990(9) ±.00009", "95% confidence interval", "eval's ± is their sd",
		"95% band: the calibrated band's 95.4% interval", "verdict",
	} {
		if !strings.Contains(whole, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("help line %d wide: %q", w, l)
		}
	}
}

// TestHelpIndentsWhatGoesOn: a help entry that goes on past its first
// line indents the lines after it, as a parenthesis does up to its
// closing ")": the panels' note on fixed ranges went on at the margin,
// reading as an entry of its own ("beyond sit on the edge …").
func TestHelpIndentsWhatGoesOn(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m := newTest(t, sys, 80, 24)
		open := false
		for _, l := range helpAt(m, 80) {
			l = ansi.Strip(l)
			if open && !strings.HasPrefix(l, "  ") {
				t.Errorf("%s: a line inside a parenthesis at the margin: %q", sys, l)
			}
			if strings.HasPrefix(l, "(") {
				open = true
			}
			if strings.HasSuffix(strings.TrimSpace(l), ")") {
				open = false
			}
		}
	}
}

// TestHelpUndoNamesAtlasModels: the help's u says what it takes back,
// an atlas model loaded by λθ, λδ or the regulariser included (the
// status line says "u goes back" for one), where it named training
// and open only; and its column still fits 80.
func TestHelpUndoNamesAtlasModels(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	lines := helpAt(m, 80)
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "undo last training, open or atlas model") })
	if i < 0 {
		t.Fatalf("the help's u does not name atlas models:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[i], "quit (also ctrl+c)") {
		t.Errorf("the column beside u's is gone: %q", lines[i])
	}
}
