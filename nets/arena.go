package nets

// Arena hands out zeroed tensor storage from slabs that are reused after
// Reset. An inference tape that allocates from an arena leaves nothing
// for the garbage collector: a batched prediction otherwise allocates
// tens of megabytes of fresh tensors per call, and their first touch
// (page faults) and collection cost more than the arithmetic on small
// networks. Tensors from an arena are valid until its next Reset. An
// Arena is not safe for concurrent use.
type Arena struct {
	slabs [][]float64
	next  int // slab being filled
	off   int // values used in slabs[next]
	used  int // values handed out since Reset
}

// arenaMinSlab is the smallest slab (values).
const arenaMinSlab = 1 << 15

// allocDirty returns n values holding whatever an earlier use left.
func (a *Arena) allocDirty(n int) []float64 {
	a.used += n
	for a.next < len(a.slabs) {
		s := a.slabs[a.next]
		if a.off+n <= len(s) {
			d := s[a.off : a.off+n : a.off+n]
			a.off += n
			return d
		}
		a.next++
		a.off = 0
	}
	s := make([]float64, max(n, arenaMinSlab, a.used))
	a.slabs = append(a.slabs, s)
	a.next, a.off = len(a.slabs)-1, n
	return s[:n:n]
}

// Reset makes the arena's storage available again; every tensor it
// handed out must be dead. Storage that took several slabs is merged
// into one, so that a workload repeated after Reset fits in one slab.
func (a *Arena) Reset() {
	if len(a.slabs) > 1 {
		a.slabs = [][]float64{make([]float64, a.Cap())}
	}
	a.next, a.off, a.used = 0, 0, 0
}

// Cap is the number of values the arena holds.
func (a *Arena) Cap() int {
	n := 0
	for _, s := range a.slabs {
		n += len(s)
	}
	return n
}

// NewArenaTape returns an inference tape (see NewInferenceTape) whose
// forward values come from a.
func NewArenaTape(a *Arena) *Tape {
	tp := NewInferenceTape()
	tp.arena = a
	return tp
}

// Tensor returns a zeroed [rows, cols] tensor from a; a nil arena
// allocates it on the heap (NewTensor).
func (a *Arena) Tensor(rows, cols int) *Tensor { return a.tensor(rows, cols, true) }

// tensor is Tensor, its values cleared only when zero is set (a heap
// tensor is always zero).
func (a *Arena) tensor(rows, cols int, zero bool) *Tensor {
	if a == nil || rows <= 0 || cols <= 0 {
		return NewTensor(rows, cols) // panics on a negative shape
	}
	d := a.allocDirty(rows * cols)
	if zero {
		clear(d)
	}
	return &Tensor{Rows: rows, Cols: cols, Data: d}
}

// Alloc returns a zeroed [rows, cols] tensor for an operation's output:
// from the tape's arena when it has one, else freshly allocated.
func (tp *Tape) Alloc(rows, cols int) *Tensor { return tp.arena.Tensor(rows, cols) }

// allocFull is Alloc for an output that the operation writes in full
// before reading it (a copied bias, a product with β = 0): an arena's
// values are not cleared first.
func (tp *Tape) allocFull(rows, cols int) *Tensor { return tp.arena.tensor(rows, cols, false) }

// like is Alloc with t's shape.
func (tp *Tape) like(t *Tensor) *Tensor { return tp.Alloc(t.Rows, t.Cols) }
