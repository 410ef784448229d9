package nets

import "sync/atomic"

// inferRows is the number of rows inferTiled pushes through all layers
// at once: the block's activations (rows × width) stay in the core's
// cache instead of streaming whole R·Q-row tensors through memory once
// per layer and per pass (bias, product, activation).
var inferRows = 256

// inferTiled is ForwardTiled without a tape: the same values, computed
// block by block of rows with two reused buffers, the bias added and the
// activation applied in one pass over each layer's block.
func (m *MLP) inferTiled(tp *Tape, xq, xr, xf *Tensor) *Tensor {
	q, r := xq.Rows, xr.Rows
	kq, kr := xq.Cols, xr.Cols
	l0 := m.Layers[0]
	perQuery, perGroup := tiledParts(tp, xq, xr, l0.W.Value, l0.B.Value)
	var wf *Tensor
	if xf != nil && xf.Cols > 0 {
		wf = rowRange(l0.W.Value, kq+kr, xf.Cols)
		if xf.Rows == q { // shared by every group: part of the per-query product
			tp.gemmOn(false, false, 1, xf, wf, 1, perQuery)
			wf = nil
		}
	}
	width := 0
	for _, l := range m.Layers {
		width = max(width, l.Out)
	}
	n := r * q
	out := tp.allocFull(n, m.Out()) // the blocks write every row
	last := len(m.Layers) - 1
	// Blocks of at most inferRows rows, at least one per core, and of
	// equal size so that no core waits on a longer last block.
	workers := tp.procs()
	blocks := min(n, max(workers, (n+inferRows-1)/inferRows))
	blockRows := (n + blocks - 1) / blocks
	blocks = (n + blockRows - 1) / blockRows
	inner := innerProcs(tp, workers, blocks)
	block := func(lo int, bufA, bufB []float64) {
		rows := min(blockRows, n-lo)
		h := FromSlice(rows, l0.Out, bufA[:rows*l0.Out])
		if wf == nil && last > 0 && m.Act == ActSiLU {
			siluTiled(h, lo, perQuery, perGroup) // the sum and SiLU in one pass
		} else {
			addTiled(h, lo, perQuery, perGroup)
			if wf != nil {
				gemmRowsOn(inner, false, false, 1, rowRange(xf, lo, rows), wf, 1, h)
			}
			if last == 0 {
				copy(out.Data[lo*out.Cols:], h.Data)
				return
			}
			activateInPlace(m.Act, h.Data)
		}
		for k, l := range m.Layers[1:] {
			var next *Tensor
			if k+1 == last {
				next = rowRange(out, lo, rows)
			} else {
				next = FromSlice(rows, l.Out, bufB[:rows*l.Out])
			}
			gemmRowsCached(inner, &l.W.packs, false, false, 1, h, l.W.Value, 0, next)
			if k+1 == last {
				addBias(next, l.B.Value.Data)
				break
			}
			biasActivate(next, l.B.Value.Data, m.Act)
			h, bufA, bufB = next, bufB, bufA
		}
	}
	forBlocks(min(workers, blocks), blocks, blockRows*width, func(b int, bufA, bufB []float64) {
		block(b*blockRows, bufA, bufB)
	})
	return out
}

// innerProcs is the goroutines a block's products may use: the tape's
// share when several blocks run side by side, all of them otherwise.
func innerProcs(tp *Tape, workers, blocks int) int {
	if min(workers, blocks) > 1 {
		return 1
	}
	return tp.procs()
}

// forBlocks runs block(b, bufA, bufB) for b = 0..blocks−1 on the given
// number of workers. Blocks are independent: the workers take them in
// turn, each with its own two pooled buffers of size values.
func forBlocks(workers, blocks, size int, block func(b int, bufA, bufB []float64)) {
	var next atomic.Int64
	Parallel(workers, func() {
		pa, pb := inferBuffers.Get(size), inferBuffers.Get(size)
		defer inferBuffers.Put(pa)
		defer inferBuffers.Put(pb)
		for {
			b := int(next.Add(1)) - 1
			if b >= blocks {
				return
			}
			block(b, pa, pb)
		}
	})
}

// inferBuffers recycles inferTiled's and TiledInputGrad's block buffers
// (every block overwrites what it reads).
var inferBuffers FloatPool

// addBias adds b to every row of t.
func addBias(t *Tensor, b []float64) {
	for i := range t.Rows {
		row := t.Row(i)
		for c, v := range b {
			row[c] += v
		}
	}
}

// biasActivate sets every row of t to a(row + b) in one pass (ReLU and
// SiLU fused; other activations in a second pass).
func biasActivate(t *Tensor, b []float64, a Activation) {
	switch a {
	case ActReLU:
		for i := range t.Rows {
			addReLU(t.Row(i), b)
		}
	case ActSiLU:
		for i := range t.Rows {
			siluBiasInto(t.Row(i), t.Row(i), b)
		}
	default:
		addBias(t, b)
		activateInPlace(a, t.Data)
	}
}
