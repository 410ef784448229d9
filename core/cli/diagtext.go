package cli

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"apic/core"
)

// DiagnosticsDetail says how much of a diagnosis DiagnosticsText draws.
type DiagnosticsDetail int

const (
	// DiagnosticsCompact is the table and each parameter's summary lines.
	DiagnosticsCompact DiagnosticsDetail = iota
	// DiagnosticsBands adds the plot of the bands' (reconstruction, δ)
	// reliability curves, where a terminal has no room for θ's too.
	DiagnosticsBands
	// DiagnosticsCurves adds the plots of the bands' and θ's curves.
	DiagnosticsCurves
	// DiagnosticsFull adds each parameter's two scatter plots.
	DiagnosticsFull
)

// DiagnosticsText renders a diagnosis for a terminal of the given width:
// the signed reliability table at a few levels, then per parameter its
// recovery, z-scores, contraction and SBC histogram. From
// DiagnosticsBands on, the signed reliability curves follow the table
// as line plots (the bands' only, then θ's too); DiagnosticsFull gives
// every parameter two scatter plots, θ̂ against θ and contraction
// against z-score. The explorer shows the most that fits its panel area.
func DiagnosticsText(d core.Diagnostics, width int, detail DiagnosticsDetail, color bool) string {
	var b strings.Builder
	if line := failureLine(d.Failures, d.Tasks); line != "" {
		b.WriteString("failures: " + line + "\n") // as eval labels it
	}
	if v := verdictLines(d); v != "" {
		b.WriteString(v + "\n")
	}
	b.WriteString(reliabilityTable(d))
	if detail >= DiagnosticsBands {
		if plot := reliabilityPlot(d, width, color, detail >= DiagnosticsCurves); plot != "" {
			b.WriteString("\n" + plot)
		}
	}
	for _, th := range d.Theta {
		b.WriteString("\n")
		b.WriteString(thetaSummary(th))
		if detail >= DiagnosticsFull {
			b.WriteString(thetaScatters(th, width))
		}
	}
	return b.String()
}

// DiagnosticsSymbols is d with each parameter named by its symbol where
// the system gives one ("ω" for omega), as the explorer's sidebar names
// it, in its θ summaries and its reliability curves ("θ ω"). The
// command-line text keeps the names, as eval and calibrate print them
// (and a terminal without the symbols' glyphs can show them); d is not
// changed.
func DiagnosticsSymbols(d core.Diagnostics) core.Diagnostics {
	sym := map[string]string{}
	d.Theta = slices.Clone(d.Theta)
	for i, th := range d.Theta {
		if th.Symbol != "" {
			sym["theta:"+th.Name] = "theta:" + th.Symbol
			d.Theta[i].Name = th.Symbol
		}
	}
	d.Reliability = slices.Clone(d.Reliability)
	for i, c := range d.Reliability {
		if s, ok := sym[c.Name]; ok {
			d.Reliability[i].Name = s
		}
	}
	return d
}

// tableLevels are the reliability table's columns: a few of the 19
// levels, enough to see the curve's shape in 80 columns.
var tableLevels = []float64{0.1, 0.3, 0.5, 0.7, 0.9, 0.95}

// curveLabel is a reliability curve's row label ("θ omega").
func curveLabel(name string) string {
	if p, ok := strings.CutPrefix(name, "theta:"); ok {
		return "θ " + p
	}
	return name
}

// shortCurveLabel is curveLabel for a plot legend, which must fit six
// curves (lv) in 80 columns.
func shortCurveLabel(name string) string {
	switch name {
	case "reconstruction":
		return "recon"
	case "discrepancy":
		return "δ"
	}
	return curveLabel(name)
}

// reliabilityTable prints empirical − nominal coverage per curve at
// tableLevels and the largest |·| over all 19 levels.
func reliabilityTable(d core.Diagnostics) string {
	var b strings.Builder
	b.WriteString("reliability: empirical − nominal coverage of central intervals\n")
	b.WriteString("(below 0: intervals too narrow, over-confident; above 0: too wide)\n")
	if d.ThetaShaped {
		b.WriteString("(θ: intervals of the checkpoint's calibrated shape; apic diagnose --gaussian-theta scores θ̂ ± z σ_θ)\n")
	}
	if d.BandsShaped {
		b.WriteString("(recon, δ: bands of the checkpoint's calibrated shape; --gaussian-bands scores μ ± z σ)\n")
	}
	b.WriteString(signedRows(d, tableLevels, curveLabel, 15))
	return b.String()
}

