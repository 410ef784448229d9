package core

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"apic/nets"
)

// Checkpoints and input files are read and written only as regular
// files. A named pipe waits, at the open, for a writer that may never
// come; a device gives bytes without end (/dev/zero) or takes them
// without keeping them (/dev/full, /dev/null); a directory holds no
// data. A save over one of them would put a regular file in its place
// (as root, /dev/null) or fail late, and one that picked another name
// instead would leave the user looking for a file they did not name.

// NotRegularFileError is a path that names, itself or through symbolic
// links, an existing file other than a regular one: nets's, whose
// AtomicTarget refuses a save over one in the same words.
type NotRegularFileError = nets.NotRegularFileError

// CheckRegularFile returns a *NotRegularFileError when path names an
// existing file, after any symbolic links, that is not a regular file,
// and nil otherwise: a regular file, and a path that does not exist or
// cannot be examined, whose read or write then says why in its own
// words. It never opens path, which for a named pipe would block.
func CheckRegularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	e := &NotRegularFileError{Path: path, Kind: nets.FileKind(st.Mode())}
	if st.Mode()&fs.ModeNamedPipe != 0 && isAnonymousPipe(path) {
		// /dev/stdout into "| cmd", /dev/fd/N: a pipe, but no named one.
		e.Kind = "an unnamed pipe"
	}
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			e.Target = target
		}
	}
	return e
}

// CheckWriteTarget is CheckRegularFile for a file about to be written
// with what ("a checkpoint", "a figure"): the refusal says what would
// have been saved over the file, in the same words for every output.
func CheckWriteTarget(path, what string) error {
	var e *NotRegularFileError
	if errors.As(CheckRegularFile(path), &e) {
		return nets.RefuseSave(e, what)
	}
	return nil
}

// CheckReadableFile is CheckRegularFile for a file that is only read:
// an unnamed pipe (isAnonymousPipe) passes too, since its writer exists.
func CheckReadableFile(path string) error {
	if isAnonymousPipe(path) {
		return nil
	}
	return CheckRegularFile(path)
}

// isAnonymousPipe reports whether path leads, through symbolic links,
// to an unnamed pipe: on Linux /dev/stdin, /dev/fd/N and a shell's
// process substitution <(cmd) are links whose last target reads
// "pipe:[inode]". Such a pipe always has a writer (the process that
// made it), so reading it cannot wait forever the way a named pipe
// with no writer does.
func isAnonymousPipe(path string) bool {
	for range 16 {
		target, err := os.Readlink(path)
		if err != nil {
			return false
		}
		if strings.HasPrefix(target, "pipe:[") {
			return true
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return false
}
