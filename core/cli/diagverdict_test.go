package cli

import (
	"math"
	"strings"
	"testing"

	"apic/core"
)

// verdictTheta is a parameter with a spread whose SBC ranks fell in
// counts and whose 95% intervals covered cover.
func verdictTheta(name string, counts []int, cover float64) core.ThetaDiagnostic {
	zs, con := make(core.JSONFloats, 100), make(core.JSONFloats, 100) // coverage within ±0.044 of 0.95 is chance
	for i := range zs {
		zs[i], con[i] = 0.5, 0.9
	}
	return core.ThetaDiagnostic{Name: name, PriorLo: 0, PriorHi: 1, ZScore: zs, Contraction: con,
		Cover95: core.JSONFloat(cover), SBC: core.NewSBCHistogram(counts)}
}

// The verdict reads each parameter's SBC test at 5% and says which way
// a rejected one errs, with its 95% coverage beside it.
func TestThetaVerdict(t *testing.T) {
	for _, c := range []struct {
		th   core.ThetaDiagnostic
		want string
	}{
		{verdictTheta("flat", []int{20, 21, 19, 20, 20}, 0.95), "calibrated"},
		{verdictTheta("flat, low cover", []int{20, 21, 19, 20, 20}, 0.69), "over-confident"},
		{verdictTheta("flat, high cover", []int{20, 21, 19, 20, 20}, 1), "under-confident"},
		{verdictTheta("u", []int{40, 5, 5, 5, 45}, 0.93), "over-confident"},
		{verdictTheta("hump", []int{2, 30, 40, 26, 2}, 0.97), "under-confident"},
		{verdictTheta("slope", []int{45, 30, 15, 8, 2}, 0.95), "biased, θ̂ above θ"},
		{verdictTheta("few", []int{1, 0, 2, 1, 0}, 0.95), "untested"},
		{core.ThetaDiagnostic{Name: "point", ZScore: core.JSONFloats{math.NaN()}}, "point estimates"},
	} {
		if got := thetaVerdict(c.th); got != c.want {
			t.Errorf("%s: verdict %q, want %q", c.th.Name, got, c.want)
		}
	}
}

// diagnose's text opens with the verdict, a line per parameter, and
// the explorer's narrow panel with its one-line form.
func TestDiagnosticsTextOpensWithVerdict(t *testing.T) {
	d := core.Diagnostics{Levels: []float64{0.5, 0.95}, Theta: []core.ThetaDiagnostic{
		verdictTheta("omega", []int{20, 21, 19, 20, 20}, 0.95), verdictTheta("b", []int{40, 5, 5, 5, 45}, 0.87)}}
	text := DiagnosticsText(d, 80, DiagnosticsCompact, false)
	want := "verdict θ omega: calibrated within sampling error, cover95 0.95 (SBC p = 1)\n" +
		"verdict θ b: over-confident, cover95 0.87 (SBC p < 1e-6)\n\n"
	if !strings.HasPrefix(text, want) {
		t.Errorf("text opens\n%s\nwant\n%s", text, want)
	}
	if got := DiagnosticsPanel(d); !strings.HasPrefix(got, "θ verdict: omega calibrated; b over-confident\n") {
		t.Errorf("panel opens\n%s", got)
	}
}

// The scatter plots name their axes: the y name above the y axis, the
// x name centred between the x axis's end labels (left out where they
// leave it no room).
func TestScatterPlotNamesAxes(t *testing.T) {
	out := ScatterPlot{Width: 12, Height: 2, XLo: 0, XHi: 4, YLo: 0, YHi: 2, XName: "true", YName: "est"}.Render(nil, nil)
	want := "est\n" +
		"2│\n" +
		"0│\n" +
		" └────────────\n" +
		"  0   true   4\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	narrow := ScatterPlot{Width: 5, Height: 2, XLo: 0, XHi: 4, YLo: 0, YHi: 2, XName: "true"}.Render(nil, nil)
	if strings.Contains(narrow, "true") {
		t.Errorf("the x name squeezed between the labels:\n%s", narrow)
	}
}

// Each parameter's scatter plots end with a legend of their glyphs.
func TestThetaScattersHaveLegend(t *testing.T) {
	th := verdictTheta("omega", []int{20, 21, 19, 20, 20}, 0.95)
	th.Truth, th.Estimate = core.JSONFloats{0.5}, core.JSONFloats{0.5}
	out := thetaScatters(th, 80)
	for _, want := range []string{"true θ", "θ̂    ", "contraction", "z = (θ̂ − θ)/σ", "realizations per cell: • 1, 2–9 that many, * 10 or more; · θ̂ = θ"} {
		if !strings.Contains(out, want) {
			t.Errorf("scatters lack %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if displayWidth(l) > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
	}
}

// A verdict the SBC ranks' shape decided, with a coverage within
// sampling error of 0.95, says so: "under-confident, cover95 0.91" read
// as a contradiction (0.91 looks over-confident), where the coverage
// could not tell and the hump of the ranks did.
func TestVerdictSaysWhenTheRanksDecided(t *testing.T) {
	d := core.Diagnostics{Levels: []float64{0.5, 0.95}, Theta: []core.ThetaDiagnostic{
		verdictTheta("hump", []int{2, 30, 40, 26, 2}, 0.91), verdictTheta("low", []int{20, 21, 19, 20, 20}, 0.69)}}
	got := verdictLines(d)
	for _, want := range []string{
		"verdict θ hump: under-confident, by the SBC ranks' shape (SBC p < 1e-6); cover95 0.91 is within sampling error of 0.95\n",
		"verdict θ low: over-confident, cover95 0.69 (SBC p = 1)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}
