package checkpoints_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/core"
	"apic/nets"
	"apic/sims"
)

// TestEmbeddedCheckpoints loads every shipped checkpoint, runs a small
// evaluation and checks that it is far better than the untrained model of
// the same architecture and close to the validation numbers recorded in
// the file when it was trained. It keeps a broken checkpoint from landing.
func TestEmbeddedCheckpoints(t *testing.T) {
	total := 0
	pinned := readPinned(t)
	got := map[string]map[string]float64{}
	for _, sys := range sims.All() {
		for _, b := range core.Backbones {
			name := checkpoints.Name(sys.Name(), string(b))
			t.Run(name, func(t *testing.T) {
				data, ok := checkpoints.Lookup(sys.Name(), string(b))
				if !ok {
					t.Fatalf("%s is not embedded", name)
				}
				total += len(data)
				m, info, err := core.DecodeCheckpoint(data)
				if err != nil {
					t.Fatal(err)
				}
				if m.Sys.Name() != sys.Name() || m.Config.Arch.Backbone != b {
					t.Fatalf("%s holds %s/%s", name, m.Sys.Name(), m.Config.Arch.Backbone)
				}
				if info.Metrics == nil || info.Steps2 == 0 {
					t.Fatalf("%s records no training (steps %d+%d, metrics %v)", name, info.Steps1, info.Steps2, info.Metrics)
				}
				opt := core.EvalOptions{Tasks: 20, Seed: 99, Samples: 8, Refine: -1}
				if testing.Short() {
					opt.Tasks = 5
				}
				trained, _, err := core.Evaluate(context.Background(), m, opt)
				if err != nil {
					t.Fatal(err)
				}
				fresh, err := core.NewModel(m.Config)
				if err != nil {
					t.Fatal(err)
				}
				untrained, _, err := core.Evaluate(context.Background(), fresh, opt)
				if err != nil {
					t.Fatal(err)
				}
				// Refinement lets even an untrained model fit the context
				// somewhat, so "far better" is a factor of 0.6 on the
				// discrepancy and 0.5 on the reconstruction.
				for k, f := range map[string]float64{core.KeyReconMAE: 0.5, core.KeyDeltaMAE: 0.6} {
					got, base := trained.Metrics[k].Mean, untrained.Metrics[k].Mean
					t.Logf("%s %.4f, untrained %.4f", k, got, base)
					if !(got < f*base) {
						t.Errorf("%s %.4f is not far below the untrained model's %.4f", k, got, base)
					}
				}
				for _, k := range []string{core.KeyReconMAE, core.KeyDeltaMAE, core.KeyThetaMAE} {
					got, rec := trained.Metrics[k].Mean, info.Metrics.Metrics[k].Mean
					if math.IsNaN(got) || got > 2*rec+0.01 {
						t.Errorf("%s %.4f is far from the recorded validation %.4f", k, got, rec)
					}
				}
				if testing.Short() {
					return
				}
				// The evaluation is deterministic, so its numbers are
				// pinned: a changed checkpoint or inference shows here.
				// 2% leaves room for another CPU's rounding only.
				got[name] = map[string]float64{}
				for _, k := range pinnedKeys {
					v := trained.Metrics[k].Mean
					got[name][k] = v
					want, ok := pinned[name][k]
					if !*update && (!ok || math.Abs(v-want) > 0.02*math.Abs(want)) {
						t.Errorf("%s %.6g, pinned %.6g (go test ./checkpoints -update re-pins after a deliberate change)", k, v, want)
					}
				}
			})
		}
	}
	if *update && !testing.Short() {
		// Merged into what was pinned: a run of some subtests (-run)
		// re-pins those and keeps the others.
		for name, v := range got {
			pinned[name] = v
		}
		writePinned(t, pinned)
	}
	if total > 20<<20 {
		t.Errorf("embedded checkpoints total %d bytes, want under 20 MB", total)
	}
}

var update = flag.Bool("update", false, "re-pin the embedded checkpoints' evaluation numbers")

// pinnedKeys are the metrics TestEmbeddedCheckpoints pins.
var pinnedKeys = []string{core.KeyReconMAE, core.KeyDeltaMAE, core.KeyThetaMAE, core.KeyReconECE}

