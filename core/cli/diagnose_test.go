package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
)

// diagnoseJSON runs diagnose --json and decodes its object.
func diagnoseJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"diagnose", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("diagnose %v: exit %d, stderr %q", args, code, errOut)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return obj
}

func TestDiagnoseJSONKeys(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	obj := diagnoseJSON(t, "--checkpoint", ckpt, "--tasks", "12", "--context", "8", "--noise", "0.02", "--seed", "3", "--samples", "4")
	want := []string{"backbone", "bands_shaped", "checkpoint", "checkpoint_sha256", "context", "failures", "levels", "noise", "refine", "reliability", "samples", "seed", "system", "tasks", "theta", "theta_shaped", "warnings"}
	if got := sortedKeys(obj); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys %v, want %v", got, want)
	}
	if obj["tasks"] != 12.0 || obj["context"] != 8.0 || obj["noise"] != 0.02 || obj["seed"] != 3.0 {
		t.Errorf("header tasks %v context %v noise %v seed %v", obj["tasks"], obj["context"], obj["noise"], obj["seed"])
	}
	if n := len(obj["levels"].([]any)); n != 19 {
		t.Errorf("%d levels, want 19 (0.05…0.95)", n)
	}
	var names []string
	for _, c := range obj["reliability"].([]any) {
		curve := c.(map[string]any)
		names = append(names, curve["name"].(string))
		if got := sortedKeys(curve); !contains(got, "empirical") || !contains(got, "signed") || !contains(got, "values") {
			t.Errorf("curve %s keys %v", curve["name"], got)
		}
	}
	if strings.Join(names, ",") != "reconstruction,discrepancy,theta:omega" {
		t.Errorf("curves %v", names)
	}
	th := obj["theta"].([]any)[0].(map[string]any)
	want = []string{"contraction", "contraction_median", "cover95", "estimate", "mae", "name", "prior_hi", "prior_lo", "sbc", "std", "symbol", "truth",
		"verdict", "z_beyond_2", "z_median", "z_score"}
	if got := sortedKeys(th); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("theta keys %v, want %v", got, want)
	}
	if n := len(th["truth"].([]any)); n != 12 {
		t.Errorf("%d truths, want one per realization (12)", n)
	}
	sbc := th["sbc"].(map[string]any)
	if got := sortedKeys(sbc); strings.Join(got, ",") != "chi_square,counts,df,draws,p_value" {
		t.Errorf("sbc keys %v", got)
	}
}

