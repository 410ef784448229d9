package tui

import (
	"math"
	"testing"
)

// TestThetaFigures: the estimate and the truth show to the decimal of
// σ's leading digit, the same decimals both, within 11 characters.
func TestThetaFigures(t *testing.T) {
	for _, tc := range []struct {
		est, std, truth float64
		want, wantTruth string
	}{
		{6.53049, 0.0017, 6.53526, "6.530±.002", "6.535"},  // spring, seed 2
		{0.00274, 0.00041, 0.0023, ".0027±.0004", ".0023"}, // advdiff κ: ".000" before
		{1.13993, 0.00041, 1.14012, "1.1399±4e-4", "1.1401"},
		{5.12, 0.2, 5.43, "5.12±.20", "5.43"},
		{0.972, 0.036, 0.993, ".972±.036", ".993"},
		{5.12, 0, 5.43, "5.12±–", "5.43"},
		{0.05101, 5.7e-5, 0.0509519, ".05101±6e-5", ".05095"}, // advdiff κ at seed 1
		{math.NaN(), math.NaN(), 5.43, "–±–", "5.43"},
	} {
		es, tr := thetaFigures(tc.est, tc.std, tc.truth, 6)
		if es != tc.want || tr != tc.wantTruth {
			t.Errorf("thetaFigures(%v, %v, %v) = %q, %q; want %q, %q", tc.est, tc.std, tc.truth, es, tr, tc.want, tc.wantTruth)
		}
		if n := len([]rune(es)); n > 11 {
			t.Errorf("%q is %d characters, more than 11", es, n)
		}
	}
	// In a 5-character truth column the decimals stop where the truth
	// fits: lv's β at 1.1276 shows to three.
	if es, tr := thetaFigures(0.9011, 0.0022, 1.1276, 5); es != ".901±.002" || tr != "1.128" {
		t.Errorf("truth width 5: %q, %q", es, tr)
	}
	// Where σ's decimals fit neither, the truth still takes the
	// estimate's: ".051" beside ".0509±2e-5" read as five σ off.
	if es, tr := thetaFigures(0.050931, 2e-5, 0.0509519, 5); es != ".0509±2e-5" || tr != ".0510" {
		t.Errorf("advdiff κ, truth width 5: %q, %q; want the truth at the estimate's decimals", es, tr)
	}
	// A third digit of 0 is kept, and the truth takes its decimal:
	// ".051±3.0e-5 .051" hid four decimals the two differ in.
	if es, tr := thetaFigures(0.05100, 3e-5, 0.0509519, 5); es != ".0510±3e-5" || tr != ".0510" {
		t.Errorf("advdiff/cnp κ, truth width 5: %q, %q", es, tr)
	}
}
