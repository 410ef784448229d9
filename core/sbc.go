package core

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// The statistics of amortized-inference diagnostics (as sbi and BayesFlow
// give them): coverage of central intervals, simulation-based calibration
// (SBC) ranks, posterior contraction and z-scores. Each works on a
// Gaussian predictive N(μ, s²), the form of every APIC prediction.

// DiagnosticLevels are the nominal levels of the reliability curve:
// 0.05, 0.10, …, 0.95.
var DiagnosticLevels = func() []float64 {
	out := make([]float64, 19)
	for i := range out {
		out[i] = float64(i+1) / 20 // not (i+1)·0.05, which prints as 0.15000000000000002
	}
	return out
}()

// CentralZ is the half-width, in standard deviations, of the central
// interval of a Gaussian holding probability p:
//
//	z_p = Φ⁻¹((1 + p)/2) = √2 · erf⁻¹(p)
func CentralZ(p float64) float64 { return math.Sqrt2 * math.Erfinv(p) }

// Coverage counts, for each level p of Levels, how many residuals fall
// inside the central p-interval of their Gaussian:
//
//	coverage(p) = (1/n) Σ_i 1{|y_i − μ_i| ≤ z_p s_i}
//
// A residual whose deviation is not positive and finite (a point
// estimate without spread) is counted in Skipped, not in N.
type Coverage struct {
	Levels  []float64
	Hits    []int // Hits[l]: residuals inside the Levels[l] interval
	N       int   // residuals counted
	Skipped int   // residuals without a usable deviation
	z       []float64
}

// NewCoverage returns an empty count at the given levels (each in (0, 1)).
func NewCoverage(levels []float64) *Coverage {
	c := &Coverage{Levels: levels, Hits: make([]int, len(levels)), z: make([]float64, len(levels))}
	for i, p := range levels {
		c.z[i] = CentralZ(p)
	}
	return c
}

// Add counts one residual y − μ with deviation s.
func (c *Coverage) Add(mu, s, y float64) {
	if !(s > 0) || math.IsInf(s, 0) || math.IsNaN(mu) || math.IsNaN(y) {
		c.Skipped++
		return
	}
	r := math.Abs(y-mu) / s
	c.N++
	for l, z := range c.z {
		if r <= z {
			c.Hits[l]++
		}
	}
}

// AddLevel counts one residual by the smallest central level whose
// interval holds it (a non-Gaussian posterior's, ThetaShape.Level);
// ok false counts it in Skipped.
func (c *Coverage) AddLevel(level float64, ok bool) {
	if !ok || math.IsNaN(level) {
		c.Skipped++
		return
	}
	c.N++
	for l, p := range c.Levels {
		if level <= p {
			c.Hits[l]++
		}
	}
}

// Empirical is coverage(p) at each level (NaN at every level when
// nothing was counted).
func (c *Coverage) Empirical() []float64 {
	out := make([]float64, len(c.Levels))
	for l := range out {
		out[l] = math.NaN()
		if c.N > 0 {
			out[l] = float64(c.Hits[l]) / float64(c.N)
		}
	}
	return out
}

// Signed is the reliability curve: coverage(p) − p at each level;
// negative where the intervals are too narrow (over-confident), positive
// where they are too wide.
func (c *Coverage) Signed() []float64 {
	out := c.Empirical()
	for l, p := range c.Levels {
		out[l] -= p
	}
	return out
}

// PIT is the probability integral transform of the truth θ under the
// Gaussian posterior N(θ̂, s²):
//
//	u = Φ((θ − θ̂)/s) = ½ (1 + erf((θ − θ̂)/(s√2)))
//
// u is uniform on (0, 1) over realizations when the posterior is
// calibrated; NaN when s is not positive and finite.
func PIT(theta, est, s float64) float64 {
	if !(s > 0) || math.IsInf(s, 0) {
		return math.NaN()
	}
	return 0.5 * (1 + math.Erf((theta-est)/(s*math.Sqrt2)))
}

// SBCRank is the rank statistic of simulation-based calibration (Talts et
// al. 2018) for a Gaussian posterior: with L draws θ̃_l ~ N(θ̂, s²) from
// rng,
//
//	rank = #{l : θ̃_l < θ} ∈ {0, …, L}
//
// which is uniform over realizations when the posterior is calibrated
// (the rank of L draws is a Binomial(L, u) of the PIT u, so its
// histogram is the PIT's, with sampling noise). −1 when s is not
// positive and finite.
func SBCRank(rng *rand.Rand, draws int, theta, est, s float64) int {
	if !(s > 0) || math.IsInf(s, 0) {
		return -1
	}
	rank := 0
	for range draws {
		if est+s*rng.NormFloat64() < theta {
			rank++
		}
	}
	return rank
}

// SBCRankCDF is SBCRank for a posterior given by its distribution
// function: u = F(θ) is the truth's, and the rank counts the draws
// below the truth, each with probability u; -1 when ok is false (no
// posterior spread).
func SBCRankCDF(rng *rand.Rand, draws int, u float64, ok bool) int {
	if !ok || math.IsNaN(u) {
		return -1
	}
	rank := 0
	for range draws {
		if rng.Float64() < u {
			rank++
		}
	}
	return rank
}

