package cli

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"apic/core"
	"apic/sims"
)

func lookup(t testing.TB, name string) sims.System {
	t.Helper()
	sys, err := sims.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func TestObsHeaderFromGrid(t *testing.T) {
	for name, want := range map[string]string{
		"spring": "t,y", "lv": "t,prey,predator", "advdiff": "t,x,u",
		"testsys": "t,a,b", "testfield": "t,x,u",
	} {
		if got := strings.Join(obsHeader(lookup(t, name).Grid()), ","); got != want {
			t.Errorf("%s header %q, want %q", name, got, want)
		}
	}
}

func TestParseObservations(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	lv := lookup(t, "lv").Grid()
	adv := lookup(t, "advdiff").Grid()
	type obs struct {
		state  []float64
		values []float64
		mask   []bool
		grid   int
	}
	for _, tc := range []struct {
		name string
		g    sims.Grid
		text string
		want []obs
	}{
		{"spring on and off grid", spring, "t,y\n0,0.5\n1.5,-0.25\n4,1\n",
			[]obs{{[]float64{0}, []float64{0.5}, []bool{true}, 0}, {[]float64{1.5}, []float64{-0.25}, []bool{true}, -1}, {[]float64{4}, []float64{1}, []bool{true}, 99}}},
		{"any order, spaces, CRLF, BOM, case", spring, "\ufeff Y , T \r\n 0.3 , 2 \r\n0.1,1\r\n",
			[]obs{{[]float64{2}, []float64{0.3}, []bool{true}, -1}, {[]float64{1}, []float64{0.1}, []bool{true}, -1}}},
		{"comment lines skipped, a BOM before one too", spring, "\ufeff# my lab data\nt,y\n# run 2, 20 °C\n1,0.5\n",
			[]obs{{[]float64{1}, []float64{0.5}, []bool{true}, -1}}},
		{"snapped to the grid", spring, "t,y\n0.0404040404,1\n",
			[]obs{{[]float64{4.0 / 99}, []float64{1}, []bool{true}, 1}}},
		// A spreadsheet exports rows of empty cells below the data (and
		// sometimes above the header): blank lines, skipped as those are.
		{"indented comments skipped", spring, "t,y\n  # run 2, 20 °C\n1,0.5\n\t# end\n",
			[]obs{{[]float64{1}, []float64{0.5}, []bool{true}, -1}}},
		{"rows of empty cells skipped", lv, ",,\nt,prey,predator\n0.5,1.2,\n,,\n , ,\n\"\",,\n",
			[]obs{{[]float64{0.5}, []float64{1.2, 0}, []bool{true, false}, -1}}},
		{"lv masks", lv, "t,prey,predator\n0.5,1.2,\n1,,0.8\n2,1,2\n",
			[]obs{{[]float64{0.5}, []float64{1.2, 0}, []bool{true, false}, -1}, {[]float64{1}, []float64{0, 0.8}, []bool{false, true}, -1}, {[]float64{2}, []float64{1, 2}, []bool{true, true}, -1}}},
		{"lv quoted empty", lv, "t,prey,predator\n\"10\",\"\",3\n",
			[]obs{{[]float64{10}, []float64{0, 3}, []bool{false, true}, 99}}},
		{"lv one channel's column", lv, "predator,t\n0.8,1\n",
			[]obs{{[]float64{1}, []float64{0, 0.8}, []bool{false, true}, -1}}},
		// a bound overshot by rounding is the bound, and its grid point
		{"spring rounding past the end", spring, "t,y\n4.000000000000001,1\n-1e-12,0.5\n",
			[]obs{{[]float64{4}, []float64{1}, []bool{true}, 99}, {[]float64{0}, []float64{0.5}, []bool{true}, 0}}},
		{"advdiff x rounded past either end", adv, "t,x,u\n0.5,1.000000000001,0.7\n0.6,-1e-12,0.1\n",
			[]obs{{[]float64{0.5, 0}, []float64{0.7}, []bool{true}, -1}, {[]float64{0.6, 0}, []float64{0.1}, []bool{true}, -1}}},
		{"advdiff grid point", adv, "t,x,u\n1,0.5,0.7\n",
			[]obs{{[]float64{1, 0.5}, []float64{0.7}, []bool{true}, 63*64 + 32}}},
		{"advdiff off grid", adv, "x,u,t\n0.999,0.1,0.33\n",
			[]obs{{[]float64{0.33, 0.999}, []float64{0.1}, []bool{true}, -1}}},
		{"advdiff columns reordered", adv, "u,x,t\n0.2,0.25,0\n",
			[]obs{{[]float64{0, 0.25}, []float64{0.2}, []bool{true}, 16}}},
		// x is periodic on [0, 1): x = 1 is x = 0, on the grid or off it.
		{"advdiff x = 1 wraps to 0", adv, "t,x,u\n1,1,0.7\n0.33,1,0.1\n",
			[]obs{{[]float64{1, 0}, []float64{0.7}, []bool{true}, 63 * 64}, {[]float64{0.33, 0}, []float64{0.1}, []bool{true}, -1}}},
		// Aliases (sims.ColumnAlias): lv's x,y are prey,predator, as in
		// its equations; time is t everywhere.
		{"lv t,x,y", lv, "t,x,y\n0.5,1.2,0.8\n",
			[]obs{{[]float64{0.5}, []float64{1.2, 0.8}, []bool{true, true}, -1}}},
		{"lv Y,X reordered, masked", lv, "Time,Y,X\n0.5,,1.2\n",
			[]obs{{[]float64{0.5}, []float64{1.2, 0}, []bool{true, false}, -1}}},
		{"lv time,prey,predators", lv, "time,prey,predators\n0.5,1.2,0.8\n",
			[]obs{{[]float64{0.5}, []float64{1.2, 0.8}, []bool{true, true}, -1}}},
		{"spring time", spring, "TIME,y\n1.5,-0.25\n",
			[]obs{{[]float64{1.5}, []float64{-0.25}, []bool{true}, -1}}},
		{"advdiff time", adv, "time,x,u\n1,0.5,0.7\n",
			[]obs{{[]float64{1, 0.5}, []float64{0.7}, []bool{true}, 63*64 + 32}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", tc.g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ctx.Len() != len(tc.want) || len(ctx.Values) != len(tc.want) || len(ctx.Mask) != len(tc.want) || len(ctx.GridIndex) != len(tc.want) {
				t.Fatalf("got %d observations, want %d", ctx.Len(), len(tc.want))
			}
			for i, w := range tc.want {
				got := obs{ctx.States[i], ctx.Values[i], ctx.Mask[i], ctx.GridIndex[i]}
				if !reflect.DeepEqual(got, w) {
					t.Errorf("observation %d = %+v, want %+v", i, got, w)
				}
			}
		})
	}
}

