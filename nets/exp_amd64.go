package nets

import "math"

// expConsts are expAVX2's constants (exp.go's), each repeated in the
// four lanes of a 256-bit load: the clamp, the reduction, the exponent
// bias as integer bits, the specials, the Taylor coefficients and 1.
var expConsts = func() (t [12 + expDegree + 1][4]float64) {
	c := []float64{
		expClampLo, expClampHi, math.Log2E, ln2Hi, ln2Lo, 0.5,
		math.Float64frombits(1023),
		expOverflow, math.Inf(1),
		expUnderflow, 0,
	}
	c = append(c, expCoef[:]...)
	c = append(c, 1) // the sigmoid's 1 + e^−x
	for i, v := range c {
		t[i] = [4]float64{v, v, v, v}
	}
	return t
}()

// expAVX2 sets dst[i] = e^y for i < n, n a multiple of four, or the
// sigmoid 1/(1 + e^−y) or SiLU y/(1 + e^−y) that form asks for, where
// y = src[i] + bias[i], or src[i] when bias is nil.
//
//go:noescape
func expAVX2(dst, src *float64, n int, consts *float64, bias *float64, form expForm)

// expAVX512 is expAVX2 sixteen values at a time (n a multiple of
// sixteen), with the same values.
//
//go:noescape
func expAVX512(dst, src *float64, n int, consts *float64, bias *float64, form expForm)

// expVector does a leading multiple of four values of expInto (or of
// sigmoidInto or siluInto, as form says) with AVX-512 or AVX2 and FMA
// and returns how many: none without them. A plain call, not a function
// variable, so that the callers' stack buffers stay on the stack.
func expVector(dst, src []float64, form expForm) int {
	return expVectorBias(dst, src, nil, form)
}

// expVectorBias is expVector of src[i] + bias[i] (bias as long as src),
// or of src[i] when bias is nil.
func expVectorBias(dst, src, bias []float64, form expForm) int {
	n := len(src) &^ 3
	if n == 0 || !hasAVX2FMA {
		return 0
	}
	_ = dst[n-1]
	var b *float64
	if bias != nil {
		_ = bias[len(src)-1]
		b = &bias[0]
	}
	done := 0
	if n16 := n &^ 15; n16 > 0 && useExpAVX512 {
		expAVX512(&dst[0], &src[0], n16, &expConsts[0][0], b, form)
		done = n16
	}
	if done < n {
		if b != nil {
			b = &bias[done]
		}
		expAVX2(&dst[done], &src[done], n-done, &expConsts[0][0], b, form)
	}
	return n
}

// useExpAVX512 is whether expVector takes the AVX-512 form; a variable
// so that the tests can compare both forms on a CPU that has it.
var useExpAVX512 = hasAVX512