// RankHistogram bins ranks in {0, …, draws} into bins equal bins:
// rank r goes to bin ⌊r·bins/(draws+1)⌋, so every bin holds the same
// number of ranks when bins divides draws + 1. Negative ranks (no
// posterior spread) are left out.
func RankHistogram(ranks []int, draws, bins int) []int {
	out := make([]int, bins)
	for _, r := range ranks {
		if r < 0 || r > draws {
			continue
		}
		out[r*bins/(draws+1)]++
	}
	return out
}

// ChiSquareUniform tests a histogram against the uniform: with n counts
// in B bins and E = n/B expected per bin,
//
//	X² = Σ_b (n_b − E)² / E,   df = B − 1,   p = P(χ²_df ≥ X²)
//
// = Q(df/2, X²/2), the regularized upper incomplete gamma function. A
// small p (below 0.01, say) rejects uniformity. NaN when the histogram
// is empty or has fewer than two bins.
func ChiSquareUniform(counts []int) (stat float64, df int, p float64) {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n == 0 || len(counts) < 2 {
		return math.NaN(), len(counts) - 1, math.NaN()
	}
	e := float64(n) / float64(len(counts))
	for _, c := range counts {
		d := float64(c) - e
		stat += d * d / e
	}
	df = len(counts) - 1
	return stat, df, mathext.GammaIncRegComp(float64(df)/2, stat/2)
}

// SBCMinPerBin is the fewest ranks per histogram bin, on average, for
// ChiSquareUniform's p-value to mean something: the usual condition of
// five expected counts per cell for the chi-square approximation.
const SBCMinPerBin = 5

// SBCBins chooses the histogram's bins for n realizations: the most of
// 20, 10, 5, 4 and 2 (all dividing SBCDraws + 1 = 100) that leaves at
// least SBCMinPerBin realizations per bin expected; at least 2, which
// fewer than 2·SBCMinPerBin realizations do not fill (SBCWithheld).
func SBCBins(n int) int {
	for _, b := range []int{20, 10, 5, 4} {
		if n >= SBCMinPerBin*b {
			return b
		}
	}
	return 2
}

// SBCWithheld says why a rank histogram gets no chi-square p-value: it
// holds fewer than SBCMinPerBin ranks per bin, where the approximation
// fails and the p-value would mislead; "" when the test applies.
func SBCWithheld(counts []int) string {
	n := 0
	for _, c := range counts {
		n += c
	}
	if need := SBCMinPerBin * len(counts); n < need {
		return fmt.Sprintf("too few realizations for the χ² test: %d, it needs %d", n, need)
	}
	return ""
}

// SBCDraws is the number L of posterior draws each SBC rank is taken
// among: L + 1 = 100 rank values, which every SBCBins choice divides.
const SBCDraws = 99

// UniformPriorVariance is the variance of the uniform prior on [lo, hi]
// that every system draws θ from:
//
//	σ_prior² = (hi − lo)² / 12
func UniformPriorVariance(lo, hi float64) float64 { return (hi - lo) * (hi - lo) / 12 }

// Contraction is the posterior contraction of one parameter (Schad et
// al. 2021; BayesFlow's calibration diagnostics):
//
//	contraction = 1 − σ_post² / σ_prior²
//
// near 1 when the data pin the parameter down, near 0 when the posterior
// is as wide as the prior, negative when wider. NaN without a
// posterior deviation.
func Contraction(postSD, priorVar float64) float64 {
	if !(postSD > 0) || math.IsInf(postSD, 0) || !(priorVar > 0) {
		return math.NaN()
	}
	return 1 - postSD*postSD/priorVar
}

// ZScore is the posterior z-score of the truth:
//
//	z = (θ̂ − θ) / σ_post
//
// standard normal over realizations when the posterior is calibrated
// (|z| mostly below 2); large |z| with high contraction is an
// over-confident posterior, large |z| with low contraction a biased one.
// NaN without a posterior deviation.
func ZScore(theta, est, postSD float64) float64 {
	if !(postSD > 0) || math.IsInf(postSD, 0) {
		return math.NaN()
	}
	return (est - theta) / postSD
}

// JSONFloats is a slice of numbers that serialises NaN and ±Inf as the
// strings "NaN", "Infinity" and "-Infinity" (JSON has no such numbers),
// as Summary does.
type JSONFloats []float64

// MarshalJSON writes the numbers as a JSON array.
func (f JSONFloats) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jsonFloat(v)...)
	}
	return append(b, ']'), nil
}

// JSONFloat is one number serialised as JSONFloats' elements are.
type JSONFloat float64

// MarshalJSON writes the number, or its string for NaN and ±Inf.
func (f JSONFloat) MarshalJSON() ([]byte, error) { return []byte(jsonFloat(float64(f))), nil }