// pinnedPath holds, per checkpoint, the metrics of the test's evaluation
// (20 realizations, seed 99, 8 samples, the checkpoint's refinement).
var pinnedPath = filepath.Join("testdata", "pinned_metrics.json")

func readPinned(t *testing.T) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	b, err := os.ReadFile(pinnedPath)
	if err != nil {
		if *update {
			return out
		}
		t.Fatalf("%v (go test ./checkpoints -update writes it)", err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", pinnedPath, err)
	}
	return out
}

func writePinned(t *testing.T, got map[string]map[string]float64) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(pinnedPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pinnedPath, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFromPath(t *testing.T) {
	if data, ok, err := checkpoints.FromPath(checkpoints.Prefix + checkpoints.Name("spring", "lnp")); !ok || err != nil || len(data) == 0 {
		t.Errorf("embedded spring-lnp: %d bytes, ok %v, err %v", len(data), ok, err)
	}
	if _, ok, err := checkpoints.FromPath("spring-lnp.safetensors"); ok || err != nil {
		t.Errorf("a plain path: ok %v, err %v; want neither", ok, err)
	}
	if _, ok, err := checkpoints.FromPath(checkpoints.Prefix + "nosuch.safetensors"); !ok || err == nil || !strings.Contains(err.Error(), checkpoints.Name("lv", "anp")) {
		t.Errorf("an unknown name: ok %v, err %v; want an error listing the embedded files", ok, err)
	}
}

// TestEmbeddedCheckpointsCarryChecksums: the shipped files hold the
// checksum of their tensor data, so a damaged copy is refused on load.
// (They were re-saved with it without changing a byte of their data.)
func TestEmbeddedCheckpointsCarryChecksums(t *testing.T) {
	for _, sys := range sims.All() {
		for _, b := range core.Backbones {
			data, ok := checkpoints.Lookup(sys.Name(), string(b))
			if !ok {
				t.Fatalf("%s/%s is not embedded", sys.Name(), b)
			}
			f, err := nets.DecodeSafetensors(data)
			if err != nil || !f.Checksummed {
				t.Errorf("%s: checksummed %v, %v", checkpoints.Name(sys.Name(), string(b)), err == nil && f.Checksummed, err)
			}
		}
	}
}

// TestUncertaintyOffHeadline: the shipped files' intervals hold away
// from the headline condition (issue 21), at two noisy contexts, where
// the bands once included the noise and were scored against G (recon
// ECE 0.3–0.45), and for spring also at two points, below every
// training range, where θ's intervals once covered 44–58% (lv 53% at two
// points, when θ's scale was capped) and the LL fell to −12.6. A small
// seeded set: the
// bounds are looser than the targets of docs/uncertainty.md (θ coverage
// in [0.90, 0.99], recon ECE ≤ 0.10), which a set this small cannot
// resolve.
func TestUncertaintyOffHeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every shipped file at two conditions")
	}
	conds := map[string][]core.Condition{
		"spring":  {{Context: 10, Noise: 0.05}, {Context: 60, Noise: 0.01}, {Context: 2}},
		"lv":      {{Context: 10, Noise: 0.05}, {Context: 60, Noise: 0.01}, {Context: 2}},
		"advdiff": {{Context: 128, Noise: 0.01}, {Context: 32, Noise: 0.05}},
	}
	for _, sys := range sims.All() {
		for _, b := range core.Backbones {
			name := checkpoints.Name(sys.Name(), string(b))
			t.Run(name, func(t *testing.T) {
				data, _ := checkpoints.Lookup(sys.Name(), string(b))
				m, _, err := core.DecodeCheckpoint(data)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range conds[sys.Name()] {
					rep, _, err := core.Evaluate(context.Background(), m, core.EvalOptions{Tasks: 16, Seed: 5, Samples: 8, Refine: -1, Context: c.Context, Noise: c.Noise})
					if err != nil {
						t.Fatal(err)
					}
					cover, ece := rep.Metrics[core.KeyThetaCover].Mean, rep.Metrics[core.KeyReconECE].Mean
					t.Logf("context %d, σ %g: θ cover95 %.3f, recon ECE %.3f, recon LL %.3g", c.Context, c.Noise, cover, ece, rep.Metrics[core.KeyReconLL].Mean)
					if !(cover >= offHeadlineMinCover) {
						t.Errorf("context %d, σ %g: θ 95%% coverage %.3f, want ≥ %v", c.Context, c.Noise, cover, offHeadlineMinCover)
					}
					// Below the training range the target is wide, not
					// calibrated: θ's coverage only.
					if ll := rep.Metrics[core.KeyReconLL].Mean; c.Context <= 2 && !(ll >= offHeadlineMinSmallLL) {
						t.Errorf("context %d: recon LL %.3g, want ≥ %v (wide, not wrong)", c.Context, ll, offHeadlineMinSmallLL)
					}
					if c.Context >= 5 && !(ece <= offHeadlineMaxECE) {
						t.Errorf("context %d, σ %g: recon ECE %.3f, want ≤ %v", c.Context, c.Noise, ece, offHeadlineMaxECE)
					}
				}
			})
		}
	}
}

