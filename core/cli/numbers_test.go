package cli

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"apic/core"
	"apic/sims"
)

// TestParseNumberGrammar: one grammar for every input number — decimal
// and exponent notation — and none of Go's extensions.
func TestParseNumberGrammar(t *testing.T) {
	for text, want := range map[string]float64{
		"0": 0, "-1.5": -1.5, "+2": 2, "2e-3": 2e-3, ".5": 0.5, "5.": 5, "-.25": -0.25,
		"1E+2": 100, "007": 7, "0e-400": 0, "1e-310": 1e-310, "1.7976931348623157e308": 1.7976931348623157e308,
	} {
		got, err := parseNumber(text)
		if err != nil || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	// -0 reads as 0, not negative zero, which would be printed and saved
	// as "-0".
	for _, text := range []string{"-0", "-0.0", "-0e-400"} {
		if got, err := parseNumber(text); err != nil || got != 0 || math.Signbit(got) {
			t.Errorf("parseNumber(%q) = %v (sign bit %v), %v; want 0", text, got, math.Signbit(got), err)
		}
	}
	for text, want := range map[string]string{
		"1_0":      "is not a number",
		"0x1p1":    "is not a number",
		"0x10":     "is not a number",
		"0b1":      "is not a number",
		"NaN":      "is not a finite number (NaN and Inf are refused)",
		"nan":      "is not a finite number",
		"-Inf":     "is not a finite number",
		"+INF":     "is not a finite number",
		"infinity": "is not a finite number",
		"1e999":    "is not a finite number",
		"-1e309":   "is not a finite number",
		// A nonzero literal below float64's smallest magnitude would read
		// as 0, a value its writer never meant.
		"1e-99999":   `"1e-99999" is too small: it is nonzero but below float64's smallest magnitude`,
		"-1e-400":    "is too small",
		"2e-324":     "is too small",
		"0.001e-322": "is too small",
		"":           "is not a number",
		".":          "is not a number",
		"e5":         "is not a number",
		"1e":         "is not a number",
		"1e+":        "is not a number",
		"--1":        "is not a number",
		"1.2.3":      "is not a number",
		" 1":         "is not a number",
		"1,5":        "is not a number",
		"١٢":         "is not a number", // Arabic-Indic digits
		"1.5e3.5":    "is not a number",
		"0x1.8p+1i":  "is not a number",
	} {
		_, err := parseNumber(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseNumber(%q): error %v, want one containing %q", text, err, want)
		}
	}
}

// TestParseNumberNamesTypographicMinus: a number whose minus signs are
// the dashes a paper or a word processor sets (−, –) is refused saying
// so, with the number as it should be written; other text is not
// blamed on them.
func TestParseNumberNamesTypographicMinus(t *testing.T) {
	for text, want := range map[string]string{
		"\u22120.5":        `write "-0.5"`,
		"1.5e\u22123":      `write "1.5e-3"`,
		"\u20132":          `write "-2"`,
		"\u2212.5e\u22121": `write "-.5e-1"`,
	} {
		_, err := parseNumber(text)
		if err == nil || !strings.Contains(err.Error(), "its minus sign is a typographic dash") || !strings.Contains(err.Error(), want) {
			t.Errorf("parseNumber(%q): error %v, want the dash named and %s", text, err, want)
		}
	}
	for _, text := range []string{"\u2212", "a\u22121", "\u2212\u22121", "-1x"} {
		if _, err := parseNumber(text); err == nil || strings.Contains(err.Error(), "typographic") {
			t.Errorf("parseNumber(%q): error %v, want one without the dash hint", text, err)
		}
	}
}

// TestParseNumberNamesFortranExponent: 1.5D-3, as Fortran prints a
// double, is refused saying how to write it; a D elsewhere is not
// blamed on Fortran.
func TestParseNumberNamesFortranExponent(t *testing.T) {
	for text, want := range map[string]string{"1.5D-3": `write "1.5e-3"`, "-2d+02": `write "-2e+02"`, "3D0": `write "3e0"`} {
		if _, err := parseNumber(text); err == nil || !strings.Contains(err.Error(), "Fortran's D exponent is not read: "+want) {
			t.Errorf("parseNumber(%q): error %v, want the D exponent named and %s", text, err, want)
		}
	}
	for _, text := range []string{"D3", "1.5D", "1.5Dx", "1e3D2"} {
		if _, err := parseNumber(text); err == nil || strings.Contains(err.Error(), "Fortran") {
			t.Errorf("parseNumber(%q): error %v, want one without the Fortran hint", text, err)
		}
	}
}

// TestParseNumberQuotesShortly: a huge bad value is quoted cut short.
func TestParseNumberQuotesShortly(t *testing.T) {
	_, err := parseNumber(strings.Repeat("9", 1000) + "x")
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("error %d bytes long: %.120v", len(err.Error()), err)
	}
}

