package sims

import (
	"fmt"

	"apic/nets"
)

// TangentClosure is a Closure that also gives its prediction's exact
// derivatives along chosen directions (forward mode). A calibration that
// fits θ and the latents by Gauss–Newton needs the Jacobian of the
// prediction by a few dozen coordinates; the closure's tangent gives it
// in one pass instead of a solve per coordinate.
type TangentClosure interface {
	Closure
	// ApplyTangent returns one realization's prediction pred
	// [Grid.Size()] from θ [P], side [S] and f [Q·Outputs()] (the layout
	// of Apply's row), and its derivatives along n directions (dθ_j, df_j)
	// given as dtheta [n·P] and df [n·Q·Outputs()], direction-major:
	//
	//	dpred[j·G : (j+1)·G] = ∂pred/∂θ · dθ_j + ∂pred/∂f · df_j.
	//
	// buf is scratch for dpred: when its capacity holds n·G values they
	// are written there (whatever it held), otherwise into a new slice.
	ApplyTangent(buf, theta, side, f []float64, n int, dtheta, df []float64) (pred, dpred []float64)
}

// TangentAtClosure is a TangentClosure whose derivatives can be had at
// some grid values only, for a caller that reads them there (a
// calibration's Jacobian needs them at the context points, a third of
// spring's grid) at less cost than on the whole grid.
type TangentAtClosure interface {
	TangentClosure
	// ApplyTangentAt is ApplyTangent with dpred [n·len(at)] holding the
	// derivatives at the grid values at only:
	//
	//	dpred[j·len(at) + i] = ApplyTangent's dpred[j·G + at[i]],
	//
	// the same values; pred is still the whole grid.
	ApplyTangentAt(buf, theta, side, f []float64, n int, dtheta, df []float64, at []int) (pred, dpred []float64)
}

var (
	_ TangentAtClosure = springEnvelope{}
	_ TangentClosure   = lvForcingClosure{}
	_ TangentClosure   = springEnvelope{}
	_ TangentClosure   = advdiffReaction{}
)

// checkTangent panics on inconsistent ApplyTangent lengths (programming
// errors: the caller builds them from the closure's own sizes).
func checkTangent(name string, theta, f []float64, p, qo, n int, dtheta, df []float64) {
	if len(theta) != p || len(f) != qo || n < 0 || len(dtheta) != n*p || len(df) != n*qo {
		panic(fmt.Sprintf("sims: %s ApplyTangent θ %d, f %d, %d directions with dθ %d, df %d; want θ %d, f %d",
			name, len(theta), len(f), n, len(dtheta), len(df), p, qo))
	}
}

// tangentBuffer returns buf[:n] when buf can hold n values, else a new
// slice.
func tangentBuffer(buf []float64, n int) []float64 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float64, n)
}

// ApplyTangent integrates the forced system and its tangent-linear
// system in one pass (lvScheme.tangent); the forcing directions are
// df_j interpolated to the stage times like f.
func (c lvForcingClosure) ApplyTangent(buf, theta, side, f []float64, n int, dtheta, df []float64) (pred, dpred []float64) {
	k := c.knots.Rows
	checkTangent("lv forcing", theta, f, 4, k, n, dtheta, df)
	scheme := newLVScheme(LVModelSubsteps, lvIntervals, lvHorizon/lvIntervals)
	m := scheme.forcingLen()
	d := make([]float64, m)
	interpolate(c.band, c.knots, d, f, 1)
	// The directions' forcing (n·M values, 0.1 MB at a refinement's
	// 36 coordinates), stage-major for tangent's loop over directions,
	// is scratch written in full: pooled as the integrator's stage
	// states are.
	dd := lvStages.Get(n * m)
	defer lvStages.Put(dd)
	interpolateT(c.band, c.knots, dd[:n*m], df, n)
	pred = make([]float64, scheme.outLen())
	dpred = tangentBuffer(buf, n*scheme.outLen())
	clear(dpred) // tangent leaves the fixed initial state's derivatives
	scheme.tangent(theta, side, d, n, dtheta, dd, pred, dpred)
	return pred, dpred
}

