package core

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 observations"}, {1, "1 observation"}, {2, "2 observations"}, {30, "30 observations"}} {
		if got := Count(tc.n, "observation"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
