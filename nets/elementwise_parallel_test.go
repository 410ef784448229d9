package nets

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// TestParallelPassesGradCheck: ReLU, SiLU, SegmentMean and an affine
// layer's bias (20 columns: two blocks of the column split), their
// passes split into pieces of three values on three goroutines, match
// finite differences.
func TestParallelPassesGradCheck(t *testing.T) {
	defer func(c, m, p int) { elemChunk, elemParallelMin = c, m; runtime.GOMAXPROCS(p) }(elemChunk, elemParallelMin, runtime.GOMAXPROCS(3))
	elemChunk, elemParallelMin = 3, 1
	rng := newRNG(5)
	x := randSigned(rng, 8, 3, 0.1, 1)
	w, b := randSigned(rng, 3, 20, 0.1, 1), randSigned(rng, 1, 20, 0.1, 1)
	checkGrad(t, "parallel passes", func(tp *Tape, in []*Var) *Var {
		h := tp.SiLU(tp.affine(in[0], in[1], in[2]))
		a := tp.ReLU(tp.Sub(h, tp.Mean(h))) // ReLU of mixed signs
		return tp.Add(wsum(tp, a), wsum(tp, tp.SegmentMean(tp.Add(h, a), 2)))
	}, x, w, b)
}

// TestForRangeCoversOnce: every item is handed to exactly one call, for
// passes below and above the parallel threshold and any worker count.
func TestForRangeCoversOnce(t *testing.T) {
	for _, c := range []struct{ n, width, procs int }{
		{0, 1, 4}, {1, 1, 4}, {elemParallelMin - 1, 1, 4}, {elemParallelMin + 3, 1, 2},
		{3 * elemParallelMin, 1, 3}, {100, 1000, 2}, {7, 1 << 14, 4}, {40000, 0, 2},
	} {
		seen := make([]int32, c.n)
		calls := 0
		var mu = make(chan struct{}, 1)
		forRange(c.procs, c.n, c.width, func(lo, hi int) {
			mu <- struct{}{}
			calls++
			<-mu
			for i := lo; i < hi; i++ {
				seen[i]++ // each item by one call: no race on an index
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d width=%d procs=%d: item %d done %d times", c.n, c.width, c.procs, i, s)
			}
		}
		if c.n*max(c.width, 1) < elemParallelMin && calls != 1 {
			t.Errorf("n=%d width=%d: a pass below the threshold took %d calls, want 1", c.n, c.width, calls)
		}
	}
}

// TestSumRowsOnMatchesSumRows: the column blocks sum exactly what
// sumRows sums, for widths that are and are not multiples of 16.
func TestSumRowsOnMatchesSumRows(t *testing.T) {
	rng := newRNG(3)
	for _, cols := range []int{5, 16, 100, 128, 130} {
		rows := 2*elemParallelMin/cols + 1
		src := randSigned(rng, rows, cols+3, 0.1, 1) // a stride wider than the sums
		want, got := make([]float64, cols), make([]float64, cols)
		for i := range want {
			want[i], got[i] = float64(i), float64(i) // both add to what is there
		}
		sumRows(want, src.Data, rows, cols+3, false)
		sumRowsOn(3, got, src.Data, rows, cols+3)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("cols %d: column %d = %v, want %v", cols, i, got[i], want[i])
			}
		}
	}
	wide := make([]float64, 16*elemParallelMin) // no rows: nothing to add
	sumRowsOn(2, wide, nil, 0, len(wide))
	if slices.ContainsFunc(wide, func(v float64) bool { return v != 0 }) {
		t.Error("no rows changed the sums")
	}
}

// TestTrainingOpsIndependentOfWorkers: a step's values and gradients
// through ReLU, SiLU, SegmentMean and affine biases at sizes that run on
// several goroutines equal those computed on one, bit for bit, on heap
// and arena tapes alike.
func TestTrainingOpsIndependentOfWorkers(t *testing.T) {
	rng := newRNG(11)
	const rows, in, hidden = 1024, 24, 40 // 1024 × 40 values per activation
	inputs := []*Tensor{
		randSigned(rng, rows, in, 0.1, 1),
		randSigned(rng, in, hidden, 0.1, 1), randSigned(rng, 1, hidden, 0.1, 1),
		randSigned(rng, hidden, hidden, 0.1, 1), randSigned(rng, 1, hidden, 0.1, 1),
	}
	run := func(tp *Tape) (float64, []*Tensor) {
		vars := make([]*Var, len(inputs))
		for i, x := range inputs {
			vars[i] = tp.Input(x)
		}
		h := tp.SiLU(tp.affine(vars[0], vars[1], vars[2]))
		a := tp.ReLU(tp.affine(h, vars[3], vars[4]))
		seg := tp.SegmentMean(tp.Add(h, a), 16) // 64 groups of 16 rows
		loss := tp.Add(wsum(tp, a), wsum(tp, seg))
		tp.Backward(loss)
		out := make([]*Tensor, len(vars))
		for i, v := range vars {
			out[i] = v.Grad.Clone()
		}
		return loss.Value.Data[0], out
	}
	serial := NewTape()
	serial.SetWorkers(1)
	wantLoss, want := run(serial)
	var arena Arena
	for _, workers := range []int{2, 3} {
		for _, tp := range []*Tape{NewTape(), NewTrainingTape(&arena)} {
			tp.SetWorkers(workers)
			loss, got := run(tp)
			if loss != wantLoss {
				t.Fatalf("workers %d: loss %v, want %v", workers, loss, wantLoss)
			}
			for i := range got {
				assertClose(t, fmt.Sprintf("workers %d input %d", workers, i), got[i], want[i], 0)
			}
			arena.Reset()
		}
	}
}
