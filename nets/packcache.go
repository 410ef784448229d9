package nets

import (
	"sync/atomic"
	"unsafe"
)

// packCache keeps a weight matrix's packed op(B) panels for the
// products that gemmProblem.direct would otherwise pack on every call:
// the transposed weights of TiledInputGrad's reverse pass and the last,
// partial column sliver of a layer narrower than the kernel's nr (an
// output layer of one column packs 16 per row).
// Inference weights do not change between calls, but nothing stops a
// caller from writing a Param's values (training, loading, restoring,
// tests), so an entry is a memo on content, never on identity: it holds
// a copy of the values it was packed from and is used only while they
// equal, bit for bit, the values the product reads now. A changed weight
// is repacked, never served stale; an equal copy elsewhere reuses the
// same panels, which are then the same numbers.
//
// Entries are immutable once published, so concurrent products share
// them; a mismatch packs a fresh entry and publishes it over the slot.
type packCache struct {
	slots [packSlots]atomic.Pointer[packEntry]
	next  atomic.Uint32 // round-robin victim when no slot matches the key
}

// packSlots bounds a Param's entries: a weight is read transposed and
// plain, and the first layer's in row ranges.
const packSlots = 4

// packEntry is op(B)'s panels for one product shape, as direct packs
// them: all of op(B) (ceilMul(n, nr)·k values) when transB, else the
// last, partial nr-sliver only (nr·k).
type packEntry struct {
	kern       *gemmKernel
	transB     bool
	k, n, ldb  int
	src        []float64 // the values the panels were packed from
	panels     []float64 // 64-byte aligned
	panelsBase []float64 // backing store of panels
}

// packedB returns p's packed op(B) panels for direct from c, packing and
// caching them when no entry matches p's operand. It reports false when
// p's operand is not one direct packs (or is not contiguous), leaving
// the packing to direct.
func (c *packCache) packedB(p *gemmProblem) ([]float64, bool) {
	if c == nil {
		return nil, false
	}
	nr := p.kern.nr
	rest := p.n % nr
	if !p.transB && (rest == 0 || p.n > nr) {
		// Unpacked B is packed only in its last partial sliver; the
		// memo compares all of B, which costs no more than packing
		// only when the sliver is all of B (a layer narrower than nr).
		return nil, false
	}
	// The region of b the product reads: n rows of k (transB) or k rows
	// of n, contiguous only when the row stride is the row length.
	rowLen, rowsN := p.n, p.k
	if p.transB {
		rowLen, rowsN = p.k, p.n
	}
	if p.ldb != rowLen {
		return nil, false
	}
	src := p.b[:rowLen*rowsN]
	key := func(e *packEntry) bool {
		return e.kern == p.kern && e.transB == p.transB && e.k == p.k && e.n == p.n && e.ldb == p.ldb
	}
	for i := range c.slots {
		if e := c.slots[i].Load(); e != nil && key(e) && sameBits(e.src, src) {
			return e.panels, true
		}
	}
	e := &packEntry{kern: p.kern, transB: p.transB, k: p.k, n: p.n, ldb: p.ldb, src: append([]float64(nil), src...)}
	if p.transB {
		e.panels = aligned(&e.panelsBase, ceilMul(p.n, nr)*p.k)
		packB(true, e.src, p.ldb, 0, 0, p.k, p.n, nr, e.panels)
	} else {
		e.panels = aligned(&e.panelsBase, nr*p.k)
		packB(false, e.src, p.ldb, 0, p.n-rest, p.k, rest, nr, e.panels)
	}
	// Replace the slot with this key (its weights changed), else a free
	// one, else the next in turn.
	slot := -1
	for i := range c.slots {
		if old := c.slots[i].Load(); old == nil || key(old) {
			slot = i
			break
		}
	}
	if slot < 0 {
		slot = int(c.next.Add(1)) % packSlots
	}
	c.slots[slot].Store(e)
	return e.panels, true
}

// sameBits reports whether a and b hold the same bits (NaN payloads and
// the sign of zero included: the panels are copies of those bits).
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	ab := unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a))
	bb := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b))
	return string(ab) == string(bb)
}
