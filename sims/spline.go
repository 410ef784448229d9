package sims

// naturalSplineIntegrals writes dst[i] = ∫_{t_0}^{t_i} S(t) dt for the
// natural cubic spline S through the points (t_i, x_i), t strictly
// ascending. On each interval of width h the spline integrates to
//
//	∫ S = h (x_i + x_{i+1})/2 − h³ (M_i + M_{i+1})/24,
//
// with M the spline's second derivatives (M_0 = M_{n−1} = 0), found by the
// tridiagonal (Thomas) solve of
//
//	h_{i−1} M_{i−1} + 2(h_{i−1} + h_i) M_i + h_i M_{i+1}
//	    = 6 ((x_{i+1} − x_i)/h_i − (x_i − x_{i−1})/h_{i−1}).
//
// Linear functions are integrated exactly; smooth ones with O(h⁴) error
// away from the ends.
func naturalSplineIntegrals(dst, t, x []float64) {
	n := len(t)
	if n == 0 {
		return
	}
	m := make([]float64, n)
	if n > 2 {
		diag := make([]float64, n)
		rhs := make([]float64, n)
		for i := 1; i < n-1; i++ {
			h0, h1 := t[i]-t[i-1], t[i+1]-t[i]
			diag[i] = 2 * (h0 + h1)
			rhs[i] = 6 * ((x[i+1]-x[i])/h1 - (x[i]-x[i-1])/h0)
		}
		// Forward elimination: row i has sub-diagonal h_{i−1} and
		// super-diagonal h_i.
		for i := 2; i < n-1; i++ {
			w := (t[i] - t[i-1]) / diag[i-1]
			diag[i] -= w * (t[i] - t[i-1])
			rhs[i] -= w * rhs[i-1]
		}
		m[n-2] = rhs[n-2] / diag[n-2]
		for i := n - 3; i >= 1; i-- {
			m[i] = (rhs[i] - (t[i+1]-t[i])*m[i+1]) / diag[i]
		}
	}
	dst[0] = 0
	for i := 0; i+1 < n; i++ {
		h := t[i+1] - t[i]
		dst[i+1] = dst[i] + h*(x[i]+x[i+1])/2 - h*h*h*(m[i]+m[i+1])/24
	}
}
