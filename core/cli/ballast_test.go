package cli

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCForTraining: train lowers the collector's goal to
// trainGCPercent, unless GOGC chose one, and puts the earlier goal back
// when done.
func TestTuneGCForTraining(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, c := range []struct {
		gogc string
		want int
	}{{"", trainGCPercent}, {"100", 100}, {"off", 100}, {"400", 100}} {
		debug.SetGCPercent(100)
		restore := tuneGCForTraining(c.gogc)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: collector percent %d, want %d", c.gogc, got, c.want)
		}
		debug.SetGCPercent(c.want)
		restore()
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("GOGC=%q: after training the percent is %d, want 100 back", c.gogc, got)
		}
	}
}
