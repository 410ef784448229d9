package sims

import (
	"slices"
	"strings"
	"testing"
)

// TestHeaderColumns: a header's fields name a grid's columns by their
// own names or aliases, in any case; lv's x and y are prey and predator
// only together, since alone each is another system's column.
func TestHeaderColumns(t *testing.T) {
	grid := func(name string) Grid {
		sys, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return sys.Grid()
	}
	for _, tc := range []struct {
		system, header, columns, lone string
	}{
		{"lv", "t,prey,predator", "t,prey,predator", ""},
		{"lv", "Time,X,y", "t,prey,predator", ""},
		{"lv", "time,prey,predators", "t,prey,predator", ""},
		{"lv", "t,y", "t,", "y"},
		{"lv", "t,x,u", "t,,", "x"},
		{"lv", "t,x,predator", "t,,predator", "x"},
		{"lv", "t,hare,lynx", "t,,", ""},
		{"spring", "time,y", "t,y", ""},
		{"spring", "t,x,y", "t,,y", ""},
		{"advdiff", "time,x,u", "t,x,u", ""},
		{"advdiff", "t,x,y", "t,x,", ""},
	} {
		columns, lone := grid(tc.system).HeaderColumns(strings.Split(tc.header, ","))
		var wantLone []string
		if tc.lone != "" {
			wantLone = strings.Split(tc.lone, ",")
		}
		if got := strings.Join(columns, ","); got != tc.columns || !slices.Equal(lone, wantLone) {
			t.Errorf("%s %q: columns %q, lone %q; want %q, %q", tc.system, tc.header, got, lone, tc.columns, wantLone)
		}
	}
}
