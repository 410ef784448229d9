//go:build !unix

package core

import "time"

// processCPU is unavailable on this platform.
func processCPU() (time.Duration, bool) { return 0, false }
