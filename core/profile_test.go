package core

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"apic/sims"
)

// TestEvolutionProfileFlat: q = 0 gives a flat profile.
func TestEvolutionProfileFlat(t *testing.T) {
	h := make([]float64, 4)
	evolutionProfile(h, []float64{1, 5, -3, 2}, sims.Grid{Channels: []string{"y"}, States: make([][]float64, 4)}, 0)
	for j, v := range h {
		if v != 1 {
			t.Errorf("h[%d] = %v, want 1", j, v)
		}
	}
}

// TestEvolutionProfileProductGrid: on a (t, x) product grid each value is
// measured from the same x on the first time slice, the profile's
// geometric mean is 1, and it grows with the change as |Δ|^q.
func TestEvolutionProfileProductGrid(t *testing.T) {
	g := sims.Grid{Channels: []string{"u"}, States: make([][]float64, 6), Shape: []int{3, 2}}
	mean := []float64{1, 2, 1, 2, 3, 5} // t0: (1, 2); t2 moved by (2, 3)
	const q = 0.5
	h := make([]float64, len(mean))
	evolutionProfile(h, mean, g, q)
	logSum := 0.0
	for _, v := range h {
		logSum += math.Log(v)
	}
	if math.Abs(logSum) > 1e-12 {
		t.Errorf("Σ log h = %v, want 0 (geometric mean 1)", logSum)
	}
	for j := 1; j < 4; j++ {
		if h[j] != h[0] {
			t.Errorf("h[%d] = %v, want the unmoved value h[0] = %v", j, h[j], h[0])
		}
	}
	rms := 0.0
	for _, v := range mean {
		rms += v * v
	}
	eps := profileFloor * math.Sqrt(rms/6)
	if got, want := h[5]/h[4], math.Pow((3+eps)/(2+eps), q); math.Abs(got-want) > 1e-12 {
		t.Errorf("h[5]/h[4] = %v, want %v", got, want)
	}
	if got, want := h[4]/h[0], math.Pow((2+eps)/eps, q); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("h[4]/h[0] = %v, want %v", got, want)
	}
}

// TestEvolutionProfileChannels: on a one-dimensional grid with two
// channels each channel is measured from its own first value.
func TestEvolutionProfileChannels(t *testing.T) {
	g := sims.Grid{Channels: []string{"a", "b"}, States: make([][]float64, 3)}
	mean := []float64{1, 10, 2, 10, 3, 10} // a moves by 1, 2; b stays
	h := make([]float64, len(mean))
	evolutionProfile(h, mean, g, 1)
	if !(h[1] == h[3] && h[3] == h[5] && h[5] < h[2] && h[2] < h[4]) {
		t.Errorf("profile %v: want b flat and below a, a increasing", h)
	}
}

// TestFitContextNoiseProfile: residuals whose deviation is h_i·σ give back
// σ² when the fit is told h, and the profiled intervals h_i·σ̂ cover the
// residuals at the nominal rates, which flat intervals cannot.
func TestFitContextNoiseProfile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	const n, sigma = 4000, 0.05
	terms := make([]obsTerm, n)
	mean, sv, h, truth := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	idx := make([]int, n)
	for i := range terms {
		h[i] = math.Exp(2 * (float64(i)/n - 0.5)) // from e^-1 to e
		truth[i] = h[i] * sigma * rng.NormFloat64()
		terms[i] = obsTerm{idx: []int{i}, w: []float64{1}, y: truth[i]}
		idx[i] = i
	}
	got := fitContextNoise(terms, mean, sv, h, 1, []float64{1})
	if r := got[0] / (sigma * sigma); r < 0.85 || r > 1.18 {
		t.Errorf("with the profile: σ² %v, ratio %v to the truth, want within [0.85, 1.18]", got[0], r)
	}
	flat := fitContextNoise(terms, mean, sv, nil, 1, []float64{1})
	sdProfiled, sdFlat := make([]float64, n), make([]float64, n)
	for i := range sdFlat {
		sdProfiled[i], sdFlat[i] = h[i]*math.Sqrt(got[0]), math.Sqrt(flat[0])
	}
	eP, eF := ECE(mean, sdProfiled, truth, idx), ECE(mean, sdFlat, truth, idx)
	if eP > 0.02 || eF < 2*eP {
		t.Errorf("ECE profiled %v, flat %v: want the profiled one ≤ 0.02 and under half the flat one", eP, eF)
	}
}

// TestPickSpread: the flattest profile within the tolerance of the best
// ECE wins, the best mode at that exponent, and the earlier candidate on
// a tie.
func TestPickSpread(t *testing.T) {
	c := func(mode string, q, e float64) spreadCandidate {
		return spreadCandidate{SpreadFit{Spread: mode, Shape: q}, e}
	}
	for _, tc := range []struct {
		name  string
		cands []spreadCandidate
		want  SpreadFit
	}{
		{"clear gain", []spreadCandidate{c("", 0, 0.040), c("", 0.3, 0.036), c(SpreadResidual, 0.4, 0.033)}, SpreadFit{Spread: SpreadResidual, Shape: 0.4}},
		{"gain within tolerance", []spreadCandidate{c("", 0, 0.0415), c("", 0.2, 0.040), c(SpreadContext, 0, 0.041)}, SpreadFit{Spread: SpreadContext}},
		{"flatter within tolerance", []spreadCandidate{c("", 0, 0.050), c("", 0.2, 0.0345), c("", 0.4, 0.034)}, SpreadFit{Shape: 0.2}},
		{"tie keeps the earlier", []spreadCandidate{c("", 0, 0.05), c(SpreadContext, 0, 0.05)}, SpreadFit{}},
		{"all NaN", []spreadCandidate{c(SpreadContext, 0, math.NaN())}, SpreadFit{Spread: SpreadContext}},
		{"NaN never wins", []spreadCandidate{c("", 0, math.NaN()), c(SpreadContext, 0.1, 0.05)}, SpreadFit{Spread: SpreadContext, Shape: 0.1}},
	} {
		if got := pickSpread(tc.cands); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestPickSpreadBothBands: a mode is scored by the sum of its
// reconstruction and discrepancy ECEs, so the mode with the slightly
// better reconstruction but a far worse δ band loses (lv/anp, noise-
// aware, 30 points: context 0.081 / 0.177, residual 0.077 / 0.157 on
// the test set);
// a NaN δ ECE counts for nothing.
func TestPickSpreadBothBands(t *testing.T) {
	cands := []spreadCandidate{
		{SpreadFit{Spread: SpreadContext}, bandsECE(0.070, 0.177)},
		{SpreadFit{Spread: SpreadResidual}, bandsECE(0.072, 0.157)},
	}
	if got := pickSpread(cands); got.Spread != SpreadResidual {
		t.Errorf("picked %q, want %q", got.Spread, SpreadResidual)
	}
	if got := bandsECE(0.05, math.NaN()); got != 0.05 {
		t.Errorf("bandsECE with a NaN δ ECE = %v, want the reconstruction's 0.05", got)
	}
}
