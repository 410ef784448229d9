package tui

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"apic/core"
	"apic/sims"
)

// thetaControl is one parameter's row of the θ readout: the estimate
// θ̂ ± σ, the true value, and the teaching control — a hand-set value that
// replaces θ̂ for the simulator and the correction network ("auto" uses
// the estimate). ←/→ move the set value over a 20-step ladder across the
// prior range, starting from the estimate.
type thetaControl struct {
	name   string
	sym    string // the parameter's symbol, if it has one
	lo, hi float64
	set    bool
	value  float64
}

// thetaSteps is the number of ladder steps across a parameter's prior.
const thetaSteps = 20

func newThetaControls(sys sims.System) []thetaControl {
	ps := sys.Params()
	out := make([]thetaControl, len(ps))
	for i, p := range ps {
		out[i] = thetaControl{name: p.Name, sym: p.Symbol, lo: p.Lo, hi: p.Hi}
	}
	return out
}

// step moves the set value d ladder steps; from "auto" it starts at the
// current estimate est, so that the first step goes to the rung on its
// side (γ̂ = .8139: ← .80, → .85), not one past the rung nearest it.
func (c thetaControl) step(d int, est float64) thetaControl {
	h := (c.hi - c.lo) / thetaSteps
	cur := c.value
	if !c.set {
		if math.IsNaN(est) || est <= 0 {
			est = (c.lo + c.hi) / 2
		}
		cur = est
	}
	x := (cur - c.lo) / h
	k := math.Round(x)
	switch {
	case math.Abs(x-k) < 1e-9:
		k += float64(d)
	case d < 0:
		k = math.Floor(x) + float64(d+1)
	default:
		k = math.Ceil(x) + float64(d-1)
	}
	k = math.Max(0, math.Min(thetaSteps, k))
	c.set, c.value = true, c.lo+k*h
	return c
}

// param is the parameter the row controls, with its prior box.
func (c thetaControl) param() sims.Param {
	return sims.Param{Name: c.name, Symbol: c.sym, Lo: c.lo, Hi: c.hi}
}

// nearPriorMark follows a σ that is nearly the prior's own deviation
// (core.NearPrior, diagnose's rule): θ̂ ± σ then spans about the whole
// prior box, and a truth inside it says nothing of the fit.
const nearPriorMark = "*"

// nearPriorHelp is the help's line on nearPriorMark.
const nearPriorHelp = "  " + nearPriorMark + " after σ: σ nearly the prior's, as diagnose warns: θ̂ ± σ spans the box"

// symbol is the parameter's usual symbol, or its name.
func (c thetaControl) symbol() string {
	if c.sym != "" {
		return c.sym
	}
	return c.name
}

// view draws "ω  5.12±0.20  5.43  auto" with est/σ from the prediction
// (NaN while none is on screen) and the true value.
func (c thetaControl) view(w int, focused bool, t theme, est, std, truth float64) string {
	name := padRight(c.symbol(), 2)
	estW, truthW := thetaColumns(w)
	estStd, tr := thetaFigures(est, std, truth, estW, truthW)
	if !math.IsNaN(est) && core.NearPrior(c.param(), std) {
		estStd += nearPriorMark
	}
	left := name + thetaCells(estStd, tr, estW, truthW)
	set := "auto"
	if c.set {
		set = compact(sig3(c.value)) // ".0761": a cell more for the truth
		// The row cuts its label, the truth first, where the value does
		// not fit beside it: a set value takes two digits rather than
		// cut the truth (".0566" in the small sidebar).
		if room := w - controlFrame - ansi.StringWidth(left); ansi.StringWidth(set) > room {
			set = compact(sig2(c.value))
		}
	}
	k := math.Round((c.value - c.lo) / ((c.hi - c.lo) / thetaSteps))
	return controlRow(t, w, focused, left, set, !c.set || k > 0, !c.set || k < thetaSteps)
}

// thetaColumns are the characters a θ row gives the estimate ± σ and
// the truth in a sidebar w cells wide: 11 and 6 in the small one, with
// the name, the focus marker and a set value the row is full; the large
// one has room for an estimate to one more decimal in the ± form
// ("1.13990±9e-5", "1.13990").
func thetaColumns(w int) (estW, truthW int) {
	if w >= 34 {
		return 13, 7
	}
	return 11, 6
}

