package nets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"unicode/utf8"
)

// WriteFileAtomic writes the data produced by write to path so that readers
// see either the old file or the complete new one, even across a crash: the
// data goes to a temporary file in the same directory (a rename is atomic
// only within one file system), which is fsynced, closed and renamed over
// path, and then the directory is fsynced so the rename itself is durable.
// On any error (or a panic in write) the temporary file is removed and path
// is left untouched. That last sync is best effort: once the rename is
// done path holds the new data, so a directory that cannot be synced (one
// without read permission cannot even be opened) is no error, which would
// tell the caller nothing was written. The new file keeps the mode of the
// file it replaces, or gets 0644 if there was none.
//
// Only a regular file (or nothing) is replaced: a symbolic link to a
// regular file is followed, so the file it names is written and the
// link stays; a dangling link, and a directory, device, named pipe or
// socket, are refused (see AtomicTarget). A rename would otherwise put
// a regular file in place of /dev/null.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	target, err := AtomicTarget(path)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	return writeAtomic(path, target, mode, write, os.Rename)
}

// WriteNewFileAtomic writes path as WriteFileAtomic does, but only where
// nothing is when the data is in place: the complete temporary file is
// linked to path, which fails, in the same step that would create it,
// when any file holds the name (a symbolic link, even a dangling one,
// included). Nothing is replaced then, and the error is fs.ErrExist.
// A check before a rename would leave a moment, as long as the write,
// in which a file made at path (another run's) is replaced and lost.
// The new file gets mode 0644.
func WriteNewFileAtomic(path string, write func(w io.Writer) error) error {
	return writeAtomic(path, path, 0o644, write, linkNew)
}

// WriteOwnFileAtomic writes path as WriteFileAtomic does, but follows
// no symbolic link: path must be a regular file or nothing, and anything
// else, a link to a regular file included, is refused in RefuseSave's
// words, with what saved ("a sweep's cell file"). It is for the files a
// command keeps in a folder of its own, which only it writes: a link
// planted there would have the save replace a file the command never
// named. The rename replaces the name path itself, so a link put there
// after the check is replaced, not written through.
func WriteOwnFileAtomic(path, what string, write func(w io.Writer) error) error {
	mode := os.FileMode(0o644)
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode().IsRegular():
		mode = st.Mode().Perm()
	case err == nil:
		return RefuseSave(NotOwnFile(path, st.Mode()), what)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeAtomic(path, path, mode, write, os.Rename)
}

// NotOwnFile is the refusal, by WriteOwnFileAtomic, of path, a file of
// mode m (as Lstat sees it) that is not a regular one: a link is named
// with its target.
func NotOwnFile(path string, m fs.FileMode) *NotRegularFileError {
	if m&fs.ModeSymlink == 0 {
		return &NotRegularFileError{Path: path, Kind: FileKind(m)}
	}
	kind := "a symbolic link"
	if dest, err := os.Readlink(path); err == nil {
		kind += " to " + dest
	}
	return &NotRegularFileError{Path: path, Kind: kind}
}

