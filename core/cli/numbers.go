package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"apic/core"
)

// parseNumber parses one number of an input file (observation CSVs,
// side-information CSVs) or of a number flag (--theta, --u0). Every
// system reads numbers by this one grammar:
//
//	number   = [sign] mantissa [exponent]
//	mantissa = digits ["." [digits]] | "." digits
//	exponent = ("e" | "E") [sign] digits
//	sign     = "+" | "-"
//	digits   = one or more of 0-9
//
// so -1.5, 2e-3, .5, 5. and +1E+2 are numbers. What Go's strconv would
// add is refused, since no spreadsheet or CSV writer means it: digit
// separators (1_0), hexadecimal (0x1p1), and NaN, Inf and Infinity in
// any case, which are no measurement. A literal beyond the float64
// range (1e999) is refused too, and so is a nonzero one below its
// smallest magnitude (1e-400), which would read as 0: a measurement of
// 0 is not what its writer meant. Leading and trailing spaces are the
// caller's to trim.
func parseNumber(text string) (float64, error) {
	if !numberSyntax(text) {
		if _, word := nonFinite(text); word {
			return 0, fmt.Errorf("%s is not a finite number (NaN and Inf are refused)", core.QuoteInput(text))
		}
		return 0, fmt.Errorf("%s is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)%s%s", core.QuoteInput(text), minusHint(text), fortranExponentHint(text))
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// numberSyntax admits only what ParseFloat reads.
		return 0, fmt.Errorf("%s is not a number: %w", core.QuoteInput(text), err)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a finite number (beyond ±%g)", core.QuoteInput(text), math.MaxFloat64)
	}
	if v == 0 && core.NonzeroMantissa(text) {
		return 0, fmt.Errorf("%s is too small: it is nonzero but below float64's smallest magnitude (%g), so it would read as 0", core.QuoteInput(text), math.SmallestNonzeroFloat64)
	}
	if v == 0 {
		v = 0 // -0 is 0: "-0" would be shown and saved
	}
	return v, nil
}

// becauseOf is ": " and err's words, to follow a refusal that states
// the rule a value breaks with why it was not read as a number; "" for
// a nil err, where the number was read and its range is what is wrong.
// "1e-400", too small to read, would otherwise look inside 0 ≤ σ.
func becauseOf(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// typographicMinus are the dashes that word processors and PDFs set
// for a minus sign (U+2212 minus, U+2013 en dash, U+2012 figure dash,
// U+2010 hyphen): a number copied from a paper or a report has them.
const typographicMinus = "\u2212\u2013\u2012\u2010"

// minusHint says, as "; ...", that text would be a number with ASCII
// minus signs in place of its typographic dashes, or returns "": the
// two look alike, and "not a number" alone would leave the reader
// staring at a number.
func minusHint(text string) string {
	if !strings.ContainsAny(text, typographicMinus) {
		return ""
	}
	ascii := strings.Map(func(r rune) rune {
		if strings.ContainsRune(typographicMinus, r) {
			return '-'
		}
		return r
	}, text)
	if !numberSyntax(ascii) {
		return ""
	}
	return fmt.Sprintf("; its minus sign is a typographic dash, not the ASCII hyphen-minus: write %s", core.QuoteInput(ascii))
}

// fortranExponentHint says, as "; ...", that text would be a number
// with its exponent marked E rather than Fortran's D (1.5D-3), which
// Fortran programs print for double precision; or returns "".
func fortranExponentHint(text string) string {
	i := strings.IndexAny(text, "dD")
	if i < 0 {
		return ""
	}
	e := text[:i] + "e" + text[i+1:]
	if !numberSyntax(e) {
		return ""
	}
	return fmt.Sprintf("; Fortran's D exponent is not read: write %s", core.QuoteInput(e))
}

// nonFinite reads NaN, Inf and Infinity (any case, one optional
// sign), which parseNumber refuses: a float flag hands them on, for its
// command to refuse with the flag's own range ("--lr must be finite and
// > 0, got NaN"), as it did before flags read decimal only.
func nonFinite(text string) (float64, bool) {
	word, sign := text, 1
	if word != "" && (word[0] == '+' || word[0] == '-') {
		if word[0] == '-' {
			sign = -1
		}
		word = word[1:]
	}
	switch strings.ToLower(word) {
	case "nan":
		return math.NaN(), true
	case "inf", "infinity":
		return math.Inf(sign), true
	}
	return 0, false
}

// numberSyntax reports whether text is a number in parseNumber's grammar.
func numberSyntax(text string) bool {
	i := 0
	if i < len(text) && (text[i] == '+' || text[i] == '-') {
		i++
	}
	intDigits := countDigits(text[i:])
	i += intDigits
	fracDigits := 0
	if i < len(text) && text[i] == '.' {
		i++
		fracDigits = countDigits(text[i:])
		i += fracDigits
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			i++
		}
		expDigits := countDigits(text[i:])
		if expDigits == 0 {
			return false
		}
		i += expDigits
	}
	return i == len(text)
}

// countDigits counts the ASCII digits s starts with.
func countDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
