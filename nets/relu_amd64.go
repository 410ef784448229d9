package nets

//go:noescape
func reluAVX(d *float64, n int)

//go:noescape
func addReLUAVX(d, b *float64, n int)

//go:noescape
func addAVX(d, x, y *float64, n int)

//go:noescape
func reluFwdAVX(y, x *float64, n int)

//go:noescape
func reluBwdAVX(gx, gy, y *float64, n int)

//go:noescape
func siluBwdAVX(gx, gy, x, s *float64, n int)

//go:noescape
func reluBwdSetAVX(gx, gy, y *float64, n int)

//go:noescape
func siluBwdSetAVX(gx, gy, x, s *float64, n int)

//go:noescape
func mulAVX(d, x, y *float64, n int)

//go:noescape
func reluDerivAVX(x, d *float64, n int)

//go:noescape
func siluDerivAVX(x, d *float64, n int)

func init() {
	if hasAVX2FMA {
		reluFast, addReLUFast, addFast = reluAVX2, addReLUAVX2, addAVX2
		reluFwdFast, reluBwdFast, siluBwdFast, mulFast = reluFwdAVX2, reluBwdAVX2, siluBwdAVX2, mulAVX2
		reluDerivFast, siluDerivFast = reluDerivAVX2, siluDerivAVX2
	}
}

// reluFwdAVX2 does reluForward's leading multiple of four values.
func reluFwdAVX2(y, x []float64) int {
	n := len(y) &^ 3
	if n > 0 {
		_ = x[n-1]
		reluFwdAVX(&y[0], &x[0], n)
	}
	return n
}

// reluBwdAVX2 does reluBackward's leading multiple of four values.
func reluBwdAVX2(ga, g, y []float64, set bool) int {
	n := len(ga) &^ 3
	if n > 0 {
		_, _ = g[n-1], y[n-1]
		if set {
			reluBwdSetAVX(&ga[0], &g[0], &y[0], n)
		} else {
			reluBwdAVX(&ga[0], &g[0], &y[0], n)
		}
	}
	return n
}

// siluBwdAVX2 does siluBackward's leading multiple of four values.
func siluBwdAVX2(ga, g, x, s []float64, set bool) int {
	n := len(ga) &^ 3
	if n > 0 {
		_, _, _ = g[n-1], x[n-1], s[n-1]
		if set {
			siluBwdSetAVX(&ga[0], &g[0], &x[0], &s[0], n)
		} else {
			siluBwdAVX(&ga[0], &g[0], &x[0], &s[0], n)
		}
	}
	return n
}

// mulAVX2 does mulTo's leading multiple of four values.
func mulAVX2(d, x, y []float64) int {
	n := len(d) &^ 3
	if n > 0 {
		_, _ = x[n-1], y[n-1]
		mulAVX(&d[0], &x[0], &y[0], n)
	}
	return n
}

// reluAVX2 does reluInto's leading multiple of four values.
func reluAVX2(d []float64) int {
	n := len(d) &^ 3
	if n > 0 {
		reluAVX(&d[0], n)
	}
	return n
}

// addReLUAVX2 does addReLU's leading multiple of four values.
func addReLUAVX2(d, b []float64) int {
	n := len(d) &^ 3
	if n > 0 {
		_ = b[n-1]
		addReLUAVX(&d[0], &b[0], n)
	}
	return n
}

// addAVX2 does addInto's leading multiple of four values.
func addAVX2(d, x, y []float64) int {
	n := len(d) &^ 3
	if n > 0 {
		_, _ = x[n-1], y[n-1]
		addAVX(&d[0], &x[0], &y[0], n)
	}
	return n
}

// reluDerivAVX2 does reluDeriv's leading multiple of four values.
func reluDerivAVX2(x, d []float64) int {
	n := len(x) &^ 3
	if n > 0 {
		_ = d[n-1]
		reluDerivAVX(&x[0], &d[0], n)
	}
	return n
}

// siluDerivAVX2 does siluDeriv's leading multiple of four values.
func siluDerivAVX2(x, d []float64) int {
	n := len(x) &^ 3
	if n > 0 {
		_ = d[n-1]
		siluDerivAVX(&x[0], &d[0], n)
	}
	return n
}
