package nets

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Parallel calls work on up to procs goroutines at once, the caller's
// among them, and returns when every call has returned. work must be a
// loop that takes items from a shared counter until none are left, so
// that any number of calls from one up completes the work: calls that
// no helper has started by the time the caller's own call returns are
// dropped rather than waited for. Nested Parallel calls therefore cannot
// deadlock, whatever the helpers are busy with.
//
// The helpers are pooled goroutines that, once idle, poll for new work
// for up to helperSpin before they park. Waking a parked thread costs
// about 0.1 ms on the 2-core virtual machines apic runs on (the second
// core's first call started 85–150 µs after the first's), as much as a
// batched prediction's whole piece; a helper still polling starts within
// microseconds.
func Parallel(procs int, work func()) {
	if procs <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	jobs := make([]helperJob, procs-1)
	startHelpers(procs - 1)
	for i := range jobs {
		j := &jobs[i]
		j.work, j.wg = work, &wg
		wg.Add(1)
		select {
		case helperQueue <- j:
		default: // the queue is full: the caller does this share
			j.claimed.Store(true)
			wg.Done()
		}
	}
	// Deferred, so that a panic in the caller's share still drops the
	// jobs no helper has started and waits for those that have: no work
	// runs after Parallel has returned or unwound (its callers hand the
	// buffers it writes back to pools).
	defer func() {
		for i := range jobs {
			if jobs[i].claimed.CompareAndSwap(false, true) {
				wg.Done() // never started: the work is already done
			}
		}
		wg.Wait()
	}()
	work()
}

// helperSpin is how long an idle helper polls for work before it parks:
// about the cost of one wake-up, so that polling never costs more than
// the wake-up it saves (the rent-or-buy bound).
const helperSpin = 200 * time.Microsecond

// helperJob is one call of a Parallel's work, run by whichever of a
// helper and the caller claims it first.
type helperJob struct {
	work    func()
	wg      *sync.WaitGroup
	claimed atomic.Bool
}

var (
	helperQueue = make(chan *helperJob, 1024)
	helpersMu   sync.Mutex
	helpers     int
)

// startHelpers makes sure at least n helpers run.
func startHelpers(n int) {
	helpersMu.Lock()
	defer helpersMu.Unlock()
	for ; helpers < n; helpers++ {
		go helper()
	}
}

// helper runs queued jobs, polling the queue for helperSpin after each
// before it blocks on it.
func helper() {
	for {
		var j *helperJob
		select {
		case j = <-helperQueue:
		default:
			deadline := time.Now().Add(helperSpin)
			for j == nil {
				select {
				case j = <-helperQueue:
					continue
				default:
				}
				if time.Now().After(deadline) {
					j = <-helperQueue
					break
				}
				runtime.Gosched() // let other goroutines have this core
			}
		}
		if j.claimed.CompareAndSwap(false, true) {
			j.work()
			j.wg.Done()
		}
	}
}

// elemChunk is the number of values one worker of forRange takes at a
// time: large enough that a claim costs nothing against the pass, small
// enough that two workers finish together. elemParallelMin is the fewest
// values worth a second worker: below it handing work over costs more
// than the pass. (Variables so that tests can send small passes through
// the parallel path.)
var elemChunk, elemParallelMin = 1 << 13, 1 << 15

// forRange calls fn(lo, hi) over the items [0, n), each touching width
// values, in pieces of about elemChunk values on up to procs goroutines
// (one when the pass touches fewer than elemParallelMin values). Every
// item is done by one call in its own order, so the results do not
// depend on procs: elementwise passes over a training step's activations
// are memory-bound, and a second core brings its own bandwidth.
func forRange(procs, n, width int, fn func(lo, hi int)) {
	width = max(width, 1)
	if procs <= 1 || n*width < elemParallelMin {
		fn(0, n)
		return
	}
	step := max(1, elemChunk/width)
	var next atomic.Int64
	Parallel(min(procs, ceilDiv(n, step)), func() {
		for {
			lo := int(next.Add(1)-1) * step
			if lo >= n {
				return
			}
			fn(lo, min(lo+step, n))
		}
	})
}

// sumRowsOn is sumRows on up to procs goroutines, each summing its own
// blocks of 16 columns (the same sums in the same order).
func sumRowsOn(procs int, dst, src []float64, rows, ld int) {
	const block = 16
	if rows <= 0 {
		return // nothing to add (forRange would take the empty src for wide)
	}
	forRange(procs, ceilDiv(len(dst), block), block*rows, func(lo, hi int) {
		sumRows(dst[lo*block:min(hi*block, len(dst))], src[lo*block:], rows, ld, false)
	})
}
