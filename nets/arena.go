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

	// The tensors' and vars' headers come in chunks too, reused after
	// Reset like the values: a refined calibration takes a few hundred,
	// each a heap allocation otherwise.
	tensors headers[Tensor]
	vars    headers[Var]
}

// headers hands out *T from chunks that are reused after reset.
type headers[T any] struct {
	chunks [][]T
	next   int // chunk being filled
	off    int // headers used in chunks[next]
}

// headerChunk is the number of headers in a chunk.
const headerChunk = 64

// get returns a zero *T.
func (h *headers[T]) get() *T {
	for h.next < len(h.chunks) {
		if c := h.chunks[h.next]; h.off < len(c) {
			h.off++
			return &c[h.off-1]
		}
		h.next++
		h.off = 0
	}
	h.chunks = append(h.chunks, make([]T, headerChunk))
	h.next, h.off = len(h.chunks)-1, 1
	return &h.chunks[h.next][0]
}

// reset zeroes the headers handed out (so that they keep no storage
// alive) and makes them available again.
func (h *headers[T]) reset() {
	for i := range h.chunks[:min(h.next+1, len(h.chunks))] {
		if i == h.next {
			clear(h.chunks[i][:h.off])
		} else {
			clear(h.chunks[i])
		}
	}
	h.next, h.off = 0, 0
}

// arenaMinSlab is the smallest slab (values).
const arenaMinSlab = 1 << 15

// allocDirty returns n values holding whatever an earlier use left. A
// slab added when none has room holds at least every value handed out
// since Reset, so that the arena's size at least doubles each time it
// grows, and a workload takes a few slabs however large it is.
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
// handed out must be dead. The slabs are kept as they are: a workload
// repeated after Reset asks for the same sizes in the same order, so it
// takes the same places in the same slabs and allocates nothing. (Merging
// them into one slab would allocate, and clear, the arena's whole size
// again each time a larger step grows it: a short training run grows it
// several times, as its context sizes vary, and spent a tenth of its
// time and two fifths of its peak memory on such merges.)
func (a *Arena) Reset() {
	a.next, a.off, a.used = 0, 0, 0
	a.tensors.reset()
	a.vars.reset()
}

// Cap is the number of values the arena holds.
func (a *Arena) Cap() int {
	n := 0
	for _, s := range a.slabs {
		n += len(s)
	}
	return n
}

// Used is the number of values handed out since the last Reset: after a
// training step, what that step's tape took.
func (a *Arena) Used() int { return a.used }

// NewArenaTape returns an inference tape (see NewInferenceTape) whose
// forward values come from a.
func NewArenaTape(a *Arena) *Tape {
	tp := NewInferenceTape()
	tp.arena = a
	return tp
}

// NewTrainingTape returns a tape (as NewTape) whose forward values and
// gradients come from a: a training loop that resets a after each step's
// optimizer update reuses the same storage every step, where fresh
// tensors cost the runtime a clearing pass each (and their collection).
// Parameters' gradients stay in Param.Grad.
func NewTrainingTape(a *Arena) *Tape {
	tp := NewTape()
	tp.arena = a
	return tp
}

// Tensor returns a zeroed [rows, cols] tensor from a; a nil arena
// allocates it on the heap (NewTensor). The tensor, its header included,
// is valid until a's next Reset.
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
	t := a.tensors.get()
	*t = Tensor{Rows: rows, Cols: cols, Data: d}
	return t
}

// Alloc returns a zeroed [rows, cols] tensor for an operation's output:
// from the tape's arena when it has one, else freshly allocated.
func (tp *Tape) Alloc(rows, cols int) *Tensor { return tp.arena.Tensor(rows, cols) }

// allocFull is Alloc for an output that the operation writes in full
// before reading it (a copied bias, a product with β = 0): an arena's
// values are not cleared first.
func (tp *Tape) allocFull(rows, cols int) *Tensor { return tp.arena.tensor(rows, cols, false) }

// newVar returns a zero Var for the tape's record: from the arena's
// headers when it has one (valid, like its values, until the arena's
// Reset), else from the heap.
func (tp *Tape) newVar() *Var {
	if tp.arena == nil {
		return new(Var)
	}
	return tp.arena.vars.get()
}

// scratch returns n values with arbitrary contents for an operation's
// own use, valid as long as the tape's values: from the arena when the
// tape has one, else the heap.
func (tp *Tape) scratch(n int) []float64 {
	if tp.arena == nil {
		return make([]float64, n)
	}
	return tp.arena.allocDirty(n)
}

// like is allocFull with t's shape: every operation that takes its
// output from like writes all of it.
func (tp *Tape) like(t *Tensor) *Tensor { return tp.allocFull(t.Rows, t.Cols) }
