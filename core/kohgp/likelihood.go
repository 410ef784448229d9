package kohgp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"apic/nets"
	"apic/sims"
)

// Numerical safeguards of the covariance
//
//	K = σ_f² (R + τ I) + (σ_n² + ν s²) I,
//
// where R is the unit-amplitude RBF correlation of the context and s² the
// channel's mean square. τ keeps R's Cholesky factor alive when long
// lengthscales make R numerically singular; ν floors the noise variance
// because noise-free data (the benchmark default) drive σ_n → 0. Both are
// part of the model, so the likelihood and its gradient are exact for it.
const (
	corrJitter = 1e-8 // τ
	noiseFloor = 1e-8 // ν: the noise standard deviation never drops below 1e-4·rms(y)
)

// channel is one observed channel's data and its GP workspace, reused
// across evaluations so that an evaluation allocates almost nothing.
//
// The factorisations call gonum's LAPACK (lapack64) on the workspace
// directly rather than going through mat.Cholesky, whose Factorize always
// estimates the condition number: at these sizes that estimate costs a
// quarter of an evaluation and the fit never uses it.
type channel struct {
	c      int         // channel index in the grid's value layout
	values []int       // value index g·C + c of each observation
	states [][]float64 // state of each observation (its grid point's)
	y      []float64   // observed values
	rms    float64     // root mean square of y (the scale of starts and floor)
	floor  float64     // ν·rms²
	dists  [][]float64 // squared differences per state dimension (sqDists)

	corr  []float64         // n×n R, upper triangle
	chol  blas64.Triangular // upper U with K = UᵀU
	kinv  blas64.Symmetric  // upper triangle of K⁻¹, for the gradient
	alpha []float64         // α = K⁻¹ r
	resid []float64         // r = y − F
	hyper Hyper             // hyperparameters of the last evaluation
}

func newChannel(c int, values []int, states [][]float64, y []float64) *channel {
	n := len(y)
	ss := 0.0
	for _, v := range y {
		ss += v * v
	}
	rms := math.Sqrt(ss / float64(n))
	if !(rms > 0) {
		rms = 1 // all-zero data: any positive scale will do
	}
	return &channel{
		c: c, values: values, states: states, y: y,
		rms: rms, floor: noiseFloor * rms * rms,
		dists: sqDists(states),
		corr:  make([]float64, n*n),
		chol:  blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: make([]float64, n*n)},
		kinv:  blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)},
		alpha: make([]float64, n),
		resid: make([]float64, n),
	}
}

// nlml returns this channel's negative log marginal likelihood
//
//	½ rᵀ K⁻¹ r + ½ log|K| + (n/2) log 2π,   log|K| = 2 Σ_i log U_ii,
//
// for hyperparameters h and the simulator output F on the grid, leaving
// K's factor U and α in the workspace. ok is false when K is not
// numerically positive definite.
func (ch *channel) nlml(h Hyper, F []float64) (v float64, ok bool) {
	n := len(ch.y)
	ch.hyper = h
	corrUpper(ch.corr, n, ch.dists, h.Kernel.Scales)
	sf2 := h.Kernel.Std * h.Kernel.Std
	diag := sf2*corrJitter + h.NoiseStd*h.NoiseStd + ch.floor
	u := ch.chol.Data
	for i := range n {
		row := u[i*n : i*n+n]
		for j := i; j < n; j++ {
			row[j] = sf2 * ch.corr[i*n+j]
		}
		row[i] += diag
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: u}); !ok {
		return math.Inf(1), false
	}
	quad, logDet := 0.0, 0.0
	for i, vi := range ch.values {
		ch.resid[i] = ch.y[i] - F[vi]
	}
	copy(ch.alpha, ch.resid)
	// α = U⁻¹ U⁻ᵀ r by two triangular solves (LAPACK's Potrs goes
	// through the general matrix solver, slower for one right-hand side).
	av := blas64.Vector{N: n, Inc: 1, Data: ch.alpha}
	blas64.Trsv(blas.Trans, ch.chol, av)
	blas64.Trsv(blas.NoTrans, ch.chol, av)
	for i := range n {
		quad += ch.resid[i] * ch.alpha[i]
		logDet += math.Log(u[i*n+i])
	}
	v = 0.5*quad + logDet + 0.5*float64(n)*math.Log(2*math.Pi)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return math.Inf(1), false
	}
	return v, true
}

// hyperGrad writes the gradient of nlml with respect to this channel's
// (log σ_f, log ℓ_1..ℓ_D, log σ_n) into dst, using the workspace of the
// last nlml call:
//
//	∂/∂η = ½ tr(W ∂K/∂η),   W = K⁻¹ − α αᵀ,
//	∂K/∂log σ_f = 2σ_f² (R + τI),  ∂K_ij/∂log ℓ_d = σ_f² R_ij D_d,ij / ℓ_d²,
//	∂K/∂log σ_n = 2σ_n² I.
//
// The sums run over the upper triangle, off-diagonal terms counted twice.
func (ch *channel) hyperGrad(dst []float64) {
	n := len(ch.y)
	h := ch.hyper
	copy(ch.kinv.Data, ch.chol.Data)
	// Potri fails only for a singular U, which Potrf has already excluded.
	lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: ch.kinv.Data})
	ki := ch.kinv.Data
	alpha := ch.alpha
	dims := len(h.Kernel.Scales)
	var accBuf [8]float64
	acc := accBuf[:0]
	if dims > len(accBuf) {
		acc = make([]float64, 0, dims)
	}
	acc = acc[:dims]
	clear(acc)
	var gAmp, gNoise float64
	for i := range n {
		row := ki[i*n : i*n+n]
		ai := alpha[i]
		wii := row[i] - ai*ai
		gAmp += wii * (1 + corrJitter)
		gNoise += wii
		for j := i + 1; j < n; j++ {
			wr := 2 * (row[j] - ai*alpha[j]) * ch.corr[i*n+j]
			gAmp += wr
			for d, dd := range ch.dists {
				acc[d] += wr * dd[i*n+j]
			}
		}
	}
	sf2 := h.Kernel.Std * h.Kernel.Std
	dst[0] = sf2 * gAmp
	for d, l := range h.Kernel.Scales {
		dst[1+d] = 0.5 * sf2 * acc[d] / (l * l)
	}
	dst[1+dims] = h.NoiseStd * h.NoiseStd * gNoise
}