// signedRows is the reliability table's level row and one row per curve
// (labelled by label in width columns), two leading spaces.
func signedRows(d core.Diagnostics, levels []float64, label func(string) string, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-*s", width, "level")
	for _, p := range levels {
		fmt.Fprintf(&b, " %6.2f", p)
	}
	fmt.Fprintf(&b, "  %7s\n", "max|·|")
	for _, c := range d.Reliability {
		fmt.Fprintf(&b, "  %-*s", width, truncate(label(c.Name), width))
		for _, p := range levels {
			fmt.Fprintf(&b, " %s", signed6(levelValue(d.Levels, c.Signed, p)))
		}
		worst := -1.0
		for _, s := range c.Signed {
			if !math.IsNaN(s) {
				worst = max(worst, math.Abs(s))
			}
		}
		if worst < 0 { // nothing counted
			worst = math.NaN()
		}
		fmt.Fprintf(&b, "  %7s\n", fixed(worst, 3))
	}
	return b.String()
}

// DiagnosticsPanel is the diagnosis in DiagnosticsPanelWidth columns,
// for the explorer's panel area on an 80-column terminal: the signed
// reliability at four levels, then two lines per parameter.
func DiagnosticsPanel(d core.Diagnostics) string {
	var b strings.Builder
	b.WriteString(verdictBrief(d))
	b.WriteString("coverage − nominal (< 0: over-confident)\n")
	// Labels of 8 hold "θ " and a 6-letter name ("θ kappa"); the
	// table's rows are then DiagnosticsPanelWidth wide.
	b.WriteString(signedRows(d, []float64{0.1, 0.5, 0.9, 0.95}, shortCurveLabel, 8))
	for _, th := range d.Theta {
		zs, con, outside := finiteZ(th)
		fmt.Fprintf(&b, "θ %s: cover95 %s", truncate(th.Name, 8), fixed(float64(th.Cover95), 2))
		if len(zs) == 0 {
			b.WriteString(", no spread\n")
			continue
		}
		fmt.Fprintf(&b, ", contraction %s\n", fixed(median(con), 2))
		fmt.Fprintf(&b, "  z̃ %s, |z|>2 %.0f%%, SBC |%s| %s\n", signed2(median(zs)), 100*float64(outside)/float64(len(zs)),
			histogramBars(th.SBC.Counts), sbcBrief(th.SBC, ""))
	}
	return b.String()
}

// DiagnosticsPanelWidth is the width of DiagnosticsPanel's table: the
// explorer's panel area at 80 columns (48) less the blank column it
// leaves beside the sidebar's border. The lines of words may be longer,
// for the explorer to wrap; the table's must not be.
const DiagnosticsPanelWidth = 47

// finiteZ is a parameter's z-scores and contractions where it has a
// posterior spread, and how many of those z lie beyond ±2.
func finiteZ(th core.ThetaDiagnostic) (zs, con []float64, outside int) {
	for i, z := range th.ZScore {
		if math.IsNaN(z) {
			continue
		}
		zs, con = append(zs, z), append(con, th.Contraction[i])
		if math.Abs(z) > 2 {
			outside++
		}
	}
	return zs, con, outside
}

// levelValue is values at the level nearest p.
func levelValue(levels []float64, values []float64, p float64) float64 {
	best := 0
	for i, l := range levels {
		if math.Abs(l-p) < math.Abs(levels[best]-p) {
			best = i
		}
	}
	if best >= len(values) {
		return math.NaN()
	}
	return values[best]
}

// signed6 is v with its sign in six columns, "   n/a" when NaN.
func signed6(v float64) string {
	if math.IsNaN(v) {
		return "   n/a"
	}
	return fmt.Sprintf("%+6.3f", v)
}

// fixed is v with the given decimals, "n/a" when NaN.
func fixed(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	out := fmt.Sprintf("%.*f", decimals, v)
	if strings.Trim(out, "-0.") == "" { // -0.00: a tiny negative is no sign
		out = strings.TrimPrefix(out, "-")
	}
	return out
}

