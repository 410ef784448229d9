package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"apic/nets"
)

// simulate --csv for advdiff writes two files that belong together, the
// observations and the u0 beside them: calibrate reads one with the
// other. Each is saved atomically, but two saves one after the other
// would leave, when the second fails (a full disk, a directory made at
// its name meanwhile), new observations beside an old or missing u0.
// writeFilesTogether writes both in full first, then puts them in
// place, and when the second cannot be put in place it restores the
// first as it was.

// pairFile is one file that writeFilesTogether writes: path as the
// user named it and the function that writes its content.
type pairFile struct {
	path  string
	write func(w io.Writer) error
}

// pairStage, when set (by tests), is called as writeFilesTogether goes:
// "written" once every temporary file is complete and none is in place,
// then "placed PATH" after each file is put in place.
var pairStage func(stage string)

func pairHook(stage string) {
	if pairStage != nil {
		pairStage(stage)
	}
}

// pendingFile is a pairFile written to tmp beside target (the file the
// save replaces: path, or the regular file a link at path leads to).
type pendingFile struct {
	pairFile
	target, tmp string
	backup      string // the replaced file's content, kept until all are in place; "" if none
	existed     bool   // target existed before
}

// writeFilesTogether saves files so that either all of them are
// replaced or, as far as the file system lets it, none: each is
// written to a temporary file beside the file it replaces, synced and
// closed; then each is renamed into place in turn, the file it
// replaces kept aside (a hard link, or a copy), and if one cannot be
// placed those already placed are put back as they were. Only a
// regular file or nothing is replaced, as nets.WriteFileAtomic does.
func writeFilesTogether(files []pairFile) error {
	pending := make([]*pendingFile, len(files))
	defer func() {
		for _, p := range pending {
			if p == nil {
				continue
			}
			if p.tmp != "" {
				os.Remove(p.tmp)
			}
			if p.backup != "" { // restored, or kept for the user, it is ""
				os.Remove(p.backup)
			}
		}
	}()
	for i, f := range files {
		p, err := prepareFile(f)
		if err != nil {
			return fmt.Errorf("%w; nothing was written", err)
		}
		pending[i] = p
	}
	pairHook("written")
	for _, p := range pending {
		if _, err := p.check(); err != nil {
			return fmt.Errorf("%w; nothing was written", err)
		}
	}
	for i, p := range pending {
		if err := p.place(); err != nil {
			return rollBack(pending[:i], p, err)
		}
		pairHook("placed " + p.path)
	}
	for _, p := range pending {
		_ = nets.SyncDirOf(p.target) // best effort, as nets.WriteFileAtomic's
	}
	return nil
}

// prepareFile writes f to a temporary file beside the file it replaces
// (nets.WriteTemp), with that file's mode (0644 for a new one).
func prepareFile(f pairFile) (*pendingFile, error) {
	target, err := nets.AtomicTarget(f.path)
	if err != nil {
		return nil, err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := nets.WriteTemp(f.path, target, mode, f.write)
	if err != nil {
		return nil, err
	}
	return &pendingFile{pairFile: f, target: target, tmp: tmp}, nil
}

// check looks at p's target once more before it is replaced: a file
// other than a regular one put there since the checks is refused, not
// replaced; exists says whether a regular file is there.
func (p *pendingFile) check() (exists bool, err error) {
	st, err := os.Lstat(p.target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("writing %s: %w", p.path, err)
	case !st.Mode().IsRegular():
		return false, nets.RefuseSave(nets.NotOwnFile(p.target, st.Mode()), "a CSV file")
	}
	return true, nil
}

// place renames p's temporary file over its target (checked once more
// first), after keeping the target's content aside.
func (p *pendingFile) place() error {
	exists, err := p.check()
	if err != nil {
		return err
	}
	if exists {
		p.existed = true
		backup, err := keepAside(p.target)
		if err != nil {
			return fmt.Errorf("writing %s: keeping the file it replaces: %w", p.path, err)
		}
		p.backup = backup
	}
	if err := os.Rename(p.tmp, p.target); err != nil {
		return fmt.Errorf("writing %s: %w", p.path, err) // the target is as it was: its backup goes
	}
	p.tmp = ""
	return nil
}

// keepAside keeps the content of target, a regular file, under a new
// name beside it: a hard link to it, or where the file system has none
// a copy with its mode.
func keepAside(target string) (string, error) {
	_, base := filepath.Split(target)
	f, err := os.CreateTemp(nets.DirOf(target), "."+nets.TempBase(base)+".old-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	if err := os.Link(target, name); err == nil {
		return name, nil
	}
	if err := copyKept(target, name); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// copyKept copies the regular file src to a new file dst, with src's
// mode.
func copyKept(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// rollBack puts back the files placed before failed could not be:
// each one's kept content renamed over it, or, where there was none,
// the new file removed. What cannot be put back is said plainly, with
// where the old content is.
func rollBack(placed []*pendingFile, failed *pendingFile, cause error) error {
	var left []string
	for i := len(placed) - 1; i >= 0; i-- {
		p := placed[i]
		var err error
		if p.existed {
			if err = os.Rename(p.backup, p.target); err == nil {
				p.backup = ""
			}
		} else {
			err = os.Remove(p.target)
		}
		if err != nil {
			if p.existed {
				left = append(left, fmt.Sprintf("%s was already replaced and no longer matches %s (its previous content is in %s; restoring it failed: %v)", p.path, failed.path, p.backup, pathCause(err)))
			} else {
				left = append(left, fmt.Sprintf("%s was already written and does not match %s (removing it failed: %v); delete it", p.path, failed.path, pathCause(err)))
			}
			p.backup = "" // kept for the user
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("%w; %s", cause, strings.Join(left, "; "))
	}
	names := make([]string, len(placed))
	for i, p := range placed {
		names[i] = p.path
	}
	if len(names) == 0 {
		return fmt.Errorf("%w; nothing was written", cause)
	}
	return fmt.Errorf("%w; %s left as it was", cause, strings.Join(names, " and "))
}
