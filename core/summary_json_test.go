package core

import (
	"encoding/json"
	"math"
	"testing"
)

// TestSummaryJSONRoundTrip: summaries, non-finite ones included,
// serialise and read back; a report holding −∞ serialises.
func TestSummaryJSONRoundTrip(t *testing.T) {
	for _, s := range []Summary{{0.25, 0.5}, {math.Inf(-1), math.NaN()}, {math.Inf(1), 0}} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(back.Mean, s.Mean) || !same(back.Std, s.Std) {
			t.Errorf("%v → %s → %v", s, b, back)
		}
	}
	if b, err := json.Marshal(Summary{0.25, 0.5}); err != nil || string(b) != `{"mean":0.25,"std":0.5}` {
		t.Errorf("finite summary: %s, %v", b, err)
	}
	rep := Report{Metrics: map[string]Summary{KeyReconLL: {math.Inf(-1), math.NaN()}}}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("a report with −∞ does not serialise: %v", err)
	}
	var bad Summary
	if err := json.Unmarshal([]byte(`{"mean":"lots","std":1}`), &bad); err == nil {
		t.Error(`mean "lots" accepted`)
	}
}
