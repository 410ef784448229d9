package nets

import "sync"

// FloatPool recycles float64 scratch slices whose contents are written
// before they are read: at one realization's sizes allocating them (and
// collecting them) costs as much as the arithmetic. Its zero value is
// ready; a slice too short for a request is left to the collector.
type FloatPool struct{ p sync.Pool }

// Get returns a slice of n values with arbitrary contents.
func (fp *FloatPool) Get(n int) []float64 {
	if b, ok := fp.p.Get().(*[]float64); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]float64, n)
}

// Put hands b back for reuse; the caller must not use it afterwards.
func (fp *FloatPool) Put(b []float64) { fp.p.Put(&b) }
