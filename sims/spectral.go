package sims

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"apic/nets"
)

// spectralSolver solves the linear advection-diffusion-reaction equation
//
//	u_t + v u_x = κ u_xx − c u,   x ∈ [0, 1) periodic,
//
// exactly in Fourier space on nx equispaced points x_j = j/nx and nt
// equispaced times t_n = n·dt. With û_m = Σ_j u0_j ω^{−mj} (ω = e^{2πi/nx},
// the unnormalised forward DFT) and the signed wavenumber k_m = 2π m
// (m = −nx/2..nx/2−1; the index nx/2 is the signed frequency −nx/2),
//
//	u(t_n, x_j) = Re[ (1/nx) Σ_{m=0}^{nx−1} û_m E_m(t_n) ω^{mj} ],
//	E_m(t) = exp(−(κ k_m² + c) t − i v k_m t).
//
// Because u0 is real, û_{nx−m} = conj(û_m) and E_{−m} = conj(E_m), so the
// sum is carried over the half spectrum m = 0..nx/2 with multiplicities
// w_m = 1, 2, …, 2, 1, which is exactly what a real inverse FFT computes;
// the Nyquist term (m = nx/2, k = −π nx) contributes Re(û E)(−1)^j, the
// real part the full complex sum would take. The half-spectrum real
// transforms of gonum's fourier.FFT do the work at half the cost of the
// complex ones.
//
// Because the times are equispaced, E_m(t_n) = r_m^n with
// r_m = E_m(dt): each time step costs one complex multiply per mode
// instead of an exp and a sincos (the recurrence's rounding error grows
// like n ulp, far below 1e-12 for nt = 64).
type spectralSolver struct {
	nx, nt int
	dt     float64
	k      []float64 // signed wavenumber of half-spectrum index m = 0..nx/2
	w      []float64 // multiplicity of index m in the full spectrum
	pool   sync.Pool // *spectralWork, so FFT plans are not rebuilt per call
}

// spectralWork is one goroutine's scratch: an FFT plan and mode buffers.
type spectralWork struct {
	fft              *fourier.FFT
	coef, e, r, ghat []complex128 // len nx/2+1
	q                []complex128 // len nx/2+1, u0 adjoint accumulator
	row              []float64    // len nx
}

func newSpectralSolver(nx, nt int, dt float64) *spectralSolver {
	if nx < 2 || nx%2 != 0 || nt < 1 {
		panic(fmt.Sprintf("sims: spectral solver needs even nx ≥ 2 and nt ≥ 1, got %d, %d", nx, nt))
	}
	h := nx/2 + 1
	s := &spectralSolver{nx: nx, nt: nt, dt: dt, k: make([]float64, h), w: make([]float64, h)}
	for m := range h {
		s.k[m] = 2 * math.Pi * float64(m)
		s.w[m] = 2
	}
	s.k[h-1] = -math.Pi * float64(nx) // signed index −nx/2
	s.w[0], s.w[h-1] = 1, 1
	s.pool.New = func() any {
		return &spectralWork{
			fft:  fourier.NewFFT(nx),
			coef: make([]complex128, h),
			e:    make([]complex128, h),
			r:    make([]complex128, h),
			ghat: make([]complex128, h),
			q:    make([]complex128, h),
			row:  make([]float64, nx),
		}
	}
	return s
}

func (s *spectralSolver) work() *spectralWork     { return s.pool.Get().(*spectralWork) }
func (s *spectralSolver) release(w *spectralWork) { s.pool.Put(w) }

// modes returns the number of half-spectrum modes, nx/2 + 1.
func (s *spectralSolver) modes() int { return s.nx/2 + 1 }

// transform writes û/nx, the normalised half spectrum of u0, into uhat.
func (s *spectralSolver) transform(ws *spectralWork, uhat []complex128, u0 []float64) {
	ws.fft.Coefficients(uhat, u0)
	inv := 1 / float64(s.nx)
	for m := range uhat {
		uhat[m] *= complex(inv, 0)
	}
}

