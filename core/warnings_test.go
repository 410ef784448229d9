package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/sims"
)

// gridContext is a context of n grid points of values (point-major on the
// grid), every channel observed.
func gridContext(sys sims.System, values []float64, n int) sims.Context {
	g := sys.Grid()
	nc := len(g.Channels)
	var ctx sims.Context
	for i := range n {
		p := i * g.Points() / n
		ctx.States = append(ctx.States, g.States[p])
		ctx.Values = append(ctx.Values, append([]float64(nil), values[p*nc:(p+1)*nc]...))
		mask := make([]bool, nc)
		for c := range mask {
			mask[c] = true
		}
		ctx.Mask = append(ctx.Mask, mask)
		ctx.GridIndex = append(ctx.GridIndex, p)
	}
	return ctx
}

// hasWarning reports whether one of ws contains every part.
func hasWarning(ws []string, parts ...string) bool {
	for _, w := range ws {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestWarningsSpring(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	sys := m.Sys
	truth := sys.True([]float64{5}, nil)
	clean := gridContext(sys, truth, 30)
	pred := func(theta float64) Prediction { return Prediction{Theta: []float64{theta}, ThetaStd: []float64{0.1}} }

	if ws := Warnings(m, clean, nil, pred(5.5)); len(ws) != 0 {
		t.Errorf("clean calibration warns: %q", ws)
	}
	// The prior is U(3, 8): 2% of its width is 0.1.
	for _, tc := range []struct {
		theta float64
		want  string // "" for no warning
	}{
		{3.05, "lower bound 3"}, {3.099, "lower bound 3"}, {3.11, ""},
		{7.95, "upper bound 8"}, {7.91, "upper bound 8"}, {7.89, ""},
	} {
		ws := Warnings(m, clean, nil, pred(tc.theta))
		if tc.want == "" && len(ws) != 0 || tc.want != "" && !hasWarning(ws, "omega", tc.want) {
			t.Errorf("θ̂ = %v: warnings %q, want %q", tc.theta, ws, tc.want)
		}
	}

	// No deviation: a model without spread, unless the estimate is
	// pressed against a bound, which squeezes any interval.
	for _, tc := range []struct {
		theta float64
		want  string
	}{{5, "omega has no interval (std 0)"}, {8, "an estimate there is the least reliable"}} {
		ws := Warnings(m, clean, nil, Prediction{Theta: []float64{tc.theta}, ThetaStd: []float64{0}})
		if !hasWarning(ws, tc.want) || tc.theta == 8 && hasWarning(ws, "no interval") {
			t.Errorf("θ̂ = %v with deviation 0: warnings %q, want %q", tc.theta, ws, tc.want)
		}
	}

	capped := Prediction{Theta: []float64{5}, ThetaStd: []float64{priorStd(sys.Params()[0])}}
	if ws := Warnings(m, clean, nil, capped); !hasWarning(ws, "omega's std 1.44 is at least 0.9 of its prior's own (1.44)") {
		t.Errorf("a deviation at the prior's: warnings %q", ws)
	}

	p := pred(5)
	p.Clipped = true
	if ws := Warnings(m, clean, nil, p); !hasWarning(ws, "envelope", "clip") {
		t.Errorf("clipped closure: warnings %q", ws)
	}

	few := gridContext(sys, truth, 10)
	if ws := Warnings(m, few, nil, pred(5)); !hasWarning(ws, "only 10 context points", "15 to 100") {
		t.Errorf("10 points: warnings %q", ws)
	}
	many := gridContext(sys, truth, 100)
	many.States = append(many.States, []float64{0.01})
	many.Values = append(many.Values, []float64{0})
	many.Mask = append(many.Mask, []bool{true})
	many.GridIndex = append(many.GridIndex, -1)
	if ws := Warnings(m, many, nil, pred(5)); !hasWarning(ws, "101 context points", "more than") {
		t.Errorf("101 points: warnings %q", ws)
	}

	odd := gridContext(sys, truth, 30)
	odd.States[3] = []float64{4.5}
	odd.States[4] = []float64{-1}
	odd.Values[7][0] = 5 // the spring never leaves [−1, 1]
	odd.Values[8][0] = -3
	ws := Warnings(m, odd, nil, pred(5))
	if !hasWarning(ws, "2 of 30 observations lie outside the domain t ∈ [0, 4]") {
		t.Errorf("outside the domain: warnings %q", ws)
	}
	if !hasWarning(ws, "2 of 30 y observations lie far outside the range seen in training", "y = 5 at t =") {
		t.Errorf("far values: warnings %q", ws)
	}
	// A value just beyond the range (within the slack) is not far.
	near := gridContext(sys, truth, 30)
	near.Values[0][0] = 1.2
	if ws := Warnings(m, near, nil, pred(5)); len(ws) != 0 {
		t.Errorf("value 1.2: warnings %q", ws)
	}
}

func TestWarningsSideInformation(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	theta, side := []float64{1, 1, 1, 1}, []float64{1, 1.2}
	ctx := gridContext(m.Sys, m.Sys.True(theta, side), 30)
	p := Prediction{Theta: theta, ThetaStd: []float64{0.1, 0.1, 0.1, 0.1}}
	if ws := Warnings(m, ctx, side, p); len(ws) != 0 {
		t.Errorf("clean lv calibration warns: %q", ws)
	}
	// An unobserved channel's placeholder value is not an observation.
	ctx.Mask[2][1], ctx.Values[2][1] = false, 1e6
	// The data (drawn with x0 = 1) now also contradicts x0 at t = 0.
	if ws := Warnings(m, ctx, []float64{2.5, 1.2}, p); len(ws) != 2 || !hasWarning(ws, "u0 x0 = 2.5 is outside the range seen in training [0.7, 1.8]") ||
		!hasWarning(ws, "prey observations at t = 0 contradict the side information u0", "where u0 gives 2.5") {
		t.Errorf("x0 = 2.5: warnings %q", ws)
	}

	ad := tinyModel(t, "advdiff", LNP, nil)
	rng := sims.Draw(ad.Sys, rand.New(rand.NewPCG(3, 0)))
	actx := gridContext(ad.Sys, rng.True, 256)
	ap := Prediction{Theta: rng.Theta, ThetaStd: []float64{0.01, 0.01}}
	if ws := Warnings(ad, actx, rng.Side, ap); len(ws) != 0 {
		t.Errorf("clean advdiff calibration warns: %q", ws)
	}
	bad := append([]float64(nil), rng.Side...)
	bad[0], bad[5], bad[9] = 1.5, -0.2, 3
	if ws := Warnings(ad, actx, bad, ap); !hasWarning(ws, "3 of 64 u0 values are outside the range seen in training [0, 1]") {
		t.Errorf("bad field: warnings %q", ws)
	}
}

func TestTrainingValueRange(t *testing.T) {
	for _, tc := range []struct {
		system string
		lo, hi []float64 // bounds the range must reach
		min    float64   // nothing below
	}{
		{"spring", []float64{-0.99}, []float64{0.99}, -1},
		{"lv", []float64{0.3, 0.3}, []float64{2, 2}, 0},
		{"advdiff", []float64{0.1}, []float64{1}, 0},
	} {
		sys, _ := sims.Lookup(tc.system)
		lo, hi := TrainingValueRange(sys)
		for c := range lo {
			if !(lo[c] <= tc.lo[c] && hi[c] >= tc.hi[c] && lo[c] >= tc.min && !math.IsInf(hi[c], 0)) {
				t.Errorf("%s channel %d: range [%v, %v]", tc.system, c, lo[c], hi[c])
			}
		}
		lo2, _ := TrainingValueRange(sys)
		if &lo2[0] != &lo[0] {
			t.Errorf("%s: range not cached", tc.system)
		}
	}
}

// TestWarningsPhysicallyImpossible: a negative lv population is flagged
// even where it lies within the slack of the training value range; an
// unobserved cell is not an observation.
func TestWarningsPhysicallyImpossible(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	theta, side := []float64{1, 1, 1, 1}, []float64{1, 1.2}
	ctx := gridContext(m.Sys, m.Sys.True(theta, side), 30)
	p := Prediction{Theta: theta, ThetaStd: []float64{0.1, 0.1, 0.1, 0.1}}
	ctx.Values[4][0] = -0.5
	ctx.Mask[6][1], ctx.Values[6][1] = false, -3
	ws := Warnings(m, ctx, side, p)
	if !hasWarning(ws, "1 of 30 prey observations are physically impossible, below 0", "prey = -0.5") {
		t.Errorf("negative prey: warnings %q", ws)
	}
	if hasWarning(ws, "predator observations are physically impossible") {
		t.Errorf("an unobserved predator cell was taken for an observation: %q", ws)
	}
}

// TestDataWarnings: the alarms on the data alone, for when the model
// fails on it: values far outside the training range, physically
// impossible ones and side information out of range are named; clean
// data gives none.
func TestDataWarnings(t *testing.T) {
	m := tinyModel(t, "lv", LNP, nil)
	theta, side := []float64{1, 1, 1, 1}, []float64{1, 1.2}
	ctx := gridContext(m.Sys, m.Sys.True(theta, side), 30)
	if ws := DataWarnings(m.Sys, ctx, side); len(ws) != 0 {
		t.Errorf("clean data: %q", ws)
	}
	for i := range ctx.Values {
		ctx.Values[i][0] = 1e6
		ctx.Values[i][1] = -2
	}
	ws := DataWarnings(m.Sys, ctx, []float64{1e6, 1.2})
	for _, want := range [][]string{
		{"30 of 30 prey observations lie far outside the range seen in training", "prey = 1e+06"},
		{"30 of 30 predator observations are physically impossible, below 0"},
		{"u0 x0 = 1e+06 is outside the range seen in training"},
	} {
		if !hasWarning(ws, want...) {
			t.Errorf("warnings %q lack %q", ws, want)
		}
	}
	if hasWarning(ws, "the model fits them anyway") {
		t.Errorf("data warnings speak of a fit: %q", ws)
	}
}

// TestInitialWarnings: an observation at t = 0 that contradicts the
// initial state the side information fixes (lv's u0 = (x0, y0),
// advdiff's u0(x)) is flagged; consistent data is not, nor is a system
// whose side information fixes no state.
func TestInitialWarnings(t *testing.T) {
	for _, name := range []string{"lv", "advdiff"} {
		sys, err := sims.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		r := sims.Draw(sys, rand.New(rand.NewPCG(4, 5)))
		ctx := gridContext(sys, r.True, 40)
		if ctx.States[0][0] != sys.Grid().Lo[0] {
			t.Fatalf("%s: the context has no observation at the first time", name)
		}
		if ws := initialWarnings(sys, ctx, r.Side); len(ws) != 0 {
			t.Errorf("%s: consistent data flagged: %q", name, ws)
		}
		ctx.Values[0][0] += 3
		ch := sys.Grid().Channels[0]
		if ws := initialWarnings(sys, ctx, r.Side); !hasWarning(ws, "1 of 1 "+ch+" observations at t = 0 contradict the side information u0", "check u0") {
			t.Errorf("%s: contradiction not flagged: %q", name, ws)
		}
	}
	// The same check on a system without such side information.
	spring, _ := sims.Lookup("spring")
	r := sims.Draw(spring, rand.New(rand.NewPCG(4, 5)))
	ctx := gridContext(spring, r.True, 40)
	ctx.Values[0][0] += 3
	if ws := initialWarnings(spring, ctx, r.Side); len(ws) != 0 {
		t.Errorf("spring: %q", ws)
	}
}

// TestRangeWarnings: one warning below the training context sizes, one
// above, one for noise beyond the training noise, none inside or for an
// unknown noise; TrainingRange reads the checkpoint's training settings
// and falls back to the system's context range.
func TestRangeWarnings(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.ContextMin, c.Train.ContextMax, c.Train.Noise = 10, 40, 0.02 })
	if r := m.TrainingRange(); r != (TrainingRange{ContextLo: 10, ContextHi: 40, NoiseHi: 0.02}) {
		t.Errorf("TrainingRange %+v, want 10 to 40 points, σ ≤ 0.02", r)
	}
	for _, c := range []struct {
		n     int
		noise float64
		want  []string
	}{
		{10, 0.02, nil},
		{40, 0, nil},
		{25, math.NaN(), nil},
		{3, 0, []string{"only 3 context points; the model was trained on 10 to 40"}},
		{41, 0.01, []string{"41 context points, more than the 10 to 40"}},
		{20, 0.05, []string{"noise σ = 0.05 is more than the model was trained on (at most σ = 0.02)"}},
		{1, 0.1, []string{"only 1 context point;", "noise σ = 0.1 is more"}},
	} {
		ws := m.RangeWarnings(c.n, c.noise)
		if len(ws) != len(c.want) {
			t.Errorf("context %d, noise %g: %q, want %d warnings", c.n, c.noise, ws, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(ws[i], w) {
				t.Errorf("context %d, noise %g: warning %q lacks %q", c.n, c.noise, ws[i], w)
			}
		}
	}
	plain := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.ContextMin, c.Train.ContextMax, c.Train.Noise = 0, 0, 0 })
	lo, hi := plain.Sys.TrainContext()
	if r := plain.TrainingRange(); r.ContextLo != lo || r.ContextHi != hi || r.NoiseHi != 0 {
		t.Errorf("TrainingRange %+v, want the system's %d to %d and σ 0", r, lo, hi)
	}
	if ws := plain.RangeWarnings(lo, 0.01); len(ws) != 1 || !strings.Contains(ws[0], "noise-free contexts only") {
		t.Errorf("noise on a model trained noise-free: %q", ws)
	}
	aware := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0.1 })
	if ws := aware.RangeWarnings(lo, 0.1); len(ws) != 0 {
		t.Errorf("σ = 0.1 on a model trained on 0 to 0.1: %q", ws)
	}
	if ws := aware.RangeWarnings(lo, 0.2); len(ws) != 1 || !strings.Contains(ws[0], "at most σ = 0.1") {
		t.Errorf("σ = 0.2 on a model trained on 0 to 0.1: %q", ws)
	}
}

