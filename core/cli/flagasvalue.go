package cli

import (
	"flag"
	"fmt"
	"regexp"
	"slices"

	"apic/core"
)

// flagSpelled is the name of the flag text spells ("--force", "-json",
// "--tasks=3"), and whether it spells one: a letter after one or two
// dashes, then letters, digits and dashes.
func flagSpelled(text string) (string, bool) {
	m := flagSpelling.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// flagSpelling matches a flag as typed on a command line.
var flagSpelling = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9-]*)(?:=.*)?$`)

// flagAsValueError refuses text, one of the command's flags, given as
// fl's value: the flag package takes the word after a flag that wants a
// value as its value, whatever it is, so "--out --force" wrote a
// checkpoint named --force.safetensors and "--csv --json" a file named
// --json, where fl's value was left out.
func flagAsValueError(fl *flag.Flag, text string) error {
	hint := ""
	if slices.Contains(pathFlags, fl.Name) {
		hint = fmt.Sprintf(" (a file of that name: ./%s)", text)
	}
	return UsageError("--%s is given %s, a flag of this command, as its value: give --%s its value before the next flag%s", fl.Name, core.QuoteInput(text), fl.Name, hint)
}