// TestParseObservationsErrors covers the parser's messages; the command's
// test (TestCalibrateBadInput) checks the same cases end to end.
func TestParseObservationsErrors(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	for _, tc := range []struct{ text, want string }{
		{"", "f.csv: empty file"},
		{"t,y\n", "f.csv: no observations"},
		{"t,y\n   \n \t\n", "f.csv: no observations"},
		{"t,y\n\n\n", "f.csv: no observations"},
		{"t,y\n,\n,\n", "f.csv: no observations"},
		{"t\n1\n", "f.csv:1: missing column y"},
		{"t,,y\n1,2,3\n", "f.csv:1: header \"t,,y\" has an empty column name"},
		{"a,b\n", `f.csv:1: unknown column "a"`},
		{"t,y\n\n\n1,zz\n", `f.csv:4: y = "zz" is not a number`},
		{"t,y\n1,0x\n", `f.csv:2: y = "0x" is not a number`},
		{"t,y\n1,0.5 # gauge 2\n", `f.csv:2: y = "0.5 # gauge 2" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); a comment may only take a whole line`},
		{"t,y\n1,nan\n", `f.csv:2: y = "nan" is not a finite number`},
		{"t,y\ninf,1\n", `f.csv:2: t = "inf" is not a finite number`},
		{"t,y\n4.0000001,1\n", "f.csv:2: t = 4.0000001 is outside the domain [0, 4]"},
		{"t,y\n-1e-8,1\n", "f.csv:2: t = -1e-08 is outside the domain [0, 4]"},
		{"t,y\n8,1\n", "f.csv:2: t = 8 is outside the domain [0, 4]"},
		{"t,y\n137.9,1\n", "f.csv:2: t = 137.9 is outside the domain [0, 4]; far outside it: check the file's units, which must be the simulator's own"},
		{"t,y\n2,1\n2e0,2\n", "f.csv:3: duplicate observation at t = 2 (first at line 2)"},
		{"t,y\n-0,1\n0,2\n", "f.csv:3: duplicate observation at t = 0 (first at line 2)"},
		{"t,y\n0,1\n1e-12,2\n", "f.csv:3: duplicate observation at t = 1e-12 (first at line 2, the grid point t = 0 within the grid's tolerance)"},
		{"t,y\n1e-12,1\n0,2\n", "f.csv:3: duplicate observation at t = 0 (first at line 2: t = 1e-12, the grid point t = 0 within the grid's tolerance)"},
		{"t,y\n4.0000000000001,1\n4,2\n", "f.csv:3: duplicate observation at t = 4 (first at line 2); give"},
		{"t,y\n1,2\n\"3,4\n", "f.csv:3: not valid CSV"},
		{"t,y\n\"1\" ,2\n", "f.csv:2: not valid CSV: extraneous or missing \" in quoted-field at column 3: a quoted field must end at its closing quote, with nothing (not even a space) before the next comma"},
		{"\"t\" ,y\n1,2\n", "f.csv:1: not valid CSV: extraneous or missing \" in quoted-field at column 3: a quoted field must end"},
		{"t,y\n0.5,\"0.3\n0.1,0.2\n0.2,0.3\n", "f.csv:2: not valid CSV: the quote opened on this line is not closed before line 4"},
		{"t,y\n0.5,\"0.3\n0.1,0.2\n0.2,\"0.3\n", "f.csv:2: not valid CSV: the quote opened on this line is not closed before line 4"},
		{"t,y\n1,2\x00\n", "f.csv: not a CSV text file (binary data)"},
		{longCSV(1200) + "2,\x00\n", "f.csv:1202: not a CSV text file"},
		{"t,y\n1,\xff\n", "f.csv:2: not a CSV text file"},
		{"\x00\x01\x02\x03", "f.csv: not a CSV text file (binary data)"},
		{"\x12\x00\x00\x00\x00\x00\x00\x00{\"__metadata__\":{}}", "f.csv: not a CSV text file (a safetensors checkpoint, which goes to --checkpoint); want a header"},
		{"PK\x03\x04\x14\x00\x06\x00", "f.csv: not a CSV text file (a ZIP archive, such as an .xlsx or .ods workbook: export the sheet as CSV)"},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", "f.csv: not a CSV text file (an .xls workbook: export the sheet as CSV)"},
		{"\x1f\x8b\x08\x00\x00\x00", "f.csv: not a CSV text file (gzip-compressed: decompress it first)"},
		{"\xff\xfet\x00,\x00y\x00\n\x00", "f.csv: not a CSV text file (UTF-16 text: save it as UTF-8"},
		{"\xfe\xff\x00t\x00,\x00y\x00\n", "f.csv: not a CSV text file (UTF-16 text: save it as UTF-8"},
		{"t|y\n", "fields are separated by '|'"},
		{"t,y\n0,2020,0,8560\n", `f.csv:2: 4 fields, want 2 (t,y); decimal commas? "0,2020,0,8560" reads as 4 numbers; write a decimal point`},
		{"t,y\n1,5,2\n", "f.csv:2: 3 fields, want 2 (t,y); decimal commas?"},
		{"t (s),y\n1,2\n", `f.csv:1: unknown column "t (s)" (want "t,y", or time for t); units are not read from a column's name: name it "t" and give its values in the simulator's units`},
		{"t,Y [mm]\n1,2\n", `name it "Y" and give`},
		{"t,y\n1,2\nT,Y\n2,3\n", `f.csv:3: t = "T" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); the header row again (files joined one after another?): delete it or start it with # (a comment)`},
		{"t,y\nt,y\n1,2\n", `f.csv:2: t = "t" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); the header row again`},
		{"t,y\ns,mm\n1,2\n", `f.csv:2: t = "s" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); a row of units under the header? delete it or start it with # (a comment)`},
		{"t,y\n1,NULL\n", `f.csv:2: y = "NULL" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); if it marks a value not measured, leave the row out`},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", spring, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: error %v, want a usage error containing %q", tc.text, err, tc.want)
		}
	}
	// Row errors name an aliased column as the header spells it.
	lv := lookup(t, "lv").Grid()
	for _, tc := range []struct{ text, want string }{
		{"t,x,y\n1,abc,2\n", `f.csv:2: x = "abc" is not a number`},
		{"time,prey,predator\n,1,2\n", "f.csv:2: time is empty"},
		{"T,Prey,predator\n,1,2\n", "f.csv:2: t is empty"},
		{"time,x,y\n1,,\n", "f.csv:2: no observed value (x, y are all empty)"},
		{"time,predators\n1,\n", "f.csv:2: predators is empty"},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", lv, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: error %v, want a usage error containing %q", tc.text, err, tc.want)
		}
	}
	// advdiff's x wraps around: x = 0 and x = 1 are one state.
	adv := lookup(t, "advdiff").Grid()
	for _, tc := range []struct{ text, want string }{
		{"t,x,u\n1,0,1\n1,1,2\n", "f.csv:3: duplicate observation at t = 1, x = 1 (first at line 2, the same state as t = 1, x = 0, where the periodic domain wraps around)"},
		{"t,x,u\n0.33,1,1\n0.33,0,2\n", "f.csv:3: duplicate observation at t = 0.33, x = 0 (first at line 2: t = 0.33, x = 1, the same state as t = 0.33, x = 0, where the periodic domain wraps around)"},
		{"t,x,u\n0.5,1.000000000001,1\n0.5,-1e-12,2\n", "f.csv:3: duplicate observation at t = 0.5, x = -1e-12 (first at line 2, the same state as t = 0.5, x = 0 within the grid's tolerance)"},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", adv, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("advdiff %.60q: error %v, want a usage error containing %q", tc.text, err, tc.want)
		}
	}
	// lv may leave a channel's column out, not both, and rows hold the
	// header's fields; a value not measured is an empty cell, and the
	// markers other programs write for one say so.
	lv = lookup(t, "lv").Grid()
	for _, tc := range []struct{ text, want string }{
		{"t,prey,predator\n1,0.5#x,2\n", `a comment may only take a whole line (one that starts with #), not follow a value`},
		{"t,prey,predator\n1,0.5,NA\n", `f.csv:2: predator = "NA" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); if it marks a value not measured, leave the cell empty`},
		{"t,prey,predator\n1,nan,0.5\n", `f.csv:2: prey = "nan" is not a finite number (NaN and Inf are refused); if it marks a value not measured, leave the cell empty`},
		{"t,prey,predator\n1,#N/A,0.5\n", "leave the cell empty"},
		{"t\n1\n", "f.csv:1: missing column prey, predator"},
		{"prey,predator\n1,2\n", "f.csv:1: missing column t"},
		{"t,prey\n1,2,3\n", "f.csv:2: 3 fields, want 2 (t,prey)"},
		{"t,prey\n2,\n", "f.csv:2: prey is empty"},
		{"predator,t\n", `f.csv: no observations after the header "predator,t"`},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", lv, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lv %.60q: error %v, want a usage error containing %q", tc.text, err, tc.want)
		}
	}
}

