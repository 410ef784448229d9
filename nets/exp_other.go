//go:build !amd64

package nets

// expVector has no vector form here: expInto, sigmoidInto and siluInto
// compute every value with expScalar.
func expVector(dst, src []float64, form expForm) int { return 0 }

// expVectorBias is expVector's form with a bias: none here either.
func expVectorBias(dst, src, bias []float64, form expForm) int { return 0 }
