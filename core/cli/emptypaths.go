package cli

import (
	"flag"
	"slices"
)

// An empty path flag ("") is the flag's default, "not given": no file
// written, the embedded checkpoint, a fresh model. Given explicitly, as
// --csv "" or --init=$UNSET, it is a mistake (a variable left empty, a
// name lost to quoting) that would pass as that default without a word,
// so it is refused. The flags given are told from defaults by
// flag.FlagSet.Visit, not by the value, which is "" in both cases.

// refuseEmptyPaths fails when one of the path flags names, given on
// the command line, holds the empty string.
func refuseEmptyPaths(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(names, f.Name) && f.Value.String() == "" {
			err = emptyPathError(f.Name)
		}
	})
	return err
}

// emptyPathError refuses --flag given as "".
func emptyPathError(flag string) error {
	return UsageError(`--%s is given as "", which names no file: give a path`, flag)
}
