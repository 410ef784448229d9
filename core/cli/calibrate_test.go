package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
	"apic/sims"
)

// tinyCheckpoint builds a small model of system, trains it for steps1 and
// steps2 steps (0 and 0 leave it untrained) and saves it in dir.
func tinyCheckpoint(t testing.TB, dir, system string, steps1, steps2 int) string {
	t.Helper()
	sys, err := sims.Lookup(system)
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig(sys, core.LNP)
	cfg.Arch.Hidden, cfg.Arch.Layers = 32, 1
	cfg.Arch.LatentTheta, cfg.Arch.LatentDelta = 8, 8
	cfg.Arch.DecHidden, cfg.Arch.DecLayers = 32, 1
	cfg.Train.Batch = 16
	cfg.Train.Steps1, cfg.Train.Steps2 = steps1, steps2
	cfg.Train.LR = 3e-3
	cfg.Train.ValEvery = 0
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var info core.Info
	if steps1+steps2 > 0 {
		res, err := m.Train(context.Background(), core.Hooks{})
		if err != nil {
			t.Fatalf("training %s: %v", system, err)
		}
		info.Steps1, info.Steps2 = res.Steps1, res.Steps2
	}
	path := filepath.Join(dir, system+".safetensors")
	if err := core.SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	return path
}

// simDraw is a realization as "apic simulate --json" prints it.
type simDraw struct {
	theta map[string]float64
	u0    []float64
	t     []float64
	truth []float64 // point-major, as on the grid
}

func simulateDraw(t *testing.T, system string, seed uint64) simDraw {
	t.Helper()
	obj := simulateJSON(t, "--system", system, "--seed", fmt.Sprint(seed))
	d := simDraw{theta: map[string]float64{}, t: flatten(t, obj["t"]), truth: flatten(t, obj["true"])}
	for k, v := range obj["theta"].(map[string]any) {
		d.theta[k] = v.(float64)
	}
	if u0, ok := obj["u0"]; ok {
		d.u0 = flatten(t, u0)
	}
	return d
}

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// contextCSV writes n grid points of d (chosen by rng) with Gaussian noise
// as an observation file for sys; for systems with several channels,
// extra rows observe one channel only (the other cell left empty).
func contextCSV(t *testing.T, dir string, sys sims.System, d simDraw, n, extra int, noise float64, rng *rand.Rand) string {
	t.Helper()
	g := sys.Grid()
	nc := len(g.Channels)
	var b strings.Builder
	b.WriteString(strings.Join(obsHeader(g), ",") + "\n")
	perm := rng.Perm(g.Points())
	for i, p := range perm[:n+extra] {
		var cells []string
		for _, v := range g.States[p] {
			cells = append(cells, fmtFloat(v))
		}
		for c := range nc {
			if i >= n && c == i%nc {
				cells = append(cells, "") // a missing channel
				continue
			}
			cells = append(cells, fmtFloat(d.truth[p*nc+c]+noise*rng.NormFloat64()))
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return writeFile(t, dir, fmt.Sprintf("obs-%d.csv", rng.Uint64()), b.String())
}

// calibrateResult is the decoded --json output.
type calibrateResult struct {
	System      string                   `json:"system"`
	Backbone    string                   `json:"backbone"`
	Checkpoint  string                   `json:"checkpoint"`
	Channels    []string                 `json:"channels"`
	Theta       map[string]thetaInterval `json:"theta"`
	T           []float64                `json:"t"`
	X           []float64                `json:"x"`
	Nominal     any                      `json:"nominal"`
	Prediction  struct{ Mean, Std any }  `json:"prediction"`
	Discrepancy struct{ Mean, Std any }  `json:"discrepancy"`
	Warnings    []string                 `json:"warnings"`
}

func calibrateJSON(t *testing.T, args ...string) (calibrateResult, map[string]any) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"calibrate", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("calibrate %v: exit %d, stderr %q", args, code, errOut)
	}
	var res calibrateResult
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("calibrate %v: output is not JSON: %v\n%s", args, err, out)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	return res, raw
}

func mae(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(len(a))
}

// TestCalibrateRecoversSimulated trains a small model, writes realizations
// drawn by simulate out as observation files (a random context subset,
// with and without noise) and checks that calibrate recovers θ much
// better than the prior mean does and predicts the true trajectory much
// better than the nominal simulator at the prior mean.
func TestCalibrateRecoversSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	for _, tc := range []struct {
		system         string
		steps1, steps2 int
		extra          int     // rows with one channel missing
		thetaRatio     float64 // bound on θ error / prior-mean θ error
		predRatio      float64 // bound on prediction MAE / prior-mean nominal MAE
	}{
		{"spring", 100, 100, 0, 0.2, 0.3},
		{"lv", 100, 100, 4, 0.5, 0.3},
	} {
		t.Run(tc.system, func(t *testing.T) {
			dir := t.TempDir()
			sys, _ := sims.Lookup(tc.system)
			ckpt := tinyCheckpoint(t, dir, tc.system, tc.steps1, tc.steps2)
			params := sys.Params()
			mid := make([]float64, len(params))
			for i, p := range params {
				mid[i] = (p.Lo + p.Hi) / 2
			}
			for _, noise := range []float64{0, 0.02} {
				t.Run(fmt.Sprintf("noise=%g", noise), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(7, uint64(noise*1000)))
					const draws = 8
					var errTheta, errPrior, errPred, errNom float64
					for k := range draws {
						d := simulateDraw(t, tc.system, uint64(100+k))
						path := contextCSV(t, dir, sys, d, sys.TestContext(), tc.extra, noise, rng)
						args := []string{"--checkpoint", ckpt, "--data", path}
						if d.u0 != nil {
							args = append(args, "--u0", fmt.Sprintf("%v,%v", d.u0[0], d.u0[1]))
						}
						res, _ := calibrateJSON(t, args...)
						for i, p := range params {
							errTheta += math.Abs(res.Theta[p.Name].Mean-d.theta[p.Name]) / float64(len(params))
							errPrior += math.Abs(mid[i]-d.theta[p.Name]) / float64(len(params))
						}
						errPred += mae(flatten(t, res.Prediction.Mean), d.truth)
						errNom += mae(sys.Nominal(mid, d.u0), d.truth)
					}
					t.Logf("θ error %.3g (prior mean %.3g, ratio %.2f); prediction MAE %.3g (nominal at prior mean %.3g, ratio %.2f)",
						errTheta/draws, errPrior/draws, errTheta/errPrior, errPred/draws, errNom/draws, errPred/errNom)
					if errTheta > tc.thetaRatio*errPrior {
						t.Errorf("θ error %.3g is not clearly below the prior mean's %.3g (want ratio ≤ %.2f)", errTheta/draws, errPrior/draws, tc.thetaRatio)
					}
					if errPred > tc.predRatio*errNom {
						t.Errorf("prediction MAE %.3g is not clearly below the nominal at the prior mean's %.3g (want ratio ≤ %.2f)", errPred/draws, errNom/draws, tc.predRatio)
					}
				})
			}
			if tc.system == "spring" {
				t.Run("offgrid", func(t *testing.T) { checkSpringOffGrid(t, dir, ckpt) })
			}
		})
	}
}

// checkSpringOffGrid calibrates observations at random times between the
// grid points, their values from the true law of BENCHMARKS.md §1.
func checkSpringOffGrid(t *testing.T, dir, ckpt string) {
	rng := rand.New(rand.NewPCG(3, 4))
	var errTheta, errPrior float64
	for k := range 8 {
		omega := 3 + 5*rng.Float64()
		var b strings.Builder
		b.WriteString("y,t\n") // columns in any order
		for range 30 {
			tt := 4 * rng.Float64()
			fmt.Fprintf(&b, "%v,%v\n", math.Sin(omega*tt)*math.Exp(-0.15*omega*tt), tt)
		}
		path := writeFile(t, dir, fmt.Sprintf("offgrid-%d.csv", k), b.String())
		res, _ := calibrateJSON(t, "--checkpoint", ckpt, "--data", path)
		errTheta += math.Abs(res.Theta["omega"].Mean - omega)
		errPrior += math.Abs(5.5 - omega)
	}
	t.Logf("off-grid θ error %.3g (prior mean %.3g)", errTheta/8, errPrior/8)
	if errTheta > 0.2*errPrior {
		t.Errorf("off-grid θ error %.3g is not clearly below the prior mean's %.3g", errTheta/8, errPrior/8)
	}
}