// TestRangeWarningsRecalibrated: outside the training sizes but within
// the sizes the spread was recalibrated at, the warning says the
// intervals were fitted there and the estimates are rougher (below) or
// extrapolated (above); beyond them, or where the one-pass spread has
// no table, it says the intervals are not to be trusted.
func TestRangeWarningsRecalibrated(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.ContextMin, c.Train.ContextMax = 10, 40 })
	m.Config.Infer.SpreadFit.Conditions = []ConditionScale{{Context: 30}, {Context: 5}, {Context: 60}, {Context: 10}}
	if r := m.TrainingRange(); r.CalibratedLo != 5 || r.CalibratedHi != 60 {
		t.Errorf("calibrated %d to %d, want 5 to 60", r.CalibratedLo, r.CalibratedHi)
	}
	fitted, rough := "recalibrated for contexts down to 5, but θ and the discrepancy are rougher", "less certain than it reports"
	above, beyond := "recalibrated for contexts up to 60, but its estimates are an extrapolation", "its uncertainty is an extrapolation"
	for n, want := range map[int]string{5: fitted, 9: fitted, 4: rough, 41: above, 60: above, 61: beyond} {
		if ws := m.RangeWarnings(n, 0); len(ws) != 1 || !strings.Contains(ws[0], want) {
			t.Errorf("context %d: %q, want %q", n, ws, want)
		}
	}
	m.Config.Infer.OnePass = &SpreadFit{}
	if ws := m.RangeWarnings(5, 0); m.TrainingRange().CalibratedLo != 0 || len(ws) != 1 || !strings.Contains(ws[0], rough) {
		t.Errorf("a one-pass spread without a table: %q", ws)
	}
	m.Config.Infer.OnePass.Conditions = []ConditionScale{{Context: 8}, {Context: 50}}
	if r := m.TrainingRange(); r.CalibratedLo != 8 || r.CalibratedHi != 50 {
		t.Errorf("tables over 5 to 60 and 8 to 50: calibrated %d to %d, want 8 to 50", r.CalibratedLo, r.CalibratedHi)
	}
}