// TestUnitsRowHintOnlyUnderTheHeader: only the first row after the
// header, with no number and no marker of a value not measured in it,
// is taken for a row of units.
func TestUnitsRowHintOnlyUnderTheHeader(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	for _, tc := range []struct{ text, want string }{
		{"t,y\n1,2\ns,mm\n", `f.csv:3: t = "s" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
		{"t,y\nNA,NA\n", `f.csv:2: t = "NA" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
		{"t,y\nx,1\n", `f.csv:2: t = "x" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", spring, nil)
		if err == nil || !IsUsageError(err) || err.Error() != tc.want {
			t.Errorf("%q: error %v, want the usage error %q", tc.text, err, tc.want)
		}
	}
}

// TestDecimalCommaHintOnlyForDigitGroups: a row is blamed on decimal
// commas only when it looks like one: its fields group into the wanted
// numbers, each a whole number, a quoted "0,5", or a whole part and a
// fraction part (an exponent only after the comma), no decimal point.
func TestDecimalCommaHintOnlyForDigitGroups(t *testing.T) {
	for _, tc := range []struct {
		rec  []string
		want int
		hint bool
	}{
		{[]string{"0", "2020", "0", "8560"}, 2, true},
		{[]string{"1", "5", "2"}, 2, true},
		{[]string{"1.5", "2", "3"}, 2, false}, // a decimal point: a stray field instead
		{[]string{"1", "2", "3", "4", "5"}, 2, false},
		{[]string{"1", "a", "3"}, 2, false},
		{[]string{"1", "2"}, 2, false},
		// An exponent that follows no decimal comma: a stray field.
		{[]string{"1e-3", "5", "7"}, 2, false},
		{[]string{"1e-3", "5"}, 2, false},
		{[]string{"1", "5E-03", "2"}, 2, true}, // 1,5E-03 and 2
		// A quoted "0,5" holds its decimal comma in one field.
		{[]string{"0", "0,5"}, 2, true},
		{[]string{"0,5", "1", "5"}, 2, true},
		{[]string{"0,5", "1,5", "3"}, 2, false},
		{[]string{"0,5,1"}, 1, false},
	} {
		if got := decimalCommaHint(tc.rec, tc.want) != ""; got != tc.hint {
			t.Errorf("%q (want %d fields): hint %v, want %v", tc.rec, tc.want, got, tc.hint)
		}
	}
}

// TestObservationLocaleHints: the whole message for a spreadsheet's
// locale export (semicolons and decimal commas), a commented-out
// header, and rows that only look like decimal commas, which get no
// hint.
func TestObservationLocaleHints(t *testing.T) {
	const european = `the file uses ";" between fields and "," as decimal mark; apic reads "," between fields and "." for decimals: write `
	spring := lookup(t, "spring").Grid()
	for _, tc := range []struct{ text, want string }{
		{"t;y\n0;1,5\n", `f.csv:1: header "t;y": fields are separated by semicolons, want commas ("t,y"); as line 2 shows, ` + european + `"0,1.5", not "0;1,5"`},
		{"t,y\n0;1,5\n", `f.csv:2: t = "0;1" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); ` + european + `"0,1.5", not "0;1,5"`},
		{"t,y\n0,5;1,5\n", `f.csv:2: 3 fields, want 2 (t,y); ` + european + `"0.5,1.5", not "0,5;1,5"`},
		{"t,y\n0,\"0,5\"\n", `f.csv:2: y = "0,5" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); decimal comma? write a decimal point (0.5, not 0,5)`},
		{"t,y\n\"0,5\",1,5\n", `f.csv:2: 3 fields, want 2 (t,y); decimal commas? "\"0,5\",1,5" reads as 3 numbers; write a decimal point (0.5, not 0,5)`},
		{"t,y\n1e-3,5,7\n", `f.csv:2: 3 fields, want 2 (t,y)`},
		{"t;y\n0;1\n", `f.csv:1: header "t;y": fields are separated by semicolons, want commas ("t,y")`},
		{"#t,y\n0,1\n", `f.csv:2: missing header row "t,y" (the first row holds numbers); the header "t,y" is commented out on line 1; remove the #`},
		{byteOrderMark + "# sample 3, 20 °C\n#  Y , T\n\n  \n0,1\n", `f.csv:5: missing header row "t,y" (the first row holds numbers); the header "Y , T" is commented out on line 2; remove the #`},
		{"# sample 3, 20 °C\n0,1\n", `f.csv:2: missing header row "t,y" (the first row holds numbers)`},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", spring, nil)
		if err == nil || !IsUsageError(err) || err.Error() != tc.want {
			t.Errorf("%q:\nerror %v\nwant  %s", tc.text, err, tc.want)
		}
	}
}

