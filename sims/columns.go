package sims

import "strings"

// ColumnAlias is another name an observation file's header may give one
// of a grid's columns (a state dimension or a channel): "time" for t.
//
// Paired aliases stand for their columns only in a header that holds
// every paired alias of the grid. lv's x and y are prey and predator
// side by side, as its equations name them, but alone y is spring's
// channel and x advdiff's position: a header t,y read as lv's predators
// would take a spring file for lv data without a word.
type ColumnAlias struct {
	Alias, Column string
	Paired        bool
}

// timeAlias lets a header spell the time t out.
var timeAlias = ColumnAlias{Alias: "time", Column: "t"}

// HeaderColumns returns the column of g that each field of a file's
// header names, matched case-insensitively: the field's own name, or the
// column its alias stands for; "" for a field that names none. lone
// lists the header's paired aliases that name nothing because another
// of the grid's paired aliases is missing from the header.
func (g Grid) HeaderColumns(header []string) (columns, lone []string) {
	names := map[string]string{}
	for _, a := range g.Aliases {
		if !a.Paired {
			names[strings.ToLower(a.Alias)] = a.Column
		}
	}
	for _, n := range append(append([]string(nil), g.StateNames...), g.Channels...) {
		names[strings.ToLower(n)] = n // a column's own name wins
	}
	paired, together := g.pairedAliases(header)
	columns = make([]string, len(header))
	for i, h := range header {
		key := strings.ToLower(h)
		if c, ok := names[key]; ok {
			columns[i] = c
		} else if c, ok := paired[key]; ok && together {
			columns[i] = c
		} else if ok {
			lone = append(lone, h)
		}
	}
	return columns, lone
}

// pairedAliases maps g's paired aliases (lower case) to their columns,
// and says whether header holds every one of them.
func (g Grid) pairedAliases(header []string) (paired map[string]string, together bool) {
	paired = map[string]string{}
	for _, a := range g.Aliases {
		if a.Paired {
			paired[strings.ToLower(a.Alias)] = a.Column
		}
	}
	seen := map[string]bool{}
	for _, h := range header {
		if _, ok := paired[strings.ToLower(h)]; ok {
			seen[strings.ToLower(h)] = true
		}
	}
	return paired, len(paired) > 0 && len(seen) == len(paired)
}
