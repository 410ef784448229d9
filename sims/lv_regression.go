package sims

import (
	"math"
	"sort"
)

// lvRegressionLen is the number of trajectory-regression features.
const lvRegressionLen = 4

// lvRegression estimates θ = (α, β, η, γ) from a whole context by linear
// least squares on the integrated equations, with X and Y the integrals
// of natural cubic splines through the observed prey and predator values
// (the known initial state u0 at t = 0 included):
//
//	ln y(t) − ln y0 = η X(t) − γ t,    X(t) = ∫_0^t x     (predator)
//	ln x(t) − ln x0 = α t − β Y(t),    Y(t) = ∫_0^t y     (prey)
//
// The predator equation is the same in the nominal and the true process,
// so (η̂, γ̂) is accurate for both (MAE ≈ 0.003 on 30-point contexts,
// which TestLVRegression logs); the prey equation of the truth carries the forcing, which
// biases (α̂, β̂) the way a physics-only fit is biased — what the
// discrepancy path has to explain. Only observations with both channels
// positive and finite take part; with fewer than two of them besides u0
// the estimates are NaN.
func lvRegression(ctx Context, side []float64) [4]float64 {
	est, _, _ := lvRegressionSE(ctx, side)
	return est
}

// lvRegressionSE is lvRegression with the estimates' standard errors,
// √(RSS/(m − 2)·[(AᵀA)⁻¹]_pp) over the m regression rows (NaN when m ≤ 2:
// an exact fit says nothing about its error), and n, the observations
// the regression used (u0 among them; m = n − 1).
func lvRegressionSE(ctx Context, side []float64) (est, se [4]float64, n int) {
	nan := math.NaN()
	est, se = [4]float64{nan, nan, nan, nan}, [4]float64{nan, nan, nan, nan}
	type obs struct{ t, x, y float64 }
	pts := []obs{{0, side[0], side[1]}}
	for i, st := range ctx.States {
		x, y := ctx.Values[i][0], ctx.Values[i][1]
		if !ctx.Mask[i][0] || !ctx.Mask[i][1] || !(x > 0) || !(y > 0) || math.IsInf(x, 1) || math.IsInf(y, 1) || !(st[0] > 0) {
			continue
		}
		pts = append(pts, obs{st[0], x, y})
	}
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].t < pts[b].t })
	uniq := pts[:1]
	for _, p := range pts[1:] {
		if p.t > uniq[len(uniq)-1].t {
			uniq = append(uniq, p)
		}
	}
	n = len(uniq)
	if n < 3 {
		return est, se, n
	}
	ts, xs, ys := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range uniq {
		ts[i], xs[i], ys[i] = p.t, p.x, p.y
	}
	bigX, bigY := make([]float64, n), make([]float64, n)
	naturalSplineIntegrals(bigX, ts, xs)
	naturalSplineIntegrals(bigY, ts, ys)
	var pred, prey lsq2
	for i := 1; i < n; i++ {
		pred.add(bigX[i], -ts[i], math.Log(ys[i]/ys[0]))
		prey.add(ts[i], -bigY[i], math.Log(xs[i]/xs[0]))
	}
	est[0], est[1], se[0], se[1] = prey.solve()
	est[2], est[3], se[2], se[3] = pred.solve()
	return est, se, n
}

// lsq2 accumulates the normal equations of r ≈ a·p + b·q over m rows.
type lsq2 struct {
	aa, ab, bb, ar, br, rr float64
	m                      int
}

func (l *lsq2) add(a, b, r float64) {
	l.aa += a * a
	l.ab += a * b
	l.bb += b * b
	l.ar += a * r
	l.br += b * r
	l.rr += r * r
	l.m++
}

