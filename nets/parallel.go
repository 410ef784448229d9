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