// TestThetaCoverageAtNoiseZero: at noise 0 the estimated noise σ̂ is the
// model's misfit, spread over decades, and θ's intervals read the table
// of scales at it; with the cells fitted one by one this test's sets
// were covered 0.885 (spring/cnp) and 0.771 (advdiff/cnp). Fitted as
// they are read (core/condtheta.go) they cover about 0.95.
// The bounds sit three standard errors of a coverage below 0.95.
func TestThetaCoverageAtNoiseZero(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates two shipped files at noise 0")
	}
	for _, tc := range []struct {
		sys, backbone  string
		context, tasks int
		min            float64
	}{
		{"spring", "cnp", 30, 400, 0.92},  // one parameter: SE 0.011
		{"advdiff", "cnp", 128, 48, 0.88}, // two: SE 0.022
	} {
		data, _ := checkpoints.Lookup(tc.sys, tc.backbone)
		m, _, err := core.DecodeCheckpoint(data)
		if err != nil {
			t.Fatal(err)
		}
		rep, _, err := core.Evaluate(context.Background(), m, core.EvalOptions{Tasks: tc.tasks, Seed: 11, Samples: 8, Refine: -1, Context: tc.context})
		if err != nil {
			t.Fatal(err)
		}
		cover := rep.Metrics[core.KeyThetaCover].Mean
		t.Logf("%s/%s, context %d, σ 0: θ cover95 %.3f", tc.sys, tc.backbone, tc.context, cover)
		if !(cover >= tc.min) {
			t.Errorf("%s/%s, context %d, σ 0: θ 95%% coverage %.3f, want ≥ %v", tc.sys, tc.backbone, tc.context, cover, tc.min)
		}
	}
}

// The bounds of TestUncertaintyOffHeadline.
const (
	offHeadlineMinCover   = 0.75
	offHeadlineMaxECE     = 0.25
	offHeadlineMinSmallLL = -5
)

