package bcpi

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"apic/sims"
)

// observation is one row of the joint Gaussian: Op applied to w at
// State equals Value, plus the discrepancy δ_ch(State) and noise when
// data is set (a context value of channel ch, whose Value is the
// observation less the prior mean m_θ).
type observation struct {
	state []float64
	op    []sims.OpTerm
	value float64
	data  bool
	ch    int
}

// datum is one observed context value: its state, grid point, channel
// and value.
type datum struct {
	state []float64
	grid  int
	ch    int
	y     float64
}

// model is one realization's BCPI likelihood. The unconstrained vector
// x is θ's logits followed by each channel's hyperparameters,
//
//	x = [logit θ (P) | per channel: log α, log ℓ_u (D), log α_δ, log ℓ_δ (D), log σ_u],
//
// θ_p = lo_p + (hi_p − lo_p) σ(x_p) inside the prior box.
type model struct {
	eq       sims.LinearEquations
	side     []float64
	lo, hi   []float64
	dims     int
	channels int
	period   []float64
	data     []datum
	col      [][]float64 // collocation states, where L_θ w = 0
	priorMu  []float64   // prior means of the log hyperparameters
	hasMean  bool        // the prior mean m_θ is not zero
	// nominalMean, when set, is the prior mean m_θ = F(·; θ) from the
	// known initial field (a field over time and space; see
	// usesNominalMean), with w(0) = 0 in place of u(0) = u₀.
	nominalMean func(theta, side []float64) []float64
	jitter      float64 // relative noise on the physics rows
}

// priorMean is m_θ on the grid, or nil for a zero mean.
func (m *model) priorMean(theta []float64) []float64 {
	if m.nominalMean != nil {
		return m.nominalMean(theta, m.side)
	}
	return m.eq.PriorMean(theta, m.side)
}

// The prior on the log hyperparameters (ours; the authors use Stan's
// weakly informative priors): independent normals with this standard
// deviation around priorMu.
const priorStd = 1.5

// physicsJitter is the relative noise on the collocation and initial
// observations: they hold exactly, up to the factorisation's rounding.
// fieldPhysicsJitter replaces it for a field over time and space (ours):
// advdiff's 256 derivative rows of a smooth GP are so nearly collinear
// that at 10⁻⁶ the factorisation fails over most of the prior box
// (v above about 0.9 at the length scales the MAP search visits), and
// the search can only go where it does not.
const (
	physicsJitter      = 1e-6
	fieldPhysicsJitter = 1e-4
)

func (m *model) nTheta() int     { return len(m.lo) }
func (m *model) perChannel() int { return 2*m.dims + 3 }
func (m *model) size() int       { return m.nTheta() + m.channels*m.perChannel() }

// hyper are the decoded parameters.
type hyper struct {
	theta          []float64
	u, delta       []seKernel // per channel
	noiseVariance  []float64  // per channel
	thetaLogJacobi float64    // Σ log dθ/dx, for the prior on x
}

func (m *model) decode(x []float64) hyper {
	P, D := m.nTheta(), m.dims
	h := hyper{theta: make([]float64, P)}
	for p := range P {
		s := sigmoid(x[p])
		h.theta[p] = m.lo[p] + (m.hi[p]-m.lo[p])*s
		h.thetaLogJacobi += math.Log(max(s*(1-s), 1e-300))
	}
	for c := range m.channels {
		o := P + c*m.perChannel()
		h.u = append(h.u, seKernel{amp2: math.Exp(2 * x[o]), scales: expAll(x[o+1 : o+1+D]), period: m.period}.withCaches())
		o += 1 + D
		h.delta = append(h.delta, seKernel{amp2: math.Exp(2 * x[o]), scales: expAll(x[o+1 : o+1+D]), period: m.period}.withCaches())
		o += 1 + D
		h.noiseVariance = append(h.noiseVariance, math.Exp(2*x[o]))
	}
	return h
}

func expAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = math.Exp(v)
	}
	return out
}

