package cli

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"apic/core"
	"apic/sims"
)

func TestParseSideCSV(t *testing.T) {
	grid := sideAxis{pos: []float64{0, 0.25, 0.5, 0.75}, lo: 0, hi: 1}
	free := sideAxis{lo: 0, hi: 1}
	ring := sideAxis{pos: grid.pos, lo: 0, hi: 1, periodic: true}
	for _, tc := range []struct {
		name string
		text string
		axis sideAxis
		want []float64
		err  string
	}{
		{"ok", "x,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n", grid, []float64{1, 2, 3, 4}, ""},
		{"spaces bom crlf", "\ufeffx, u\r\n0, 1\r\n0.25 ,2\r\n0.5,3\r\n0.75,4\r\n", grid, []float64{1, 2, 3, 4}, ""},
		{"upper-case header", "X,U\n0,1\n0.25,2\n0.5,3\n0.75,4\n", grid, []float64{1, 2, 3, 4}, ""},
		{"free axis", "x,u\n0.1,1\n0.2,2\n0.4,3\n0.9,4\n", free, []float64{1, 2, 3, 4}, ""},
		{"empty", "", grid, nil, "f.csv: empty file"},
		{"no header", "0,1\n0.25,2\n", grid, nil, `f.csv:1: missing header row "x,u"`},
		{"wrong header", "pos,value\n0,1\n", grid, nil, `f.csv:1: header is "pos,value", want "x,u"`},
		{"three fields", "x,u\n0,1\n0.25,2,9\n", grid, nil, "f.csv:3: 3 fields, want 2"},
		{"DOS end-of-file mark", "x,u\n0,1\n\x1a\n", grid, nil, "f.csv:3: 1 field, want 2 (x,u); it holds the control character U+001A"},
		{"decimal commas", "x,u\n0,1\n0,25,2\n", grid, nil, "f.csv:3: 3 fields, want 2 (x,u); decimal commas?"},
		{"comment lines", "# initial field\nx,u\n0,1\n# half way\n0.25,2\n0.5,3\n0.75,4\n", grid, []float64{1, 2, 3, 4}, ""},
		{"rows of empty cells", ",\nx,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n,\n\"\", \n", grid, []float64{1, 2, 3, 4}, ""},
		{"bad x", "x,u\n0,1\nzz,2\n", grid, nil, `f.csv:3: x = "zz" is not a number`},
		{"nan u", "x,u\n0,1\n0.25,NaN\n", grid, nil, `f.csv:3: u = "NaN" is not a finite number`},
		{"inf u", "x,u\n0,+Inf\n", grid, nil, `f.csv:2: u = "+Inf" is not a finite number`},
		{"underflow u", "x,u\n0,1e-99999\n", grid, nil, `f.csv:2: u = "1e-99999" is too small`},
		{"too few", "x,u\n0,1\n0.25,2\n", grid, nil, "f.csv: 2 data rows, want 4"},
		{"too many", "x,u\n0.1,1\n0.2,2\n0.3,3\n0.4,4\n0.5,5\n0.6,6\n", free, nil, "f.csv:6: more than 4 data rows"},
		{"too many on the grid", "x,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n0.9,5\n", grid, nil, "f.csv:6: x = 0.9 is no grid position (the nearest is position 3 at x = 0.75)"},
		{"off grid", "x,u\n0,1\n0.26,2\n", grid, nil, "f.csv:3: x = 0.26 is no grid position (the nearest is position 1 at x = 0.25)"},
		{"any order", "x,u\n0.5,3\n0,1\n0.75,4\n0.25,2\n", grid, []float64{1, 2, 3, 4}, ""},
		{"position twice", "x,u\n0.5,3\n0,1\n0.5000000000001,4\n0.25,2\n", grid, nil, "f.csv:4: x = 0.5000000000001 is grid position 2 again (first at line 2)"},
		{"position missing", "x,u\n0.5,3\n0,1\n0.25,2\n", grid, nil, "f.csv: 3 data rows, want 4 (one per grid position): none for position 3 at x = 0.75"},
		{"columns u,x", "U,X\n2,0.25\n1,0\n3,0.5\n4,0.75\n", grid, []float64{1, 2, 3, 4}, ""},
		{"columns u,x, a short row", "u,x\n2,0.25\n1\n", grid, nil, "f.csv:3: 1 field, want 2 (u,x)"},
		{"columns x,x", "x,x\n0,1\n", grid, nil, `f.csv:1: header is "x,x", want "x,u"`},
		{"free axis any order", "x,u\n0.9,4\n0.1,1\n0.4,3\n0.2,2\n", free, []float64{1, 2, 3, 4}, ""},
		{"position twice, one row too many", "x,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n0.25,5\n", grid, nil, "f.csv:6: x = 0.25 is grid position 1 again (first at line 3)"},
		{"free axis twice", "x,u\n0.9,4\n0.2,1\n0.4,3\n0.2,2\n", free, nil, "f.csv:5: x = 0.2 again (line 3 has x = 0.2)"},
		{"within tol", "x,u\n0,1\n0.2500000000001,2\n0.5,3\n0.75,4\n", grid, []float64{1, 2, 3, 4}, ""},
		{"outside domain", "x,u\n0.5,1\n1.5,2\n", free, nil, "f.csv:3: x = 1.5 outside the domain [0, 1]"},
		{"bad quote", "x,u\n0,\"1\n", grid, nil, "f.csv:2:"},
		{"a checkpoint", "\x12\x00\x00\x00\x00\x00\x00\x00{\"__metadata__\":{}}", grid, nil, "f.csv: not a CSV text file (a safetensors checkpoint, which goes to --checkpoint)"},
		{"periodic end is start", "x,u\n0.25,2\n0.5,3\n0.75,4\n1,1\n", ring, []float64{1, 2, 3, 4}, ""},
		{"periodic start twice", "x,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n1,5\n", ring, nil, "f.csv:6: x = 1 is grid position 0 (x = 0, where the periodic domain wraps around) again (first at line 2)"},
		{"periodic end, then start", "x,u\n1,5\n0.25,2\n0,1\n", ring, nil, "f.csv:4: x = 0 is grid position 0 again (first at line 2: x = 1, which is x = 0, where the periodic domain wraps around); give each position once"},
		{"periodic, past the end", "x,u\n0,1\n2,2\n", ring, nil, "f.csv:3: x = 2 is outside the domain [0, 1]"},
		{"on the grid, below the start", "x,u\n-0.25,1\n", grid, nil, "f.csv:2: x = -0.25 is outside the domain [0, 1]"},
		{"end of a bounded axis", "x,u\n0.25,2\n0.5,3\n0.75,4\n1,1\n", grid, nil, "f.csv:5: x = 1 is no grid position (the nearest is position 3 at x = 0.75)"},
	} {
		got, err := parseSideCSV(context.Background(), strings.NewReader(tc.text), "f.csv", sims.SideInfo{Len: 4}, tc.axis)
		if tc.err == "" {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !IsUsageError(err) {
			t.Errorf("%s: error %v, want a usage error containing %q", tc.name, err, tc.err)
		}
	}
}

// TestSideLocaleHints: --u0-file gives the hints of calibrate --data
// for a commented-out header and for a spreadsheet's locale export
// (semicolons and decimal commas), with the whole message; a comment
// that is no header (x,u or u,x), and semicolons without decimal
// commas, get none.
func TestSideLocaleHints(t *testing.T) {
	const european = `the file uses ";" between fields and "," as decimal mark; apic reads "," between fields and "." for decimals: write `
	for _, tc := range []struct{ text, want string }{
		{"#x,u\n0,1\n", `f.csv:2: missing header row "x,u"; the header "x,u" is commented out on line 1; remove the #`},
		{byteOrderMark + "# initial field, 20 °C\n#  X , U \n\n  \n0,1\n", `f.csv:5: missing header row "x,u"; the header "X , U" is commented out on line 2; remove the #`},
		{"#u,x\n0,1\n", `f.csv:2: missing header row "x,u"; the header "u,x" is commented out on line 1; remove the #`},
		{"#x,v\n0,1\n", `f.csv:2: missing header row "x,u"`},
		{"# initial field\n0,1\n", `f.csv:2: missing header row "x,u"`},
		{"x;u\n0;1,5\n", `f.csv:1: header is "x;u", want "x,u"; as line 2 shows, ` + european + `"0,1.5", not "0;1,5"`},
		{"x;u\n0;1\n", `f.csv:1: header is "x;u", want "x,u"`},
		{"x,u\n0;1,5\n", `f.csv:2: x = "0;1" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3); ` + european + `"0,1.5", not "0;1,5"`},
		{"x,u\n0,5;1,5\n", `f.csv:2: 3 fields, want 2 (x,u); ` + european + `"0.5,1.5", not "0,5;1,5"`},
		{"x,u\n0,\"0,5\"\n", `f.csv:2: u = "0,5" is not a number (want decimal or exponent notation, e.g. -1.5 or 2e-3)`},
	} {
		_, err := parseSideCSV(context.Background(), strings.NewReader(tc.text), "f.csv", sims.SideInfo{Len: 4}, sideAxis{lo: 0, hi: 1})
		if err == nil || !IsUsageError(err) || err.Error() != tc.want {
			t.Errorf("%q:\nerror %v\nwant  %s", tc.text, err, tc.want)
		}
	}
}

func TestSideAxisOf(t *testing.T) {
	field := newFake("testfield")
	a := sideAxisOf(field.Grid(), 4)
	if !reflect.DeepEqual(a.pos, []float64{0, 0.25, 0.5, 0.75}) || a.lo != 0 || a.hi != 1 {
		t.Errorf("testfield axis %+v", a)
	}
	if a := sideAxisOf(lookup(t, "advdiff").Grid(), 64); !a.periodic || len(a.pos) != 64 {
		t.Errorf("advdiff axis: periodic %v, %d positions; want periodic, 64", a.periodic, len(a.pos))
	}
	// A 1-D grid has no positions for a side field; only the domain.
	a = sideAxisOf(newFake("testsys").Grid(), 2)
	if a.pos != nil || a.lo != 0 || a.hi != 1 {
		t.Errorf("testsys axis %+v", a)
	}
	if a = sideAxisOf(sims.Grid{}, 3); a.pos != nil || !math.IsInf(a.lo, -1) {
		t.Errorf("empty grid axis %+v", a)
	}
}

// FuzzParseSideCSV checks that no side-information file makes the parser
// panic, that its errors are short usage errors naming the file, and
// that what it accepts is the right number of finite values within the
// sane range, at increasing positions. Its seed corpus (the hostile
// cases of issue 19) runs as an ordinary test.
func FuzzParseSideCSV(f *testing.F) {
	for _, seed := range []string{
		"x,u\n0,1\n0.25,2\n0.5,3\n0.75,4\n",
		"\ufeffX,U\r\n0,1\r\n0.25,2\r\n0.5,3\r\n0.75,4\r\n",
		"x,u\r0,1\r0.25,2\r0.5,3\r0.75,4\r",
		"", "\ufeff", "x,u\n", "0,1\n",
		strings.Repeat("x", 5000) + "\n",
		strings.Repeat(",", 5000),
		"x,u\n" + strings.Repeat("1,", 3000) + "\n",
		"x,u\n0," + strings.Repeat("9", 300) + "\n",
		"x,u\n0,\"" + strings.Repeat("1\n", 3000),
		"x,u\n0,1_0\n", "x,u\n0,0x1p1\n", "x,u\n0,NaN\n", "x,u\n0,-Inf\n", "x,u\n0,1e308\n",
		"\"x\",\"u\"\n\"0\",\"1\"\n", "x,u\n0,\"1\n",
		"x,u\n0.1,1\n0.1,2\n", "x,u\n\x00\x01\n",
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}
	grid := sideAxis{pos: []float64{0, 0.25, 0.5, 0.75}, lo: 0, hi: 1}
	free := sideAxis{lo: 0, hi: 1}
	si := lookup(f, "advdiff").Side()
	si.Len = 4
	sane := core.SaneSideBound(si)
	f.Fuzz(func(t *testing.T, onGrid bool, data []byte) {
		axis := free
		if onGrid {
			axis = grid
		}
		got, err := parseSideCSV(context.Background(), strings.NewReader(string(data)), "u.csv", si, axis)
		if err != nil {
			if !IsUsageError(err) || !strings.HasPrefix(err.Error(), "u.csv") || len(err.Error()) > maxErrorBytes {
				t.Fatalf("error %.200q (%d bytes) is not a short usage error naming the file", err, len(err.Error()))
			}
			return
		}
		if len(got) != si.Len {
			t.Fatalf("%d values accepted, want %d", len(got), si.Len)
		}
		for i, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > sane {
				t.Fatalf("value %d = %v accepted", i, v)
			}
		}
	})
}

// FuzzParseSideValues does the same for --u0's comma-separated values.
func FuzzParseSideValues(f *testing.F) {
	for _, seed := range []string{"1,1", " 1 , 2 ", "1", "1,2,3", "", ",", "1_0,1", "0x1p1,1", "NaN,1", "1,inf", "1e308,1", "-1,1", "1e-400,1", strings.Repeat("9", 400) + ",1"} {
		f.Add(seed)
	}
	side := lookup(f, "lv").Side()
	sane := core.SaneSideBound(side)
	f.Fuzz(func(t *testing.T, text string) {
		got, err := parseSideValues(text, side)
		if err != nil {
			if !IsUsageError(err) || !strings.HasPrefix(err.Error(), "--u0") || len(err.Error()) > maxErrorBytes {
				t.Fatalf("error %.200q (%d bytes) is not a short usage error naming --u0", err, len(err.Error()))
			}
			return
		}
		if len(got) != side.Len {
			t.Fatalf("%d values accepted, want %d", len(got), side.Len)
		}
		for _, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > sane || (side.Positive && v <= 0) {
				t.Fatalf("value %v accepted", v)
			}
		}
	})
}
