package cli

import (
	"fmt"
	"math"
	"strings"

	"apic/core"
)

// sbcLevel is the significance level at which a diagnosis's verdict
// reads the SBC χ² test: the conventional 5%, which the verdict's
// heading states.
const sbcLevel = 0.05

// coverSlack is how far a calibrated θ's 95% coverage over n
// realizations strays by chance: the grey band of diagnose's figure
// (addSEBand) at 0.95.
func coverSlack(n int) float64 { return twoBinomialSE(0.95, n) }

// twoBinomialSE is two standard errors of a share q measured over n
// draws, 2·√(q(1 − q)/n): how far a calibrated coverage strays by
// chance.
func twoBinomialSE(q float64, n int) float64 {
	return 2 * math.Sqrt(q*(1-q)/float64(n))
}

// thetaVerdict is a parameter's calibration in a word or three, from
// the statistics the diagnosis already has: "point estimates" without
// a spread; over- or under-confident where the 95% coverage lies
// beyond coverSlack of 0.95; else, where the SBC test rejects uniform
// ranks at sbcLevel, what the histogram's shape reads (sbcShape), and
// "calibrated" where it does not; "untested" where core withheld the
// test. The coverage comes first: it is the number the line shows, and
// an interval that holds 0.69 of the truths is over-confident whatever
// a test on few realizations cannot reject.
func thetaVerdict(th core.ThetaDiagnostic) string {
	zs, _, _ := finiteZ(th)
	if len(zs) == 0 {
		return "point estimates"
	}
	if !coverWithinSlack(th) {
		if float64(th.Cover95) < 0.95 {
			return "over-confident"
		}
		return "under-confident"
	}
	switch {
	case th.SBC.PValueWithheld != "":
		return "untested"
	case !(float64(th.SBC.PValue) < sbcLevel):
		return "calibrated"
	}
	switch sbcShape(th.SBC.Counts) {
	case sbcU:
		return "over-confident"
	case sbcHump:
		return "under-confident"
	case sbcAbove:
		return "biased, θ̂ above θ"
	case sbcBelow:
		return "biased, θ̂ below θ"
	}
	return "miscalibrated"
}

// coverWithinSlack is whether th's 95% coverage lies within coverSlack
// of 0.95 over its realizations with a z-score, where chance alone
// could have put it.
func coverWithinSlack(th core.ThetaDiagnostic) bool {
	zs, _, _ := finiteZ(th)
	return math.Abs(float64(th.Cover95)-0.95) <= coverSlack(len(zs))
}

// verdictLines are a diagnosis's summary, a line per parameter
// (thetaVerdict; the --help and the explorer's ? say what decides it):
// "verdict θ omega: calibrated within sampling error, cover95 0.97
// (SBC p = 0.56)".
func verdictLines(d core.Diagnostics) string {
	var b strings.Builder
	for _, th := range d.Theta {
		cover := fmt.Sprintf("cover95 %s", fixed(float64(th.Cover95), 2))
		sbc := "SBC " + pValue(float64(th.SBC.PValue))
		switch v := thetaVerdict(th); v {
		case "point estimates":
			fmt.Fprintf(&b, "verdict θ %s: point estimates, no intervals to judge\n", th.Name)
		case "untested":
			fmt.Fprintf(&b, "verdict θ %s: %s; too few realizations for the SBC test\n", th.Name, cover)
		case "calibrated":
			fmt.Fprintf(&b, "verdict θ %s: calibrated within sampling error, %s (%s)\n", th.Name, cover, sbc)
		default:
			if coverWithinSlack(th) {
				// The SBC ranks' shape decided, not the coverage beside
				// it: "under-confident, cover95 0.91" would read as a
				// contradiction.
				fmt.Fprintf(&b, "verdict θ %s: %s, by the SBC ranks' shape (%s); %s is within sampling error of 0.95\n", th.Name, v, sbc, cover)
				continue
			}
			fmt.Fprintf(&b, "verdict θ %s: %s, %s (%s)\n", th.Name, v, cover, sbc)
		}
	}
	return b.String()
}

// verdictBrief is the verdict in one line for the explorer's narrow
// panel: the parameters grouped by their verdict, "θ verdict: ω α
// over-confident; η calibrated".
func verdictBrief(d core.Diagnostics) string {
	var order []string
	names := map[string][]string{}
	for _, th := range d.Theta {
		v := thetaVerdict(th)
		if names[v] == nil {
			order = append(order, v)
		}
		names[v] = append(names[v], th.Name)
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = strings.Join(names[v], " ") + " " + v
	}
	return "θ verdict: " + strings.Join(parts, "; ") + "\n"
}
