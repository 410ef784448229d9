package sims

import (
	"fmt"
	"sort"
	"strings"
)

var registry = map[string]System{}

// Register makes a system available by name. It panics on a duplicate
// name, which is a programming error.
func Register(s System) {
	if _, dup := registry[s.Name()]; dup {
		panic("sims: duplicate system " + s.Name())
	}
	registry[s.Name()] = s
}

// Lookup returns the system with the given name.
func Lookup(name string) (System, error) {
	s, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown system %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// Names lists the registered systems in a stable order: the benchmark
// order of BENCHMARKS.md first, then any others alphabetically.
func Names() []string {
	order := map[string]int{"spring": 0, "lv": 1, "advdiff": 2}
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	return names
}

// All returns the registered systems in Names order.
func All() []System {
	out := make([]System, 0, len(registry))
	for _, n := range Names() {
		out = append(out, registry[n])
	}
	return out
}
