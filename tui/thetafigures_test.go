package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestThetaFigures: the estimate and the truth show to the decimal of
// σ's leading digit, the same decimals both, within the small
// sidebar's columns (11 and 6 characters).
func TestThetaFigures(t *testing.T) {
	for _, tc := range []struct {
		est, std, truth float64
		want, wantTruth string
	}{
		{6.53049, 0.0017, 6.53526, "6.530±.002", "6.535"},  // spring, seed 2
		{0.00274, 0.00041, 0.0023, ".0027±.0004", ".0023"}, // advdiff κ: ".000" before
		{1.13993, 0.00041, 1.14012, "1.1399(4)", "1.1401"}, // not "1.1399±4e-4": one notation
		{5.12, 0.2, 5.43, "5.12±.20", "5.43"},
		{0.972, 0.036, 0.993, ".972±.036", ".993"},
		{0.9011, 0.0022, 1.1276, ".9011±.0022", "1.1276"}, // lv β: ".901±.002", "1.128" in 30 cells
		{5.12, 0, 5.43, "5.12±–", "5.43"},
		{0.05101, 5.7e-5, 0.0509519, ".05101(6)", ".05095"}, // advdiff κ at seed 1
		{math.NaN(), math.NaN(), 5.43, "–±–", "5.43"},
	} {
		es, tr := thetaFigures(tc.est, tc.std, tc.truth, 11, 6)
		if es != tc.want || tr != tc.wantTruth {
			t.Errorf("thetaFigures(%v, %v, %v) = %q, %q; want %q, %q", tc.est, tc.std, tc.truth, es, tr, tc.want, tc.wantTruth)
		}
		if n := len([]rune(es)); n > 11 {
			t.Errorf("%q is %d characters, more than 11", es, n)
		}
	}
}

// TestThetaFiguresReachSigma is the sidebar's advdiff κ at context 200
// and more: in 30 cells ".0509±2e-5" beside ".0510", an estimate cut
// five decimals short of its σ. In 31 cells the truth's column takes
// the estimate's five decimals; where no ± form in decimals fits the
// column (κ's σ from context 200, v's from 512), σ goes in parentheses
// in the estimate's last place, and the truth takes the cell that
// saves: ".05093±2e-5" wrote one row in two notations.
func TestThetaFiguresReachSigma(t *testing.T) {
	for _, tc := range []struct {
		est, std, truth float64
		estW, truthW    int
		want, wantTruth string
	}{
		{0.050931, 2e-5, 0.0509519, 11, 6, ".05093(2)", ".05095"},
		{0.050931, 2e-5, 0.0509519, 13, 7, ".05093±.00002", ".05095"},
		{1.13990, 8.7e-5, 1.14012, 11, 6, "1.13990(9)", "1.14012"},
		{1.13990, 8.7e-5, 1.14012, 13, 7, "1.13990(9)", "1.14012"},
		{0.0510012, 2e-6, 0.0509519, 11, 6, ".051001(2)", ".050952"},
		{1.13990, 9.6e-5, 1.14012, 11, 6, "1.1399(1)", "1.1401"}, // σ rounds up a place
	} {
		es, tr := thetaFigures(tc.est, tc.std, tc.truth, tc.estW, tc.truthW)
		if es != tc.want || tr != tc.wantTruth {
			t.Errorf("thetaFigures(%v, %v, %v) in %d and %d = %q, %q; want %q, %q", tc.est, tc.std, tc.truth, tc.estW, tc.truthW, es, tr, tc.want, tc.wantTruth)
		}
		if cells := thetaCells(es, tr, tc.estW, tc.truthW); ansi.StringWidth(cells) != tc.estW+1+tc.truthW || !strings.Contains(cells, es+" ") {
			t.Errorf("%q and %q laid out as %q", es, tr, cells)
		}
	}
	// Over the priors and every σ down to a millionth of the estimate
	// (below 1, a hundred-thousandth above: advdiff's at context 4096),
	// in both sidebars: the estimate reaches σ's place, the truth takes
	// its decimals, and the two fill their columns exactly.
	for _, est := range []float64{0.00213, 0.0509, 0.45, 0.973, 1.1399, 1.99, 5.4658, 7.91} {
		for _, cols := range [][2]int{{11, 6}, {13, 7}} {
			for std := est / 3; std >= 1e-5 || est < 1 && std >= 1e-6; std /= 1.7 {
				place := sigmaPlace(std)
				es, tr := thetaFigures(est, std, est*1.0001, cols[0], cols[1])
				mant := estimatePart(es)
				if decimals(mant) < place || decimals(tr) != decimals(mant) {
					t.Errorf("columns %v: θ̂ %v ± %.2g as %q, truth %q: want σ's place %d in both", cols, est, std, es, tr, place)
				}
				if w := ansi.StringWidth(thetaCells(es, tr, cols[0], cols[1])); w != cols[0]+1+cols[1] {
					t.Errorf("columns %v: %q and %q take %d cells", cols, es, tr, w)
				}
			}
		}
	}
}

// estimatePart is the estimate of "1.13990±9e-5" or "1.13990(9)".
func estimatePart(es string) string {
	es, _, _ = strings.Cut(es, "±")
	es, _, _ = strings.Cut(es, "(")
	return es
}

// decimals counts the digits after a number's point.
func decimals(s string) int {
	_, frac, _ := strings.Cut(s, ".")
	return len(frac)
}