// truncate cuts s to n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// reliabilityPlot draws the signed reliability curves against the
// nominal level: the function bands' (reconstruction, δ) in one plot and,
// with withTheta, θ's in another, each on its own vertical range, so
// that the bands' curves, usually within a few hundredths of zero, are
// not flattened onto one row by θ's wider ones.
func reliabilityPlot(d core.Diagnostics, width int, color, withTheta bool) string {
	var bands, theta []core.ReliabilityCurve
	for _, c := range d.Reliability {
		if strings.HasPrefix(c.Name, "theta:") {
			if withTheta {
				theta = append(theta, c)
			}
		} else {
			bands = append(bands, c)
		}
	}
	var b strings.Builder
	for _, part := range []struct {
		title  string
		curves []core.ReliabilityCurve
	}{
		{"signed reliability of the bands against nominal level", bands},
		{"signed reliability of θ's intervals against nominal level", theta},
	} {
		if len(part.curves) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(curvesPlot(part.title, part.curves, d.Levels, width, color))
	}
	return b.String()
}

// curvesPlot is one plot of signed reliability curves, its vertical
// range the smallest of ±0.05, ±0.1, ±0.2, … ±1 that holds them all.
// The first curve is a solid line drawn over the others: where they
// coincide the later ones' marks would hide it.
func curvesPlot(title string, curves []core.ReliabilityCurve, levels []float64, width int, color bool) string {
	var series []Series
	span := 0.05
	for i, c := range curves {
		series = append(series, Series{Name: shortCurveLabel(c.Name), Values: c.Signed, Under: i > 0})
		for _, s := range c.Signed {
			if !math.IsNaN(s) {
				span = max(span, math.Abs(s))
			}
		}
	}
	if span > 0.05 {
		span = min(1, math.Ceil(span*10)/10)
	}
	lp := LinePlot{Title: title, Width: max(20, min(64, width-12)), Height: 8,
		XLo: levels[0], XHi: levels[len(levels)-1], YLo: -span, YHi: span, Color: color}
	return lp.Render(series...)
}

// thetaSummary is a parameter's lines: recovery and coverage, z-score
// and contraction, and the SBC histogram with its chi-square test.
func thetaSummary(th core.ThetaDiagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "θ %s (prior U(%.4g, %.4g))\n", th.Name, th.PriorLo, th.PriorHi)
	zs, con, outside := finiteZ(th)
	fmt.Fprintf(&b, "  MAE %.4g, cover95 %s", thetaMAE(th), fixed(float64(th.Cover95), 2))
	if len(zs) == 0 {
		b.WriteString(" (point estimates: no posterior spread to diagnose)\n")
		return b.String()
	}
	// The median and the share beyond 2 are robust to the few huge z of
	// near point estimates, which would swamp a mean and deviation.
	fmt.Fprintf(&b, ", median contraction %s\n", fixed(median(con), 2))
	fmt.Fprintf(&b, "  z median %s, |z| > 2 in %.0f%% (calibrated: 0 and 5%%)\n", signed2(median(zs)), 100*float64(outside)/float64(len(zs)))
	fmt.Fprintf(&b, "  SBC ranks |%s| %s %s\n", histogramBars(th.SBC.Counts), sbcShape(th.SBC.Counts), sbcTest(th.SBC))
	return b.String()
}

// thetaMAE is th.MAE(), 0 for no realizations.
func thetaMAE(th core.ThetaDiagnostic) float64 {
	if mae := th.MAE(); !math.IsNaN(mae) {
		return mae
	}
	return 0
}

// sbcTest is "χ² 2.7 on 4 df, p = 0.61", or why core withheld the test
// ("(too few realizations for the χ² test: 4, it needs 10)").
func sbcTest(s core.SBCHistogram) string {
	if s.PValueWithheld != "" {
		return "(" + s.PValueWithheld + ")"
	}
	return fmt.Sprintf("χ² %.1f on %d df, %s", float64(s.ChiSquare), s.DF, pValue(float64(s.PValue)))
}

// sbcBrief is sbcTest in a few characters, for the explorer's narrow
// panel and the figure's title: label and the p-value ("χ² p = 0.61"
// with label "χ² "), or "too few for χ²" where core withheld it.
func sbcBrief(s core.SBCHistogram, label string) string {
	if s.PValueWithheld != "" {
		return "too few for χ²"
	}
	return label + pValue(float64(s.PValue))
}

// pValue is "p = 0.031" with two significant digits, "p < 1e-6" below.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p n/a"
	case p < 1e-6:
		return "p < 1e-6"
	}
	return fmt.Sprintf("p = %.2g", p)
}

// histBars are the nine heights of a histogram bar, from empty.
var histBars = []rune(" ▁▂▃▄▅▆▇█")

// histogramBars draws counts as one bar character each, scaled from zero
// to the largest count.
func histogramBars(counts []int) string {
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	for _, c := range counts {
		k := 0
		if top > 0 {
			k = int(math.Round(float64(c) / float64(top) * float64(len(histBars)-1)))
		}
		b.WriteRune(histBars[k])
	}
	return b.String()
}

