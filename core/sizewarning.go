package core

import (
	"fmt"
	"math"

	"apic/sims"
)

// sizeSlack is how far, as a factor either way, the size ratio of a
// calibration may stray from the range over prior draws before
// sizeWarnings flags it.
const sizeSlack = 2

// sizeMinContext is the fewest context points at which sizeWarnings
// speaks: from a few points, and from 10 to 15 at noise 0.1, spring's
// cnp can predict a near-flat response a sixth of the nominal's size or
// less for data of the system itself; from 20 on, the shipped
// checkpoints' test realizations are not flagged (TestSizeWarning).
const sizeMinContext = 20

// sizeRatios returns, per channel of grid-major vectors g and f (nc
// channels), the size ratio
//
//	ρ_c = ‖g_c‖₂ / ‖f_c‖₂,
//
// NaN where f_c is zero.
func sizeRatios(g, f []float64, nc int) []float64 {
	gg, ff := make([]float64, nc), make([]float64, nc)
	for i := range min(len(g), len(f)) {
		gg[i%nc] += g[i] * g[i]
		ff[i%nc] += f[i] * f[i]
	}
	out := make([]float64, nc)
	for c := range out {
		out[c] = math.NaN()
		if ff[c] > 0 {
			out[c] = math.Sqrt(gg[c] / ff[c])
		}
	}
	return out
}

// sizeWarnings flags, per channel, a corrected prediction whose size
// against the nominal F(θ̂), ‖Ĝ‖/‖F̂‖, lies more than sizeSlack-fold
// outside that ratio's range over prior draws. The discrepancy f_ψ can
// take nearly any shape, so data the simulator cannot describe (a wrong
// unit or scale, another system's data) are fitted anyway, by a δ̂ that
// cancels or swamps the nominal response; the fit looks good and θ̂
// comes with a narrow interval, but neither means what it says. Data a
// hundred times smaller than a spring's do this: the observed values
// stay inside the range seen in training, so valueWarnings is silent.
// A poorly trained model does it on good data too (a spring model
// trained at --lr 5 predicted zero everywhere), so the warning names
// both causes.
// Contexts of fewer than sizeMinContext points are not judged.
func sizeWarnings(sys sims.System, ctx sims.Context, p Prediction) []string {
	if ctx.Len() < sizeMinContext {
		return nil
	}
	lo, hi := TrainingSizeRatio(sys)
	g := sys.Grid()
	rho := sizeRatios(p.Mean, p.Nominal, len(g.Channels))
	var out []string
	for c, name := range g.Channels {
		r := rho[c]
		if math.IsNaN(r) || (r >= lo[c]/sizeSlack && r <= hi[c]*sizeSlack) {
			continue
		}
		out = append(out, fmt.Sprintf("the prediction of %s is %.3g times the size of the nominal F(θ̂) (in training %.2g to %.2g): "+
			"the discrepancy fits data the simulator does not describe (a wrong unit or scale, another system's data?), or the model fits poorly (apic eval of the checkpoint on its own system's data tells which); θ̂ and its interval mean little",
			name, r, lo[c], hi[c]))
	}
	return out
}
