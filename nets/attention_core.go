package nets

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// AttentionCore is the scaled dot-product core of attention, group by
// group:
//
//	O_g = softmax(Q_g K_gᵀ) V_g,
//
// with q [G·Nq, d], k [G·Nk, d], v [G·Nk, dv] split into G consecutive
// row blocks, and the softmax taken along each row. It is
// Softmax(BatchMatMul(q, k, G, false, true)) followed by BatchMatMul with
// v, fused: the groups run in parallel, and the score matrices never
// exist all at once in the forward pass. The probabilities P_g are kept
// for the backward pass,
//
//	dV_g = P_gᵀ dO_g,  dP_g = dO_g V_gᵀ,
//	dS_g = P_g ⊙ (dP_g − rowsum(dP_g ⊙ P_g)),
//	dQ_g = dS_g K_g,  dK_g = dS_gᵀ Q_g,
//
// in a buffer that is reused by later tapes once the backward pass is
// done (the buffer of a training step's attention can be hundreds of
// megabytes; fresh pages for it every step cost more than the products).
// When no input needs a gradient (an inference tape's constants and
// parameters) nothing is kept.
func (tp *Tape) AttentionCore(q, k, v *Var, groups int) *Var {
	if groups <= 0 || q.Value.Rows%groups != 0 || k.Value.Rows%groups != 0 || k.Value.Rows != v.Value.Rows || q.Value.Cols != k.Value.Cols {
		panic(fmt.Sprintf("nets: AttentionCore q %s, k %s, v %s in %d groups", q.Value.Shape(), k.Value.Shape(), v.Value.Shape(), groups))
	}
	nq, nk := q.Value.Rows/groups, k.Value.Rows/groups
	dv := v.Value.Cols
	y := tp.Alloc(groups*nq, dv)
	// Inputs that need a gradient (parameters on a training tape, or
	// tp.Input on any tape) make the op keep its probabilities.
	keep := q.needsGrad || k.needsGrad || v.needsGrad
	var probs []float64
	if keep {
		probs = attentionBuffers.get(groups * nq * nk)
	}
	scratch := nq * nk // the probabilities of a group, when not kept
	if keep {
		scratch = 0
	}
	procs := attentionProcs(tp, groups*nq*nk*q.Value.Cols)
	forGroups(procs, groups, scratch, func(g int, scratch []float64) {
		p := &Tensor{Rows: nq, Cols: nk, Data: scratch}
		if keep {
			p.Data = probs[g*nq*nk : (g+1)*nq*nk]
		}
		gemmSerial(false, true, 1, rowBlock(q.Value, g, nq), rowBlock(k.Value, g, nk), 0, p)
		softmaxRows(p)
		gemmSerial(false, false, 1, p, rowBlock(v.Value, g, nk), 0, rowBlock(y, g, nq))
	})
	if !keep {
		return tp.record(y, nil)
	}
	return tp.record(y, func(out *Var) {
		if probs == nil {
			panic("nets: AttentionCore's backward pass ran twice (its probabilities went back to the pool after the first)")
		}
		defer func() { attentionBuffers.put(probs); probs = nil }()
		var dq, dk, dvg *Tensor
		if q.needsGrad {
			dq = q.grad()
		}
		if k.needsGrad {
			dk = k.grad()
		}
		if v.needsGrad {
			dvg = v.grad()
		}
		forGroups(procs, groups, nq*nk, func(g int, scratch []float64) {
			p := &Tensor{Rows: nq, Cols: nk, Data: probs[g*nq*nk : (g+1)*nq*nk]}
			dO := rowBlock(out.Grad, g, nq)
			if dvg != nil {
				gemmSerial(true, false, 1, p, dO, 1, rowBlock(dvg, g, nk))
			}
			if dq == nil && dk == nil {
				return
			}
			ds := &Tensor{Rows: nq, Cols: nk, Data: scratch}
			gemmSerial(false, true, 1, dO, rowBlock(v.Value, g, nk), 0, ds)
			softmaxBackwardRows(ds, p)
			if dq != nil {
				gemmSerial(false, false, 1, ds, rowBlock(k.Value, g, nk), 1, rowBlock(dq, g, nq))
			}
			if dk != nil {
				gemmSerial(true, false, 1, ds, rowBlock(q.Value, g, nq), 1, rowBlock(dk, g, nk))
			}
		})
	}, q, k, v)
}

// softmaxRows replaces each row of p by its softmax.
func softmaxRows(p *Tensor) {
	c := p.Cols
	if c == 0 {
		return
	}
	for i := range p.Rows {
		row := p.Data[i*c : (i+1)*c]
		m := rowMax(row)
		for j, x := range row {
			row[j] = x - m
		}
	}
	// One call over the whole block: rows are often shorter than the
	// vector loop's stride, and each row's scalar tail would cost more
	// than its vector part.
	expInto(p.Data, p.Data)
	for i := range p.Rows {
		row := p.Data[i*c : (i+1)*c]
		inv := 1 / rowSum(row)
		for j := range row {
			row[j] *= inv
		}
	}
}