// writeAtomic writes the data produced by write to a temporary file
// beside target (WriteTemp), puts it at target with publish (a rename,
// or linkNew), then syncs the directory; path is target as the caller
// named it, for the errors.
func writeAtomic(path, target string, mode os.FileMode, write func(w io.Writer) error, publish func(tmp, target string) error) error {
	tmp, err := WriteTemp(path, target, mode, write)
	if err != nil {
		return err
	}
	if err := publish(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_ = syncDirHook(DirOf(target)) // best effort: path is in place (see above)
	return nil
}

// WriteTemp writes the data produced by write to a new temporary file
// beside target (in its directory, so that a rename to target is
// atomic), gives it mode, syncs and closes it, and returns its name.
// On any error, or a panic in write, the temporary file is removed.
// path is target as the caller named it, for the errors.
func WriteTemp(path, target string, mode os.FileMode, write func(w io.Writer) error) (string, error) {
	_, base := filepath.Split(target)
	tmp, err := os.CreateTemp(DirOf(target), "."+TempBase(base)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done { // error or panic: leave no trace
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(bw); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("writing %s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing %s: close: %w", path, err)
	}
	done = true
	return tmp.Name(), nil
}

// maxTempBase bounds the part of a file's name that the name of a
// temporary file beside it repeats: file systems take names of at most
// 255 bytes, and the dot, suffix and random part of the temporary
// name need room beside it, so that a name within that limit is not
// refused ("file name too long") for its temporary file's.
const maxTempBase = 200

// TempBase is base, a file's name, as a temporary file's name beside
// it repeats it: cut to maxTempBase bytes, at a character's start.
func TempBase(base string) string {
	if len(base) <= maxTempBase {
		return base
	}
	cut := maxTempBase
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	return base[:cut]
}

// DirOf is the directory a file at path is in, "." for a bare name,
// without cleaning a "lnk/.." away (RawDir).
func DirOf(path string) string {
	if dir := RawDir(path); dir != "" {
		return dir
	}
	return "."
}

// SyncDirOf fsyncs the directory of path so that a rename in it
// survives a crash (nothing to do on Windows).
func SyncDirOf(path string) error { return syncDir(DirOf(path)) }

// linkNew puts the file tmp at target unless a file is there (link(2)
// fails with EEXIST), then removes the name tmp. A file system without
// hard links (FAT, some network shares) fails the link otherwise: there
// target is checked and tmp renamed to it, with a moment between.
func linkNew(tmp, target string) error {
	err := os.Link(tmp, target)
	switch {
	case errors.Is(err, fs.ErrExist):
		return err
	case err != nil:
		if _, lerr := os.Lstat(target); lerr == nil {
			return &fs.PathError{Op: "create", Path: target, Err: fs.ErrExist}
		}
		return os.Rename(tmp, target)
	}
	// target holds the data now: a name tmp left behind is litter, no
	// failure to report.
	_ = os.Remove(tmp)
	return nil
}

// syncDirHook is syncDir, replaceable by tests to simulate a failure.
var syncDirHook = syncDir

// maxLinkHops bounds the symbolic links AtomicTarget follows, as the
// kernel does (ELOOP), so that a loop of links ends in an error.
const maxLinkHops = 40

// AtomicTarget is the file WriteFileAtomic(path) writes: path itself
// when it is a regular file or does not exist, the end of its chain of
// symbolic links when that is a regular file, and an error naming path
// and what it is when that is anything else (a directory, a device, a
// named pipe, a socket), which the save must not replace: RefuseSave
// of a *NotRegularFileError, as core.CheckWriteTarget words it. A dangling
// link is refused too: following it would create a file wherever the
// link points, one that no one named, perhaps far from path.
func AtomicTarget(path string) (string, error) {
	cur := path
	for range maxLinkHops {
		st, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist) && cur != path:
			return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist: refusing to create a file through the link; remove the link or choose another name", path, cur)
		case errors.Is(err, fs.ErrNotExist):
			return cur, nil
		case err != nil:
			return "", fmt.Errorf("writing %s: %w", path, err)
		case st.Mode().IsRegular():
			return cur, nil
		case st.Mode()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(cur)
			if err != nil {
				return "", fmt.Errorf("writing %s: %w", path, err)
			}
			if !filepath.IsAbs(dest) {
				// Not filepath.Join, which would clean "lnk/../f"
				// as text to "f": the system resolves lnk first.
				dest = RawDir(cur) + dest
			}
			cur = dest
			continue
		}
		return "", RefuseSave(notRegular(path, cur, st.Mode()), "")
	}
	return "", fmt.Errorf("writing %s: more than %d symbolic links to follow (a loop?)", path, maxLinkHops)
}

// notRegular is the refusal of path, whose chain of links ends at cur,
// a file of mode m that is not a regular one. The link's target is
// named as core.CheckRegularFile names it, resolved (EvalSymlinks), so
// that both checks say the same of one file.
func notRegular(path, cur string, m fs.FileMode) *NotRegularFileError {
	e := &NotRegularFileError{Path: path, Kind: FileKind(m)}
	if cur != path {
		e.Target = cur
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			e.Target = resolved
		}
	}
	return e
}

// RawDir is path's directory as the system reads it, with its
// separator ("a/lnk/" of "a/lnk/f", "" of "f"): unlike filepath.Dir it
// does not clean "lnk/.." away, which would name another directory
// when lnk is a symbolic link.
func RawDir(path string) string {
	dir, _ := filepath.Split(path)
	return dir
}

// FileKind names the kind of a file that is neither regular nor a link
// ("a directory", "a named pipe (FIFO)"), as messages say it.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// syncDir fsyncs a directory so that a rename within it survives a crash.
// Windows cannot open directories for syncing, and renames there are
// already durable enough, so it is skipped.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
