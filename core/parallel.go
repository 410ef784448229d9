package core

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEach runs work(i) for i = 0..n−1 on up to GOMAXPROCS goroutines,
// the caller's among them. The calls must be independent: forEach is for
// the per-realization bookkeeping of a batched prediction (spread fits,
// moments), which would otherwise run on one core while the network's
// products use all of them.
func forEach(n int, work func(i int)) {
	procs := min(runtime.GOMAXPROCS(0), n)
	if procs <= 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var next atomic.Int64
	run := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			work(i)
		}
	}
	var wg sync.WaitGroup
	for range procs - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}
