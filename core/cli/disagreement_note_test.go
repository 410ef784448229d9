package cli

import (
	"strings"
	"testing"

	"apic/core"
)

// disagreementTable is a two-cell table with the given weights, shaped
// or not.
func disagreementTable(shaped bool, weights ...float64) core.Infer {
	var in core.Infer
	for i, w := range weights {
		c := core.ConditionScale{Context: 5 * (i + 1), Recon: 1, Delta: 1, Theta: 1, Disagree: w}
		if shaped {
			c.ReconShape = &core.BandShape{Wide: 1}
		}
		in.Conditions = append(in.Conditions, c)
	}
	return in
}

// After --recalibrate-only disagreement train names the band-shape run
// that refits the shapes to the widened bands, and after a
// recalibration that dropped the --init file's weights, the runs that
// fit them again; otherwise it says nothing of them.
func TestDisagreementNote(t *testing.T) {
	f := &trainFlags{init: "in.safetensors", out: "out.safetensors", recalibrate: 256}
	for _, c := range []struct {
		name          string
		only          string
		before, after core.Infer
		want          []string
	}{
		{"weights fitted under shapes", "disagreement", disagreementTable(true, 0, 0), disagreementTable(true, 0.1, 0),
			[]string{"fitted without these weights", "--recalibrate 256 --recalibrate-only band-shape --out out.safetensors"}},
		{"weights fitted without shapes", "disagreement", disagreementTable(false, 0, 0), disagreementTable(false, 0.1, 0), nil},
		{"no weight fitted", "disagreement", disagreementTable(true, 0, 0), disagreementTable(true, 0, 0), nil},
		{"whole recalibration dropped them", "", disagreementTable(true, 0.3, 1), disagreementTable(true, 0, 0),
			[]string{"in.safetensors's refined bands were dropped", "--recalibrate-only disagreement --out out.safetensors", "band-shape"}},
		{"conditions dropped them", "conditions", disagreementTable(true, 0.3, 1), disagreementTable(true, 0, 0),
			[]string{"were dropped", "--recalibrate-only disagreement"}},
		{"band-shape kept them", "band-shape", disagreementTable(true, 0.3, 1), disagreementTable(true, 0.3, 1), nil},
		{"none to drop", "", disagreementTable(true, 0, 0), disagreementTable(true, 0, 0), nil},
	} {
		f.recalibrateOnly = c.only
		note := disagreementNote(c.before, c.after, f)
		if c.want == nil && note != "" {
			t.Errorf("%s: note %q, want none", c.name, note)
		}
		for _, w := range c.want {
			if !strings.Contains(note, w) {
				t.Errorf("%s: note %q, want %q in it", c.name, note, w)
			}
		}
	}
}

// inspect names one widened cell and one weight as such: "1 cell (κ 5)",
// not "1 cells (κ 5–5)".
func TestConditionWordsOneWidenedCell(t *testing.T) {
	in := disagreementTable(false, 0, 5)
	if w := conditionWords(in.Conditions); !strings.Contains(w, "in 1 cell (κ 5)") {
		t.Errorf("one widened cell: %q", w)
	}
	in = disagreementTable(false, 0.1, 5)
	if w := conditionWords(in.Conditions); !strings.Contains(w, "in 2 cells (κ 0.1–5)") {
		t.Errorf("two widened cells: %q", w)
	}
}
