package nets

import "fmt"

// attentionInPlace is the inference form of MultiHeadAttention's core:
// with q [B·Nq, D], k [B·Nk, D], v [B·Nk, D] (q already scaled by 1/√dh)
// and D = heads·dh, it returns
//
//	y[b·Nq + i, h·dh : (h+1)·dh] = (softmax(Q_bh K_bhᵀ) V_bh)_i
//
// reading each (realization, head) block where it lies, as a column
// band of rows with stride D, and writing the output the same way. The
// training form copies the heads apart (splitHeads), runs AttentionCore
// and copies them back (mergeHeads); at one realization's sizes the
// copies cost a tenth of the prediction. The products are the ones
// AttentionCore runs, on the same kernel, so the values are the same.
func attentionInPlace(tp *Tape, q, k, v *Tensor, heads, batch int) *Tensor {
	d := q.Cols
	if heads <= 0 || d%heads != 0 || k.Cols != d || v.Cols != d || k.Rows != v.Rows || q.Rows%batch != 0 || k.Rows%batch != 0 {
		panic(fmt.Sprintf("nets: attention q %s, k %s, v %s in %d heads, batch %d", q.Shape(), k.Shape(), v.Shape(), heads, batch))
	}
	dh := d / heads
	nq, nk := q.Rows/batch, k.Rows/batch
	y := tp.allocFull(q.Rows, d) // every (row, head) band is written
	procs := attentionProcs(tp, heads*batch*nq*nk*dh)
	// Long contexts take the queries in blocks, so that the scores
	// need not hold nq·nk values (800 MB for self-attention over 10⁴
	// points); each row's softmax and products are unchanged.
	rows := max(1, min(nq, attentionScoreBudget/max(1, nk)))
	blocks := (nq + rows - 1) / rows
	forGroupsUntil(tp.done, procs, heads*batch*blocks, rows*nk, func(g int, scratch []float64) {
		bh, blk := g/blocks, g%blocks
		b, h := bh/heads, bh%heads
		r0 := blk * rows
		m := min(rows, nq-r0)
		qo, ko := (b*nq+r0)*d+h*dh, b*nk*d+h*dh
		scores := gemmProblem{kern: gemmDefault, transB: true, m: m, n: nk, k: dh, alpha: 1,
			a: q.Data[qo:], b: k.Data[ko:], c: scratch, lda: d, ldb: d, ldc: nk}
		scores.runHere(1) // one goroutine: never declined
		softmaxRows(&Tensor{Rows: m, Cols: nk, Data: scratch[:m*nk]})
		out := gemmProblem{kern: gemmDefault, m: m, n: dh, k: nk, alpha: 1,
			a: scratch, b: v.Data[ko:], c: y.Data[qo:], lda: nk, ldb: d, ldc: d}
		out.runHere(1)
	})
	return y
}

// attentionScoreBudget is the most attention scores one block of
// queries holds (8 MB); a variable so that the tests can force blocks.
var attentionScoreBudget = 1 << 20
