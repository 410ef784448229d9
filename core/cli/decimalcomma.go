package cli

import (
	"fmt"
	"strings"

	"apic/core"
)

// Spreadsheets in many locales write numbers with a decimal comma (0,5
// for 0.5) and export CSV either with commas between fields all the
// same, so that such a number comes out as two fields (or as one
// quoted field, "0,5"), or with semicolons between fields (0;1,5).
// parseNumber reads a decimal point only; the hints here say so when a
// row evidently holds decimal commas, and stay silent otherwise: a
// wrong hint misleads more than none.

// decimalCommaHint explains a row that the CSV reader did not split
// into want numbers because its numbers were written with decimal
// commas (0,2020,0,8560 for 0.2020 and 0.8560), or returns "". The
// row reads so when its fields, in order, group into exactly want
// numbers, each
//
//   - a whole number alone, [sign] digits (2);
//   - one field that holds a decimal comma itself, as a quoted "0,5"
//     does: [sign] digits "," digits [exponent];
//   - or two adjacent fields split at the decimal comma: a whole part,
//     [sign] digits, then a fraction part, digits [exponent] (0 and 5
//     of 0,5; 1 and 5E-03 of 1,5E-03),
//
// with at least one decimal comma among them. A field with a decimal
// point, or an exponent that follows no decimal comma, rules the row
// out: its writer used points or exponents, not decimal commas, and
// 1e-3,5,7 or 1.5,2,3 for two numbers has a stray field instead. So
// does a field count outside [want, 2·want].
func decimalCommaHint(rec []string, want int) string {
	if !groupsIntoDecimalCommaNumbers(rec, want) {
		return ""
	}
	return fmt.Sprintf("decimal commas? %s reads as %d numbers; write a decimal point (0.5, not 0,5)", core.QuoteInput(csvLine(rec)), len(rec))
}

// groupsIntoDecimalCommaNumbers reports whether rec groups into want
// numbers as decimalCommaHint describes, with at least one decimal
// comma.
func groupsIntoDecimalCommaNumbers(rec []string, want int) bool {
	k := len(rec)
	if want <= 0 || k < want || k > 2*want {
		return false
	}
	// groups[i][g]: the first i fields group into g numbers; commas[i][g]:
	// some such grouping holds a decimal comma.
	groups, commas := make([][]bool, k+1), make([][]bool, k+1)
	for i := range groups {
		groups[i], commas[i] = make([]bool, want+1), make([]bool, want+1)
	}
	groups[0][0] = true
	for i := 1; i <= k; i++ {
		for g := 1; g <= want; g++ {
			if groups[i-1][g-1] && (wholeNumber(rec[i-1]) || decimalCommaNumber(rec[i-1])) {
				groups[i][g] = true
				commas[i][g] = commas[i][g] || commas[i-1][g-1] || decimalCommaNumber(rec[i-1])
			}
			if i >= 2 && groups[i-2][g-1] && wholeNumber(rec[i-2]) && fractionPart(rec[i-1]) {
				groups[i][g], commas[i][g] = true, true
			}
		}
	}
	return groups[k][want] && commas[k][want]
}

// decimalCommaCellHint explains a cell that is a number written with a
// decimal comma (a quoted "0,5"), or returns "".
func decimalCommaCellHint(text string) string {
	if !decimalCommaNumber(text) {
		return ""
	}
	return fmt.Sprintf("decimal comma? write a decimal point (%s, not %s)", strings.Replace(text, ",", ".", 1), text)
}

// semicolonDecimalHint explains a row, as text, of want numbers that
// are separated by semicolons and written with decimal commas (0;1,5
// for 0 and 1.5), as spreadsheets export CSV where the comma is the
// decimal mark; or returns "". Each piece between semicolons must be a
// number as parseNumber reads it, without a decimal point, or one with
// a decimal comma (decimalCommaNumber), and one at least the latter.
func semicolonDecimalHint(row string, want int) string {
	pieces := strings.Split(row, ";")
	if len(pieces) != want {
		return ""
	}
	commas := 0
	for i, p := range pieces {
		p = strings.TrimSpace(p)
		switch {
		case decimalCommaNumber(p):
			commas++
			pieces[i] = strings.Replace(p, ",", ".", 1)
		case numberSyntax(p) && !strings.Contains(p, "."):
			pieces[i] = p
		default:
			return ""
		}
	}
	if commas == 0 {
		return ""
	}
	return fmt.Sprintf(`the file uses ";" between fields and "," as decimal mark; apic reads "," between fields and "." for decimals: write %s, not %s`,
		core.QuoteInput(strings.Join(pieces, ",")), core.QuoteInput(row))
}

// wholeNumber reports whether text is [sign] digits.
func wholeNumber(text string) bool {
	digits := strings.TrimLeft(text, "+-")
	return len(text)-len(digits) <= 1 && digits != "" && countDigits(digits) == len(digits)
}

// fractionPart reports whether text is what may follow a decimal
// comma: digits [exponent].
func fractionPart(text string) bool {
	return countDigits(text) > 0 && numberSyntax("0."+text)
}

// decimalCommaNumber reports whether text is a number with one decimal
// comma: [sign] digits "," digits [exponent].
func decimalCommaNumber(text string) bool {
	whole, fraction, ok := strings.Cut(text, ",")
	return ok && wholeNumber(whole) && fractionPart(fraction)
}

// csvLine writes rec back as a CSV line, quoting a field that holds a
// comma or a quote, so that a message shows the fields as read.
func csvLine(rec []string) string {
	fields := make([]string, len(rec))
	for i, f := range rec {
		fields[i] = f
		if strings.ContainsAny(f, `,"`) {
			fields[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
	}
	return strings.Join(fields, ",")
}
