package cli

// RegisterExternal adds a command implemented outside this package. The
// explorer lives in package tui, which imports this one, so it cannot
// register itself here; package main registers it before calling Run.
// Register before Run; a duplicate or incomplete command panics, as
// register does.
func RegisterExternal(c Command) { register(c) }
