package cli

import (
	"runtime/debug"
	"sync"
)

// gcBallastBytes is the size of an allocation that train holds, and
// never touches, while the process lives. A training step allocates
// megabytes of tensors that die with it (about 19 MB for lv at batch 8)
// over a live heap of a few tens of megabytes. With the collector's
// default goal of twice the live heap it then collects every few steps
// and hands the freed pages back to the operating system, which the next
// steps fault in again: a quarter of lv's training CPU time went to the
// kernel. The ballast counts as live, which raises the goal by its size
// times the collector's percent (trainGCPercent during training), yet
// its pages, fresh from the operating system, are never written and so
// cost no resident memory. It changes no value, only when the collector
// runs (BenchmarkTrainLV compares it with none: since training steps
// take their tensors from an arena, it saves little).
const gcBallastBytes = 256 << 20

var (
	gcBallast     []byte
	gcBallastOnce sync.Once
)

// holdGCBallast allocates the ballast once and keeps it for the rest of
// the process: a second allocation could reuse the first one's freed
// pages, which the runtime would zero, writing every page.
func holdGCBallast() {
	gcBallastOnce.Do(func() { gcBallast = make([]byte, gcBallastBytes) })
}

// trainGCPercent is the collector's goal for train: the heap may grow a
// quarter past the live heap between collections, not the default
// double. A large model's live heap is mostly its step arena and
// attention buffers, hundreds of megabytes of values the collector does
// not scan, so a collection costs about a millisecond while the default
// goal let garbage reach the live heap's size (advdiff/anp peaked at
// 2.5 GB resident with it, 1.8 GB with this; docs/performance.md).
const trainGCPercent = 25

// tuneGCForTraining sets the collector's goal to trainGCPercent unless
// the user chose one with GOGC (gogc is its value), and returns what
// puts the earlier goal back.
func tuneGCForTraining(gogc string) (restore func()) {
	if gogc != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(trainGCPercent)
	return func() { debug.SetGCPercent(prev) }
}