// untrained returns checkpoints of untrained small models of the three
// benchmark systems, saved in dir.
func untrained(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range []string{"spring", "lv", "advdiff"} {
		out[s] = tinyCheckpoint(t, dir, s, 0, 0)
	}
	return out
}

// fieldCSV writes an advdiff side-information file for u0.
func fieldCSV(t *testing.T, dir string, u0 []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("x,u\n")
	for i, v := range u0 {
		fmt.Fprintf(&b, "%v,%v\n", float64(i)/float64(len(u0)), v)
	}
	return writeFile(t, dir, "u0.csv", b.String())
}

// goodObservations returns valid observation files and side arguments
// for the three systems, drawn from simulate.
func goodObservations(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []string{"spring", "lv", "advdiff"} {
		sys, _ := sims.Lookup(s)
		d := simulateDraw(t, s, 5)
		args := []string{"--data", contextCSV(t, dir, sys, d, sys.TestContext(), 0, 0, rng)}
		switch s {
		case "lv":
			args = append(args, "--u0", fmt.Sprintf("%v,%v", d.u0[0], d.u0[1]))
		case "advdiff":
			args = append(args, "--u0-file", fieldCSV(t, dir, d.u0))
		}
		out[s] = args
	}
	return out
}

// TestCalibrateJSONRecordsDraws: --json records the samples drawn and
// their seed, as the text's header does, so that a saved result says
// how to reproduce it; a cnp draws one sample whatever --samples says.
func TestCalibrateJSONRecordsDraws(t *testing.T) {
	obs := goodObservations(t, t.TempDir())["spring"]
	for _, tc := range []struct {
		backbone string
		samples  float64
	}{{"lnp", 7}, {"cnp", 1}} {
		args := append([]string{"--system", "spring", "--backbone", tc.backbone, "--samples", "7", "--seed", "9"}, obs...)
		_, raw := calibrateJSON(t, args...)
		if raw["samples"] != tc.samples || raw["seed"] != float64(9) {
			t.Errorf("%s: --json samples %v, seed %v; want %v and 9", tc.backbone, raw["samples"], raw["seed"], tc.samples)
		}
	}
}

// TestCalibrateJSONRecordsInputs: --json records the data rows' count
// and the side information, as the text's header and prediction use them.
func TestCalibrateJSONRecordsInputs(t *testing.T) {
	obs := writeFile(t, t.TempDir(), "lv.csv", "t,prey,predator\n1,1.1,0.9\n2,1.2,\n3,,0.8\n")
	_, raw := calibrateJSON(t, "--system", "lv", "--data", obs, "--u0", "1.25,0.75")
	if raw["observations"] != float64(3) {
		t.Errorf("observations %v, want 3 (the data rows)", raw["observations"])
	}
	if u0, ok := raw["u0"].([]any); !ok || len(u0) != 2 || u0[0] != 1.25 || u0[1] != 0.75 {
		t.Errorf("u0 %v, want [1.25 0.75]", raw["u0"])
	}
}