// longCSV is a valid spring file with n rows at distinct times.
func longCSV(n int) string {
	var b strings.Builder
	b.WriteString("t,y\n")
	for i := range n {
		fmt.Fprintf(&b, "%v,1\n", 3*float64(i)/float64(n))
	}
	return b.String()
}

// TestParseObservationsProductFallback: a grid with two state dimensions
// but no product shape is searched point by point.
func TestParseObservationsPointGrid(t *testing.T) {
	g := sims.Grid{
		StateNames: []string{"t", "x"}, Channels: []string{"u"},
		States: [][]float64{{0, 0}, {0.5, 0.2}, {1, 0.9}},
		Lo:     []float64{0, 0}, Hi: []float64{1, 1},
	}
	ctx, err := parseObservations(context.Background(), strings.NewReader("t,x,u\n0.5,0.2,1\n0.5,0.3,2\n"), "f.csv", g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ctx.GridIndex, []int{1, -1}) {
		t.Errorf("grid indices %v, want [1 -1]", ctx.GridIndex)
	}
}

// FuzzParseObservations checks that no input makes the parser panic and
// that whatever it accepts is a well-formed context inside the domain.
// Its seed corpus runs as an ordinary test.
func FuzzParseObservations(f *testing.F) {
	for _, seed := range []struct {
		system int
		text   string
	}{
		{0, "t,y\n0,0\n1.5,0.3\n4,-1\n"},
		{0, "y,t\n0.1,2\n"},
		{0, ""},
		{0, "t,y\n"},
		{0, "t;y\n1;2\n"},
		{0, "t,y\n1,NaN\n"},
		{0, "t,y\n1,1\n1,2\n"},
		{0, "t,y\n1,\"2\n"},
		{0, "\x89PNG\r\n\x1a\n\x00\x00"},
		{0, "t,y\n9,1\n"},
		{1, "t,prey,predator\n1,2,\n2,,3\n3,4,5\n"},
		{1, "t,prey,predator\n1,,\n"},
		{1, "\ufeffT,PREY,Predator\r\n0,1,1\r\n"},
		{2, "t,x,u\n0.5,0.25,1\n0.1,0.99,0\n"},
		{2, "t,x,u\n1,1,1\n0,0,0\n"},
		{2, "t,x\n1,1\n"},
		// The hostile cases of issue 19.
		{0, strings.Repeat("h", 5000) + "\n"},
		{0, strings.Repeat(",", 5000)},
		{0, "t,y\n" + strings.Repeat("1,", 3000) + "\n"},
		{0, "t,y\n1," + strings.Repeat("9", 300) + "\n"},
		{0, "t,y\n1,\"" + strings.Repeat("9\n", 3000)},
		{0, "t,y\r0,1\r1,2\r"},
		{0, "t,y\r\n0,1\r\n"},
		{0, "t,y\n1,1_0\n"},
		{0, "t,y\n1,0x1p1\n"},
		{0, "t,y\n1,Inf\n2,-inf\n3,nan\n"},
		{0, "t,y\n1,1e308\n"},
		{1, "t,prey,predator\n1,1e200,1\n"},
		{2, "t,x,u\n0.5,0.5,-1e300\n"},
		{0, "\ufeff"},
		{0, "\ufefft,y\n1,2\n"},
		{0, "\"t\",\"y\"\n\"1\",\"2\"\n"},
		{0, "\"t,y\n"},
		{0, "t,y\n1,\"2\"\"\"\n"},
	} {
		f.Add(seed.system, []byte(seed.text))
	}
	systems := []sims.System{lookup(f, "spring"), lookup(f, "lv"), lookup(f, "advdiff")}
	var sane [3][]float64
	for i, sys := range systems {
		sane[i] = core.SaneValueBound(sys)
	}
	f.Fuzz(func(t *testing.T, system int, data []byte) {
		which := ((system % 3) + 3) % 3
		g := systems[which].Grid()
		ctx, err := parseObservations(context.Background(), strings.NewReader(string(data)), "f.csv", g, sane[which])
		if err != nil {
			if !IsUsageError(err) || !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q is not a usage error naming the file", err)
			}
			if len(err.Error()) > maxErrorBytes {
				t.Fatalf("error of %d bytes: %.200q", len(err.Error()), err)
			}
			return
		}
		if n := ctx.Len(); n > core.LimitObservations.Max {
			t.Fatalf("%d observations accepted, over the limit", n)
		}
		n := ctx.Len()
		if n == 0 || len(ctx.Values) != n || len(ctx.Mask) != n || len(ctx.GridIndex) != n {
			t.Fatalf("inconsistent context: %d states, %d values, %d masks, %d indices", n, len(ctx.Values), len(ctx.Mask), len(ctx.GridIndex))
		}
		seen := map[string]bool{}
		for i, st := range ctx.States {
			if len(st) != len(g.StateNames) || len(ctx.Values[i]) != len(g.Channels) || len(ctx.Mask[i]) != len(g.Channels) {
				t.Fatalf("observation %d has the wrong lengths", i)
			}
			for d, v := range st {
				if !(v >= g.Lo[d] && v <= g.Hi[d]) {
					t.Fatalf("observation %d: %s = %v outside the domain", i, g.StateNames[d], v)
				}
			}
			observed := false
			for c, v := range ctx.Values[i] {
				if math.IsNaN(v) || math.IsInf(v, 0) || (!ctx.Mask[i][c] && v != 0) || math.Abs(v) > sane[which][c] {
					t.Fatalf("observation %d: value %v (mask %v)", i, v, ctx.Mask[i][c])
				}
				observed = observed || ctx.Mask[i][c]
			}
			if !observed {
				t.Fatalf("observation %d observes nothing", i)
			}
			if gi := ctx.GridIndex[i]; gi >= 0 && !reflect.DeepEqual(g.States[gi], st) {
				t.Fatalf("observation %d: grid index %d but state %v", i, gi, st)
			}
			key := stateKey(st, ctx.GridIndex[i])
			if seen[key] {
				t.Fatalf("duplicate state %v accepted", st)
			}
			seen[key] = true
		}
	})
}