// solve returns (p, q) and their standard errors, or NaNs when the
// system is singular (the errors also when there are no spare rows).
func (l *lsq2) solve() (p, q, sp, sq float64) {
	nan := math.NaN()
	det := l.aa*l.bb - l.ab*l.ab
	if !(math.Abs(det) > 1e-12*(l.aa*l.bb)) {
		return nan, nan, nan, nan
	}
	p, q = (l.ar*l.bb-l.br*l.ab)/det, (l.aa*l.br-l.ab*l.ar)/det
	if l.m <= 2 {
		return p, q, nan, nan
	}
	// RSS = rᵀr − (p, q)·Aᵀr at the least-squares solution.
	s2 := math.Max(0, l.rr-p*l.ar-q*l.br) / float64(l.m-2)
	return p, q, math.Sqrt(s2 * l.bb / det), math.Sqrt(s2 * l.aa / det)
}

// lvRegressionFeatures writes the regression estimates in the prior's
// normalised log coordinates, (log θ̂ − log lo)/(log hi − log lo) − ½,
// clipped to [−1.5, 1.5] (an estimate at or below zero, or a missing one,
// gives the lower clip and 0 respectively).
func lvRegressionFeatures(dst []float64, est [4]float64, params []Param) {
	for p, v := range est {
		switch {
		case math.IsNaN(v):
			dst[p] = 0
		case v <= 0:
			dst[p] = -1.5
		default:
			dst[p] = math.Max(-1.5, math.Min(1.5, normLog(params[p], v)-0.5))
		}
	}
}

// lvHintSD caps lvHintFloor: the floor of 30 context points (0.003, a
// few times their error on noise-free contexts: median 0.0012, 95th
// percentile 0.019 in s) holds to 20 points, and fewer points leave the
// standard error larger than this anyway.
const lvHintSD = 0.01

// lvHintFloor is the smallest standard deviation, in normalised log
// units, that ThetaHint gives the predator estimates from n
// observations (the initial state among them). On noise-free contexts
// the regression's standard error understates the error of the spline
// integrals, which falls as the spacing h⁴ (a natural cubic spline's
// integral error), so the floor is
//
//	sd_floor(n) = min(lvHintSD, 0.003·(31/n)⁴).
//
// A floor fixed at 30 points' size would hold every truth at 60 points
// within its 50 % interval (TestLVThetaHintCoverage logs the coverage).
func lvHintFloor(n int) float64 {
	r := 31 / float64(n)
	return math.Min(lvHintSD, 0.003*r*r*r*r)
}

// lvHintSEScale inflates the regression's standard error: the noise in
// the prey values enters the regressor X, which least squares ignores,
// so the standard error understates the error of noisy contexts
// (TestLVThetaHintSD checks that the inflated spread covers the truth).
const lvHintSEScale = 3

// ThetaHint gives (η, γ) from the predator-equation regression of
// lvRegressionSE, with lvHintSEScale times its standard error (at least
// lvHintFloor) carried to normalised log units,
// sd_s = lvHintSEScale·se/(θ̂ (log hi − log lo)); α and β, whose
// equation carries the unknown forcing, get no hint, and neither do η, γ
// from fewer than three observations with both channels.
func (s *lotkaVolterra) ThetaHint(ctx Context, side []float64) (est, sd []float64) {
	e, se, n := lvRegressionSE(ctx, side)
	params := s.Params()
	nan := math.NaN()
	est, sd = []float64{nan, nan, nan, nan}, []float64{nan, nan, nan, nan}
	for _, p := range []int{2, 3} {
		if e[p] > 0 && !math.IsNaN(se[p]) {
			est[p] = normLog(params[p], e[p])
			span := math.Log(params[p].Hi) - math.Log(params[p].Lo)
			sd[p] = math.Max(lvHintFloor(n), lvHintSEScale*se[p]/(e[p]*span))
		}
	}
	return est, sd
}

// normLog is v in the prior's normalised log coordinate,
// (log v − log lo)/(log hi − log lo): 0 at lo, 1 at hi.
func normLog(p Param, v float64) float64 {
	lo := math.Log(p.Lo)
	return (math.Log(v) - lo) / (math.Log(p.Hi) - lo)
}
