package core

import (
	"runtime"
	"sync/atomic"

	"apic/nets"
)

// forEach runs work(i) for i = 0..n−1 on up to GOMAXPROCS goroutines,
// the caller's among them. The calls must be independent: forEach is for
// the per-realization bookkeeping of a batched prediction (spread fits,
// moments), which would otherwise run on one core while the network's
// products use all of them.
func forEach(n int, work func(i int)) { forEachOn(0, n, work) }

// forEachOn is forEach on up to procs goroutines (procs ≤ 0: GOMAXPROCS).
func forEachOn(procs, n int, work func(i int)) {
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	procs = min(procs, n)
	if procs <= 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var next atomic.Int64
	nets.Parallel(procs, func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			work(i)
		}
	})
}
