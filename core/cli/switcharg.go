package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
)

// switchValueHint is what to add to the refusal of a stray argument
// that follows a switch in args, as a value for it ("eval --json
// out.json", "sweep --png sweep.png"): the flag package ends the flags
// at a switch's would-be value, and "unexpected argument "out.json""
// alone does not say why. A --json's argument named *.json is taken for
// the file meant for the output. "" when the argument follows anything
// else.
func switchValueHint(fs *flag.FlagSet, args []string) string {
	at := len(args) - fs.NArg() // the stray argument's index
	if at < 1 || at > len(args) {
		return ""
	}
	name, ok := strings.CutPrefix(args[at-1], "-")
	name = strings.TrimPrefix(name, "-")
	if !ok || name == "" || strings.Contains(name, "=") {
		return ""
	}
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool || !b.IsBoolFlag() {
		return ""
	}
	hint := fmt.Sprintf(": --%s is a switch and takes no value", name)
	_, usage := flag.UnquoteUsage(f)
	switch {
	case name == "json" && strings.EqualFold(filepath.Ext(args[at]), ".json"):
		return hint + fmt.Sprintf("; the JSON goes to standard output (add > %s to save it)", args[at])
	case name != "json" && len(usage) <= switchUsageMax:
		return hint + fmt.Sprintf(" (its help: %q)", usage)
	}
	return hint
}

// switchUsageMax is the longest switch usage switchValueHint quotes:
// one line's worth ("also draw the metrics against the first axis to
// DIR/sweep.png"), not a paragraph.
const switchUsageMax = 80