// thetaHeading is the θ rows' heading in a sidebar w cells wide, each
// word over its column: "set" over a set value, which controlRow puts
// before the row's last two cells.
//
// While a run trains, θ̂ ± σ is the network's one pass, not the refined
// answer the rows show at rest (needsRefine), and onePass puts "one
// pass" over the column in place of "estimate": the metrics' heading,
// a screen lower, was the only place that said so.
func thetaHeading(w int, onePass bool) string {
	estW, _ := thetaColumns(w)
	est := "estimate±1σ"
	if onePass {
		est = "one pass±1σ"
	}
	return padRight("θ   "+padRight(est, estW)+" true", w-6) + "set"
}

// thetaCells lays the estimate ± σ and the truth out in their columns.
// A σ in parentheses (thetaFigures) is shorter than its column, and
// lends the truth what it leaves: the two then fill the columns
// together, the truth a cell or two left of the other rows'.
func thetaCells(estStd, tr string, estW, truthW int) string {
	if ansi.StringWidth(estStd) <= estW && ansi.StringWidth(tr) <= truthW {
		return padRight(estStd, estW) + " " + padRight(tr, truthW)
	}
	return padRight(estStd+" "+tr, estW+1+truthW)
}

// thetaFigures writes an estimate ± σ in at most estW characters, and
// the true value beside it in truthW, both to as many decimals as it
// takes to see σ: at three significant digits "6.53±.0017" beside a
// truth "6.54" reads as 6σ off when the two differ by 0.3σ, so the
// estimate and the truth take the decimal of σ's leading digit
// ("6.535±.002", "6.535"), and always the same decimals as each other.
// Where no ± form fits (advdiff's v at context 512, σ 9e-5: "1.13990±9e-5"
// beside "1.13990"), σ goes in parentheses as the digits of the
// estimate's last place, "1.13990(9)", the short form metrology uses,
// which lends the truth its spare cell (thetaCells); only where that
// does not fit either do the two fall back to three significant
// digits. A σ of 0 (one deterministic pass) shows as "±–": "±0" would
// read as certainty.
func thetaFigures(est, std, truth float64, estW, truthW int) (estStd, tr string) {
	if math.IsNaN(est) || !(std >= 1e-8) || tiny(est) || math.Abs(est) >= 1e4 {
		return thetaFiguresShort(est, std, truth)
	}
	lead := sigmaPlace(std)
	at3 := max(0, 2-int(math.Floor(math.Log10(math.Abs(est)))))
	at := func(d int) string { return compact(strconv.FormatFloat(est, 'f', max(d, 0), 64)) }
	truthAt := func(d int) string {
		if math.IsNaN(truth) {
			return "–"
		}
		return compact(strconv.FormatFloat(truth, 'f', max(d, 0), 64))
	}
	fits := func(es string, d int) bool {
		return len([]rune(es)) <= estW && len([]rune(truthAt(d))) <= truthW
	}
	// Fewer decimals than σ's leading one would round σ itself away.
	for d := min(max(at3, lead+1), 8); d >= max(lead, 0); d-- {
		sd := strconv.FormatFloat(std, 'f', max(d, 0), 64)
		if strings.Trim(sd, "0.") == "" {
			break // σ rounds to 0 at d decimals
		}
		if es := at(d) + "±" + compact(sd); fits(es, d) {
			return es, truthAt(d)
		}
	}
	// Short of room for σ's decimals, σ goes in parentheses rather than
	// in exponent form beside the estimate's decimals: ".01227±4e-5"
	// wrote one row in two notations.
	if lead > 0 {
		digit := strconv.FormatFloat(std*math.Pow10(lead), 'f', 0, 64)
		if es := at(lead) + "(" + digit + ")"; len([]rune(es))+1+len([]rune(truthAt(lead))) <= estW+1+truthW {
			return es, truthAt(lead)
		}
	}
	// Short of room, the truth still takes the estimate's decimals
	// where it fits: ".0509±2e-5" beside ".051" read as five σ off.
	es, tr := thetaFiguresShort(est, std, truth)
	mant, _, _ := strings.Cut(es, "±")
	if _, frac, ok := strings.Cut(mant, "."); ok && !strings.ContainsAny(es, "e") {
		if tr := truthAt(len(frac)); len([]rune(tr)) <= truthW {
			return es, tr
		}
	}
	return es, tr
}

