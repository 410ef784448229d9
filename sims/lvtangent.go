package sims

// lvDirections are the refinement directions of lvScheme.tangent laid
// out for its per-step loop over directions: θ's components kind by kind
// and the forcing stage-major, so that each step reads contiguous runs.
type lvDirections struct {
	n              int
	da, db, de, dg []float64 // [n]
	dd             []float64 // [M·n]: dd[s·n + j] is direction j's forcing at stage time s
}

// newLVDirections takes dth [n·4] (direction-major) apart into its kinds
// and keeps ddT [M·n] (stage-major) as it is.
func newLVDirections(n int, dth, ddT []float64) lvDirections {
	buf := make([]float64, 4*n)
	l := lvDirections{n: n, da: buf[:n], db: buf[n : 2*n], de: buf[2*n : 3*n], dg: buf[3*n : 4*n], dd: ddT}
	for j := range n {
		p := dth[4*j : 4*j+4]
		l.da[j], l.db[j], l.de[j], l.dg[j] = p[0], p[1], p[2], p[3]
	}
	return l
}

// lvStageCoefs are one RK4 step's per-stage factors of the tangent
// system, each stage's computed once for every direction, as the
// expressions they replace computed it:
//
//	K_x = A·T_x − B·T_y + dα·x − (dβ·x)·y + dd,   A = α − βy, B = βx,
//	K_y = E·T_x + F·T_y + (dη·x)·y − dγ·y,        E = ηy,     F = ηx − γ,
//
// at the stage's state (x, y). Each value is repeated in four lanes for
// the vector loop; h's are the step's h/2, h and h/6, and two is 2.
type lvStageCoefs struct {
	stage          [4][6][4]float64 // A, B, x, y, E, F
	hh, h, h6, two [4]float64
}

// newLVStageCoefs returns coefficients for steps of size h (the stages
// are filled by setStages).
func newLVStageCoefs(h float64) *lvStageCoefs {
	return &lvStageCoefs{hh: lanes(h / 2), h: lanes(h), h6: lanes(h / 6), two: lanes(2)}
}

// lanes is v in each of four lanes.
func lanes(v float64) [4]float64 { return [4]float64{v, v, v, v} }

// setStages fills the coefficients of the stages at states (xs[i], ys[i]).
func (c *lvStageCoefs) setStages(alpha, beta, eta, gamma float64, xs, ys [4]float64) {
	for i := range 4 {
		x, y := xs[i], ys[i]
		v := [6]float64{alpha - beta*y, beta * x, x, y, eta * y, eta*x - gamma}
		for k, f := range v {
			c.stage[i][k] = lanes(f)
		}
	}
}

// lvTangentFast, where the CPU has it, advances a leading multiple of
// four directions by one step and returns how many (lvtangent_amd64.go).
var lvTangentFast func(tx, ty []float64, l *lvDirections, s0 int, c *lvStageCoefs) int

// lvTangentStep advances every direction's tangent (tx, ty) by one RK4
// step whose stages read the forcing at stage times s0, s0+1, s0+1, s0+2.
func lvTangentStep(tx, ty []float64, l *lvDirections, s0 int, c *lvStageCoefs) {
	j := 0
	if lvTangentFast != nil {
		j = lvTangentFast(tx, ty, l, s0, c)
	}
	n := l.n
	e0, e1, e2 := l.dd[s0*n:(s0+1)*n], l.dd[(s0+1)*n:(s0+2)*n], l.dd[(s0+2)*n:(s0+3)*n]
	hh, h, h6 := c.hh[0], c.h[0], c.h6[0]
	for ; j < n; j++ {
		t1x, t1y := tx[j], ty[j]
		q1x, q1y := c.k(0, j, l, t1x, t1y, e0[j])
		t2x, t2y := t1x+hh*q1x, t1y+hh*q1y
		q2x, q2y := c.k(1, j, l, t2x, t2y, e1[j])
		t3x, t3y := t1x+hh*q2x, t1y+hh*q2y
		q3x, q3y := c.k(2, j, l, t3x, t3y, e1[j])
		t4x, t4y := t1x+h*q3x, t1y+h*q3y
		q4x, q4y := c.k(3, j, l, t4x, t4y, e2[j])
		tx[j] = t1x + h6*(q1x+2*q2x+2*q3x+q4x)
		ty[j] = t1y + h6*(q1y+2*q2y+2*q3y+q4y)
	}
}

// k is stage i's tangent derivative for direction j at (tx, ty), with
// forcing direction e.
func (c *lvStageCoefs) k(i, j int, l *lvDirections, tx, ty, e float64) (kx, ky float64) {
	s := &c.stage[i]
	a, b, x, y, ey, f := s[0][0], s[1][0], s[2][0], s[3][0], s[4][0], s[5][0]
	kx = a*tx - b*ty + l.da[j]*x - l.db[j]*x*y + e
	ky = ey*tx + f*ty + l.de[j]*x*y - l.dg[j]*y
	return kx, ky
}
