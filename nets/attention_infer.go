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
	forGroups(procs, heads*batch, nq*nk, func(g int, scratch []float64) {
		b, h := g/heads, g%heads
		qo, ko := b*nq*d+h*dh, b*nk*d+h*dh
		scores := gemmProblem{kern: gemmDefault, transB: true, m: nq, n: nk, k: dh, alpha: 1,
			a: q.Data[qo:], b: k.Data[ko:], c: scratch, lda: d, ldb: d, ldc: nk}
		scores.runHere(1) // one goroutine: never declined
		softmaxRows(&Tensor{Rows: nq, Cols: nk, Data: scratch})
		out := gemmProblem{kern: gemmDefault, m: nq, n: dh, k: nk, alpha: 1,
			a: scratch, b: v.Data[ko:], c: y.Data[qo:], lda: nk, ldb: d, ldc: d}
		out.runHere(1)
	})
	return y
}
