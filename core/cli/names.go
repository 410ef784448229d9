package cli

import (
	"flag"

	"apic/core"
	"apic/sims"
)

// canonicalNames rewrites the values of the --system and --backbone
// flags that name a system or backbone in another case ("Spring",
// "LNP") to the name's registered spelling, so that every command (and
// everything a command hands the name to: checkpoint lookups, configs)
// takes them as CSV headers are taken, case-insensitively. A value that
// names nothing is left alone, for the command's own "unknown" message.
func canonicalNames(fs *flag.FlagSet) {
	for flagName, names := range map[string][]string{"system": sims.Names(), "backbone": core.BackboneNames()} {
		f := fs.Lookup(flagName)
		if f == nil {
			continue
		}
		if given := f.Value.String(); canonicalName(given, names) != given {
			// Value.Set, not fs.Set: a default stays unmarked as given.
			_ = f.Value.Set(canonicalName(given, names)) // a string flag takes any value
		}
	}
}

// canonicalName is the name of names that given spells in another ASCII
// case, else given. Only ASCII letters fold: Unicode's case folding
// would take "ſpring" (a long s) for spring.
func canonicalName(given string, names []string) string {
	for _, name := range names {
		if len(given) == len(name) && asciiLower(given) == name {
			return name
		}
	}
	return given
}

// asciiLower is s with its ASCII capitals in lower case, every other
// byte kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
