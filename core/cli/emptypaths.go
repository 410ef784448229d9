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

// RefuseEmptyPaths fails when one of the path flags names, given on
// the command line, holds the empty string.
func RefuseEmptyPaths(fs *flag.FlagSet, names ...string) error {
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

// refuseEmptyValues fails, as RefuseEmptyPaths does, when one of the
// flags names whose default "" means "not given" (a backbone, a side
// information, a sweep's cell) is given on the command line as "": it
// would pass as left out, and run something else than was asked (every
// cell of a sweep for --only "$ID", a full recalibration for
// --recalibrate-only "$PART").
func refuseEmptyValues(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(names, f.Name) && f.Value.String() == "" {
			err = UsageError(`--%s is given as "", which would read as the flag left out: give a value, or leave --%s out`, f.Name, f.Name)
		}
	})
	return err
}
