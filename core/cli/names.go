package cli

import (
	"flag"
	"strings"

	"apic/checkpoints"
	"apic/core"
	"apic/sims"
)

// canonicalNames rewrites the values of the --system and --backbone
// flags that name a system or backbone in another case ("Spring",
// "LNP") to the name's registered spelling, so that every command (and
// everything a command hands the name to: checkpoint lookups, configs)
// takes them as CSV headers are taken, case-insensitively. A value that
// names nothing is left alone, for the command's own "unknown" message.
// The checkpoint flags' embedded:NAME fold the same way
// (canonicalCheckpoint).
func canonicalNames(fs *flag.FlagSet) {
	for flagName, canonical := range map[string]func(string) string{
		"system":     func(s string) string { return canonicalName(s, sims.Names()) },
		"backbone":   func(s string) string { return canonicalName(s, core.BackboneNames()) },
		"checkpoint": canonicalCheckpoint,
		"init":       canonicalCheckpoint,
	} {
		f := fs.Lookup(flagName)
		if f == nil {
			continue
		}
		if list, ok := f.Value.(*stringList); ok { // compare's repeatable --checkpoint
			for i, given := range *list {
				(*list)[i] = canonical(given)
			}
			continue
		}
		if given := f.Value.String(); canonical(given) != given {
			// Value.Set, not fs.Set: a default stays unmarked as given.
			_ = f.Value.Set(canonical(given)) // a string flag takes any value
		}
	}
}

// canonicalCheckpoint is path with the NAME of embedded:NAME in the
// spelling of the shipped checkpoint (or atlas cell) it names in
// another ASCII case ("embedded:Spring-LNP.safetensors"), else path: a
// file's name is the file system's to match, and an unknown NAME is
// left for the "no embedded checkpoint" message.
func canonicalCheckpoint(path string) string {
	name, ok := strings.CutPrefix(path, embeddedPrefix)
	if !ok {
		return path
	}
	return embeddedPrefix + canonicalName(name, embeddedNames())
}

// cutEmbeddedPrefix is path without its embedded: prefix, written in
// any case ("EMBEDDED:spring-cnp.safetensors"), and whether it had one.
func cutEmbeddedPrefix(path string) (string, bool) {
	if n := len(embeddedPrefix); len(path) > n && strings.EqualFold(path[:n], embeddedPrefix) {
		return path[n:], true
	}
	return path, false
}

// embeddedNames are the names embedded:NAME takes: the shipped
// checkpoints and the atlas cells (atlas/FILE).
func embeddedNames() []string {
	names := checkpoints.List()
	for _, c := range checkpoints.Atlas() {
		names = append(names, c.Name())
	}
	return names
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
