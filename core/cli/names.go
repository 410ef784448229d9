package cli

import (
	"flag"
	"strings"

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
	backbones := make([]string, len(core.Backbones))
	for i, b := range core.Backbones {
		backbones[i] = string(b)
	}
	for flagName, names := range map[string][]string{"system": sims.Names(), "backbone": backbones} {
		f := fs.Lookup(flagName)
		if f == nil {
			continue
		}
		given := f.Value.String()
		for _, name := range names {
			if given != name && strings.EqualFold(given, name) {
				// Value.Set, not fs.Set: a default stays unmarked as given.
				_ = f.Value.Set(name) // a string flag takes any value
			}
		}
	}
}
