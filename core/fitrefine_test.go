package core

import (
	"strings"
	"testing"
)

// SetRefine keeps FitRefine with the default fit: the one-pass fit
// moved there by --refine 0 was fitted to one pass, a round trip back
// to refinement leaves it saying so, a change between refining counts
// keeps the count the fit was made for, and a file that records none
// gets none but where the fit moved is the one-pass one.
func TestSetRefineKeepsFitRefine(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	in := m.Config.Infer
	if _, known := in.FitRefineKnown(); known {
		t.Fatal("the shipped file records a fit count: it was written before there was one")
	}
	in.SetRefine(3)
	if _, known := in.FitRefineKnown(); known {
		t.Errorf("5 → 3 on a file without a record made one up: %d", *in.FitRefine)
	}
	in.SetRefine(0)
	if n, known := in.FitRefineKnown(); !known || n != 0 {
		t.Errorf("→ 0: fit count %d (recorded %t), want 0: the one-pass fit is the default one", n, known)
	}
	in.SetRefine(5)
	if n, known := in.FitRefineKnown(); !known || n != 0 {
		t.Errorf("0 → 5: fit count %d (recorded %t), want 0: the one-pass fit serves the refined predictions", n, known)
	}
	fitted := 5
	in.FitRefine = &fitted
	in.SetRefine(2)
	if n, _ := in.FitRefineKnown(); n != 5 {
		t.Errorf("5 → 2: fit count %d, want the 5 it was made for", n)
	}
}

// A fit count outside refinement's limit is refused, naming its key,
// as the count itself is.
func TestFitRefineChecked(t *testing.T) {
	m, _ := shippedModel(t, "spring", CNP, 1)
	c := m.Config
	for _, bad := range []int{-1, LimitRefine.Max + 1} {
		c.Infer.FitRefine = &bad
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "infer.fit_refine") {
			t.Errorf("fit count %d: error %v, want one naming infer.fit_refine", bad, err)
		}
	}
}
