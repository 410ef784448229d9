package core

import (
	"math"
	"strings"
	"testing"

	"apic/sims"
)

// TestThetaHint: with hints on (lv's default), one-pass predictions take
// η and γ from the system's predator-equation estimates: exactly with one
// latent sample (the hint's deviation as θ's), and drawn from
// N(hint, sd²) with several, so the spread carries the hint's
// uncertainty. α and β still come from the encoder.
// Without hints none of this happens.
func TestThetaHint(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	hinter := sys.(sims.ThetaHinter)
	tasks := testTasks(t, sys, 3, 0, 11)
	ctxs, sides := contextsOf(tasks)
	for _, on := range []bool{true, false} {
		m := tinyModel(t, "lv", LNP, func(cfg *Config) {
			cfg.Arch.Hidden, cfg.Arch.DecHidden = 16, 16
			cfg.Arch.ThetaHint = on
		})
		perturb(m, 3, 0.02)
		one, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 1, Seed: 1, Refine: 0})
		if err != nil {
			t.Fatal(err)
		}
		many, err := m.PredictWith(ctxs, sides, PredictOptions{Samples: 200, Seed: 1, Refine: 0})
		if err != nil {
			t.Fatal(err)
		}
		for i := range ctxs {
			s, sd := hinter.ThetaHint(ctxs[i], sides[i])
			for q, param := range sys.Params() {
				hinted := !math.IsNaN(s[q])
				span := math.Log(param.Hi) - math.Log(param.Lo)
				want := math.Exp(math.Log(param.Lo) + s[q]*span)
				exact := hinted && math.Abs(one[i].Theta[q]-want) < 1e-12
				if exact != (on && hinted) {
					t.Errorf("hints %v, realization %d, %s: one-sample θ̂ %v, hint %v", on, i, param.Name, one[i].Theta[q], want)
				}
				// One sample has no spread; a hinted parameter takes the
				// hint's, θ·span·sd by the delta method (hintThetaStd),
				// reaching the bound where the hint is at one
				// (reachBound).
				sdTheta := want * span * sd[q]
				wantSD := reachBound(param, want, sdTheta)
				if got := one[i].ThetaStd[q]; on && hinted && math.Abs(got-wantSD) > 1e-12*wantSD || !(on && hinted) && got != 0 {
					t.Errorf("hints %v, realization %d, %s: one-sample θ deviation %v, hint's %v", on, i, param.Name, got, wantSD)
				}
				if !on || !hinted {
					continue
				}
				// The spread of θ = exp(log lo + s·span) is about θ·span·sd.
				if p := many[i]; math.Abs(p.Theta[q]-want) > 4*sdTheta/math.Sqrt(200)+1e-3*sdTheta ||
					math.Abs(p.ThetaStd[q]/reachBound(param, p.Theta[q], sdTheta)-1) > 0.25 {
					t.Errorf("realization %d, %s: θ̂ %v ± %v, hint %v ± %v", i, param.Name, p.Theta[q], p.ThetaStd[q], want, sdTheta)
				}
				if math.Abs(want-tasks[i].Real.Theta[q]) > 0.05 {
					t.Errorf("realization %d: hint for %s %v, true %v", i, param.Name, want, tasks[i].Real.Theta[q])
				}
			}
		}
	}
}

func TestThetaHintNeedsAHintingSystem(t *testing.T) {
	cfg := tinyConfig(t, "spring", LNP)
	if cfg.Arch.ThetaHint {
		t.Fatal("spring's default config asks for θ hints")
	}
	cfg.Arch.ThetaHint = true
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "hints") {
		t.Errorf("spring with θ hints: %v", err)
	}
	if !tinyConfig(t, "lv", LNP).Arch.ThetaHint {
		t.Error("lv's default config does not use its θ hints")
	}
}

// TestThetaHintNeedsBothChannels: a context without predator observations
// gives no hint, so η and γ come from the encoder with their spread.
func TestThetaHintNeedsBothChannels(t *testing.T) {
	sys, _ := sims.Lookup("lv")
	tasks := testTasks(t, sys, 1, 0, 12)
	ctx := tasks[0].Context
	mask := make([][]bool, ctx.Len())
	for i := range mask {
		mask[i] = []bool{true, false}
	}
	ctx.Mask = mask
	m := tinyModel(t, "lv", LNP, func(cfg *Config) { cfg.Arch.Hidden, cfg.Arch.DecHidden = 16, 16 })
	perturb(m, 4, 0.02)
	preds, err := m.PredictWith([]sims.Context{ctx}, [][]float64{tasks[0].Real.Side}, PredictOptions{Samples: 4, Seed: 1, Refine: 2})
	if err != nil {
		t.Fatal(err)
	}
	for q := 2; q < 4; q++ {
		if !(preds[0].ThetaStd[q] > 0) {
			t.Errorf("%s has spread %v without predator observations", sys.Params()[q].Name, preds[0].ThetaStd[q])
		}
	}
}
