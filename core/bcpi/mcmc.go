package bcpi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The adaptive Metropolis sampler (Haario, Saksman & Tamminen 2001):
// Gaussian random-walk proposals whose covariance is, after adaptStart
// steps, s_d (Cov(chain so far) + ε I) with s_d = 2.38²/d, refreshed
// every adaptEvery steps. A global scale λ multiplies the proposal and
// follows the acceptance rate towards targetAccept by a Robbins–Monro
// step in log λ (ours): on nominal data the posterior is so narrow that
// the initial proposal is never accepted and the chain's covariance,
// which the adaptation learns from, would stay zero.
const (
	targetAccept = 0.234
	initialStep  = 0.05
	adaptStart   = 200
	adaptEvery   = 50
	adaptEps     = 1e-8
)

// metropolis runs steps iterations from x0 and returns the second half
// of the chain and the acceptance rate.
func (m *model) metropolis(ctx context.Context, rng *rand.Rand, x0 []float64, steps int) ([][]float64, float64, error) {
	d := len(x0)
	x := append([]float64(nil), x0...)
	lp := -m.negLogPost(x)
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		return nil, 0, fmt.Errorf("the MAP has no finite posterior density")
	}
	L := mat.NewTriDense(d, mat.Lower, nil)
	for i := range d {
		L.SetTri(i, i, initialStep)
	}
	mean := make([]float64, d)
	scatter := mat.NewSymDense(d, nil) // Σ (x − mean)(x − mean)ᵀ (Welford)
	chain := make([][]float64, 0, steps)
	accepted := 0
	z, prop := mat.NewVecDense(d, nil), mat.NewVecDense(d, nil)
	logScale := 0.0
	for it := range steps {
		if it%adaptEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		for i := range d {
			z.SetVec(i, rng.NormFloat64())
		}
		prop.MulVec(L, z)
		scale := math.Exp(logScale)
		for i := range d {
			prop.SetVec(i, scale*prop.AtVec(i)+x[i])
		}
		took := 0.0
		if lpp := -m.negLogPost(prop.RawVector().Data); math.Log(rng.Float64()) < lpp-lp {
			copy(x, prop.RawVector().Data)
			lp = lpp
			accepted++
			took = 1
		}
		logScale += (took - targetAccept) / math.Sqrt(float64(it+1))
		chain = append(chain, append([]float64(nil), x...))
		welford(mean, scatter, x, len(chain))
		if it >= adaptStart && it%adaptEvery == 0 {
			adaptProposal(L, scatter, len(chain))
		}
	}
	return chain[steps/2:], float64(accepted) / float64(steps), nil
}

// welford adds the n-th point x to the running mean and scatter matrix.
func welford(mean []float64, scatter *mat.SymDense, x []float64, n int) {
	d := len(x)
	delta := make([]float64, d)
	for i := range d {
		delta[i] = x[i] - mean[i]
		mean[i] += delta[i] / float64(n)
	}
	for i := range d {
		for j := i; j < d; j++ {
			scatter.SetSym(i, j, scatter.At(i, j)+delta[i]*(x[j]-mean[j]))
		}
	}
}

// adaptProposal sets L to the Cholesky factor of s_d (scatter/(n−1) + εI),
// keeping the old L when that is not positive definite.
func adaptProposal(L *mat.TriDense, scatter *mat.SymDense, n int) {
	d := scatter.SymmetricDim()
	sd := 2.38 * 2.38 / float64(d)
	c := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := sd * scatter.At(i, j) / float64(n-1)
			if i == j {
				v += sd * adaptEps
			}
			c.SetSym(i, j, v)
		}
	}
	var chol mat.Cholesky
	if chol.Factorize(c) {
		chol.LTo(L)
	}
}