// steps writes the one-step factors r_m = E_m(dt) into r.
func (s *spectralSolver) steps(r []complex128, v, kappa, c float64) {
	for m, k := range s.k {
		decay := math.Exp(-(kappa*k*k + c) * s.dt)
		sin, cos := math.Sincos(v * k * s.dt)
		r[m] = complex(decay*cos, -decay*sin)
	}
}

// solve writes u(t_n, x_j) at dst[n*nx+j] given uhat = û/nx.
func (s *spectralSolver) solve(ws *spectralWork, dst []float64, uhat []complex128, v, kappa, c float64) {
	s.steps(ws.r, v, kappa, c)
	e, r, coef := ws.e, ws.r, ws.coef
	for m := range e {
		e[m] = 1
	}
	for n := range s.nt {
		for m, em := range e {
			coef[m] = uhat[m] * em
			e[m] = em * r[m]
		}
		// The real inverse transform ignores the imaginary parts of the
		// zero and Nyquist coefficients: the Re of the full sum.
		ws.fft.Sequence(dst[n*s.nx:(n+1)*s.nx], coef)
	}
}

// adjoint is the vector-Jacobian product of solve. Given G = dL/du on the
// grid (g[n*nx+j]) and uhat = û/nx, write Ĝ_n(m) = Σ_j G[n, j] ω^{−mj} (the
// forward FFT of time slice n; G is real so Σ_j G[n, j] ω^{mj} = conj Ĝ_n(m))
// and
//
//	P_{n,m} = conj(Ĝ_n(m)) (û_m/nx) E_m(t_n),
//	Q_m     = Σ_n conj(Ĝ_n(m)) E_m(t_n).
//
// Differentiating u = Re[(1/nx) Σ_m û_m E_m ω^{mj}] with
// ∂E/∂κ = −k² t E, ∂E/∂v = −i k t E, ∂E/∂c = −t E and folding the
// conjugate-symmetric pairs into the multiplicities w_m:
//
//	dL/dκ  = −Σ_n t_n Σ_m w_m k_m² Re P_{n,m}
//	dL/dv  =  Σ_n t_n Σ_m w_m k_m  Im P_{n,m}      (Re(−i P) = Im P)
//	dL/dc  = −Σ_n t_n Σ_m w_m      Re P_{n,m}
//	dL/du0_j = (1/nx) Σ_m w_m Re(Q_m ω^{−mj}) = (1/nx) · realIFFT(conj Q)_j,
//
// the last being the adjoint of the forward FFT û_m = Σ_j u0_j ω^{−mj}.
// du0 may be nil when that gradient is not needed.
func (s *spectralSolver) adjoint(ws *spectralWork, g []float64, uhat []complex128, v, kappa, c float64, du0 []float64) (dv, dkappa, dc float64) {
	s.steps(ws.r, v, kappa, c)
	e, r, ghat, q := ws.e, ws.r, ws.ghat, ws.q
	for m := range e {
		e[m] = 1
		q[m] = 0
	}
	for n := range s.nt {
		t := float64(n) * s.dt
		ws.fft.Coefficients(ghat, g[n*s.nx:(n+1)*s.nx])
		var sk2, sk, s0 float64
		for m, em := range e {
			gc := complex(real(ghat[m]), -imag(ghat[m])) * em
			q[m] += gc
			p := gc * uhat[m]
			wk := s.w[m] * s.k[m]
			rp := real(p)
			s0 += s.w[m] * rp
			sk += wk * imag(p)
			sk2 += wk * s.k[m] * rp
			e[m] = em * r[m]
		}
		dkappa -= t * sk2
		dv += t * sk
		dc -= t * s0
	}
	if du0 != nil {
		inv := 1 / float64(s.nx)
		for m, qm := range q {
			q[m] = complex(real(qm)*inv, -imag(qm)*inv)
		}
		// Sequence overwrites its destination, so transform into scratch
		// and add: gradients accumulate.
		for j, d := range ws.fft.Sequence(ws.row, q) {
			du0[j] += d
		}
	}
	return dv, dkappa, dc
}

