package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"apic/nets"
)

// An output file flag given /dev/stdout (or /dev/fd/1, /dev/stderr)
// names the command's own standard stream. Where that is a regular file
// (a shell's "> f.png") it is saved like any other; where it is a pipe
// or a terminal, the refusal says so in those words, not as the file
// kind the system reports ("a named pipe (FIFO)" for "| cmd"), which
// would leave the user looking for a pipe they never made.

// stdStreamNames are the standard streams by file descriptor.
var stdStreamNames = []string{"standard input", "standard output", "standard error"}

// stdStreamFile is the open file of standard stream fd; a function, so
// that a test that swaps os.Stdout is seen.
func stdStreamFile(fd int) *os.File {
	return []*os.File{os.Stdin, os.Stdout, os.Stderr}[fd]
}

// checkNotStdStream refuses --flag path, an output of what ("a
// figure"), when path is one of the process's standard streams and that
// is not a regular file: by name (/dev/stdout, /dev/fd/1, through any
// links), or, for a pipe, by being the same pipe (/dev/fd/5 after 5>&1).
func checkNotStdStream(flag, path, what string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	fd := namedStdStream(path)
	if fd < 0 && st.Mode()&fs.ModeNamedPipe != 0 {
		fd = sameStdPipe(st)
	}
	if fd < 0 {
		return nil
	}
	hint := ""
	if st.Mode()&fs.ModeNamedPipe != 0 {
		hint = ", and pipe the command's printed output (text, or --json where it has one) instead"
	}
	return UsageError("--%s %s is %s, which is %s here: %s is saved only to a regular file; give --%s a file name%s",
		flag, path, stdStreamNames[fd], streamKind(path, stdStreamFile(fd), st.Mode()), what, flag, hint)
}

// sameStdPipe is the standard stream (0, 1 or 2) that is the pipe st,
// or −1.
func sameStdPipe(st fs.FileInfo) int {
	for fd := range stdStreamNames {
		if sst, err := stdStreamFile(fd).Stat(); err == nil && os.SameFile(st, sst) {
			return fd
		}
	}
	return -1
}

// namedStdStream is the file descriptor (0, 1 or 2) of the standard
// stream path names, itself or through symbolic links (/dev/stdout ->
// /proc/self/fd/1), or −1.
func namedStdStream(path string) int {
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"
	for range 16 {
		clean := filepath.Clean(path)
		for fd, name := range []string{"stdin", "stdout", "stderr"} {
			n := strconv.Itoa(fd)
			if clean == "/dev/"+name || clean == "/dev/fd/"+n || clean == "/proc/self/fd/"+n || clean == self+n {
				return fd
			}
		}
		target, err := os.Readlink(path)
		if err != nil {
			return -1
		}
		if !filepath.IsAbs(target) {
			target = nets.RawDir(path) + target
		}
		path = target
	}
	return -1
}

// streamKind is what the standard stream f, path of mode m, is: "a
// pipe", "a terminal", or the file path leads to with its kind
// ("/dev/null (a character device)").
func streamKind(path string, f *os.File, m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a pipe"
	case isTerminal(f):
		return "a terminal"
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		return target + " (" + nets.FileKind(m) + ")"
	}
	return nets.FileKind(m)
}