// diagnose --json carries each θ's verdict and the summary numbers the
// text prints, with the same values, so a script need not recompute
// them from the per-realization arrays.
func TestDiagnoseJSONSummaryMatchesText(t *testing.T) {
	args := []string{"--system", "spring", "--tasks", "20", "--samples", "4"}
	obj := diagnoseJSON(t, args...)
	code, text, errOut := runCLI(t, append([]string{"diagnose"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	th := obj["theta"].([]any)[0].(map[string]any)
	verdict := th["verdict"].(string)
	if verdict == "calibrated" {
		verdict = "calibrated within sampling error"
	}
	for _, w := range []string{
		"verdict θ omega: " + verdict + ",",
		fmt.Sprintf("MAE %.4g, cover95 %.2f, median contraction %.2f", th["mae"], th["cover95"], th["contraction_median"]),
		fmt.Sprintf("z median %s, |z| > 2 in %.0f%%", signed2(th["z_median"].(float64)), 100*th["z_beyond_2"].(float64)),
	} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q, which the JSON gives:\n%s", w, text)
		}
	}
}

// Point estimates have no z-scores: their summary says so, and the
// medians are JSON's "NaN", not a number that was never measured.
func TestDiagnoseJSONPointEstimates(t *testing.T) {
	nan := math.NaN()
	th := core.ThetaDiagnostic{Name: "omega", Truth: core.JSONFloats{5, 6}, Estimate: core.JSONFloats{5.5, 6},
		Std: core.JSONFloats{0, 0}, Contraction: core.JSONFloats{nan, nan}, ZScore: core.JSONFloats{nan, nan}}
	got := newThetaJSON(th)
	if got.Verdict != "point estimates" || float64(got.MAE) != 0.25 {
		t.Errorf("verdict %q, mae %v; want point estimates, 0.25", got.Verdict, got.MAE)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"z_median":"NaN"`, `"z_beyond_2":"NaN"`, `"contraction_median":"NaN"`} {
		if !strings.Contains(string(data), w) {
			t.Errorf("JSON lacks %s: %s", w, data)
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// The terminal report names every section, and the embedded checkpoint
// (the default for --system) runs as eval's does.
func TestDiagnoseText(t *testing.T) {
	code, out, errOut := runCLI(t, "diagnose", "--system", "spring", "--tasks", "10", "--samples", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"Damped spring · LNP · embedded:", "10 realizations, context 30, noise 0, seed 1", "reliability: empirical − nominal",
		"reconstruction", "discrepancy", "θ omega", "signed reliability", "cover95", "SBC ranks", "χ²", "estimate against truth", "contraction against z-score"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr %q, want nothing when it is not a terminal", errOut)
	}
}

// A condition outside the training range gets eval's warnings, in the
// text and in JSON; one inside it an empty list.
func TestDiagnoseRangeWarnings(t *testing.T) {
	code, out, errOut := runCLI(t, "diagnose", "--system", "spring", "--backbone", "cnp", "--refine", "0", "--tasks", "4", "--context", "1", "--noise", "0.5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"warning: only 1 context point", "warning: noise σ = 0.5 is more than the model was trained on"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	obj := diagnoseJSON(t, "--system", "spring", "--backbone", "cnp", "--refine", "0", "--tasks", "4", "--noise", "0.5")
	// At σ = 0.5, five times its training's, the model's one-pass θ̂ is
	// no better than the prior's centre, which a second warning says.
	if ws, ok := obj["warnings"].([]any); !ok || len(ws) == 0 || len(ws) > 2 || !strings.Contains(fmt.Sprint(ws[0]), "noise σ = 0.5") {
		t.Errorf("JSON warnings %v, want the noise's", obj["warnings"])
	}
	obj = diagnoseJSON(t, "--system", "spring", "--backbone", "cnp", "--refine", "0", "--tasks", "4")
	if ws, ok := obj["warnings"].([]any); !ok || len(ws) != 0 {
		t.Errorf("JSON warnings %v inside the training range, want []", obj["warnings"])
	}
}

// The shipped checkpoints' θ intervals have a calibrated shape, which
// diagnose says it scores; --gaussian-theta scores θ̂ ± z σ_θ instead,
// and the two give different θ curves but the same reconstruction.
func TestDiagnoseGaussianTheta(t *testing.T) {
	run := func(extra ...string) map[string]any {
		return diagnoseJSON(t, append([]string{"--system", "spring", "--tasks", "40", "--samples", "4"}, extra...)...)
	}
	shaped, gauss := run(), run("--gaussian-theta")
	if shaped["theta_shaped"] != true || gauss["theta_shaped"] != false {
		t.Fatalf("theta_shaped %v and %v, want true and false", shaped["theta_shaped"], gauss["theta_shaped"])
	}
	curve := func(v map[string]any, i int) string { return fmt.Sprint(v["reliability"].([]any)[i]) }
	if curve(shaped, 0) != curve(gauss, 0) {
		t.Errorf("the reconstruction's curve changed with --gaussian-theta")
	}
	if curve(shaped, 2) == curve(gauss, 2) {
		t.Errorf("θ's curve is the same with and without the shape: %s", curve(shaped, 2))
	}
	code, out, _ := runCLI(t, "diagnose", "--system", "spring", "--tasks", "10", "--samples", "4")
	if code != 0 || !strings.Contains(out, "calibrated shape") {
		t.Errorf("the text report does not say θ's intervals are shaped:\n%s", out)
	}
}

// The shipped files' bands have calibrated shapes, which diagnose says
// it scores; --gaussian-bands scores μ ± z σ, as eval's ECE does, and
// changes only the reconstruction's and δ's curves.
func TestDiagnoseGaussianBands(t *testing.T) {
	run := func(extra ...string) map[string]any {
		return diagnoseJSON(t, append([]string{"--system", "lv", "--backbone", "cnp", "--tasks", "20", "--samples", "4"}, extra...)...)
	}
	shaped, gauss := run(), run("--gaussian-bands")
	if shaped["bands_shaped"] != true || gauss["bands_shaped"] != false {
		t.Fatalf("bands_shaped %v and %v, want true and false", shaped["bands_shaped"], gauss["bands_shaped"])
	}
	curve := func(v map[string]any, i int) string { return fmt.Sprint(v["reliability"].([]any)[i]) }
	if curve(shaped, 1) == curve(gauss, 1) {
		t.Errorf("δ's curve is the same with and without the shape: %s", curve(shaped, 1))
	}
	if curve(shaped, 2) != curve(gauss, 2) {
		t.Errorf("θ's curve changed with --gaussian-bands")
	}
	code, out, _ := runCLI(t, "diagnose", "--system", "lv", "--backbone", "cnp", "--tasks", "5", "--samples", "4")
	if code != 0 || !strings.Contains(out, "bands of the checkpoint's calibrated shape") {
		t.Errorf("the text report does not say the bands are shaped:\n%s", out)
	}
}

func TestDiagnoseBadFlags(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", nil, "give --checkpoint FILE, or --system"},
		{"tasks 0", []string{"--system", "spring", "--tasks", "0"}, "--tasks must be between 1 and 2000"},
		{"tasks huge", []string{"--system", "spring", "--tasks", "5000"}, "--tasks must be between 1 and 2000"},
		{"negative noise", []string{"--system", "spring", "--noise", "-1"}, "--noise must be between 0 and 1000"},
		{"huge noise", []string{"--system", "spring", "--noise", "1e300"}, "--noise must be between 0 and 1000"},
		{"context too big", []string{"--system", "spring", "--context", "100"}, "--context 100 leaves no targets"},
		{"unknown system", []string{"--system", "nope"}, "nope"},
		{"bad backbone", []string{"--system", "spring", "--backbone", "gp"}, "gp"},
		{"png dir missing", []string{"--checkpoint", ckpt, "--png", filepath.Join(dir, "no", "f.png")}, "--png"},
		{"png is dir", []string{"--checkpoint", ckpt, "--png", dir}, "is a directory"},
		{"png is checkpoint", []string{"--checkpoint", ckpt, "--png", ckpt}, "is the --checkpoint file"},
		{"stray argument", []string{"--system", "spring", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"diagnose"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

func TestDiagnoseHelp(t *testing.T) {
	code, out, _ := runCLI(t, "diagnose", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"usage: apic diagnose", "reliability", "SBC", "contraction", "--tasks", "--png", "--json", "--context", "--noise", "--seed", "at most 2000", "latent samples, at most 10000"} {
		if !strings.Contains(out, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	_, list, _ := runCLI(t, "help")
	if !strings.Contains(list, "diagnose") {
		t.Error("the command list lacks diagnose")
	}
}

// --png writes a decodable PNG beside the text (or the JSON), and
// leaves no temporary file behind.
func TestDiagnosePNG(t *testing.T) {
	dir := t.TempDir()
	for _, system := range []string{"spring", "lv"} {
		t.Run(system, func(t *testing.T) {
			ckpt := tinyCheckpoint(t, dir, system, 0, 0)
			fig := filepath.Join(dir, system+".png")
			code, out, errOut := runCLI(t, "diagnose", "--json", "--checkpoint", ckpt, "--tasks", "6", "--samples", "2", "--context", "10", "--png", fig)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !json.Valid([]byte(out)) {
				t.Error("stdout is not JSON with --png")
			}
			data, err := os.ReadFile(fig)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			// One row of reliability panels and one per parameter.
			rows := map[string]int{"spring": 2, "lv": 5}[system]
			if cfg.Width < 1000 || cfg.Height < rows*300 {
				t.Errorf("figure %d × %d, want three panels across and %d rows", cfg.Width, cfg.Height, rows)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

// Ctrl-C during the predictions stops diagnose as an interruption, with
// no result and no figure.
func TestDiagnoseStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	fig := filepath.Join(dir, "f.png")
	ctx := &countdownCtx{Context: context.Background(), left: 3}
	var stdout, stderr bytes.Buffer
	code := Run(ctx, []string{"diagnose", "--checkpoint", ckpt, "--tasks", "100", "--samples", "2", "--png", fig}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted") || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, interrupted, no result", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(fig); err == nil {
		t.Error("an interrupted run wrote the figure")
	}
}

// The ASCII scatter counts points per cell and keeps them on the plot.
func TestScatterPlot(t *testing.T) {
	out := ScatterPlot{Width: 5, Height: 3, XLo: 0, XHi: 4, YLo: 0, YHi: 2}.Render(
		[]float64{0, 0, 4, 2, 100, 1}, []float64{0, 0, 2, 1, -5, math.NaN()})
	want := "2│    •\n" +
		" │  •\n" +
		"0│2   •\n" +
		" └─────\n" +
		"  0   4\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// fixed writes no sign on a value that rounds to zero.
func TestFixedNoNegativeZero(t *testing.T) {
	for v, want := range map[float64]string{-0.0004: "0.00", -0.004: "0.00", -0.006: "-0.01", 0.5: "0.50", math.NaN(): "n/a"} {
		if got := fixed(v, 2); got != want {
			t.Errorf("fixed(%v, 2) = %q, want %q", v, got, want)
		}
	}
}

// An axis end that is rounding noise beside the span is labelled 0.
func TestEndLabel(t *testing.T) {
	for _, c := range []struct {
		v, span float64
		want    string
	}{{-2.220446049250313e-16, 2, "0"}, {1e-5, 2e-5, "1e-05"}, {0.5, 1, "0.5"}, {-1.25, 3, "-1.25"}} {
		if got := endLabel(c.v, c.span); got != c.want {
			t.Errorf("endLabel(%g, %g) = %q, want %q", c.v, c.span, got, c.want)
		}
	}
}

// The bands' reliability curves get a plot of their own range: δ's
// curve, a few hundredths from the reconstruction's, is not flattened
// onto its row (and hidden under it) by θ's curve far from zero.
func TestReliabilityPlotSeparatesBands(t *testing.T) {
	levels := make([]float64, 19)
	recon, delta, theta := make(core.JSONFloats, 19), make(core.JSONFloats, 19), make(core.JSONFloats, 19)
	for i := range levels {
		levels[i] = 0.05 * float64(i+1)
		recon[i], delta[i], theta[i] = -0.04, 0.03, -0.5*levels[i]
	}
	d := core.Diagnostics{Levels: levels, Reliability: []core.ReliabilityCurve{
		{Name: "reconstruction", Signed: recon}, {Name: "discrepancy", Signed: delta}, {Name: "theta:omega", Signed: theta},
	}}
	out := reliabilityPlot(d, 80, false, true)
	bands, thetaPart, ok := strings.Cut(out, "signed reliability of θ")
	if !ok {
		t.Fatalf("no θ plot:\n%s", out)
	}
	for _, want := range []string{"••••••••", "────────", "0.03", "-0.04"} {
		if !strings.Contains(bands, want) {
			t.Errorf("the bands' plot lacks %q:\n%s", want, bands)
		}
	}
	if strings.Contains(bands, "θ omega") || !strings.Contains(thetaPart, "θ omega") {
		t.Errorf("θ's curve is not in its own plot:\n%s", out)
	}
}

// The SBC χ² test is reported only with five realizations per bin on
// average; below, every output says there are too few: the text's
// line, the explorer's panel and the figure's title.
func TestSBCTestNeedsEnoughRealizations(t *testing.T) {
	few := core.NewSBCHistogram([]int{1, 0, 2, 1, 0})
	if got := sbcTest(few); !strings.Contains(got, "too few realizations for the χ² test: 4, it needs 25") {
		t.Errorf("4 realizations: %q", got)
	}
	enough := core.NewSBCHistogram([]int{5, 6, 4, 5, 5})
	if got := sbcTest(enough); got != "χ² 0.4 on 4 df, p = 0.98" {
		t.Errorf("25 realizations: %q", got)
	}
	th := core.ThetaDiagnostic{Name: "omega", PriorLo: 3, PriorHi: 8, ZScore: core.JSONFloats{0.5}, Contraction: core.JSONFloats{0.9}, SBC: few}
	panel := DiagnosticsPanel(core.Diagnostics{Theta: []core.ThetaDiagnostic{th}})
	if !strings.Contains(panel, "too few for χ²") || strings.Contains(panel, "p = ") {
		t.Errorf("panel with 4 realizations gives a p-value:\n%s", panel)
	}
	p, err := sbcPanel(th)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Title.Text; got != "SBC ranks: omega (too few for χ²)" {
		t.Errorf("figure title with 4 realizations %q", got)
	}
	th.SBC = enough
	if p, _ := sbcPanel(th); p.Title.Text != "SBC ranks: omega (χ² p = 0.98)" {
		t.Errorf("figure title with 25 realizations %q", p.Title.Text)
	}
}

// diagnose --json withholds the p-value of fewer than five realizations
// per bin as its text does, saying why beside it.
func TestDiagnoseJSONWithholdsPValue(t *testing.T) {
	ckpt := tinyCheckpoint(t, t.TempDir(), "spring", 0, 0)
	args := []string{"--checkpoint", ckpt, "--tasks", "6", "--context", "8", "--samples", "2"}
	sbc := diagnoseJSON(t, args...)["theta"].([]any)[0].(map[string]any)["sbc"].(map[string]any)
	if sbc["p_value"] != "NaN" || sbc["p_value_withheld"] != "too few realizations for the χ² test: 6, it needs 10" {
		t.Errorf("6 realizations: p_value %v, p_value_withheld %v", sbc["p_value"], sbc["p_value_withheld"])
	}
	code, out, errOut := runCLI(t, append([]string{"diagnose"}, args...)...)
	if code != 0 || !strings.Contains(out, "(too few realizations for the χ² test: 6, it needs 10)") {
		t.Errorf("text (exit %d, %s) does not withhold the p-value:\n%s", code, errOut, out)
	}
}

func TestSigned2(t *testing.T) {
	for x, want := range map[float64]string{-0.001: "+0.00", 0.004: "+0.00", -0.3: "-0.30", 1.239: "+1.24"} {
		if got := signed2(x); got != want {
			t.Errorf("signed2(%v) = %q, want %q", x, got, want)
		}
	}
}

// DiagnosticsSymbols names the parameters by their symbols for the
// explorer ("θ ω", as its sidebar), keeping a parameter without one by
// name and leaving the diagnosis it was given alone: the command-line
// text names them as eval and calibrate do ("θ omega").
func TestDiagnosticsSymbols(t *testing.T) {
	levels := []float64{0.1, 0.5, 0.9, 0.95}
	curve := func(name string) core.ReliabilityCurve {
		return core.ReliabilityCurve{Name: name, Signed: core.JSONFloats{0.01, -0.02, 0.03, 0}}
	}
	d := core.Diagnostics{Levels: levels,
		Reliability: []core.ReliabilityCurve{curve("reconstruction"), curve("discrepancy"), curve("theta:omega"), curve("theta:b")},
		Theta:       []core.ThetaDiagnostic{{Name: "omega", Symbol: "ω", PriorLo: 3, PriorHi: 8}, {Name: "b", PriorLo: 0, PriorHi: 1}},
	}
	named, symbols := DiagnosticsText(d, 80, DiagnosticsCurves, false), DiagnosticsText(DiagnosticsSymbols(d), 80, DiagnosticsCurves, false)
	panel := DiagnosticsPanel(DiagnosticsSymbols(d))
	for _, c := range []struct {
		name, text string
		want, not  []string
	}{
		{"text", named, []string{"θ omega (prior", "θ omega ", "θ b "}, []string{"ω"}},
		{"symbols", symbols, []string{"θ ω (prior", "θ ω ", "θ b "}, []string{"omega"}},
		{"panel", panel, []string{"θ ω: cover95", "θ ω ", "θ b: cover95"}, []string{"omega"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.text, n) {
				t.Errorf("%s has %q:\n%s", c.name, n, c.text)
			}
		}
	}
	if d.Theta[0].Name != "omega" || d.Reliability[2].Name != "theta:omega" {
		t.Errorf("DiagnosticsSymbols changed its argument: %q, %q", d.Theta[0].Name, d.Reliability[2].Name)
	}
}

// TestDiagnoseFailsAtNoiseBeyondTraining: diagnose at a noise where
// every fit fails says so once, as eval does, without repeating the
// command's name ("apic diagnose: diagnose: …").
func TestDiagnoseFailsAtNoiseBeyondTraining(t *testing.T) {
	code, _, stderr := runCLI(t, "diagnose", "--system", "spring", "--tasks", "2", "--noise", "1000")
	want := "apic diagnose: calibrating the test realizations: all 2 realizations failed (realization 0: the fit failed at noise σ = 1000, 10000 times the top of the model's training range (σ ≤ 0.1)"
	if code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want it to start %q", code, stderr, want)
	}
}
