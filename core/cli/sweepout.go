package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"apic/nets"
)

// Output paths follow one rule: a file flag (calibrate and diagnose
// --png, simulate --csv, train --out) names a file in a directory that
// exists, and a missing one is refused before any work
// (checkOutputPath: "directory D does not exist (for --png D/f.png)").
// sweep --out alone names a folder, which the sweep creates with the
// directories above it that are missing, as a plan's lines, each of
// which may be the first to run on a fresh machine, expect; its --help
// says so. What keeps it from creating them is refused before any cell
// runs, in the file flags' words.

// checkSweepOut refuses an --out the sweep cannot make its folder in,
// before any cell runs and writes files: none given, an existing file
// that is not a directory, or a path under one.
func checkSweepOut(out string) error {
	if out == "" {
		return UsageError("--out DIR is required")
	}
	base, st, err := nearestExisting(out)
	var dangling *danglingLinkError
	switch {
	case errors.As(err, &dangling):
		return UsageError("--out %s: %v", out, err)
	case err != nil:
		return UsageError("--out %s: %s: %v", out, base, pathCause(err))
	case st.IsDir():
		return nil
	case base == out:
		return UsageError("--out %s exists and is not a directory", out)
	}
	return UsageError("--out %s: %s is not a directory", out, base)
}

// checkSweepOutWritable refuses, before a run's first cell, an --out
// (checked by checkSweepOut) that the sweep cannot create its files in:
// its nearest existing directory is on the kernel's virtual file
// systems, read-only or closed to this user. --plan leaves that to its
// lines, which may run on another machine.
func checkSweepOutWritable(out string) error {
	base, _, err := nearestExisting(out)
	if err != nil {
		return UsageError("--out %s: %s: %v", out, base, pathCause(err))
	}
	if name := virtualFileSystem(base); name != "" {
		return UsageError("--out %s cannot be written: %s is on the kernel's %s file system, which shows the system's state as files and takes no new ones; choose a directory on disk", out, base, name)
	}
	probe, err := os.MkdirTemp(base, ".apic-probe-*")
	if err != nil { // the probe's own name would only confuse
		return UsageError("--out %s: cannot create a directory in %s: %v", out, base, pathCause(err))
	}
	os.Remove(probe)
	return nil
}

// nearestExisting is path or the nearest directory above it that
// exists, and what it is; err is why it could not be looked at, other
// than not existing or being under a file (a directory without search
// permission), or a *danglingLinkError where path or a directory above
// it is a symbolic link to nothing: the sweep's MkdirAll would fail on
// it in every cell ("mkdir lnk: file exists"), and creating the folder
// through the link would make one where no one named it (as the file
// flags refuse, nets.AtomicTarget).
func nearestExisting(path string) (string, fs.FileInfo, error) {
	for {
		st, err := os.Stat(path)
		if err == nil || !(errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return path, st, err
		}
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist) {
			dest, _ := os.Readlink(path)
			return path, nil, &danglingLinkError{path: path, dest: dest}
		}
		parent := rawParent(path)
		if parent == path {
			return path, st, err
		}
		path = parent
	}
}

// rawParent is the directory above path as the system reads it ("a/lnk"
// of "a/lnk/b", "." of "b", "/" of "/" and of "/b"), without cleaning
// "lnk/.." away as filepath.Dir does (see nets.RawDir).
func rawParent(path string) string {
	trimmed := strings.TrimRightFunc(path, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	if trimmed == "" {
		return path // the root
	}
	dir := nets.RawDir(trimmed)
	if dir == "" {
		return "."
	}
	return trimSeparator(dir)
}

// danglingLinkError is a symbolic link, on the way to sweep --out, that
// leads to nothing (nearestExisting).
type danglingLinkError struct{ path, dest string }

func (e *danglingLinkError) Error() string {
	return e.path + " is a symbolic link to " + e.dest + ", which does not exist: refusing to create a folder through the link; remove the link or choose another name"
}