// spectralOp is the fused, differentiable spectral solver of
// spectralSolver for a batch:
//
//	inputs  theta [B, 2] (columns v, κ), c [B, 1], u0 [B, nx]
//	output  u [B, nt·nx], row b holding u(t_n, x_j) at n·nx + j (t-major).
//
// Its Backward is spectralSolver.adjoint per row; gradients are added only
// into the non-nil input gradients. A fresh op is used per Apply: it keeps
// the spectra of u0 from Forward for Backward.
type spectralOp struct {
	s    *spectralSolver
	uhat []complex128 // [B·(nx/2+1)] û/nx per row, from Forward
}

func (op *spectralOp) check(inputs []*nets.Tensor) (theta, c, u0 *nets.Tensor) {
	if len(inputs) != 3 {
		panic(fmt.Sprintf("sims: spectral op takes theta, c, u0; got %d inputs", len(inputs)))
	}
	theta, c, u0 = inputs[0], inputs[1], inputs[2]
	b := theta.Rows
	if theta.Cols != 2 || c.Rows != b || c.Cols != 1 || u0.Rows != b || u0.Cols != op.s.nx {
		panic(fmt.Sprintf("sims: spectral op shapes theta %s, c %s, u0 %s; want [B, 2], [B, 1], [B, %d]",
			theta.Shape(), c.Shape(), u0.Shape(), op.s.nx))
	}
	return theta, c, u0
}

func (op *spectralOp) Forward(inputs []*nets.Tensor) *nets.Tensor {
	theta, c, u0 := op.check(inputs)
	s := op.s
	h := s.modes()
	out := nets.NewTensor(theta.Rows, s.nt*s.nx)
	op.uhat = make([]complex128, theta.Rows*h)
	spectralParallel(theta.Rows, func(lo, hi int) {
		ws := s.work()
		defer s.release(ws)
		for b := lo; b < hi; b++ {
			uh := op.uhat[b*h : (b+1)*h]
			s.transform(ws, uh, u0.Row(b))
			s.solve(ws, out.Row(b), uh, theta.Data[2*b], theta.Data[2*b+1], c.Data[b])
		}
	})
	return out
}

func (op *spectralOp) Backward(inputs []*nets.Tensor, _, outGrad *nets.Tensor, inGrads []*nets.Tensor) {
	theta, c, _ := op.check(inputs)
	s := op.s
	h := s.modes()
	gTheta, gC, gU0 := inGrads[0], inGrads[1], inGrads[2]
	spectralParallel(theta.Rows, func(lo, hi int) {
		ws := s.work()
		defer s.release(ws)
		for b := lo; b < hi; b++ {
			var du0 []float64
			if gU0 != nil {
				du0 = gU0.Row(b)
			}
			dv, dk, dc := s.adjoint(ws, outGrad.Row(b), op.uhat[b*h:(b+1)*h], theta.Data[2*b], theta.Data[2*b+1], c.Data[b], du0)
			if gTheta != nil {
				gTheta.Data[2*b] += dv
				gTheta.Data[2*b+1] += dk
			}
			if gC != nil {
				gC.Data[b] += dc
			}
		}
	})
}

// spectralParallel runs fn over [0, rows) split into contiguous chunks, one
// goroutine per available CPU when there are enough rows to pay for it.
// Chunks write disjoint rows, so fn needs no locking.
func spectralParallel(rows int, fn func(lo, hi int)) {
	const minRowsPerWorker = 4
	workers := min(runtime.GOMAXPROCS(0), rows/minRowsPerWorker)
	if workers <= 1 {
		fn(0, rows)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*rows/workers, (w+1)*rows/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

// SpectralSolve records the fused advection-diffusion-reaction solver on
// the 64 × 64 advdiff grid:
//
//	u_t + v u_x = κ u_xx − c u,  u(0, x) = u0(x),
//
// with theta [B, 2] = (v, κ), c [B, 1] and u0 [B, 64] at x_i = i/64, giving
// [B, 4096] with u(t_n, x_i) at n·64 + i, t_n = n/63. Gradients reach every
// input that needs one.
func SpectralSolve(tp *nets.Tape, theta, c, u0 *nets.Var) *nets.Var {
	return tp.Apply(&spectralOp{s: advdiffSolver}, theta, c, u0)
}