// diagnoseShipped runs core.Diagnose on the shipped file of sys and
// backbone with opt.
func diagnoseShipped(t *testing.T, sys, backbone string, opt core.DiagnoseOptions) core.Diagnostics {
	t.Helper()
	data, _ := checkpoints.Lookup(sys, backbone)
	m, _, err := core.DecodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := core.Diagnose(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// largestMiss is a reliability curve's largest |empirical − nominal|.
func largestMiss(c core.ReliabilityCurve) float64 {
	worst := 0.0
	for _, s := range c.Signed {
		worst = math.Max(worst, math.Abs(s))
	}
	return worst
}

// TestThetaIntervalShape: θ's errors are heavier-tailed than a Gaussian
// of the 95% interval's scale, so its inner intervals were far too wide
// (at noise 0 the 50% interval covered 0.87 of spring/anp's θ and 0.86
// of lv/lnp's η: `apic diagnose --system S --backbone B --tasks 200`). With the calibrated shapes (core/thetashape.go) the
// reliability curve of every θ stays within 0.12 of the diagonal at
// every level on these seeded sets: three standard errors of a
// coverage at 0.5 on 200 parameters (0.035), with the levels' maximum.
func TestThetaIntervalShape(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses two shipped files")
	}
	for _, tc := range []struct{ sys, backbone string }{{"spring", "anp"}, {"lv", "lnp"}} {
		d := diagnoseShipped(t, tc.sys, tc.backbone, core.DiagnoseOptions{Tasks: 200, Seed: 3, Samples: 8, Refine: -1})
		for _, c := range d.Reliability {
			if !strings.HasPrefix(c.Name, "theta:") {
				continue
			}
			worst := largestMiss(c)
			t.Logf("%s/%s %s: largest |empirical − nominal| %.3f", tc.sys, tc.backbone, c.Name, worst)
			if worst > 0.12 {
				t.Errorf("%s/%s %s: reliability curve %.3f from the diagonal, want ≤ 0.12", tc.sys, tc.backbone, c.Name, worst)
			}
		}
	}
}

// TestOnePassThetaIntervals: the one pass, which the explorer shows
// while its sliders move, has its own table of scales with θ's factors
// per parameter (lv's hinted η and γ need far narrower intervals than
// α and β) and a cnp's floors (its one sample has no spread but the
// hints'): off the headline, every θ curve of lv/lnp, lv/cnp and
// advdiff/cnp is within 0.12 of the diagonal over 200 realizations
// (seed 3 gives 0.04–0.08; with a single scale fitted at the headline,
// lv/lnp's 50 % intervals of η and γ held every parameter, a cnp's had
// no width, and with lv/cnp's η and γ floored as α and β its 50 %
// intervals at 60 clean points held 0.84 of them).
func TestOnePassThetaIntervals(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses three shipped files")
	}
	for _, tc := range []shippedCase{{"lv", "lnp", 5, 0.1}, {"lv", "lnp", 10, 0.05}, {"lv", "cnp", 60, 0}, {"advdiff", "cnp", 32, 0.1}, {"advdiff", "cnp", 128, 0.05}} {
		d := diagnoseShipped(t, tc.sys, tc.backbone, core.DiagnoseOptions{Tasks: 200, Seed: 3, Context: tc.context, Noise: tc.noise, Refine: 0})
		var theta []core.ReliabilityCurve
		for _, c := range d.Reliability {
			if strings.HasPrefix(c.Name, "theta:") {
				theta = append(theta, c)
			}
		}
		tc.checkCurves(t, theta, 0.12, "one-pass reliability curve")
	}
}

// shippedCase is a shipped file diagnosed at a context size and noise.
type shippedCase struct {
	sys, backbone string
	context       int
	noise         float64
}

// checkCurves logs each curve's largest |empirical − nominal| and fails
// those beyond limit.
func (tc shippedCase) checkCurves(t *testing.T, curves []core.ReliabilityCurve, limit float64, what string) {
	t.Helper()
	for _, c := range curves {
		worst := largestMiss(c)
		t.Logf("%s/%s C=%d σ=%g %s: largest |empirical − nominal| %.3f", tc.sys, tc.backbone, tc.context, tc.noise, c.Name, worst)
		if !(worst <= limit) {
			t.Errorf("%s/%s C=%d σ=%g %s: %s %.3f from the diagonal, want ≤ %g", tc.sys, tc.backbone, tc.context, tc.noise, c.Name, what, worst, limit)
		}
	}
}

// TestBandShapes: the reconstruction's and δ's bands have calibrated
// shapes: over 200 realizations their reliability curves are within
// 0.08 of the diagonal on lv/cnp at noise 0 and spring/cnp at five
// points and noise 0.1 (seed 3 gives 0.01–0.04; scored as Gaussian, the
// δ curves miss by 0.21 and 0.18 at seed 1, docs/uncertainty.md).
func TestBandShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses two shipped files")
	}
	for _, tc := range []shippedCase{{"lv", "cnp", 0, 0}, {"spring", "cnp", 5, 0.1}} {
		d := diagnoseShipped(t, tc.sys, tc.backbone, core.DiagnoseOptions{Tasks: 200, Seed: 3, Context: tc.context, Noise: tc.noise, Samples: 8, Refine: -1})
		if !d.BandsShaped {
			t.Fatalf("%s/%s: the bands were scored as Gaussian", tc.sys, tc.backbone)
		}
		tc.checkCurves(t, d.Reliability[:2], 0.08, "band reliability")
	}
}
