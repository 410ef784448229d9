package nets

import "math"

// The vector forms of reluInPlace, addReLU and addInto where the CPU has
// them (relu_amd64.go): each does a leading part of the values and
// returns how many; nil does none.
var (
	reluFast      func(d []float64) int
	addReLUFast   func(d, b []float64) int
	addFast       func(d, x, y []float64) int
	reluFwdFast   func(y, x []float64) int
	reluBwdFast   func(ga, g, y []float64, set bool) int
	siluBwdFast   func(ga, g, x, s []float64, set bool) int
	mulFast       func(d, x, y []float64) int
	reluDerivFast func(x, d []float64) int
	siluDerivFast func(x, d []float64) int
)

// reluInPlace sets d[i] = reluBits(d[i]).
func reluInPlace(d []float64) {
	i := 0
	if reluFast != nil {
		i = reluFast(d)
	}
	for ; i < len(d); i++ {
		d[i] = reluBits(d[i])
	}
}

// addReLU sets d[i] = reluBits(d[i] + b[i]) for i < len(d) ≤ len(b).
func addReLU(d, b []float64) {
	b = b[:len(d)]
	i := 0
	if addReLUFast != nil {
		i = addReLUFast(d, b)
	}
	for ; i < len(d); i++ {
		d[i] = reluBits(d[i] + b[i])
	}
}

// addInto sets d[i] = x[i] + y[i] for i < len(d) ≤ len(x), len(y).
func addInto(d, x, y []float64) {
	x, y = x[:len(d)], y[:len(d)]
	i := 0
	if addFast != nil {
		i = addFast(d, x, y)
	}
	for ; i < len(d); i++ {
		d[i] = x[i] + y[i]
	}
}

// reluForward sets y[i] = x[i] where !(x[i] ≤ 0) (NaN passes) and +0
// elsewhere: Tape.ReLU's forward, which keeps NaN of either sign.
func reluForward(y, x []float64) {
	x = x[:len(y)]
	i := 0
	if reluFwdFast != nil {
		i = reluFwdFast(y, x)
	}
	for ; i < len(y); i++ {
		v := x[i]
		y[i] = 0
		if !(v <= 0) {
			y[i] = v
		}
	}
}

// reluBackward adds g[i] to ga[i] where the ReLU output y[i] is positive
// (its bits a positive integer: y > 0 or a positive NaN), +0 elsewhere;
// with set, it writes those values over ga's (ga's first gradient).
func reluBackward(ga, g, y []float64, set bool) {
	g, y = g[:len(ga)], y[:len(ga)]
	i := 0
	if reluBwdFast != nil {
		i = reluBwdFast(ga, g, y, set)
	}
	for ; i < len(ga); i++ {
		// y ≥ 0, so its bits read as a non-negative integer that is
		// zero exactly when y = 0; mask is all ones when y > 0.
		mask := uint64(-int64(math.Float64bits(y[i])) >> 63)
		v := math.Float64frombits(math.Float64bits(g[i]) & mask)
		if set {
			ga[i] = v
		} else {
			ga[i] += v
		}
	}
}

// siluBackward adds g[i]·s[i]·(1 + x[i]·(1 − s[i])) to ga[i], s = σ(x):
// SiLU's derivative times the output gradient; with set, it writes
// them over ga's.
func siluBackward(ga, g, x, s []float64, set bool) {
	g, x, s = g[:len(ga)], x[:len(ga)], s[:len(ga)]
	i := 0
	if siluBwdFast != nil {
		i = siluBwdFast(ga, g, x, s, set)
	}
	for ; i < len(ga); i++ {
		v := g[i] * s[i] * (1 + x[i]*(1-s[i]))
		if set {
			ga[i] = v
		} else {
			ga[i] += v
		}
	}
}

// mulTo sets d[i] = x[i]·y[i].
func mulTo(d, x, y []float64) {
	x, y = x[:len(d)], y[:len(d)]
	i := 0
	if mulFast != nil {
		i = mulFast(d, x, y)
	}
	for ; i < len(d); i++ {
		d[i] = x[i] * y[i]
	}
}

// reluDeriv sets x[i] = reluBits(x[i]) and d[i] = 1 where x[i] > 0,
// else 0: ReLU's value and derivative, in place.
func reluDeriv(x, d []float64) {
	d = d[:len(x)]
	i := 0
	if reluDerivFast != nil {
		i = reluDerivFast(x, d)
	}
	for ; i < len(x); i++ {
		v := x[i]
		x[i], d[i] = reluBits(v), 0
		if v > 0 {
			d[i] = 1
		}
	}
}

// siluDeriv turns x into x·σ(x) and d, holding σ(x), into SiLU's
// derivative σ(x)·(1 + x·(1 − σ(x))), in place.
func siluDeriv(x, d []float64) {
	d = d[:len(x)]
	i := 0
	if siluDerivFast != nil {
		i = siluDerivFast(x, d)
	}
	for ; i < len(x); i++ {
		v, s := x[i], d[i]
		x[i], d[i] = v*s, s*(1+v*(1-s))
	}
}
