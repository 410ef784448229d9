package cli

import "testing"

// TestHangingList: a list wraps before the width (counted from the
// start of the line its first item follows a label on), under that item.
func TestHangingList(t *testing.T) {
	got := hangingList([]string{"alpha", "beta", "gamma", "delta"}, 23, 4)
	if want := "alpha, beta, gamma,\n    delta"; got != want {
		t.Errorf("hangingList = %q, want %q", got, want)
	}
}
