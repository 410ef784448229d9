package cli

import (
	"errors"
	"io/fs"
)

// pathCause is the cause of a file operation's error (stat, open, a
// probe's create or write) without Go's "OP PATH:", which the messages
// name in their own words: the path as the user gave it, not a
// temporary file's. An error that is no *fs.PathError is its own cause.
func pathCause(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