// sbcPattern is what a rank histogram's shape says, the standard
// reading of SBC: a U (truth in both tails) is an over-confident
// posterior, a hump an under-confident one, a slope a biased one.
type sbcPattern int

const (
	sbcUnread sbcPattern = iota // no shape stands out, or too few bins
	sbcTooFew                   // too few realizations to read
	sbcU                        // over-confident
	sbcHump                     // under-confident
	sbcAbove                    // θ̂ above θ
	sbcBelow                    // θ̂ below θ
)

// String is the pattern as the text report shows it beside the bars.
func (p sbcPattern) String() string {
	return [...]string{"", "(too few realizations to read)", "U: over-confident", "∩: under-confident", "slope: θ̂ above θ", "slope: θ̂ below θ"}[p]
}

// sbcShape reads the pattern of a rank histogram's counts.
func sbcShape(counts []int) sbcPattern {
	n := len(counts)
	if n < 4 {
		return sbcUnread
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if total < 2*n {
		return sbcTooFew
	}
	e := float64(total) / float64(n)
	q := n / 4
	sum := func(cs []int) float64 {
		s := 0
		for _, c := range cs {
			s += c
		}
		return float64(s) / (float64(len(cs)) * e)
	}
	left, right, mid := sum(counts[:q]), sum(counts[n-q:]), sum(counts[q:n-q])
	switch {
	case left > 1.5 && right > 1.5:
		return sbcU
	case mid > 1.3 && left < 0.6 && right < 0.6:
		return sbcHump
	case left > 1.5 && right < 0.6:
		return sbcAbove
	case right > 1.5 && left < 0.6:
		return sbcBelow
	}
	return sbcUnread
}

// thetaScatters draws θ̂ against θ (with the diagonal) beside contraction
// against z-score, side by side when the width allows.
func thetaScatters(th core.ThetaDiagnostic, width int) string {
	// Two plots of w columns, their axis labels (up to 6) and a gap of
	// 4 fit side by side in 2w + 18 columns.
	w := max(20, min(40, (width-18)/2))
	rec := ScatterPlot{Title: "estimate against truth", Width: w, Height: 8,
		XLo: th.PriorLo, XHi: th.PriorHi, YLo: th.PriorLo, YHi: th.PriorHi, Diagonal: true,
		XName: "true θ", YName: "θ̂"}.Render(th.Truth, th.Estimate)
	// The axes stop where the figure's do; points beyond sit on the edge.
	zlim, cmin := 3.0, 0.0
	for i, z := range th.ZScore {
		if !math.IsNaN(z) {
			zlim = max(zlim, math.Ceil(math.Min(math.Abs(z), zAxisMax)))
			cmin = min(cmin, max(th.Contraction[i], contractionAxisMin))
		}
	}
	con := ScatterPlot{Title: "contraction against z-score", Width: w, Height: 8,
		XLo: -zlim, XHi: zlim, YLo: cmin, YHi: 1,
		XName: "z = (θ̂ − θ)/σ", YName: "contraction"}.Render(th.ZScore, th.Contraction)
	// One legend for both: their cells count alike.
	legend := "  realizations per cell: " + ScatterGlyphs + "; · θ̂ = θ\n"
	if width < 2*w+18 {
		return rec + con + legend
	}
	return sideBySide(rec, con, 4) + legend
}

// sideBySide joins two blocks of lines with gap spaces between them.
func sideBySide(a, b string, gap int) string {
	la, lb := strings.Split(strings.TrimRight(a, "\n"), "\n"), strings.Split(strings.TrimRight(b, "\n"), "\n")
	w := 0
	for _, l := range la {
		w = max(w, displayWidth(l))
	}
	var out strings.Builder
	for i := range max(len(la), len(lb)) {
		left, right := "", ""
		if i < len(la) {
			left = la[i]
		}
		if i < len(lb) {
			right = lb[i]
		}
		line := left
		if right != "" {
			line += strings.Repeat(" ", w-displayWidth(left)+gap) + right
		}
		out.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return out.String()
}

// median is the middle value of xs (the mean of the middle two for an
// even count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// signed2 is x with a sign and two decimals, a value that rounds to
// zero printed +0.00, not -0.00.
func signed2(x float64) string {
	if math.Abs(x) < 0.005 {
		x = 0
	}
	return fmt.Sprintf("%+.2f", x)
}