// tangent is integrate for one realization (th [4], u0 [2], forcing d
// [M]) together with the tangent-linear scheme along n directions: dth
// [n·4] and ddT [M·n] are the directions' (dα, dβ, dη, dγ) and forcing
// (stage-major: ddT[s·n + j] is direction j's at stage time s), u0
// fixed. It writes the grid values to out [outLen] and each direction's
// derivative of them to dout[j·outLen:]. Every RK4 stage U_i = u + c_i h
// k_{i−1} is differentiated as it is computed,
//
//	K_i = J(U_i) T_i + ∂f/∂θ(U_i) dθ + (dd_i, 0),   T_i = T + c_i h K_{i−1},
//	T⁺ = T + h/6 (K_1 + 2K_2 + 2K_3 + K_4),
//
// with J = [[α − βy, −βx], [ηy, ηx − γ]] and ∂f/∂θ dθ =
// (dα x − dβ xy, dη xy − dγ y): the exact derivative of the computed
// trajectory, as the adjoint is for gradients.
func (s lvScheme) tangent(th, u0, d []float64, n int, dth, ddT, out, dout []float64) {
	h := s.dt / float64(s.substeps)
	hh, h6 := h/2, h/6
	ol := s.outLen()
	alpha, beta, eta, gamma := th[0], th[1], th[2], th[3]
	x, y := u0[0], u0[1]
	out[0], out[1] = x, y
	tx, ty := make([]float64, n), make([]float64, n)
	dirs := newLVDirections(n, dth, ddT)
	c := newLVStageCoefs(h)
	for step := range s.steps() {
		d1, d2, d3 := d[2*step], d[2*step+1], d[2*step+2]
		k1x := alpha*x - beta*x*y + d1
		k1y := eta*x*y - gamma*y
		x2, y2 := x+hh*k1x, y+hh*k1y
		k2x := alpha*x2 - beta*x2*y2 + d2
		k2y := eta*x2*y2 - gamma*y2
		x3, y3 := x+hh*k2x, y+hh*k2y
		k3x := alpha*x3 - beta*x3*y3 + d2
		k3y := eta*x3*y3 - gamma*y3
		x4, y4 := x+h*k3x, y+h*k3y
		k4x := alpha*x4 - beta*x4*y4 + d3
		k4y := eta*x4*y4 - gamma*y4
		c.setStages(alpha, beta, eta, gamma, [4]float64{x, x2, x3, x4}, [4]float64{y, y2, y3, y4})
		lvTangentStep(tx, ty, &dirs, 2*step, c)
		x += h6 * (k1x + 2*k2x + 2*k3x + k4x)
		y += h6 * (k1y + 2*k2y + 2*k3y + k4y)
		// integrate's projection onto x, y ≥ 0 and its derivative.
		if x < 0 {
			x = 0
			clear(tx)
		}
		if y < 0 {
			y = 0
			clear(ty)
		}
		if (step+1)%s.substeps == 0 {
			g := (step + 1) / s.substeps
			out[2*g], out[2*g+1] = x, y
			for j := range n {
				dout[j*ol+2*g], dout[j*ol+2*g+1] = tx[j], ty[j]
			}
		}
	}
}

// ApplyTangent differentiates y_t = sin(ω t) exp(f̃_t), f̃ = f·A:
//
//	dy_t = t cos(ω t) exp(f̃_t) dω + y_t (df·A)_t.
func (e springEnvelope) ApplyTangent(buf, theta, _, f []float64, n int, dtheta, df []float64) (pred, dpred []float64) {
	g := len(e.times)
	var stack [128]float64
	dw := stack[:]
	if g > len(dw) {
		dw = make([]float64, g)
	}
	pred = e.envelope(dw, theta, f, n, dtheta, df)
	dpred = tangentBuffer(buf, n*g)
	interpolate(e.band, e.interp, dpred, df, n) // (df·A), as the forward pass interpolates f
	for j := range n {
		row := dpred[j*g : (j+1)*g]
		for t := range row {
			row[t] = row[t]*pred[t] + dw[t]*dtheta[j]
		}
	}
	return pred, dpred
}

// envelope returns the prediction y_t = sin(ω t) exp(f̃_t) and writes
// ∂y_t/∂ω = t cos(ω t) exp(f̃_t), after checking ApplyTangent's
// arguments;
// dw is scratch of at least G values that the latter is written to.
func (e springEnvelope) envelope(dw, theta, f []float64, n int, dtheta, df []float64) (pred []float64) {
	k, g := e.interp.Rows, len(e.times)
	checkTangent("spring envelope", theta, f, 1, k, n, dtheta, df)
	// Scratch on the stack for the grids of up to 128 times (spring's
	// 100): refinement calls this a few hundred times a second. pred
	// takes the envelope first (a product's operands leave the stack).
	var stack [2 * 128]float64
	work := stack[:]
	if 2*g > len(work) {
		work = make([]float64, 2*g)
	}
	sin, cos := work[:g], work[g:2*g]
	dw = dw[:g]
	pred = make([]float64, g)
	env := pred
	interpolate(e.band, e.interp, env, f, 1)
	op := newSpringOp(e.times)
	op.sinCos(sin, cos, theta[0])
	nets.ExpInto(env, env)
	for t, tau := range e.times {
		ex := env[t]
		pred[t] = sin[t] * ex
		dw[t] = tau * cos[t] * ex
	}
	return pred
}