// TestSaneValueBound: the sane range is SaneFactor times the training
// data's largest magnitude, finite and positive on every system, and
// the same rule for side information.
func TestSaneValueBound(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		sys, err := sims.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := TrainingValueRange(sys)
		bound := SaneValueBound(sys)
		if len(bound) != len(sys.Grid().Channels) {
			t.Fatalf("%s: %d bounds for %d channels", name, len(bound), len(sys.Grid().Channels))
		}
		for c, b := range bound {
			want := SaneFactor * math.Max(math.Abs(lo[c]), math.Abs(hi[c]))
			if !(b > 0) || math.IsInf(b, 0) || b != want {
				t.Errorf("%s channel %d: bound %v, want %v", name, c, b, want)
			}
		}
	}
	spring, _ := sims.Lookup("spring")
	if b := SaneValueBound(spring)[0]; math.Abs(b-1000) > 1e-3 {
		t.Errorf("spring's bound %v, want about 1000 (its training saw |y| ≤ 1)", b)
	}
	if b := SaneSideBound(sims.SideInfo{Len: 2, Lo: 0.5, Hi: 2}); b != 2*SaneFactor {
		t.Errorf("side bound %v, want %v", b, 2*SaneFactor)
	}
	if b := SaneSideBound(sims.SideInfo{Len: 2}); !math.IsInf(b, 1) {
		t.Errorf("side information without a range: bound %v, want +Inf", b)
	}
}

