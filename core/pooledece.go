package core

import (
	"encoding/json"
	"fmt"
	"math"
)

// PooledECE is the ECE of BENCHMARKS.md computed once over the targets
// of all realizations of an evaluation instead of per realization and
// then averaged:
//
//	ECE_pooled = (1/9) Σ_p | Σ_r c_r(p) / Σ_r n_r − p |,
//
// with c_r(p) the targets of realization r inside the central p-interval
// and n_r its targets. A band that is calibrated over the population
// scores near 0 even where one realization's errors move together (a
// wrong θ shifts a whole trajectory); the per-realization ECE does not:
// for the exact posterior of a model whose remaining error is a single
// smooth mode it is (1/9) Σ_p 2p(1 − p) ≈ 0.37 (TestExactPosteriorECEFloor).
type PooledECE struct {
	Recon float64 `json:"recon"`
	Delta float64 `json:"delta"`
}

// coveredCounts counts, per ECE level p, the values j in idx with
// |y_j − μ_j| ≤ z_p s_j.
func coveredCounts(mu, sd, y []float64, idx []int) []int {
	counts := make([]int, len(eceLevels))
	for _, j := range idx {
		r := math.Abs(y[j]-mu[j]) / sd[j]
		for l, z := range eceZ {
			if r <= z {
				counts[l]++
			}
		}
	}
	return counts
}

// poolECE sums the realizations' counts; NaN without targets.
func poolECE(per []TaskMetrics) PooledECE {
	recon, delta := make([]int, len(eceLevels)), make([]int, len(eceLevels))
	n := 0
	for _, tm := range per {
		if len(tm.ReconCovered) != len(eceLevels) || len(tm.DeltaCovered) != len(eceLevels) {
			continue // a method that scores without counts
		}
		for l := range eceLevels {
			recon[l] += tm.ReconCovered[l]
			delta[l] += tm.DeltaCovered[l]
		}
		n += tm.Targets
	}
	if n == 0 {
		return PooledECE{Recon: math.NaN(), Delta: math.NaN()}
	}
	return PooledECE{Recon: coverageGap(recon, n), Delta: coverageGap(delta, n)}
}

// MarshalJSON writes NaN (no targets) as jsonFloat does.
func (p PooledECE) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"recon":%s,"delta":%s}`, jsonFloat(p.Recon), jsonFloat(p.Delta)), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *PooledECE) UnmarshalJSON(data []byte) error {
	var raw struct{ Recon, Delta json.RawMessage }
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	var err error
	if p.Recon, err = parseJSONFloat(raw.Recon); err != nil {
		return fmt.Errorf("recon: %w", err)
	}
	if p.Delta, err = parseJSONFloat(raw.Delta); err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	return nil
}
