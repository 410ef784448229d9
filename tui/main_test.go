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
	os.Exit(m.Run())
}