// TestNoiseWarnings: an estimated noise whose 95% interval lies above
// the training range is flagged with the channel; one whose interval
// reaches into it is not, nor any on a model trained noise-free.
func TestNoiseWarnings(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0.1 })
	ctx := testTasks(t, m.Sys, 1, 0, 3)[0].Context
	for _, c := range []struct {
		sigma float64
		want  bool
	}{{0.3, true}, {0.1, false}, {0.01, false}} {
		ws := m.noiseWarnings(Prediction{NoiseStd: []float64{c.sigma}}, ctx)
		if got := len(ws) == 1 && strings.Contains(ws[0], "the y noise σ̂ = "+fmt.Sprint(c.sigma)) && strings.Contains(ws[0], "at most σ = 0.1"); got != c.want || (!c.want && len(ws) > 0) {
			t.Errorf("σ̂ = %g over %d points: %q, want a warning: %v", c.sigma, ctx.Len(), ws, c.want)
		}
	}
	clean := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0 })
	if ws := clean.noiseWarnings(Prediction{NoiseStd: []float64{0.3}}, ctx); len(ws) != 0 {
		t.Errorf("a model trained noise-free, whose σ̂ is its misfit: %q", ws)
	}
}

// TestNoiseWarningNamesMisfit: σ̂ counts the model's misfit with the
// noise, so a high σ̂ is not blamed on the data alone: a 5+5-step model
// gave σ̂ = 0.3 on spring data of noise 0.05.
func TestNoiseWarningNamesMisfit(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0.1 })
	ctx := testTasks(t, m.Sys, 1, 0, 3)[0].Context
	ws := m.noiseWarnings(Prediction{NoiseStd: []float64{0.3}}, ctx)
	if len(ws) != 1 || !strings.Contains(ws[0], "or the model fits them poorly (σ̂ counts its misfit too)") || strings.Contains(ws[0], "the extra noise") {
		t.Errorf("warning %q does not name the model's misfit as a cause", ws)
	}
}

