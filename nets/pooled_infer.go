package nets

import "fmt"

// ForwardHiddenMean is a set encoder's pooled representation,
//
//	y_k = (1/n) Σ_{i ∈ group k} h(x_i),   h = ForwardHidden,
//
// over consecutive groups of n rows of x: SegmentMean(ForwardHidden(x), n).
// On an inference tape it runs group by group through every hidden layer
// in reused buffers and pools as it goes, so that the [rows, hidden]
// activations never exist whole (inferHiddenMean); the values are the
// same.
func (m *MLP) ForwardHiddenMean(tp *Tape, x *Var, n int) *Var {
	if !tp.noGrad || x.needsGrad || !activatesInPlace(m.Act) || len(m.Layers) < 2 {
		return tp.SegmentMean(m.ForwardHidden(tp, x), n)
	}
	return tp.Const(m.inferHiddenMean(tp, x.Value, n))
}

// inferHiddenMean is ForwardHiddenMean without a tape. Blocks hold whole
// groups (at least inferRows rows when the groups allow), so that each
// group's rows are summed in order by one worker, as SegmentMean sums
// them.
func (m *MLP) inferHiddenMean(tp *Tape, x *Tensor, n int) *Tensor {
	if n <= 0 || x.Rows%n != 0 {
		panic(fmt.Sprintf("nets: SegmentMean: %d rows do not split into groups of %d", x.Rows, n))
	}
	hidden := m.Layers[:len(m.Layers)-1]
	groups, out := x.Rows/n, hidden[len(hidden)-1].Out
	y := tp.Alloc(groups, out)
	if groups == 0 {
		return y
	}
	width := 0
	for _, l := range hidden {
		width = max(width, l.Out)
	}
	workers := tp.procs()
	per := max(1, inferRows/n) // groups per block
	per = min(per, (groups+workers-1)/workers)
	blocks := (groups + per - 1) / per
	inner := innerProcs(tp, workers, blocks)
	scale := 1 / float64(n)
	block := func(g0 int, bufA, bufB []float64) {
		gs := min(per, groups-g0)
		rows := gs * n
		h := rowRange(x, g0*n, rows)
		relu := m.Act == ActReLU
		for li, l := range hidden {
			// As Linear.Forward then the in-place activation: the bias
			// first, the product added onto it, so that the sums round
			// as on the tape for any width.
			next := FromSlice(rows, l.Out, bufA[:rows*l.Out])
			for i := range rows {
				copy(next.Row(i), l.B.Value.Data)
			}
			gemmRowsCached(inner, &l.W.packs, false, false, 1, h, l.W.Value, 1, next)
			if !relu || li < len(hidden)-1 {
				activateInPlace(m.Act, next.Data)
			} // else the pooling below applies the ReLU as it reads
			h, bufA, bufB = next, bufB, bufA
		}
		for k := range gs {
			yk := y.Row(g0 + k)
			sumRows(yk, h.Data[k*n*h.Cols:], n, h.Cols, relu)
			if scale != 1 {
				for j := range yk {
					yk[j] *= scale
				}
			}
		}
	}
	forBlocks(min(workers, blocks), blocks, per*n*width, func(b int, bufA, bufB []float64) {
		block(b*per, bufA, bufB)
	})
	return y
}
