package nets

//go:noescape
func reluAVX(d *float64, n int)

//go:noescape
func addReLUAVX(d, b *float64, n int)

//go:noescape
func addAVX(d, x, y *float64, n int)

func init() {
	if hasAVX2FMA {
		reluFast, addReLUFast, addFast = reluAVX2, addReLUAVX2, addAVX2
	}
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
