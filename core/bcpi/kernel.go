package bcpi

import (
	"math"

	"apic/sims"
)

// maxOrder is the highest derivative order of g the operators need
// (advdiff's K_ff: ∂x² against ∂x², order 4).
const maxOrder = 8

// hermite returns the probabilists' Hermite polynomial He_n(z) by the
// recurrence He_{n+1} = z He_n − n He_{n−1}.
func hermite(n int, z float64) float64 {
	prev, cur := 0.0, 1.0 // He_{−1} (unused), He_0
	for k := range n {
		prev, cur = cur, z*cur-float64(k)*prev
	}
	return cur
}

// seDeriv returns the n-th derivative of the squared exponential
// g(r) = exp(−r²/2ℓ²),
//
//	g⁽ⁿ⁾(r) = (−1/ℓ)ⁿ Heₙ(r/ℓ) g(r),
//
// summed over the images r + m·period, m = −2..2, when period > 0 (a
// periodic coordinate: the kernel of the wrapped process).
func seDeriv(n int, r, ell, period float64) float64 {
	one := func(r float64) float64 {
		z := r / ell
		return math.Pow(-1/ell, float64(n)) * hermite(n, z) * math.Exp(-z*z/2)
	}
	if period <= 0 {
		return one(r)
	}
	s := 0.0
	for m := -2; m <= 2; m++ {
		s += one(r + float64(m)*period)
	}
	return s
}

// seKernel is a product squared-exponential kernel α² Π_d g_d over the
// state dimensions, periodic where period[d] > 0. caches, when set (see
// withCaches), memoise g's derivatives per dimension.
type seKernel struct {
	amp2   float64
	scales []float64
	period []float64
	caches []*derivCache
}

// derivCache memoises g⁽ⁿ⁾(r) and ℓ ∂g⁽ⁿ⁾/∂ℓ (n = 0..maxOrder) along one
// dimension of one kernel by r. The states are grid states, so the
// differences between them take a few hundred values while a covariance
// has hundreds of thousands of pairs: without it, building advdiff's
// 576-row covariance took 0.3 s, mostly in exp.
type derivCache struct {
	ell, period float64
	m           map[int64]*derivEntry
}

type derivEntry struct{ g, dl [maxOrder + 1]float64 }

// cacheKeyScale turns r into the cache's key: differences that agree to
// 10⁻¹² share their derivatives.
const cacheKeyScale = 1e12

func (c *derivCache) get(r float64) *derivEntry {
	key := int64(math.Round(r * cacheKeyScale))
	if e, ok := c.m[key]; ok {
		return e
	}
	e := &derivEntry{}
	seDerivsScale(e.g[:], e.dl[:], r, c.ell, c.period)
	c.m[key] = e
	return e
}

// withCaches returns k with an empty derivative cache per dimension.
func (k seKernel) withCaches() seKernel {
	k.caches = make([]*derivCache, len(k.scales))
	for d, ell := range k.scales {
		k.caches[d] = &derivCache{ell: ell, period: k.period[d], m: map[int64]*derivEntry{}}
	}
	return k
}

// derivs returns g⁽ⁿ⁾ and ℓ ∂g⁽ⁿ⁾/∂ℓ along dimension d at r for orders
// up to n, from the cache when there is one.
func (k seKernel) derivs(d, n int, r float64, g, dl *[maxOrder + 1]float64) (*[maxOrder + 1]float64, *[maxOrder + 1]float64) {
	if k.caches != nil {
		e := k.caches[d].get(r)
		return &e.g, &e.dl
	}
	seDerivsScale(g[:n+1], dl[:n+1], r, k.scales[d], k.period[d])
	return g, dl
}

// seDerivs writes g⁽ⁿ⁾(r) for n = 0..len(dst)−1 into dst, sharing each
// image's exponential (the Hermite recurrence gives every order at once).
func seDerivs(dst []float64, r, ell, period float64) {
	clear(dst)
	images := 0
	if period > 0 {
		images = 2
	}
	for m := -images; m <= images; m++ {
		z := (r + float64(m)*period) / ell
		g := math.Exp(-z * z / 2)
		prev, cur, scale := 0.0, 1.0, 1.0
		for n := range dst {
			dst[n] += scale * cur * g
			prev, cur = cur, z*cur-float64(n)*prev
			scale *= -1 / ell
		}
	}
}

// opCov returns the covariance of A u(p) and B u(q) for operators
// A = Σ_i a_i ∂t^{s_i} ∂x^{t_i} and B likewise, u ~ GP(0, k): with
// r = p − q and ∂_q = −∂_r,
//
//	Cov = α² Σ_ij a_i b_j (−1)^{orders of B_j} Π_d g_d^{(A_i,d + B_j,d)}(r_d).
func (k seKernel) opCov(a, b []sims.OpTerm, p, q []float64) float64 {
	v, _ := k.opCovGrad(a, b, p, q)
	return v
}

// maxOrders returns the highest summed t and x orders of a against b.
func maxOrders(a, b []sims.OpTerm) (nt, nx int) {
	at, ax, bt, bx := 0, 0, 0, 0
	for _, t := range a {
		at, ax = max(at, t.T), max(ax, t.X)
	}
	for _, t := range b {
		bt, bx = max(bt, t.T), max(bx, t.X)
	}
	return min(at+bt, maxOrder), min(ax+bx, maxOrder)
}

// identity is the operator u ↦ u (of channel 0), channelIdentity[c]
// that of channel c.
var (
	identity        = []sims.OpTerm{{Coef: 1}}
	channelIdentity = [][]sims.OpTerm{identity, {{Coef: 1, Ch: 1}}}
)

// maxChannels is the most channels a system may have for BCPI.
const maxChannels = 2

// opCovAll is opCov for operators whose terms act on several channels,
// each an independent GP with kernel ks[ch]: the covariance is the sum
// over channels of the single-channel covariances of their terms.
func opCovAll(ks []seKernel, a, b []sims.OpTerm, p, q []float64) float64 {
	if len(ks) == 1 {
		return ks[0].opCov(a, b, p, q)
	}
	sum := 0.0
	var ac, bc [8]sims.OpTerm
	for c, k := range ks {
		na, nb := 0, 0
		for _, t := range a {
			if t.Ch == c && na < len(ac) {
				ac[na] = t
				na++
			}
		}
		for _, t := range b {
			if t.Ch == c && nb < len(bc) {
				bc[nb] = t
				nb++
			}
		}
		if na > 0 && nb > 0 {
			sum += k.opCov(ac[:na], bc[:nb], p, q)
		}
	}
	return sum
}
