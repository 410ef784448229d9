package cli

import (
	"context"
	"strings"
	"testing"
)

// TestParseObservationsRefusesNearDuplicates: two off-grid states that
// differ by rounding, within gridTol of the domain's width in every
// coordinate, are one state written twice, refused with both lines and
// both values in full; states farther apart are two observations.
func TestParseObservationsRefusesNearDuplicates(t *testing.T) {
	spring := lookup(t, "spring").Grid() // t ∈ [0, 4]: the tolerance is 4e-9
	adv := lookup(t, "advdiff").Grid()
	for _, tc := range []struct {
		system, text, want string
	}{
		{"spring", "t,y\n1,0.5\n2,0.1\n1.0000000000000002,0.5\n",
			"f.csv:4: duplicate observation at t = 1.0000000000000002: line 2 has t = 1, the same state up to rounding (states within 1e-09 of the domain's width"},
		{"spring", "t,y\n1.0000000039,0.5\n1,0.5\n", "f.csv:3: duplicate observation at t = 1: line 2 has t = 1.0000000039"},
		// On either side of a multiple of the tolerance (4e-9 × 250000000 = 1).
		{"spring", "t,y\n0.9999999999,0.5\n1.0000000001,0.5\n", "f.csv:3: duplicate observation at t = 1.0000000001: line 2 has t = 0.9999999999"},
		{"advdiff", "t,x,u\n0.3,0.3,1\n0.30000000000000004,0.3,2\n", "f.csv:3: duplicate observation at t = 0.30000000000000004, x = 0.3: line 2 has t = 0.3, x = 0.3"},
		// 100/99, a grid time: the first within 4e-9 of it (put on the
		// grid), the second just beyond (off it), 2e-10 apart.
		{"spring", "t,y\n1.010101014,0.5\n1.0101010142,0.5\n", "f.csv:3: duplicate observation at t = 1.0101010142: line 2 has t = 1.010101014"},
		{"spring", "t,y\n1.0101010142,0.5\n1.010101014,0.5\n", "f.csv:3: duplicate observation at t = 1.010101014: line 2 has t = 1.0101010142"},
		// x = 1 − 9e-10 wraps to 0, x = 1 − 1.1e-9 does not: 2e-10 apart.
		{"advdiff", "t,x,u\n0.3,0.9999999991,1\n0.3,0.9999999989,2\n", "f.csv:3: duplicate observation at t = 0.3, x = 0.9999999989: line 2 has t = 0.3, x = 0.9999999991"},
		{"advdiff", "t,x,u\n0.3,0.9999999989,1\n0.3,0.9999999991,2\n", "f.csv:3: duplicate observation at t = 0.3, x = 0.9999999991: line 2 has t = 0.3, x = 0.9999999989"},
		{"advdiff", "t,x,u\n0.3,0.9999999995,1\n0.3,1e-10,2\n", "f.csv:3: duplicate observation at t = 0.3, x = 1e-10: line 2 has t = 0.3, x = 0.9999999995"},
	} {
		g := spring
		if tc.system == "advdiff" {
			g = adv
		}
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", g, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want a usage error containing %q", tc.system, tc.text, err, tc.want)
		}
	}
	for _, tc := range []struct {
		system, text string
	}{
		{"spring", "t,y\n1,0.5\n1.00000001,0.5\n"},                    // 1e-8 apart: beyond 4e-9
		{"advdiff", "t,x,u\n0.3,0.3,1\n0.30000000000000004,0.31,2\n"}, // x differs
	} {
		g := spring
		if tc.system == "advdiff" {
			g = adv
		}
		obs, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", g, nil)
		if err != nil || obs.Len() != 2 {
			t.Errorf("%s %q: %d observations, error %v; want 2", tc.system, tc.text, obs.Len(), err)
		}
	}
}
