package nets

import "fmt"

// A save replaces only a regular file, and a read opens only one (see
// AtomicTarget and core.CheckRegularFile). Both refuse anything else in
// the words of NotRegularFileError, and a save adds RefuseSave's, so
// that a directory, a pipe, a device or a link to one reads the same
// whichever check meets it first.

// NotRegularFileError is a path that names, itself or through symbolic
// links, an existing file other than a regular one.
type NotRegularFileError struct {
	Path   string // as given
	Target string // the file Path's links lead to; "" when Path is no link, or the chain could not be followed
	Kind   string // what the file is, in FileKind's words ("a named pipe (FIFO)"), or "a symbolic link to T" where a save follows no link (WriteOwnFileAtomic)
}

// What is what Path names, in words that follow the path: "a named
// pipe (FIFO), not a regular file", or "a link to /dev/full, which is
// a character device, not a regular file".
func (e *NotRegularFileError) What() string {
	if e.Target != "" {
		return "a link to " + e.Target + ", which is " + e.Kind + ", not a regular file"
	}
	return e.Kind + ", not a regular file"
}

func (e *NotRegularFileError) Error() string { return e.Path + " is " + e.What() }

// RefuseSave is the refusal to save what ("a figure", "a checkpoint";
// "" where the caller does not say) over the file e names:
// "f.png is a directory, not a regular file: refusing to save a figure
// over it". The error wraps e.
func RefuseSave(e *NotRegularFileError, what string) error {
	if what == "" {
		return fmt.Errorf("%w: refusing to save over it", e)
	}
	return fmt.Errorf("%w: refusing to save %s over it", e, what)
}
