package core

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// MAE is the mean absolute error of mu against truth over the indices idx:
//
//	MAE = (1/|I|) Σ_{i∈I} |μ_i − y_i|
func MAE(mu, truth []float64, idx []int) float64 {
	if len(idx) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, i := range idx {
		s += math.Abs(mu[i] - truth[i])
	}
	return s / float64(len(idx))
}

// GaussianLL is the mean Gaussian log-density of truth under N(μ, s²):
//
//	LL = (1/|I|) Σ_{i∈I} [−½ log(2π s_i²) − (y_i − μ_i)² / (2 s_i²)]
func GaussianLL(mu, sd, truth []float64, idx []int) float64 {
	if len(idx) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, i := range idx {
		v := sd[i] * sd[i]
		d := truth[i] - mu[i]
		s += -0.5*math.Log(2*math.Pi*v) - d*d/(2*v)
	}
	return s / float64(len(idx))
}

// eceLevels are the confidence levels p = 0.1, …, 0.9 of BENCHMARKS.md.
var eceLevels = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// eceZ[i] is the half-width, in standard deviations, of the central
// eceLevels[i] interval of a Gaussian: Φ⁻¹((1 + p)/2).
var eceZ = func() []float64 {
	z := make([]float64, len(eceLevels))
	for i, p := range eceLevels {
		z[i] = distuv.UnitNormal.Quantile((1 + p) / 2)
	}
	return z
}()

// eceZ2[i] is eceZ[i]², for comparisons of squared residuals.
var eceZ2 = func() []float64 {
	z2 := make([]float64, len(eceZ))
	for i, z := range eceZ {
		z2[i] = z * z
	}
	return z2
}()

// ECE is the expected calibration error of the Gaussian predictive
// N(μ, s²): for each level p in 0.1..0.9, the share of targets inside the
// central p-interval is compared with p,
//
//	ECE = (1/9) Σ_p | (1/|I|) Σ_{i∈I} 1{|y_i − μ_i| ≤ z_p s_i} − p |
func ECE(mu, sd, truth []float64, idx []int) float64 {
	if len(idx) == 0 {
		return math.NaN()
	}
	return coverageError(len(idx), func(k int) (float64, float64) {
		i := idx[k]
		return math.Abs(truth[i] - mu[i]), sd[i]
	})
}

// coverageError is ECE over n residuals: resid(k) gives the k-th absolute
// error |y − μ| and its standard deviation s, covered at level p when
// |y − μ| ≤ z_p s.
func coverageError(n int, resid func(k int) (absErr, sd float64)) float64 {
	counts := make([]int, len(eceLevels))
	for k := range n {
		a, s := resid(k)
		r := a / s
		for l, z := range eceZ {
			if r <= z {
				counts[l]++
			}
		}
	}
	return coverageGap(counts, n)
}

// countAtMost sets dst[l] to the number of values of sorted (ascending)
// that are at most limits[l]·scale.
func countAtMost(dst []int, sorted, limits []float64, scale float64) {
	for l, z := range limits {
		bound := z * scale
		dst[l] = sort.Search(len(sorted), func(i int) bool { return sorted[i] > bound })
	}
}

// coverageGap is the mean over the ECE levels of |counts[l]/n − p_l|.
func coverageGap(counts []int, n int) float64 {
	e := 0.0
	for l, p := range eceLevels {
		e += math.Abs(float64(counts[l])/float64(n) - p)
	}
	return e / float64(len(eceLevels))
}

// Summary is a mean and standard deviation over realizations.
type Summary struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Summarize returns the mean and (population) standard deviation of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{Mean: math.NaN(), Std: math.NaN()}
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return Summary{Mean: m, Std: math.Sqrt(v / float64(len(xs)))}
}
