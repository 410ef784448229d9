package cli

import (
	"strings"

	"apic/checkpoints"
	"apic/core"
	"apic/nets"
	"apic/sims"
)

// Every flag whose value is a name from a fixed list (a system, a
// backbone, a regulariser, a form, an activation, a storage type, a
// part of a recalibration, a form of θ's prior, a preset) takes it in
// any ASCII case, as CSV headers are taken, and hands the command the
// name's own spelling: what the command prints and records (outputs,
// cell directories, a checkpoint's config) is that spelling, whatever
// case it was given in. A value that names nothing is left alone, for
// the command's own "unknown" message. Env.Parse folds every flag's
// value through canonicalValue as it is given, and a sweep's --vary
// and --fix their axes' values (axisList.Set).

// namedFlags are the flags that take a name from a fixed list, by flag
// name, each with its list.
var namedFlags = map[string]func() []string{
	"system":           sims.Names,
	"backbone":         core.BackboneNames,
	"reg":              core.RegularizerNames,
	"form":             core.FormNames,
	"dec-act":          nets.ActivationNames,
	"dtype":            func() []string { return storageTypes },
	"recalibrate-only": func() []string { return recalibrateOnlyParts },
	"theta-prior":      func() []string { return core.ThetaPriors },
	"preset":           presetNames,
}

// canonicalValue is text, a value of the flag flagName, in the
// canonical spelling of the name it spells in another case; any other
// value (another flag's, or one that names nothing) is text. The
// checkpoint flags' embedded:NAME fold the same way
// (canonicalCheckpoint); a file's name is the file system's to match.
func canonicalValue(flagName, text string) string {
	if names, ok := namedFlags[flagName]; ok {
		return canonicalName(text, names())
	}
	if flagName == "checkpoint" || flagName == "init" {
		return canonicalCheckpoint(text)
	}
	return text
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