// rowMax is the largest element of a non-empty row (NaN if any is), over
// four independent chains of comparisons.
func rowMax(row []float64) float64 {
	m0 := row[0]
	m1, m2, m3 := m0, m0, m0
	j := 0
	for ; j+4 <= len(row); j += 4 {
		m0, m1 = max(m0, row[j]), max(m1, row[j+1])
		m2, m3 = max(m2, row[j+2]), max(m3, row[j+3])
	}
	for ; j < len(row); j++ {
		m0 = max(m0, row[j])
	}
	return max(max(m0, m1), max(m2, m3))
}

// rowSum is the sum of a row over four independent chains of additions:
// a single chain waits on each addition's latency.
func rowSum(row []float64) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(row); j += 4 {
		s0, s1 = s0+row[j], s1+row[j+1]
		s2, s3 = s2+row[j+2], s3+row[j+3]
	}
	for ; j < len(row); j++ {
		s0 += row[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// softmaxBackwardRows turns dp, the gradient with respect to the
// probabilities p, into the gradient with respect to the scores:
// dS = P ⊙ (dP − rowsum(dP ⊙ P)).
func softmaxBackwardRows(dp, p *Tensor) {
	c := p.Cols
	for i := range p.Rows {
		g := dp.Data[i*c : (i+1)*c]
		pr := p.Data[i*c : (i+1)*c]
		dot := 0.0
		for j, x := range g {
			dot += x * pr[j]
		}
		for j, x := range g {
			g[j] = pr[j] * (x - dot)
		}
	}
}

// attentionProcs is the goroutines an attention of the given work
// (groups · n_q · n_k · d multiply-adds) runs on: the tape's workers,
// which a single small prediction sets to one, but every core from
// parallelAttention on. On a single one-pass prediction, spring/anp's
// attention over 30 context points ran faster on one core and
// advdiff/anp's over 256 on two (interleaved BenchmarkCalibrate and
// BenchmarkAPICLatencySpring).
func attentionProcs(tp *Tape, work int) int {
	if work >= parallelAttention {
		return runtime.GOMAXPROCS(0)
	}
	return tp.procs()
}

// parallelAttention is the attention work from which it runs on every
// core whatever the tape's workers.
const parallelAttention = 1 << 18

// forGroups runs work(g, scratch) for g = 0..n−1 on up to procs
// goroutines (the tape's workers: one for a prediction that runs on one
// core); each goroutine has its own scratch slice of length size (nil
// when size is 0).
func forGroups(procs, n, size int, work func(g int, scratch []float64)) {
	forGroupsUntil(nil, procs, n, size, work)
}

// forGroupsUntil is forGroups that starts no more groups once done is
// closed (a cancelled prediction), leaving theirs unwritten: the caller
// must then discard the result.
func forGroupsUntil(done <-chan struct{}, procs, n, size int, work func(g int, scratch []float64)) {
	procs = max(1, min(procs, n))
	var next atomic.Int64
	Parallel(procs, func() {
		var scratch []float64
		if size > 0 {
			scratch = attentionBuffers.get(size)
			defer attentionBuffers.put(scratch)
		}
		for {
			g := int(next.Add(1)) - 1
			if g >= n || stopped(done) {
				return
			}
			work(g, scratch)
		}
	})
}

// bufferPool hands out float64 slices of at least the asked length,
// reusing returned ones; it holds on to a few so that a training loop's
// large attention buffers are allocated once.
type bufferPool struct {
	mu   sync.Mutex
	free [][]float64
}

var attentionBuffers bufferPool

// get returns a slice of length n (contents undefined).
func (bp *bufferPool) get(n int) []float64 {
	bp.mu.Lock()
	defer bp.mu.Unlock()
	best := -1
	for i, b := range bp.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(bp.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]float64, n)
	}
	b := bp.free[best]
	bp.free = append(bp.free[:best], bp.free[best+1:]...)
	return b[:n]
}

// maxFreeBuffers bounds the number of slices a bufferPool keeps: a
// training step holds two attention probability buffers at once (the two
// encoders') and a scratch slice per goroutine; the pool keeps the
// largest, so it can hold a few hundred megabytes after an advdiff/anp
// step.
const maxFreeBuffers = 4

// put returns b to the pool, dropping the smallest kept slice when the
// pool is full.
func (bp *bufferPool) put(b []float64) {
	bp.mu.Lock()
	defer bp.mu.Unlock()
	bp.free = append(bp.free, b)
	if len(bp.free) > maxFreeBuffers {
		small := 0
		for i, f := range bp.free {
			if cap(f) < cap(bp.free[small]) {
				small = i
			}
		}
		bp.free = append(bp.free[:small], bp.free[small+1:]...)
	}
}