// TestWarningsNoInterval: a parameter whose deviation is 0 is named as
// having no interval; the others are not.
func TestWarningsNoInterval(t *testing.T) {
	m := tinyModel(t, "lv", CNP, nil)
	task := testTasks(t, m.Sys, 1, 0, 5)[0]
	p := Prediction{Theta: []float64{1, 1, 1, 1}, ThetaStd: []float64{0, 0.1, 0.1, 0.1}}
	var got []string
	for _, w := range Warnings(m, task.Context, task.Real.Side, p) {
		if strings.Contains(w, "has no interval") {
			got = append(got, w)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "alpha has no interval") {
		t.Errorf("warnings %q, want alpha's alone", got)
	}
}

// A context bunched at one time (or any narrow slice of a state
// dimension) is flagged; one spread over the domain, or of fewer than
// three points, is not.
func TestSpanWarnings(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	ctx := func(states ...[]float64) sims.Context { return sims.Context{States: states} }
	for _, c := range []struct {
		ctx  sims.Context
		want string
	}{
		{ctx([]float64{0, 0.1}, []float64{0.5, 0.5}, []float64{1, 0.9}), ""},
		{ctx([]float64{0, 0.1}, []float64{0, 0.5}, []float64{0, 0.9}), "the 3 observations span only t ∈ [0, 0] of its domain"},
		{ctx([]float64{0.1, 0.5}, []float64{0.5, 0.51}, []float64{0.9, 0.52}), "span only x ∈ [0.5, 0.52]"},
		{ctx([]float64{0, 0.1}, []float64{0, 0.5}), ""},
	} {
		w := spanWarnings(g, c.ctx)
		if c.want == "" && len(w) > 0 || c.want != "" && !hasWarning(w, c.want) {
			t.Errorf("states %v: warnings %q, want %q", c.ctx.States, w, c.want)
		}
	}
}

// A channel never observed is named; one observed at some points is not.
func TestUnobservedWarnings(t *testing.T) {
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	preyOnly := sims.Context{States: [][]float64{{1}, {2}}, Mask: [][]bool{{true, false}, {true, false}}}
	if w := unobservedWarnings(sys.Grid(), preyOnly); len(w) != 1 || !strings.HasPrefix(w[0], "no predator observations") {
		t.Errorf("prey only: %q", w)
	}
	some := sims.Context{States: [][]float64{{1}, {2}}, Mask: [][]bool{{true, false}, {true, true}}}
	if w := unobservedWarnings(sys.Grid(), some); len(w) != 0 {
		t.Errorf("predator at one point: %q", w)
	}
}