// TestCSVNumberGrammarEverySystem: observation files on every system and
// the side-information file refuse the same Go-isms with the line.
func TestCSVNumberGrammarEverySystem(t *testing.T) {
	for _, bad := range []string{"1_0", "0x1p1", "NaN", "inf", "Infinity"} {
		for _, sys := range []string{"spring", "lv", "advdiff"} {
			g := lookup(t, sys).Grid()
			text := strings.Join(obsHeader(g), ",") + "\n"
			row := make([]string, len(obsHeader(g)))
			for i := range row {
				row[i] = "0.5"
			}
			row[0], row[len(row)-1] = "0.25", bad
			text += strings.Join(row, ",") + "\n"
			_, err := parseObservations(context.Background(), strings.NewReader(text), "f.csv", g, nil)
			if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), "f.csv:2:") || !strings.Contains(err.Error(), `"`+bad+`"`) {
				t.Errorf("%s, %q: error %v, want a usage error naming f.csv:2 and the value", sys, bad, err)
			}
		}
		_, err := parseSideCSV(context.Background(), strings.NewReader("x,u\n0,"+bad+"\n"), "u.csv", sims.SideInfo{Len: 4}, sideAxis{lo: 0, hi: 1})
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), "u.csv:2:") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("side CSV %q: error %v, want a usage error naming u.csv:2 and the value", bad, err)
		}
	}
}

// FuzzParseNumber: what parseNumber accepts is finite, in its grammar,
// and what strconv reads; what it refuses it quotes at most
// core.QuoteMax characters of.
func FuzzParseNumber(f *testing.F) {
	for _, seed := range []string{"0", "-1.5", "2e-3", ".5", "5.", "+1E+2", "1_0", "0x1p1", "NaN", "-Inf", "infinity", "1e308", "1e309", "1e-400", "", ".", "e5", "1e", "١", strings.Repeat("9", 500)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := parseNumber(text)
		if err != nil {
			if len(err.Error()) > maxErrorBytes {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if !numberSyntax(text) || math.IsNaN(v) || math.IsInf(v, 0) || (v == 0 && core.NonzeroMantissa(text)) {
			t.Fatalf("%q accepted as %v", text, v)
		}
		if w, err := strconv.ParseFloat(text, 64); (err != nil && !errors.Is(err, strconv.ErrRange)) || w != v {
			t.Fatalf("%q: %v, strconv says %v, %v", text, v, w, err)
		}
		for _, r := range text {
			if !strings.ContainsRune("0123456789+-.eE", r) {
				t.Fatalf("%q accepted with %q", text, r)
			}
		}
	})
}

// maxErrorBytes bounds the fuzzed parsers' messages: a sentence or two
// and at most core.QuoteMax characters of input, each quoted in at most
// 10 bytes (\U0010ffff).
const maxErrorBytes = 400 + 10*core.QuoteMax

// TestNoiseTakesSeventeenDigits: a σ written with 17 significant digits
// (or more), as a float64 prints with %.17g, is read as ParseFloat reads
// it, not refused; beyond the bound, and NaN, are still refused.
func TestNoiseTakesSeventeenDigits(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{"0.10000000000000001", "1.0000000000000001e-1", "0.1000000000000000055511151231257827"} {
		code, _, errOut := runCLI(t, "simulate", "--system", "spring", "--csv", filepath.Join(dir, "obs.csv"), "--noise", text)
		if code != 0 || !strings.Contains(errOut, "noise σ = 0.1,") {
			t.Errorf("--noise %s: exit %d, stderr %q; want σ = 0.1", text, code, errOut)
		}
	}
	for _, text := range []string{"1000.0000000000001", "NaN"} {
		code, _, errOut := runCLI(t, "simulate", "--system", "spring", "--csv", filepath.Join(dir, "obs.csv"), "--noise", text)
		if code != 2 || !strings.Contains(errOut, "--noise must be between 0 and 1000") {
			t.Errorf("--noise %s: exit %d, stderr %q; want it refused", text, code, errOut)
		}
	}
}