// sigmaPlace is the decimal of σ's leading digit once σ is rounded to
// one digit: 4 for 4.1e-4, and for 9.6e-5, which rounds to 1e-4.
func sigmaPlace(std float64) int {
	lead := int(-math.Floor(math.Log10(std)))
	if math.Round(std*math.Pow10(lead)) >= 10 {
		lead--
	}
	return lead
}

// thetaFiguresShort is the estimate to three significant digits and σ
// to two (one where two would not fit: a tiny σ in a long form,
// "1.5e-6", would be cut mid-exponent), and the truth as the estimate:
// all three with exponents where one of them takes one (sigIn).
func thetaFiguresShort(est, std, truth float64) (estStd, tr string) {
	exp := needsExp(est, 3) || std != 0 && needsExp(std, 2) || needsExp(truth, 3)
	e, tr := sigIn(est, 3, exp), sigIn(truth, 3, exp)
	if std == 0 {
		return e + "±–", tr
	}
	sd := func(digits int) string {
		if exp {
			return shortExp(std, digits-1)
		}
		return shortNumber(std, digits)
	}
	es := e + "±" + sd(2)
	if len([]rune(es)) > 11 {
		es = e + "±" + sd(1)
	}
	return es, tr
}

// sigFixed is shortNumber(v, digits) with its trailing zeros kept
// (".0510", "4.20", not ".051", "4.2"): the last digit is as certain when
// it is a zero, and numbers side by side at the same significant digits
// then read alike, as %g's dropped zeros would not. Exponent forms, zero,
// infinities and "–" stay as shortNumber writes them.
func sigFixed(v float64, digits int) string {
	s := shortNumber(v, digits)
	if strings.ContainsAny(s, "e–") || v == 0 || math.IsInf(v, 0) {
		return s
	}
	d := sigDecimals(v, digits)
	if d <= 0 {
		return s
	}
	return compact(strconv.FormatFloat(v, 'f', d, 64))
}

// sig3 and sig2 print a value with three and two significant digits.
func sig3(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return formatG(v, 3)
}

func sig2(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return formatG(v, 2)
}

// formatG is v at digits significant digits (-1: as few as say it
// exactly) as %g writes it, an exponent, where it has one, in shortExp's
// short form: "1e-5" and "3e6", where %g wrote "1e-05" and "3e+06",
// a form the explorer writes nowhere else.
func formatG(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'g', digits, 64)
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign := ""
	if exp[0] == '-' {
		sign = "-"
	}
	return mant + "e" + sign + cmp.Or(strings.TrimLeft(exp[1:], "0"), "0")
}

// shortNumber is compact(v with digits significant digits), switching
// to a short exponent form below 0.0001 and where 'g' would write an
// exponent ("3.5e-5", not "3.51e-05"; "-3.7e4", not "-3.72e+04"), which
// the near-exact advdiff fits and a failed fit's log-likelihood need: at
// three digits, at most seven characters.
func shortNumber(v float64, digits int) string {
	if tiny(v) {
		return shortExp(v, min(1, digits-1))
	}
	if math.IsNaN(v) {
		return "–"
	}
	g := strconv.FormatFloat(v, 'g', digits, 64)
	if strings.Contains(g, "e+") {
		// "-3.72e+04" (or 999.7 rounded to "1e+03") is too long for the
		// sidebar.
		return shortExp(v, min(1, digits-1))
	}
	return compact(g)
}

// tiny reports a finite, non-zero v below 0.0001 in magnitude.
func tiny(v float64) bool {
	a := math.Abs(v)
	return a != 0 && a < 1e-4 && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// shortExp is v in exponent form with prec mantissa decimals and an
// unpadded exponent ("3.5e-5", not "3.5e-05").
func shortExp(v float64, prec int) string {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', prec, 64), "e")
	sign := exp[:1]
	if sign == "+" {
		sign = ""
	}
	return mant + "e" + sign + cmp.Or(strings.TrimLeft(exp[1:], "0"), "0")
}

// compact drops the leading zero of a number below one (".0123"), so the
// readout fits a narrow sidebar.
func compact(s string) string {
	switch {
	case strings.HasPrefix(s, "0."):
		return s[1:]
	case strings.HasPrefix(s, "-0."):
		return "-" + s[2:]
	}
	return s
}