// objective is the negative log marginal likelihood of one context as a
// function of the unconstrained vector u (see layout), summed over
// channels, with its analytic gradient.
//
// gonum's line search asks for the value and the gradient at a location
// in separate calls; the objective keeps the last evaluation so the
// gradient reuses its Cholesky factors and simulator run. The simulator
// is run on a tape only when θ changes, and the θ gradient is one
// vector-Jacobian product through it:
//
//	∂NLML/∂θ = −Σ_c α_cᵀ ∂F_c(X_c; θ)/∂θ.
type objective struct {
	sys   sims.System
	side  *nets.Tensor // [1, S]
	lay   layout
	chans []*channel

	// Simulator run for simTheta: F on the grid, on a tape that has not
	// been back-propagated yet unless simUsed.
	simTheta []float64
	tape     *nets.Tape
	thetaVar *nets.Var
	fVar     *nets.Var
	simUsed  bool
	simOK    bool

	// Last evaluation.
	u     []float64
	f     float64
	valid bool

	evals, grads int // counters, for diagnostics
	theta, jac   []float64
	seed         *nets.Tensor // [1, G·C] VJP seed −α scattered on the grid
}

func newObjective(sys sims.System, side []float64, lay layout, chans []*channel) *objective {
	sd := nets.NewTensor(1, len(side))
	copy(sd.Data, side)
	P := lay.nTheta()
	return &objective{
		sys: sys, side: sd, lay: lay, chans: chans,
		theta: make([]float64, P), jac: make([]float64, P),
		seed: nets.NewTensor(1, sys.Grid().Size()),
	}
}

// simulate makes the simulator run current for θ. A fresh tape is needed
// when θ changed or the current tape was already back-propagated.
func (o *objective) simulate(theta []float64, forGrad bool) bool {
	if o.tape != nil && slices.Equal(theta, o.simTheta) && !(forGrad && o.simUsed) {
		return o.simOK
	}
	o.simTheta = append(o.simTheta[:0], theta...)
	o.tape = nets.NewTape()
	th := nets.NewTensor(1, len(theta))
	copy(th.Data, theta)
	o.thetaVar = o.tape.Input(th)
	o.fVar = o.sys.NominalOp(o.tape, o.thetaVar, o.side)
	o.simUsed = false
	o.simOK = true
	for _, v := range o.fVar.Value.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			o.simOK = false
			break
		}
	}
	return o.simOK
}

// nominal returns F(θ) on the grid of the current simulator run.
func (o *objective) nominal() []float64 { return o.fVar.Value.Data }

// value returns NLML(u), +Inf where the simulator or a Cholesky
// factorisation fails (the line search then backs off).
func (o *objective) value(u []float64) float64 {
	if o.valid && slices.Equal(u, o.u) {
		return o.f
	}
	o.evals++
	o.u = append(o.u[:0], u...)
	o.valid = true
	o.f = o.compute(u)
	return o.f
}

func (o *objective) compute(u []float64) float64 {
	o.lay.theta(o.theta, u)
	if !o.simulate(o.theta, false) {
		return math.Inf(1)
	}
	F := o.nominal()
	total := 0.0
	for c, ch := range o.chans {
		v, ok := ch.nlml(o.lay.hyper(u, c), F)
		if !ok {
			return math.Inf(1)
		}
		total += v
	}
	return total
}

// gradient writes ∇_u NLML(u) into dst. At a location where the value is
// +Inf the gradient is undefined and dst is zeroed.
func (o *objective) gradient(dst, u []float64) {
	if math.IsInf(o.value(u), 1) {
		clear(dst)
		return
	}
	o.grads++
	clear(o.seed.Data)
	for c, ch := range o.chans {
		ch.hyperGrad(dst[o.lay.off(c):])
		for i, vi := range ch.values {
			o.seed.Data[vi] -= ch.alpha[i]
		}
	}
	// The tape of value()'s run is reused unless it was already
	// back-propagated (a second gradient at the same θ).
	o.simulate(o.theta, true)
	tp := o.tape
	tp.Backward(tp.Sum(tp.Mul(o.fVar, tp.Const(o.seed))))
	o.simUsed = true
	o.lay.thetaJac(o.jac, u)
	g := o.thetaVar.Grad
	for p := range o.jac {
		dst[p] = 0
		if g != nil {
			dst[p] = g.Data[p] * o.jac[p]
		}
	}
}
