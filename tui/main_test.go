package tui

import (
	"os"
	"runtime"
	"testing"

	"apic/nets"
)

// TestMain starts the engine's pooled helper goroutines (nets.Parallel)
// before any test runs: they live for the process, and a goroutine-leak
// check (settle) that counted before a test's first parallel product
// would otherwise count them as the test's leak when the test runs
// alone.
func TestMain(m *testing.M) {
	nets.Parallel(runtime.GOMAXPROCS(0), func() {})
	// No progress ticks: run() would wait for each, and a frame would
	// read the time its work took. The tests that tick set their own.
	progressEvery = 0
	os.Exit(m.Run())
}