// observations lists the joint Gaussian's rows at θ: the context less the
// prior mean, the equations at the collocation states (L_θ w = 0) and
// the initial conditions.
func (m *model) observations(theta []float64) []observation {
	mean := m.priorMean(theta)
	obs := make([]observation, 0, len(m.data)+2*len(m.col))
	for _, d := range m.data {
		v := d.y
		if mean != nil {
			v -= mean[d.grid*m.channels+d.ch]
		}
		obs = append(obs, observation{state: d.state, op: channelIdentity[d.ch], value: v, data: true, ch: d.ch})
	}
	for i, ops := range m.eq.Operators(theta, m.side, m.col) {
		for _, op := range ops {
			obs = append(obs, observation{state: m.col[i], op: op})
		}
	}
	for _, ic := range m.eq.InitialObservations(theta, m.side) {
		v := ic.Value
		if m.nominalMean != nil {
			v = 0 // F(·; θ) starts at u₀, so w(0) = u(0) − F(0; θ) = 0
		}
		obs = append(obs, observation{state: ic.State, op: ic.Op, value: v})
	}
	return obs
}

// covariance builds the joint covariance of obs under h.
func (m *model) covariance(h hyper, obs []observation) *mat.SymDense {
	n := len(obs)
	K := mat.NewSymDense(n, nil)
	raw := K.RawSymmetric() // the upper triangle, written directly: SetSym's checks cost a fifth of the build
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			v := opCovAll(h.u, obs[i].op, obs[j].op, obs[i].state, obs[j].state)
			if obs[i].data && obs[j].data && obs[i].ch == obs[j].ch {
				v += h.delta[obs[i].ch].opCov(identity, identity, obs[i].state, obs[j].state)
			}
			row[j] = v
		}
	}
	for i, o := range obs {
		d := K.At(i, i)
		if o.data {
			K.SetSym(i, i, d+h.noiseVariance[o.ch])
		} else {
			K.SetSym(i, i, d*(1+m.jitter)+1e-12)
		}
	}
	return K
}

// factor is the joint Gaussian at one x: the observations, their
// Cholesky factor and α = K⁻¹ r.
type factor struct {
	h     hyper
	obs   []observation
	chol  mat.Cholesky
	alpha *mat.VecDense
	nlml  float64
}

// factorise returns the factor at x, or an error when K is not positive
// definite.
func (m *model) factorise(x []float64) (*factor, error) {
	f := &factor{h: m.decode(x)}
	f.obs = m.observations(f.h.theta)
	K := m.covariance(f.h, f.obs)
	if !f.chol.Factorize(K) {
		return nil, fmt.Errorf("covariance not positive definite")
	}
	r := mat.NewVecDense(len(f.obs), nil)
	for i, o := range f.obs {
		r.SetVec(i, o.value)
	}
	f.alpha = mat.NewVecDense(len(f.obs), nil)
	if err := f.chol.SolveVecTo(f.alpha, r); err != nil {
		return nil, err
	}
	n := float64(len(f.obs))
	f.nlml = 0.5*mat.Dot(r, f.alpha) + 0.5*f.chol.LogDet() + 0.5*n*math.Log(2*math.Pi)
	return f, nil
}

// negLogPost is −log p(x | data) up to a constant: the negative log
// marginal likelihood, the normal priors on the log hyperparameters and
// the uniform prior on θ through the logistic (its log-Jacobian). +Inf
// where K cannot be factorised.
func (m *model) negLogPost(x []float64) float64 {
	v, _ := m.negLogPostFactor(x)
	return v
}

// negLogPostFactor is negLogPost with the factor it came from (nil
// where the value is +Inf).
func (m *model) negLogPostFactor(x []float64) (float64, *factor) {
	for _, v := range x {
		if math.IsNaN(v) || math.Abs(v) > 50 {
			return math.Inf(1), nil
		}
	}
	f, err := m.factorise(x)
	if err != nil {
		return math.Inf(1), nil
	}
	v := f.nlml - f.h.thetaLogJacobi
	for i, mu := range m.priorMu {
		d := (x[m.nTheta()+i] - mu) / priorStd
		v += 0.5 * d * d
	}
	return v, f
}

// sigmoid is the logistic function, stable for large |x|.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
