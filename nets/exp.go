package nets

import "math"

// expInto sets dst[i] = e^src[i] for every i < len(src) (dst may be
// src): expScalar's value, computed four at a time where the CPU can
// (expVector, exp_amd64.s). Sigmoids and softmaxes spend most of their
// time here; the vector form costs about a quarter of math.Exp.
func expInto(dst, src []float64) {
	dst = dst[:len(src)]
	for i := expVector(dst, src, formExp); i < len(src); i++ {
		dst[i] = expScalar(src[i])
	}
}

// ExpInto sets dst[i] = e^src[i] (dst may be src) with the vector form of
// expScalar where the CPU has one: within two ulps of the exact value,
// +Inf above 709.78, 0 below −745.13, NaN kept.
func ExpInto(dst, src []float64) { expInto(dst, src) }

// sigmoidInto sets dst[i] = σ(x[i]) = 1/(1 + e^−x[i]), sigmoid's value
// (dst may be x).
func sigmoidInto(dst, x []float64) {
	dst = dst[:len(x)]
	for i := expVector(dst, x, formSigmoid); i < len(x); i++ {
		dst[i] = sigmoid(x[i])
	}
}

// siluInto sets dst[i] = x[i]·σ(x[i]) (dst may be x): the product of x
// and sigmoid's value, rounded once, which the vector form multiplies in
// before it stores rather than in a second pass over the values.
func siluInto(dst, x []float64) {
	dst = dst[:len(x)]
	for i := expVector(dst, x, formSiLU); i < len(x); i++ {
		dst[i] = x[i] * sigmoid(x[i])
	}
}

// siluBiasInto sets dst[i] = y·σ(y) with y = x[i] + b[i] (dst may be x,
// b as long as x): siluInto of x + b, the sum rounded as a separate
// addition rounds it, without the pass that would store it.
func siluBiasInto(dst, x, b []float64) {
	dst, b = dst[:len(x)], b[:len(x)]
	for i := expVectorBias(dst, x, b, formSiLU); i < len(x); i++ {
		y := x[i] + b[i]
		dst[i] = y * sigmoid(y)
	}
}

// expForm is what expVector computes from e^x: e^x itself, the sigmoid
// 1/(1 + e^−x), or SiLU x/(1 + e^−x) (as x times the sigmoid).
type expForm uint8

const (
	formExp expForm = iota
	formSigmoid
	formSiLU
)

// Constants of expScalar and of the vector form's table (expConsts).
const (
	expClampLo   = -745.2
	expClampHi   = 709.8
	expOverflow  = 709.782712893384           // above: +Inf (e^x > the largest float64)
	expUnderflow = -745.1332191019412         // below: 0
	ln2Hi        = 6.93147180369123816490e-01 // ln 2 = ln2Hi + ln2Lo, n·ln2Hi exact
	ln2Lo        = 1.90821492927058770002e-10
	expDegree    = 13
)

// expCoef[k] = 1/(13−k)!: the Taylor coefficients of e^r in Horner order.
var expCoef = func() (c [expDegree + 1]float64) {
	fact := 1.0
	for k := 0; k <= expDegree; k++ {
		if k > 0 {
			fact *= float64(k)
		}
		c[expDegree-k] = 1 / fact
	}
	return c
}()

// expScalar is e^x by the steps of the vector form: with n = round(x
// log₂e) and r = x − n ln 2 (|r| ≤ ln 2/2, in two parts),
//
//	e^x = 2^⌊n/2⌋ · 2^(n−⌊n/2⌋) · Σ_{k ≤ 13} r^k/k!,
//
// within two ulps of the exact value (TestExpInto); +Inf above 709.78,
// 0 below −745.13, NaN kept. (math.Exp on amd64 overflows from 709.44.)
func expScalar(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expOverflow:
		return math.Inf(1)
	case x < expUnderflow:
		return 0
	}
	xc := min(max(x, expClampLo), expClampHi)
	n := math.RoundToEven(xc * math.Log2E)
	r := math.FMA(-n, ln2Hi, xc)
	r = math.FMA(-n, ln2Lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	n1 := math.Floor(n * 0.5)
	return p * pow2(n1) * pow2(n-n1)
}

// pow2 is 2^k for an integer k of the normal exponent range.
func pow2(k float64) float64 {
	return math.Float64frombits(uint64(int64(k)+1023) << 52)
}
