package nets

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestParallel: every item is done exactly once, however many callers
// share the helpers and however deeply the calls nest, and no call of
// work is still running once Parallel has returned.
func TestParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const items = 200
	var nested func(depth int) int64
	nested = func(depth int) int64 {
		var done [items]atomic.Int32
		var next, sum, running atomic.Int64
		Parallel(3, func() {
			running.Add(1)
			defer running.Add(-1)
			for {
				i := int(next.Add(1)) - 1
				if i >= items {
					return
				}
				done[i].Add(1)
				sum.Add(int64(i))
				if depth > 0 && i%50 == 0 {
					sum.Add(nested(depth - 1))
				}
			}
		})
		if n := running.Load(); n != 0 {
			t.Errorf("depth %d: %d calls of work still running after Parallel returned", depth, n)
		}
		for i := range done {
			if n := done[i].Load(); n != 1 {
				t.Errorf("depth %d: item %d done %d times", depth, i, n)
			}
		}
		return sum.Load()
	}
	// Σ i over the items, plus four nested calls per level.
	want := func(depth int) int64 {
		w := int64(items * (items - 1) / 2)
		for range depth {
			w = items*(items-1)/2 + 4*w
		}
		return w
	}
	var wg sync.WaitGroup
	for c := range 6 {
		wg.Go(func() {
			depth := c % 3
			if got := nested(depth); got != want(depth) {
				t.Errorf("caller %d: sum %d, want %d", c, got, want(depth))
			}
		})
	}
	wg.Wait()
}

// TestParallelOne: one goroutine is the caller's own call.
func TestParallelOne(t *testing.T) {
	calls := 0
	Parallel(1, func() { calls++ })
	Parallel(0, func() { calls++ })
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
}

// TestParallelPanicDropsQueuedJobs: when the caller's share panics, the
// jobs no helper has started are dropped before Parallel unwinds, so
// that work never runs after it (its callers hand the buffers work
// writes back to pools).
func TestParallelPanicDropsQueuedJobs(t *testing.T) {
	helpersMu.Lock()
	n := max(helpers, 1)
	helpersMu.Unlock()
	// Keep every helper busy: n+1 shares that wait for release.
	release, busy := make(chan struct{}), make(chan struct{}, n+1)
	blocked := make(chan struct{})
	var claims atomic.Int64
	go func() {
		defer close(blocked)
		Parallel(n+1, func() {
			if claims.Add(1) > int64(n+1) {
				return
			}
			busy <- struct{}{}
			<-release
		})
	}()
	for range n + 1 {
		<-busy
	}
	var calls atomic.Int64
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the caller's panic did not propagate")
			}
		}()
		Parallel(2, func() {
			if calls.Add(1) == 1 {
				panic("caller's share")
			}
		})
	}()
	close(release)
	<-blocked
	for len(helperQueue) > 0 {
		runtime.Gosched()
	}
	time.Sleep(20 * time.Millisecond) // a helper holding the stale job runs it now, if ever
	if c := calls.Load(); c != 1 {
		t.Errorf("work ran %d times, want once (the caller's share): a dropped job ran after Parallel unwound", c)
	}
}

// BenchmarkParallelStart measures how long the second of two shares of
// work takes to start after 50 µs of the caller's own work (about the
// gap between a batched prediction's calls), with the second share on a
// fresh goroutine (go) or on Parallel's pooled helper, which is still
// polling then. The share that starts first spins until the other has
// started, so that neither is the caller handing over its own core.
// µs/start is the median over the iterations.
func BenchmarkParallelStart(b *testing.B) {
	spin := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	for _, tc := range []struct {
		name string
		run  func(share func())
	}{
		{"go", func(share func()) {
			var wg sync.WaitGroup
			wg.Go(share)
			share()
			wg.Wait()
		}},
		{"helper", func(share func()) { Parallel(2, share) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var starts []float64
			for b.Loop() {
				spin(50 * time.Microsecond)
				var next, started atomic.Int64
				t0 := time.Now()
				tc.run(func() {
					if next.Add(1) == 1 {
						for started.Load() == 0 {
						}
						return
					}
					started.Store(int64(time.Since(t0)) + 1)
				})
				starts = append(starts, float64(started.Load()-1)/1e3)
			}
			slices.Sort(starts)
			b.ReportMetric(starts[len(starts)/2], "µs/start")
		})
	}
}