func TestCalibrateJSONShape(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	for _, tc := range []struct {
		system string
		shape  []int
		params []string
	}{
		{"spring", []int{100}, []string{"omega"}},
		{"lv", []int{100, 2}, []string{"alpha", "beta", "eta", "gamma"}},
		{"advdiff", []int{64, 64}, []string{"v", "kappa"}},
	} {
		t.Run(tc.system, func(t *testing.T) {
			res, raw := calibrateJSON(t, append([]string{"--checkpoint", ckpts[tc.system]}, obs[tc.system]...)...)
			keys := sortedKeys(raw)
			want := []string{"backbone", "channels", "checkpoint", "checkpoint_sha256", "checkpoint_validation", "discrepancy", "noise", "nominal", "observations", "prediction", "refine", "samples", "seed", "system", "t", "theta", "warnings"}
			if tc.system != "spring" {
				want = append(want, "u0")
			}
			if tc.system == "advdiff" {
				want = append(want, "x")
			}
			sort.Strings(want)
			if !reflect.DeepEqual(keys, want) {
				t.Errorf("keys %v, want %v", keys, want)
			}
			if res.System != tc.system || res.Checkpoint != ckpts[tc.system] {
				t.Errorf("system %q checkpoint %q", res.System, res.Checkpoint)
			}
			if sys, _ := sims.Lookup(tc.system); res.Backbone == "" || !reflect.DeepEqual(res.Channels, sys.Grid().Channels) {
				t.Errorf("backbone %q, channels %v", res.Backbone, res.Channels)
			}
			if got := sortedKeys(res.Theta); !reflect.DeepEqual(got, sortedStrings(tc.params)) {
				t.Errorf("theta keys %v, want %v", got, tc.params)
			}
			sys, _ := sims.Lookup(tc.system)
			for _, p := range sys.Params() {
				iv := res.Theta[p.Name]
				lo, hi := max(iv.Mean-1.96*iv.Std, p.Lo), min(iv.Mean+1.96*iv.Std, p.Hi)
				if !(iv.Std >= 0) || math.Abs(iv.Lo95-lo) > 1e-3*iv.Std+1e-12 || math.Abs(iv.Hi95-hi) > 1e-3*iv.Std+1e-12 {
					t.Errorf("theta %s = %+v is not mean ± 1.96 std cut to [%v, %v]", p.Name, iv, p.Lo, p.Hi)
				}
				if iv.PriorLo != p.Lo || iv.PriorHi != p.Hi {
					t.Errorf("theta %s: prior [%v, %v], want [%v, %v]", p.Name, iv.PriorLo, iv.PriorHi, p.Lo, p.Hi)
				}
				if !(iv.Lo95 <= iv.Lo50 && iv.Lo50 <= iv.Mean && iv.Mean <= iv.Hi50 && iv.Hi50 <= iv.Hi95) {
					t.Errorf("theta %s = %+v: the 50%% interval is not inside the 95%% one around the mean", p.Name, iv)
				}
			}
			if len(res.T) != tc.shape[0] {
				t.Errorf("t has %d values, want %d", len(res.T), tc.shape[0])
			}
			if tc.system == "advdiff" && len(res.X) != tc.shape[1] {
				t.Errorf("x has %d values, want %d", len(res.X), tc.shape[1])
			}
			pred, disc := raw["prediction"].(map[string]any), raw["discrepancy"].(map[string]any)
			if len(pred) != 4 || len(disc) != 3 {
				t.Errorf("prediction %d keys, discrepancy %d keys, want mean, std, half95 (and observation_std)", len(pred), len(disc))
			}
			// The 95% band's half-width is positive wherever std is.
			for _, band := range []map[string]any{pred, disc} {
				sd, half := flatten(t, band["std"]), flatten(t, band["half95"])
				for i := range sd {
					if !(half[i] > 0) && sd[i] > 0 {
						t.Fatalf("half95[%d] = %v where std is %v", i, half[i], sd[i])
					}
				}
			}
			// The observation band is the function band widened by the
			// estimated noise, which is reported per channel.
			if fn, ob := flatten(t, pred["std"]), flatten(t, pred["observation_std"]); len(fn) != len(ob) || len(fn) == 0 || !(ob[0] > fn[0]) {
				t.Errorf("observation std %v… is not wider than the function band's %v…", ob[:min(1, len(ob))], fn[:min(1, len(fn))])
			}
			noise := raw["noise"].(map[string]any)
			for _, ch := range sys.Grid().Channels {
				n, ok := noise[ch].(map[string]any)
				if !ok || !(n["lo95"].(float64) <= n["std"].(float64) && n["std"].(float64) <= n["hi95"].(float64)) {
					t.Errorf("noise of %s: %v, want std inside [lo95, hi95]", ch, noise[ch])
				}
			}
			for name, v := range map[string]any{"nominal": raw["nominal"], "prediction.mean": pred["mean"], "prediction.std": pred["std"], "prediction.observation_std": pred["observation_std"],
				"discrepancy.mean": disc["mean"], "discrepancy.std": disc["std"], "prediction.half95": pred["half95"], "discrepancy.half95": disc["half95"]} {
				if got := shapeOf(v); !reflect.DeepEqual(got, tc.shape) {
					t.Errorf("%s shape %v, want %v", name, got, tc.shape)
				}
			}
			// The discrepancy is the prediction minus the nominal at θ̂.
			m, n, d := flatten(t, pred["mean"]), flatten(t, raw["nominal"]), flatten(t, disc["mean"])
			for i := range d {
				if math.Abs(d[i]-(m[i]-n[i])) > 1e-9*(1+math.Abs(m[i])) {
					t.Fatalf("discrepancy[%d] = %v, want %v", i, d[i], m[i]-n[i])
				}
			}
			if _, ok := raw["warnings"].([]any); !ok {
				t.Errorf("warnings = %#v, want a list", raw["warnings"])
			}
		})
	}
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestCalibrateJSONEmptyWarnings: no warnings print as [], not null.
func TestCalibrateJSONEmptyWarnings(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	g := sys.Grid()
	p := core.Prediction{Theta: []float64{5}, ThetaStd: []float64{0.1}}
	for _, f := range []*[]float64{&p.Mean, &p.Std, &p.DeltaMean, &p.DeltaStd, &p.Nominal} {
		*f = make([]float64, g.Size())
	}
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out}
	if err := writeCalibrationJSON(env, calibration{sys: sys, checkpoint: "c", pred: p}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"warnings":[]`) {
		t.Errorf("output %s has no empty warnings list", out.String())
	}
}

func TestCalibrateText(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	for _, tc := range []struct {
		system string
		want   []string
	}{
		{"spring", []string{"omega", "95% interval", "U(3, 8)", "observations (30)", "corrected prediction, 95% band", "learned discrepancy"}},
		{"lv", []string{"alpha", "gamma", "x0 =", "prey: observations", "predator: learned discrepancy"}},
		{"advdiff", []string{"kappa", "at t = 0", "at t = 1", "learned discrepancy", "x=0"}},
	} {
		t.Run(tc.system, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"calibrate", "--checkpoint", ckpts[tc.system]}, obs[tc.system]...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range append(tc.want, "warnings") {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestCalibrateHeaderCountsSamplesDrawn: the header gives the latent
// samples a prediction drew, as eval's does: one for the deterministic
// CNP whatever --samples asks, --samples for a latent backbone.
func TestCalibrateHeaderCountsSamplesDrawn(t *testing.T) {
	dir := t.TempDir()
	obs := goodObservations(t, dir)["spring"]
	for backbone, want := range map[string]string{"cnp": " · 1 sample · seed 1 · ", "lnp": " · 32 samples · seed 1 · "} {
		code, out, errOut := runCLI(t, append([]string{"calibrate", "--system", "spring", "--backbone", backbone}, obs...)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, stderr %q; want a header with %q:\n%.300s", backbone, code, errOut, want, out)
		}
	}
}

func TestCalibrateWarnings(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	// Five observations (training saw 15..100), one far above anything
	// the damped or undamped spring reaches.
	path := writeFile(t, dir, "few.csv", "t,y\n0.1,0.2\n0.5,0.3\n1,9\n2,-0.1\n3,0.05\n")
	res, _ := calibrateJSON(t, "--checkpoint", ckpt, "--data", path)
	joined := strings.Join(res.Warnings, "\n")
	for _, w := range []string{"only 5 context points", "far outside the range seen in training"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", res.Warnings, w)
		}
	}
	code, out, _ := runCLI(t, "calibrate", "--checkpoint", ckpt, "--data", path)
	if code != 0 || !strings.Contains(out, "! only 5 context points") {
		t.Errorf("text output (exit %d) lacks the warning:\n%s", code, out)
	}
}

// TestCalibrateFlagsSwappedU0: the README's lv example calibrated with
// its --u0 given predator first warns of it, naming both orders, and
// leaves the u0 used as given; the right order draws no such warning.
func TestCalibrateFlagsSwappedU0(t *testing.T) {
	data := "../../docs/examples/lv.csv"
	res, raw := calibrateJSON(t, "--system", "lv", "--data", data, "--u0", "1.3329,1.0144")
	joined := strings.Join(res.Warnings, "\n")
	for _, w := range []string{"u0 = 1.333,1.014 looks swapped", "(prey x0 = 1.333, predator y0 = 1.014)", "(prey x0 = 1.014, predator y0 = 1.333)"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", res.Warnings, w)
		}
	}
	if u0, _ := raw["u0"].([]any); len(u0) != 2 || u0[0] != 1.3329 || u0[1] != 1.0144 {
		t.Errorf("u0 used %v, want the order given", raw["u0"])
	}
	res, _ = calibrateJSON(t, "--system", "lv", "--data", data, "--u0", "1.0144,1.3329")
	if joined := strings.Join(res.Warnings, "\n"); strings.Contains(joined, "swapped") {
		t.Errorf("u0 in order: warnings %q", res.Warnings)
	}
}

// TestCalibrateFlagsSwappedSimulateSeed2: simulate --seed 2's lv data,
// noise-free, calibrated with its u0 given predator first warn of the
// swap: the swapped order's nearest trajectory lies 3.6 times nearer
// the earliest observations, which core's swapRatio (3) counts and
// a ratio of 4 would not; the right order draws no such warning.
func TestCalibrateFlagsSwappedSimulateSeed2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed2.csv")
	if code, _, errOut := runCLI(t, "simulate", "--system", "lv", "--seed", "2", "--csv", path); code != 0 {
		t.Fatalf("simulate --csv: exit %d, stderr %q", code, errOut)
	}
	u0, _ := simulateJSON(t, "--system", "lv", "--seed", "2")["u0"].([]any)
	if len(u0) != 2 {
		t.Fatalf("simulate --seed 2: u0 %v", u0)
	}
	prey, predator := fmt.Sprint(u0[0]), fmt.Sprint(u0[1])
	res, _ := calibrateJSON(t, "--system", "lv", "--data", path, "--u0", predator+","+prey)
	if joined := strings.Join(res.Warnings, "\n"); !strings.Contains(joined, "looks swapped") {
		t.Errorf("u0 %s,%s swapped: warnings %q lack the swap", predator, prey, res.Warnings)
	}
	res, _ = calibrateJSON(t, "--system", "lv", "--data", path, "--u0", prey+","+predator)
	if joined := strings.Join(res.Warnings, "\n"); strings.Contains(joined, "swapped") {
		t.Errorf("u0 in order: warnings %q", res.Warnings)
	}
}

func TestCalibrateStdin(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	old := stdin
	defer func() { stdin = old }()
	var rows strings.Builder
	rows.WriteString("t,y\n")
	for i := range 20 {
		fmt.Fprintf(&rows, "%v,%v\n", 0.2*float64(i)+0.01, math.Sin(float64(i)))
	}
	stdin = strings.NewReader(rows.String())
	res, _ := calibrateJSON(t, "--checkpoint", ckpt, "--data", "-")
	if res.System != "spring" {
		t.Errorf("system %q", res.System)
	}
	stdin = strings.NewReader("t,y\n1,x\n")
	code, _, errOut := runCLI(t, "calibrate", "--checkpoint", ckpt, "--data", "-")
	if code != 2 || !strings.Contains(errOut, "<stdin>:2: y = \"x\" is not a number") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestCalibrateBadInput checks every rejected input: exit status 2, a
// message naming the file and line, and no figure written.
func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	good := goodObservations(t, dir)
	u0 := simulateDraw(t, "advdiff", 5).u0
	u0File := fieldCSV(t, dir, u0)
	short := writeFile(t, dir, "u0short.csv", "x,u\n0,1\n0.015625,1\n")
	commentsOnly := writeFile(t, dir, "u0comments.csv", "# x,u\n")
	lvU0 := []string{"--u0", "1,1"}
	for _, tc := range []struct {
		name, system, data string
		args               []string
		want               string
	}{
		{"missing column", "spring", "t\n1\n", nil, "f.csv:1: missing column y"},
		{"unknown column", "spring", "t,y,z\n1,2,3\n", nil, `f.csv:1: unknown column "z"`},
		{"wrong system's columns", "lv", "t,y\n1,2\n", lvU0, `f.csv:1: column "y" is read as predator only beside "x"; alone it is ambiguous, another system's column name: name it "predator" (want "t,prey,predator", or time for t, predators for predator, x,y for prey,predator)`},
		{"wrong system's columns, no u0", "lv", "t,y\n1,2\n", nil, `f.csv:1: column "y" is read as predator only beside "x"`},
		{"another system's columns", "lv", "t,x,u\n1,2,3\n", lvU0, `f.csv:1: column "x" is read as prey only beside "y"`},
		{"unknown lv column", "lv", "t,hare,lynx\n1,2,3\n", lvU0, `f.csv:1: unknown column "hare" (want "t,prey,predator", or time for t, predators for predator, x,y for prey,predator)`},
		{"alias beside its column", "lv", "t,x,y,prey\n1,2,3,4\n", lvU0, `f.csv:1: columns "x" and "prey" both name prey`},
		{"comment lines", "spring", "# my lab data\nt,y\n# run 2\n1,zz\n", nil, `f.csv:4: y = "zz" is not a number`},
		{"decimal commas", "spring", "t,y\n0,2020,0,8560\n", nil, "f.csv:2: 4 fields, want 2 (t,y); decimal commas?"},
		{"twice", "spring", "t,y,t\n1,2,3\n", nil, `f.csv:1: column "t" appears twice`},
		{"no header", "spring", "1,2\n", nil, `f.csv:1: missing header row "t,y"`},
		{"non-numeric", "spring", "t,y\n1,0.5\n2,abc\n", nil, `f.csv:3: y = "abc" is not a number`},
		{"non-numeric time", "spring", "t,y\n1e,0.5\n", nil, `f.csv:2: t = "1e" is not a number`},
		{"NaN", "spring", "t,y\n1,NaN\n", nil, `f.csv:2: y = "NaN" is not a finite number`},
		{"Inf", "spring", "t,y\n1,0\n2,-Inf\n", nil, `f.csv:3: y = "-Inf" is not a finite number`},
		{"overflow", "spring", "t,y\n1,1e999\n", nil, `f.csv:2: y = "1e999" is not a finite number`},
		{"underflow", "spring", "t,y\n1,0.5\n2,1e-99999\n", nil, `f.csv:3: y = "1e-99999" is too small: it is nonzero but below float64's smallest magnitude`},
		{"underflow time", "spring", "t,y\n-1e-400,0.5\n", nil, `f.csv:2: t = "-1e-400" is too small`},
		{"duplicate", "spring", "t,y\n1,0.1\n2,0.2\n1.0,0.3\n", nil, "f.csv:4: duplicate observation at t = 1 (first at line 2)"},
		{"duplicate on grid", "spring", "t,y\n0.0404040404040404,0\n0.04040404040,1\n", nil, "f.csv:3: duplicate observation"},
		{"duplicate lv", "lv", "t,prey,predator\n1,0.5,\n1,,0.7\n", lvU0, "f.csv:3: duplicate observation at t = 1 (first at line 2)"},
		{"duplicate advdiff", "advdiff", "t,x,u\n0.5,0.25,1\n0.5,0.25,2\n", []string{"--u0-file", u0File}, "f.csv:3: duplicate observation at t = 0.5, x = 0.25"},
		{"empty file", "spring", "", nil, "f.csv: empty file"},
		{"blank lines only", "spring", "\n\n\n", nil, "f.csv: empty file"},
		{"comment lines only", "spring", "# run 3\n\n# t,y\n", nil, `f.csv: no header row, only comment lines (starting with #); want a header "t,y"`},
		{"header only", "spring", "t,y\n", nil, "f.csv: no observations"},
		{"binary", "spring", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", nil, "f.csv: not a CSV text file"},
		{"invalid utf8", "spring", "t,y\n1,\xff\xfe\n", nil, "f.csv:2: not a CSV text file"},
		{"semicolons", "spring", "t;y\n1;2\n", nil, "f.csv:1: header \"t;y\": fields are separated by semicolons"},
		{"tabs", "lv", "t\tprey\tpredator\n1\t2\t3\n", lvU0, "f.csv:1: header \"t\\tprey\\tpredator\": fields are separated by tabs"},
		{"semicolon row", "spring", "t,y\n1;2\n", nil, "f.csv:2: 1 field, want 2 (t,y); fields are separated by semicolons"},
		{"too many fields", "spring", "t,y\n1,2,3\n", nil, "f.csv:2: 3 fields, want 2 (t,y)"},
		{"DOS end-of-file mark", "spring", "t,y\n1,2\n\x1a", nil, "f.csv:3: 1 field, want 2 (t,y); it holds the control character U+001A, which most editors do not show"},
		{"bad quote", "spring", "t,y\n1,\"2\n", nil, "f.csv:2: not valid CSV"},
		{"time outside", "spring", "t,y\n1,0\n4.5,0\n", nil, "f.csv:3: t = 4.5 is outside the domain [0, 4]"},
		{"negative time", "lv", "t,prey,predator\n-0.1,1,1\n", lvU0, "f.csv:2: t = -0.1 is outside the domain [0, 10]"},
		{"position outside", "advdiff", "t,x,u\n0.5,1.5,0.3\n", []string{"--u0-file", u0File}, "f.csv:2: x = 1.5 is outside the domain [0, 1]"},
		{"empty time", "spring", "t,y\n,0.5\n", nil, "f.csv:2: t is empty"},
		{"empty value", "spring", "t,y\n1,\n", nil, "f.csv:2: y is empty; a row needs an observed value: leave out a state where nothing was measured"},
		{"lv nothing observed", "lv", "t,prey,predator\n1,,\n", lvU0, "f.csv:2: no observed value (prey, predator are all empty); a row needs an observed value: leave out a state where nothing was measured"},
		{"u0 wrong length", "lv", "t,prey,predator\n1,1,1\n", []string{"--u0", "1,2,3"}, "--u0: got 3 values, want 2 comma-separated values (x0, y0)"},
		{"u0 separated by spaces", "lv", "t,prey,predator\n1,1,1\n", []string{"--u0", "1 2"}, "--u0: got 1 value, want 2 comma-separated values (x0, y0)"},
		{"u0 not a number", "lv", "t,prey,predator\n1,1,1\n", []string{"--u0", "1,zz"}, "--u0: value 2 (y0)"},
		{"u0 missing", "lv", "t,prey,predator\n1,1,1\n", nil, "system lv needs its side information u0 (x0, y0: prey and predator at t = 0): give --u0 x0,y0"},
		{"u0 file for lv", "lv", "t,prey,predator\n1,1,1\n", []string{"--u0-file", u0File}, "give it with --u0"},
		{"u0-file missing", "advdiff", "t,x,u\n0.5,0.5,1\n", nil, "system advdiff needs its side information u0 (64 values: u at t = 0 at each grid position x): give --u0-file"},
		{"u0-file comments only", "advdiff", "t,x,u\n0.5,0.5,1\n", []string{"--u0-file", commentsOnly}, `u0comments.csv: no header row, only comment lines (starting with #), want a header "x,u" and 64 rows`},
		{"u0-file short", "advdiff", "t,x,u\n0.5,0.5,1\n", []string{"--u0-file", short}, "u0short.csv: 2 data rows, want 64"},
		{"u0 list for a field", "advdiff", "t,x,u\n0.5,0.5,1\n", []string{"--u0", "1,2"}, "--u0: got 2 values, want 64 comma-separated values; or give advdiff's u0 as a CSV file with --u0-file FILE (header x,u)"},
		{"u0 both", "advdiff", "t,x,u\n0.5,0.5,1\n", []string{"--u0-file", u0File, "--u0", "1"}, "give --u0 or --u0-file, not both"},
		{"u0-file directory", "advdiff", "t,x,u\n0.5,0.5,1\n", []string{"--u0-file", dir}, "--u0-file: " + dir + " is a directory"},
		{"u0 for spring", "spring", "t,y\n1,1\n", []string{"--u0", "1,2"}, "system spring has no side information"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			data := writeFile(t, sub, "f.csv", tc.data)
			fig := filepath.Join(sub, "fig.png")
			args := append([]string{"calibrate", "--checkpoint", ckpts[tc.system], "--data", data, "--png", fig}, tc.args...)
			code, out, errOut := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, errOut)
			}
			// Messages name the file as given: compare from its base name.
			msg := strings.ReplaceAll(errOut, sub+string(filepath.Separator), "")
			msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
			if !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q lacks %q", msg, tc.want)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if entries, _ := os.ReadDir(sub); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the data file (no figure, no temporary)", len(entries))
			}
		})
	}
	// Usage problems outside the data file.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no data", []string{"--checkpoint", ckpts["spring"]}, "--data FILE is required"},
		{"data missing", []string{"--checkpoint", ckpts["spring"], "--data", filepath.Join(dir, "nope.csv")}, "--data " + filepath.Join(dir, "nope.csv") + ": no such file or directory"},
		// Before the side information lv needs, and the model.
		{"data missing, u0 too", []string{"--system", "lv", "--data", filepath.Join(dir, "nope.csv")}, "--data " + filepath.Join(dir, "nope.csv") + ": no such file or directory"},
		{"data missing, checkpoint too", []string{"--checkpoint", filepath.Join(dir, "nope.safetensors"), "--data", filepath.Join(dir, "nope.csv")}, "--data " + filepath.Join(dir, "nope.csv") + ": no such file or directory"},
		{"data directory", []string{"--checkpoint", ckpts["spring"], "--data", dir}, "is a directory"},
		{"samples", append([]string{"--checkpoint", ckpts["spring"], "--samples", "0"}, good["spring"]...), "--samples must be between 1 and 10000 (the sample tensors are held in memory), got 0"},
		{"too many samples", append([]string{"--checkpoint", ckpts["spring"], "--samples", "100000000"}, good["spring"]...), "--samples must be between 1 and 10000"},
		{"no model", good["spring"], "give --checkpoint FILE, or --system"},
		{"system mismatch", append([]string{"--checkpoint", ckpts["spring"], "--system", "lv"}, good["spring"]...), "disagrees with checkpoint"},
		{"unknown system", append([]string{"--system", "nope"}, good["spring"]...), `unknown system "nope"`},
		{"not a checkpoint", append([]string{"--checkpoint", good["spring"][1]}, good["spring"]...), "checkpoint"},
		{"png dir missing", append([]string{"--checkpoint", ckpts["spring"], "--png", filepath.Join(dir, "no", "f.png")}, good["spring"]...), "--png"},
		{"png is dir", append([]string{"--checkpoint", ckpts["spring"], "--png", dir}, good["spring"]...), "is a directory"},
		{"png to stdout", append([]string{"--checkpoint", ckpts["spring"], "--png", "-"}, good["spring"]...), "--png -: the file is written to disk, not to standard output"},
		{"png ends in a separator", append([]string{"--checkpoint", ckpts["spring"], "--png", dir + "/new.png/"}, good["spring"]...), "new.png/ ends in a path separator"},
		{"png through a missing dir", append([]string{"--checkpoint", ckpts["spring"], "--png", dir + "/nosuchdir/../f.png"}, good["spring"]...), "directory " + dir + "/nosuchdir/.. does not exist (for --png " + dir + "/nosuchdir/../f.png)"},
		{"png is data", []string{"--checkpoint", ckpts["spring"], "--data", good["spring"][1], "--png", good["spring"][1]}, "is the --data file"},
		{"png is data, spelt otherwise", []string{"--checkpoint", ckpts["spring"], "--data", good["spring"][1], "--png", filepath.Join(filepath.Dir(good["spring"][1]), ".", filepath.Base(good["spring"][1]))}, "is the --data file"},
		{"png is checkpoint", append([]string{"--checkpoint", ckpts["spring"], "--png", ckpts["spring"]}, good["spring"]...), "is the --checkpoint file"},
		{"png is u0-file", append([]string{"--checkpoint", ckpts["advdiff"], "--png", u0File, "--u0-file", u0File}, good["advdiff"][:2]...), "is the --u0-file file"},
		{"stray argument", append([]string{"--checkpoint", ckpts["spring"], "extra"}, good["spring"]...), "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"calibrate"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

func TestCalibratePNG(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	for _, system := range []string{"spring", "lv", "advdiff"} {
		t.Run(system, func(t *testing.T) {
			fig := filepath.Join(dir, system+".png")
			code, out, errOut := runCLI(t, append([]string{"calibrate", "--json", "--checkpoint", ckpts[system], "--png", fig}, obs[system]...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !json.Valid([]byte(out)) {
				t.Errorf("stdout is not JSON with --png")
			}
			data, err := os.ReadFile(fig)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("%s does not start with the PNG signature", fig)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(data))
			if err != nil || cfg.Width < 400 || cfg.Height < 200 {
				t.Errorf("PNG config %+v, %v", cfg, err)
			}
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("PNG does not decode: %v", err)
			}
		})
	}
	// The figure replaces an existing file whole, and leaves no temporary.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestPNGReplacesOnlyPNG: --png redraws an existing PNG or fills an
// empty file, but refuses, before any work and leaving it byte for
// byte, a file that is not a PNG, also behind a link.
func TestPNGReplacesOnlyPNG(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	obs := goodObservations(t, dir)
	text := writeFile(t, dir, "notes.png", "precious\n") // named .png, holding text
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(text, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	empty := writeFile(t, dir, "empty.png", "")
	fig := filepath.Join(dir, "fig.png")
	for _, c := range []struct {
		path string
		code int
	}{{fig, 0}, {fig, 0}, {empty, 0}, {text, 2}, {link, 2}} {
		args := append([]string{"calibrate", "--checkpoint", ckpts["spring"], "--png", c.path}, obs["spring"]...)
		code, _, errOut := runCLI(t, args...)
		if code != c.code {
			t.Errorf("--png %s: exit %d, want %d; stderr %q", filepath.Base(c.path), code, c.code, errOut)
		}
		if c.code == 2 && !strings.Contains(errOut, "is not a PNG image: refusing to replace it") {
			t.Errorf("--png %s: stderr %q", filepath.Base(c.path), errOut)
		}
		code, _, errOut = runCLI(t, "diagnose", "--checkpoint", ckpts["spring"], "--tasks", "2", "--png", c.path)
		if code != c.code {
			t.Errorf("diagnose --png %s: exit %d, want %d; stderr %q", filepath.Base(c.path), code, c.code, errOut)
		}
	}
	if data, _ := os.ReadFile(text); string(data) != "precious\n" {
		t.Errorf("the text file now holds %q", data)
	}
	for _, p := range []string{fig, empty} {
		if data, _ := os.ReadFile(p); !bytes.HasPrefix(data, []byte(pngSignature)) {
			t.Errorf("%s is not a PNG", filepath.Base(p))
		}
	}
}

// TestCalibrateIntervalInsidePrior: with one observation θ̂'s spread is
// wide, and the 95% interval stops at the prior range (spring: ω in
// [3, 8]) instead of claiming values the model cannot give.
func TestCalibrateIntervalInsidePrior(t *testing.T) {
	data := writeFile(t, t.TempDir(), "one.csv", "t,y\n0.1,0.2\n")
	res, _ := calibrateJSON(t, "--system", "spring", "--data", data)
	iv := res.Theta["omega"]
	if !(iv.Lo95 >= 3 && iv.Hi95 <= 8 && iv.Lo95 <= iv.Mean && iv.Mean <= iv.Hi95) {
		t.Errorf("ω interval %+v is not inside the prior [3, 8] around its mean", iv)
	}
	if iv.Mean-1.96*iv.Std >= 3 && iv.Mean+1.96*iv.Std <= 8 {
		t.Errorf("ω %+v: the Gaussian interval lies inside the prior, so this test no longer exercises the cut", iv)
	}
}

// TestCalibrateMarksThetaAtTheBound: data thirty times the size of a
// spring realization press ω̂ against the prior's upper bound, whose
// squeezed interval the row and the JSON mark; the realization itself
// is marked nowhere.
func TestCalibrateMarksThetaAtTheBound(t *testing.T) {
	d := simulateDraw(t, "spring", 3)
	var plain, scaled strings.Builder
	plain.WriteString("t,y\n")
	scaled.WriteString("t,y\n")
	for i := 0; i < len(d.t); i += 5 {
		fmt.Fprintf(&plain, "%s,%s\n", fmtFloat(d.t[i]), fmtFloat(d.truth[i]))
		fmt.Fprintf(&scaled, "%s,%s\n", fmtFloat(d.t[i]), fmtFloat(30*d.truth[i]))
	}
	dir := t.TempDir()
	for _, c := range []struct {
		file    string
		atBound bool
	}{{writeFile(t, dir, "plain.csv", plain.String()), false}, {writeFile(t, dir, "x30.csv", scaled.String()), true}} {
		res, _ := calibrateJSON(t, "--system", "spring", "--data", c.file)
		if got := res.Theta["omega"].AtPriorBound; got != c.atBound {
			t.Errorf("%s: at_prior_bound %v, want %v (ω̂ %v)", c.file, got, c.atBound, res.Theta["omega"].Mean)
		}
		code, out, errOut := runCLI(t, "calibrate", "--system", "spring", "--data", c.file)
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", c.file, code, errOut)
		}
		if got := strings.Contains(out, "U(3, 8)  ! at a bound (warnings)"); got != c.atBound {
			t.Errorf("%s: the ω row marked %v, want %v:\n%s", c.file, got, c.atBound, out)
		}
	}
}

// countdownCtx is a context whose Err is nil for its first calls and
// context.Canceled after: a Ctrl-C arriving at a known point, without
// timing.
type countdownCtx struct {
	context.Context
	left, calls int
}

func (c *countdownCtx) Err() error {
	c.calls++
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

// TestCalibrateStopsOnInterrupt: Ctrl-C during a long refinement (a
// checkpoint asking for many steps) stops calibrate at the next step, as
// an interruption, instead of running every step first.
func TestCalibrateStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	path := tinyCheckpoint(t, dir, "spring", 0, 0)
	m, info, err := core.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 1000
	m.Config.Infer.Refine = steps
	if err := core.SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	good := goodObservations(t, dir)
	// The first three checks pass and the fourth, at refinement's first
	// step, sees the interrupt: refinement stops on its own once its
	// steps no longer lower the cost, which this untrained model's do
	// after one.
	ctx := &countdownCtx{Context: context.Background(), left: 3}
	var stdout, stderr bytes.Buffer
	code := Run(ctx, append([]string{"calibrate", "--checkpoint", path}, good["spring"]...), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted") || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, interrupted, no result", code, stdout.String(), stderr.String())
	}
	if ctx.calls > 10 {
		t.Errorf("ctx checked %d times: calibrate did not stop at the first refinement step after the interrupt", ctx.calls)
	}
}

// TestBlameData: a failed prediction on observations far from anything
// the model was trained on is a usage error that names the data file and
// what is wrong with it; a divergence on plausible data names the file
// and asks for its units and scale; any other failure on plausible
// data, or an interruption, stays as it was. None speaks of core's
// "realization 0", which means nothing for a user's file.
func TestBlameData(t *testing.T) {
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	diverged := fmt.Errorf("predict: realization 0: %w", core.ErrDiverged) // as core.Model.PredictContext fails
	d := simulateDraw(t, "lv", 5)
	side := d.u0
	plausible := sims.Context{States: [][]float64{{1}, {2}}, Values: [][]float64{{1, 1}, {2, 1}}, Mask: [][]bool{{true, true}, {true, true}}, GridIndex: []int{-1, -1}}
	got := blameData(diverged, sys, plausible, side, "ok.csv")
	for _, want := range []string{"ok.csv: the model diverged: every latent sample gave a non-finite prediction", "check the file's units and scale (the model was trained on prey in [", "], predator in ["} {
		if !strings.Contains(got.Error(), want) {
			t.Errorf("plausible data, diverged: %v, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got.Error(), "realization") {
		t.Errorf("plausible data, diverged: %v speaks of a realization", got)
	}
	other := errors.New("some other failure")
	if got := blameData(other, sys, plausible, side, "ok.csv"); got != other {
		t.Errorf("plausible data, other failure: %v, want the error unchanged", got)
	}
	huge := sims.Context{States: [][]float64{{1}, {2}}, Values: [][]float64{{1e6, 1e6}, {2e6, -5}}, Mask: [][]bool{{true, true}, {true, true}}, GridIndex: []int{-1, -1}}
	got = blameData(diverged, sys, huge, side, "big.csv")
	for _, want := range []string{"big.csv: the model failed on these observations, which lie outside what it was trained on", "prey observations lie far outside the range seen in training", "physically impossible", "(the model diverged: every latent sample gave a non-finite prediction)"} {
		if !IsUsageError(got) || !strings.Contains(got.Error(), want) {
			t.Errorf("far data: %v, want a usage error containing %q", got, want)
		}
	}
	if strings.Contains(got.Error(), "realization") {
		t.Errorf("far data: %v speaks of a realization", got)
	}
	// Far data take the blame alone: no guess at the checkpoint's weights.
	nan := checkPredictionFinite(core.Prediction{Std: []float64{math.NaN()}}, sys, "x.safetensors")
	got = blameData(nan, sys, huge, side, "big.csv")
	if !strings.HasSuffix(got.Error(), "(the model's prediction std has non-finite values)") || strings.Contains(got.Error(), "x.safetensors") {
		t.Errorf("far data, non-finite output: %v", got)
	}
	if got := blameData(context.Canceled, sys, huge, side, "big.csv"); got != context.Canceled {
		t.Errorf("interrupted: %v", got)
	}
}

// TestCalibrateFarDataNamesTheData: lv observations a thousand times the
// trained range (within the sane range, core.SaneFactor) make the
// embedded model diverge; calibrate then says the data is the cause
// (exit 2), never a bare model error (exit 1).
func TestCalibrateFarDataNamesTheData(t *testing.T) {
	data := writeFile(t, t.TempDir(), "big.csv", "t,prey,predator\n0,5e3,5e3\n1,6e3,5e3\n2,5e3,3e3\n3,5e3,5e3\n5,2e3,2e3\n")
	code, _, errOut := runCLI(t, "calibrate", "--system", "lv", "--data", data, "--u0", "1,1")
	if code == 0 {
		t.Skip("the embedded lv model copes with these observations")
	}
	if code != 2 || !strings.Contains(errOut, "big.csv: the model failed on these observations") || !strings.Contains(errOut, "far outside the range seen in training") {
		t.Errorf("exit %d, stderr %q; want 2 and the data named as the cause", code, errOut)
	}
}

// TestNonFiniteBlamesWhatExists: a checkpoint whose observation noise
// is extreme (obs.lognoise = 1e30) is refused on load, or would give a
// non-finite prediction; on spring, which has no side information, the
// message blames the checkpoint, never side information.
func TestNonFiniteBlamesWhatExists(t *testing.T) {
	m, info, err := OpenCheckpoint(embeddedPrefix + "spring-lnp.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "noisy.safetensors")
	if err := core.SaveCheckpoint(ckpt, m, info, nets.F32); err != nil {
		t.Fatal(err)
	}
	// Saves refuse such a noise (core.CheckStorable): the file is
	// edited afterwards, as a damaged or crafted one would be.
	f, err := nets.ReadSafetensorsFile(ckpt, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	ln := f.Tensors["obs.lognoise"]
	if ln == nil {
		t.Fatal("no obs.lognoise tensor")
	}
	for i := range ln.Data {
		ln.Data[i] = 1e30
	}
	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, f.Tensors, f.Shapes, f.Metadata, nets.F32); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ckpt, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := writeFile(t, dir, "obs.csv", "t,y\n1,0.5\n2,0.25\n3,-0.1\n")
	code, _, errOut := runCLI(t, "calibrate", "--checkpoint", ckpt, "--data", data)
	if code == 0 {
		t.Skip("the model copes with obs.lognoise = 1e30")
	}
	blamed := strings.Contains(errOut, "non-finite") || strings.Contains(errOut, "damaged or edited checkpoint")
	if strings.Contains(errOut, "side information") || !blamed || !strings.Contains(errOut, "checkpoint") {
		t.Errorf("exit %d, stderr %q; want non-finite values blamed on the checkpoint, not side information", code, errOut)
	}
}

// TestCalibrateRefusesInsaneValues: y = 1e308 on spring used to be
// accepted (θ std 0, 300-digit axis labels, -Inf in the plot) while lv
// refused 1e200 only once its model diverged; both are now refused
// before any prediction, with the line, by one rule.
func TestCalibrateRefusesInsaneValues(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		text string
	}{
		{[]string{"--system", "spring"}, "t,y\n0.5,1e308\n1,0.2\n"},
		{[]string{"--system", "lv", "--u0", "1,1"}, "t,prey,predator\n0.5,1,1\n1,1e200,1\n"},
	} {
		data := writeFile(t, dir, "f.csv", tc.text)
		code, _, errOut := runCLI(t, append(append([]string{"calibrate", "--data", data}, tc.args...), "--json")...)
		if code != 2 || !strings.Contains(errOut, "sane range") || !strings.Contains(errOut, "f.csv:") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the sane range with the line", tc.args, code, errOut)
		}
	}
}

// checkPredictionFinite names side information only where the system
// has some.
func TestCheckPredictionFiniteNamesWhatExists(t *testing.T) {
	nan := core.Prediction{Mean: []float64{math.NaN()}}
	for name, side := range map[string]bool{"spring": false, "lv": true} {
		sys, err := sims.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		err = checkPredictionFinite(nan, sys, "x.safetensors")
		if err == nil || !strings.Contains(err.Error(), "x.safetensors") || strings.Contains(err.Error(), "far outside its range") != side {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The text output names the estimated noise σ̂ of each channel with its
// interval, as --json does.
func TestCalibrateTextShowsNoise(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,y\n0.5,0.3\n1,0.2\n1.5,-0.4\n2,0.1\n2.5,0.2\n")
	code, out, errOut := runCLI(t, "calibrate", "--system", "spring", "--data", data, "--samples", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`noise σ̂ \(noise and the model's misfit together; 95% interval\): y [0-9.e-]+ \[[0-9.e-]+, [0-9.e-]+\]`).MatchString(out) {
		t.Errorf("no noise line in:\n%s", out)
	}
}

// TestUnresolvedLVRefused: lv initial populations in the hundreds are
// within the sane range, but the solver's step does not follow their
// orbit (sims.ResolutionChecker); simulate and calibrate refuse them
// instead of printing finite nonsense, and populations of order one
// stay accepted.
func TestUnresolvedLVRefused(t *testing.T) {
	code, _, errOut := runCLI(t, "simulate", "--system", "lv", "--theta", "alpha=1,beta=1,eta=1,gamma=1", "--u0", "1000,1000", "--json")
	if code == 0 || !strings.Contains(errOut, "does not resolve") {
		t.Errorf("simulate u0 = 1000: exit %d, stderr %q; want a refusal", code, errOut)
	}
	if code, _, errOut := runCLI(t, "simulate", "--system", "lv", "--theta", "alpha=1,beta=1,eta=1,gamma=1", "--u0", "1.2,0.9"); code != 0 {
		t.Errorf("simulate u0 = (1.2, 0.9): exit %d, stderr %q", code, errOut)
	}
	data := writeFile(t, t.TempDir(), "far.csv", "t,prey,predator\n0.5,1.1,1.2\n1,1.3,1.1\n2,0.9,1.4\n3,1.0,1.0\n4,1.2,0.9\n")
	code, _, errOut = runCLI(t, "calibrate", "--system", "lv", "--backbone", "cnp", "--data", data, "--u0", "500,500")
	if code != 2 || !strings.Contains(errOut, "does not resolve") || !strings.Contains(errOut, "far.csv") {
		t.Errorf("calibrate u0 = 500: exit %d, stderr %q; want 2 and the unresolved solve named", code, errOut)
	}
}

// checkPredictionScale passes a prediction of the data's order and fails
// one (or its noise σ̂) a million times larger, naming what ran away.
func TestCheckPredictionScale(t *testing.T) {
	obs := sims.Context{Values: [][]float64{{0.5}, {-50}, {math.NaN()}}}
	ok := core.Prediction{Mean: []float64{40, -3e7}, NoiseStd: []float64{2}}
	if err := checkPredictionScale(ok, obs, nil); err != nil {
		t.Errorf("a prediction under a million times 50: %v", err)
	}
	for name, p := range map[string]core.Prediction{
		"prediction": {Mean: []float64{1, -6e7}},
		"noise σ̂":   {NoiseStd: []float64{1e30}},
		"nominal":    {Nominal: []float64{2e9}},
	} {
		err := checkPredictionScale(p, obs, nil)
		if err == nil || !strings.Contains(err.Error(), "diverged: its "+name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// With only small observations the scale is 1.
	small := sims.Context{Values: [][]float64{{1e-3}}}
	if err := checkPredictionScale(core.Prediction{Std: []float64{2e6}}, small, nil); err == nil {
		t.Error("a spread of 2e6 over observations of 1e-3 passed")
	}
	// Side information (initial populations) sets the scale too.
	if err := checkPredictionScale(core.Prediction{Mean: []float64{2e8}}, small, []float64{500, 1}); err != nil {
		t.Errorf("a prediction of 2e8 with u0 = 500: %v", err)
	}
}

// A channel without observations has no noise estimate from the data:
// --json writes its std, lo95 and hi95 as null (not the model's σ̂, nor
// the largest float for the missing upper end), and the text "—".
func TestCalibrateNoNoiseEstimateWithoutData(t *testing.T) {
	data := writeFile(t, t.TempDir(), "predators.csv", "t,prey,predator\n1,,1.1\n2,,0.9\n3,,1.2\n4,,1.0\n")
	code, out, errOut := runCLI(t, "calibrate", "--system", "lv", "--backbone", "cnp", "--data", data, "--u0", "1,1", "--samples", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var obj struct {
		Noise map[string]map[string]any `json:"noise"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"std", "lo95", "hi95"} {
		if v, ok := obj.Noise["prey"][k]; !ok || v != nil {
			t.Errorf("prey (no data) %s = %v (present %v), want null", k, v, ok)
		}
		if v, ok := obj.Noise["predator"][k].(float64); !ok || !(v < 1e300) {
			t.Errorf("predator %s = %v, want a number", k, obj.Noise["predator"][k])
		}
	}
	code, out, errOut = runCLI(t, "calibrate", "--system", "lv", "--backbone", "cnp", "--data", data, "--u0", "1,1", "--samples", "4")
	line := regexp.MustCompile(`noise σ̂ .*: prey (.*), predator (\S+) \[`).FindStringSubmatch(out)
	if code != 0 || line == nil || line[1] != "— (no data)" {
		t.Errorf("exit %d, noise line %q, want prey \"— (no data)\" and a predator estimate; stderr %q", code, line, errOut)
	}
}

// TestCalibrateU0FileStdin: --u0-file - reads the side information from
// standard input, as --data - reads the observations, and calibrates as
// the same file would; both reading stdin is refused before any work.
func TestCalibrateU0FileStdin(t *testing.T) {
	dir := t.TempDir()
	ckpts := untrained(t, dir)
	args := append([]string{"calibrate", "--checkpoint", ckpts["advdiff"], "--json"}, goodObservations(t, dir)["advdiff"]...)
	code, want, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	u0 := args[len(args)-1]
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(readText(t, u0))
	args[len(args)-1] = "-"
	code, got, stderr := runCLI(t, args...)
	if code != 0 || got != strings.ReplaceAll(want, u0, "-") {
		t.Errorf("--u0-file -: exit %d, %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	code, _, stderr = runCLI(t, "calibrate", "--system", "advdiff", "--data", "-", "--u0-file", "-")
	if code != 2 || !strings.Contains(stderr, "--data - and --u0-file - would both read stdin") {
		t.Errorf("--data - --u0-file -: exit %d, %q", code, stderr)
	}
	stdin = strings.NewReader("x,u\n0,1\n")
	code, _, stderr = runCLI(t, append(args[:len(args)-1:len(args)-1], "-")...)
	if code != 2 || !strings.Contains(stderr, stdinName+": 1 data row") {
		t.Errorf("a short --u0-file -: exit %d, %q, want the error to name %s", code, stderr, stdinName)
	}
}

// TestCalibrateNotesShaped50: under the θ table a line says that the
// 50% intervals come from the checkpoint's calibrated shape, only where
// one makes them differ from the Gaussian's ± 0.674 std (the shipped lv
// model's) and not where they are the Gaussian's (an untrained model
// without a table of scales).
func TestCalibrateNotesShaped50(t *testing.T) {
	dir := t.TempDir()
	obs := goodObservations(t, dir)
	const note = "50% intervals: the checkpoint's calibrated shape of θ's errors, not a Gaussian's ± 0.674 std"
	code, out, errOut := runCLI(t, append([]string{"calibrate", "--system", "lv"}, obs["lv"]...)...)
	if code != 0 || !strings.Contains(out, "  gamma ") || !strings.Contains(out, note) {
		t.Errorf("shipped lv model: exit %d, %s, no note under the table:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, append([]string{"calibrate", "--checkpoint", untrained(t, dir)["lv"]}, obs["lv"]...)...)
	if code != 0 || strings.Contains(out, note) {
		t.Errorf("untrained model, Gaussian intervals: exit %d, %s, a note:\n%s", code, errOut, out)
	}
}

// TestCalibrateStrayFileSuggestsData: calibrate --system spring
// spring.csv said only "unexpected argument"; an argument that names a
// file or ends in .csv now suggests --data, and any other stray
// argument, or one beside --data, stays unexpected.
func TestCalibrateStrayFileSuggestsData(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.txt", "t,y\n1,0.5\n")
	csvDir := filepath.Join(dir, "runs.csv")
	if err := os.Mkdir(csvDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{data}, `unexpected argument "` + data + `": did you mean --data ` + data + `?`},
		{[]string{"missing.CSV"}, `unexpected argument "missing.CSV": did you mean --data missing.CSV?`},
		{[]string{"missing"}, `unexpected argument "missing"` + "\n"},
		{[]string{"--data", data, "more.csv"}, `unexpected argument "more.csv"` + "\n"},
		// A directory, though named .csv, is no file for --data.
		{[]string{csvDir}, `unexpected argument "` + csvDir + `": ` + csvDir + " is a directory; --data takes a CSV file\n"},
		{[]string{dir}, `unexpected argument "` + dir + `"` + "\n"},
	} {
		code, _, errOut := runCLI(t, append([]string{"calibrate", "--system", "spring"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCalibrateRefine: --refine N runs N refinement steps, as eval's
// and compare's --refine do: 0 gives the model's one-pass prediction
// (what eval --refine 0 scores), the default the checkpoint's steps;
// the header and --json say how many ran, and a count outside the
// bound is refused naming it.
func TestCalibrateRefine(t *testing.T) {
	dir := t.TempDir()
	obs := goodObservations(t, dir)["spring"]
	m, _, err := OpenCheckpoint("embedded:spring-lnp.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	data, err := readObservations(context.Background(), obs[1], m.Sys.Grid(), core.SaneValueBound(m.Sys))
	if err != nil {
		t.Fatal(err)
	}
	side, err := calibrationSide(context.Background(), m.Sys, "", "")
	if err != nil {
		t.Fatal(err)
	}
	predict := func(refine int) core.Prediction {
		preds, err := m.PredictContext(context.Background(), []sims.Context{data}, [][]float64{side}, core.PredictOptions{Samples: 32, Seed: 1, Refine: refine})
		if err != nil {
			t.Fatal(err)
		}
		return preds[0]
	}
	steps := m.Config.Infer.Refine
	if steps == 0 {
		t.Fatal("the shipped spring-lnp does not refine: nothing to tell one pass from")
	}
	onePass, refined := predict(0), predict(steps)
	if onePass.Theta[0] == refined.Theta[0] {
		t.Fatal("one pass and refined give the same θ̂: the test would tell nothing")
	}
	for _, tc := range []struct {
		args  []string
		want  core.Prediction
		steps int
	}{
		{[]string{"--refine", "0"}, onePass, 0},
		{nil, refined, steps},
		{[]string{"--refine", "-1"}, refined, steps},
	} {
		res, raw := calibrateJSON(t, append(append([]string{"--system", "spring"}, obs...), tc.args...)...)
		got := res.Theta["omega"]
		if got.Mean != tc.want.Theta[0] || got.Std != tc.want.ThetaStd[0] {
			t.Errorf("%v: θ̂ %v ± %v, want the model's %d-step %v ± %v", tc.args, got.Mean, got.Std, tc.steps, tc.want.Theta[0], tc.want.ThetaStd[0])
		}
		if raw["refine"] != float64(tc.steps) {
			t.Errorf("%v: --json refine %v, want %d", tc.args, raw["refine"], tc.steps)
		}
	}
	code, out, errOut := runCLI(t, append([]string{"calibrate", "--system", "spring", "--refine", "0"}, obs...)...)
	if want := " · seed 1 · 0 refinement steps\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; want a header with %q:\n%.300s", code, errOut, want, out)
	}
	for v, want := range map[string]string{
		"1001": "--refine must be between 0 and 1000",
		"-2":   "--refine must be ≥ 0, or -1 for the checkpoint's setting",
	} {
		code, _, errOut := runCLI(t, append([]string{"calibrate", "--system", "spring", "--refine", v}, obs...)...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--refine %s: exit %d, stderr %q; want 2 and %q", v, code, errOut, want)
		}
	}
}

// calibrate --help says that the 95% interval of an estimate at a prior
// bound reaches the bound (core.reachBound), which its std then
// reflects.
func TestCalibrateHelpSaysIntervalReachesBound(t *testing.T) {
	usage := strings.Join(strings.Fields(commands["calibrate"].Usage), " ")
	if !strings.Contains(usage, "95% interval reaches the bound") {
		t.Errorf("calibrate's usage does not say an interval at a bound reaches it")
	}
}
