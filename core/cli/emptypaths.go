package cli

import (
	"flag"
	"reflect"
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

// Every flag that takes a text (a name, a path, a list) refuses "" as
// it is given (onceFlag.Set, emptyValueError), in every command: a flag
// whose default is "" would take it for left out, and run something
// else than was asked (every cell of a sweep for --only "$ID", a full
// recalibration for --recalibrate-only "$PART", the embedded checkpoint
// and the file's system for eval --checkpoint F --system=); one with
// another default would refuse it later, as no name.

// pathFlags are the flags that name a file or folder.
var pathFlags = []string{"out", "init", "checkpoint", "data", "u0-file", "png", "csv", "collect"}

// takesText reports whether v, a flag's value, is a text (the flag
// package's string, compare's repeatable --checkpoint): "" is no value
// of it. Numbers and switches refuse "" as they read it.
func takesText(v flag.Value) bool {
	if _, ok := v.(*stringList); ok {
		return true
	}
	t := reflect.TypeOf(v)
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "flag" && t.Elem().Kind() == reflect.String
}

// emptyValueError refuses fl given as "".
func emptyValueError(fl *flag.Flag) error {
	switch {
	case slices.Contains(pathFlags, fl.Name):
		return emptyPathError(fl.Name)
	case fl.DefValue == "":
		return UsageError(`--%s is given as "", which would read as the flag left out: give a value, or leave --%s out`, fl.Name, fl.Name)
	}
	return UsageError(`--%s is given as "", which names nothing: give a value, or leave --%s out for its default, %s`, fl.Name, fl.Name, fl.DefValue)
}
