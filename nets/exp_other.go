//go:build !amd64

package nets

// expVector has no vector form here: expInto and sigmoidInto compute
// every value with expScalar.
func expVector(dst, src []float64, sigmoid bool) int { return 0 }