// ApplyTangentAt is ApplyTangent at the grid times at only: the
// directions' log-envelopes are interpolated at those times alone.
func (e springEnvelope) ApplyTangentAt(buf, theta, side, f []float64, n int, dtheta, df []float64, at []int) (pred, dpred []float64) {
	k, g := e.interp.Rows, len(e.times)
	if e.band == nil {
		full := make([]float64, n*g)
		pred, full = e.ApplyTangent(full, theta, side, f, n, dtheta, df)
		dpred = tangentBuffer(buf, n*len(at))
		for j := range n {
			for i, t := range at {
				dpred[j*len(at)+i] = full[j*g+t]
			}
		}
		return pred, dpred
	}
	var stack [128]float64
	dw := stack[:]
	if g > len(dw) {
		dw = make([]float64, g)
	}
	pred = e.envelope(dw, theta, f, n, dtheta, df)
	dpred = tangentBuffer(buf, n*len(at))
	for j := range n {
		dfj := df[j*k : (j+1)*k]
		row := dpred[j*len(at) : (j+1)*len(at)]
		for i, t := range at {
			row[i] = e.band.col(t, dfj)*pred[t] + dw[t]*dtheta[j]
		}
	}
	return pred, dpred
}

// ApplyTangent solves with c = ReactionRateMax·σ(f) and differentiates
// by (v, κ, c) in one pass of the spectral solver
// (spectralSolver.solveTangent); the directions combine those three
// fields, with dc = c (1 − c/ReactionRateMax) df.
func (advdiffReaction) ApplyTangent(buf, theta, side, f []float64, n int, dtheta, df []float64) (pred, dpred []float64) {
	checkTangent("advdiff reaction", theta, f, 2, 1, n, dtheta, df)
	s := advdiffSolver
	c := ReactionRateMax * advdiffSigmoid(f[0])
	dcdf := c * (1 - c/ReactionRateMax)
	size := s.nt * s.nx
	pred = make([]float64, size)
	uv, uk := make([]float64, size), make([]float64, size)
	ws := s.work()
	uhat := make([]complex128, s.modes())
	s.transform(ws, uhat, side)
	s.solveTangent(ws, pred, uv, uk, uhat, theta[0], theta[1], c)
	s.release(ws)
	// ∂u/∂c = −t u.
	uc := make([]float64, size)
	for i, u := range pred {
		uc[i] = -float64(i/s.nx) * s.dt * u
	}
	dpred = tangentBuffer(buf, n*size)
	for j := range n {
		dv, dk, dc := dtheta[2*j], dtheta[2*j+1], dcdf*df[j]
		row := dpred[j*size : (j+1)*size]
		for i := range row {
			row[i] = dv*uv[i] + dk*uk[i] + dc*uc[i]
		}
	}
	return pred, dpred
}

// solveTangent is solve, also writing ∂u/∂v to dv and ∂u/∂κ to dk (same
// layout): with ∂E_m/∂v = −i k_m t E_m and ∂E_m/∂κ = −k_m² t E_m, each is
// the real inverse transform of the coefficients times that factor, the
// Re of the full sum's derivative as solve's is of the full sum.
func (s *spectralSolver) solveTangent(ws *spectralWork, dst, dv, dk []float64, uhat []complex128, v, kappa, c float64) {
	s.steps(ws.r, v, kappa, c)
	e, r, coef, tc := ws.e, ws.r, ws.coef, ws.ghat
	for m := range e {
		e[m] = 1
	}
	for n := range s.nt {
		t := float64(n) * s.dt
		for m, em := range e {
			coef[m] = uhat[m] * em
			e[m] = em * r[m]
		}
		for m, cm := range coef {
			k := s.k[m]
			tc[m] = cm * complex(0, -k*t)
		}
		ws.fft.Sequence(dv[n*s.nx:(n+1)*s.nx], tc)
		for m, cm := range coef {
			k := s.k[m]
			tc[m] = cm * complex(-k*k*t, 0)
		}
		ws.fft.Sequence(dk[n*s.nx:(n+1)*s.nx], tc)
		ws.fft.Sequence(dst[n*s.nx:(n+1)*s.nx], coef)
	}
}
