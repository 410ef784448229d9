package cli

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"apic/core"
)

// partialName is the path of the n-th partial file (n ≥ 1) that
// keepPartial writes beside out: NAME.partial.safetensors, then
// NAME.partial-2.safetensors, NAME.partial-3.safetensors, …
func partialName(out string, n int) string {
	base := strings.TrimSuffix(out, ".safetensors")
	if n == 1 {
		return base + ".partial.safetensors"
	}
	return fmt.Sprintf("%s.partial-%d.safetensors", base, n)
}

// isPartialName reports whether name, a file name in out's directory,
// is one that partialName gives out: read back through partialName, so
// that the two cannot disagree ("-02" and "-1" are no partial names).
func isPartialName(out, name string) bool {
	base := filepath.Base(strings.TrimSuffix(out, ".safetensors"))
	if name == filepath.Base(partialName(out, 1)) {
		return true
	}
	digits := strings.TrimSuffix(strings.TrimPrefix(name, base+".partial-"), ".safetensors")
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 2 && filepath.Base(partialName(out, n)) == name
}

// partialNamesOf lists the entries of out's directory named as out's
// partial files (isPartialName), whatever they hold.
func partialNamesOf(out string) ([]string, error) {
	dir := filepath.Dir(out)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, e := range entries {
		if isPartialName(out, e.Name()) {
			found = append(found, filepath.Join(dir, e.Name()))
		}
	}
	return found, nil
}

// partialFilesOf lists the partial files of unfinished runs that
// keepPartial wrote beside out: named so (partialNamesOf), regular
// files (not links, whose target may be anything), and apic checkpoints
// that carry the unfinished flag. Nothing else is listed, whatever its
// name: a finished model renamed so, a user's notes, a link.
func partialFilesOf(out string) ([]string, error) {
	named, err := partialNamesOf(out)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, path := range named {
		if !sameFile(path, out) && isUnfinishedCheckpoint(path) {
			found = append(found, path)
		}
	}
	return found, nil
}

// isUnfinishedCheckpoint reports whether path is a regular file holding
// an apic checkpoint whose metadata marks it unfinished (Info.Unfinished,
// what keepPartial writes). Only the header is read.
func isUnfinishedCheckpoint(path string) bool {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	n := binary.LittleEndian.Uint64(head[:])
	const most = 64 << 20 // far above any checkpoint's header
	if n > most {
		return false
	}
	buf := make([]byte, 8+n)
	copy(buf, head[:])
	if _, err := io.ReadFull(f, buf[8:]); err != nil {
		return false
	}
	info, err := core.DecodeCheckpointInfo(buf)
	return err == nil && info.Unfinished
}

// resumedRun is the --init file of a train run as it was when the run
// started. When that is one of --out's partial files, the run resumed
// an unfinished run of --out's lineage, and the next file of that
// lineage it writes (--out, or its own partial file when interrupted
// again) supersedes it.
type resumedRun struct {
	init  string      // the --init flag ("" for none)
	stat  os.FileInfo // init's Lstat at the start; nil when it had none
	start time.Time
}

// partialOf returns the partial file of out that the run resumed from,
// or "": its --init file, when that is one of out's partial files
// (partialFilesOf: a regular file, an unfinished apic checkpoint, named
// as keepPartial names them beside out), the same file as when the run
// started, and not modified since. No other file is ever taken for it:
// another run's partial file, an unrelated system's, a colleague's, a
// link, or one written while this run went on.
func (r resumedRun) partialOf(out string) string {
	if r.init == "" || r.stat == nil || strings.HasPrefix(r.init, embeddedPrefix) {
		return ""
	}
	st, err := os.Lstat(r.init)
	if err != nil || !st.Mode().IsRegular() || !os.SameFile(st, r.stat) || st.ModTime().After(r.start) {
		return ""
	}
	// The one candidate, by name, rather than every partial file of
	// out: partialFilesOf's tests on it alone.
	name := filepath.Base(r.init)
	p := filepath.Join(filepath.Dir(out), name)
	if !isPartialName(out, name) || !sameFile(p, r.init) || sameFile(p, out) || !isUnfinishedCheckpoint(p) {
		return ""
	}
	return p
}

// supersede removes the partial file of out the run resumed from
// (partialOf), now that by, the finished model at out or the run's own
// partial file beside it, holds its steps and more, and says so. It
// returns the path of that partial file ("" for none); one it cannot
// remove is a warning, not a failure.
func (r resumedRun) supersede(out, by string, env *Env) string {
	resumed := r.partialOf(out)
	if resumed == "" || sameFile(resumed, by) || !besideOut(out, by) {
		return ""
	}
	if err := os.Remove(resumed); err != nil && !errors.Is(err, os.ErrNotExist) {
		env.Warnf("could not remove %s, the partial weights this run resumed from: %v", shellQuote(resumed), err)
	} else {
		env.Notef("removed %s: the partial weights this run resumed from, which %s now supersedes", shellQuote(resumed), shellQuote(by))
	}
	return resumed
}

// afterPartial settles the partial file of out that a stopped run
// resumed from, once the run kept its own weights in path ("" for
// none). The partial file of an interruption (interrupted: the run was
// cancelled) supersedes it (supersede); after a failure, such as a
// diverged loss, it stays, perhaps the better start, and the words
// returned say so, to follow what was kept.
func (r resumedRun) afterPartial(out, path string, interrupted bool, env *Env) string {
	if path == "" {
		return ""
	}
	if interrupted && r.supersede(out, path, env) != "" {
		return ""
	}
	if resumed := r.partialOf(out); resumed != "" {
		return fmt.Sprintf("; %s, the partial file this run resumed from, stays", shellQuote(resumed))
	}
	return ""
}

// besideOut reports whether path is out or one of out's partial names
// in out's directory (not a copy kept in the temporary directory).
func besideOut(out, path string) bool {
	return path == out || (filepath.Dir(path) == filepath.Dir(out) && isPartialName(out, filepath.Base(path)))
}

// settlePartialFiles runs once out holds a finished model. It removes
// the partial file this run resumed from (resumedRun.supersede), which
// out now supersedes. Every other partial file of out stays, and one
// line names them.
func settlePartialFiles(out string, r resumedRun, env *Env) {
	resumed := r.supersede(out, out, env)
	paths, err := partialFilesOf(out)
	if err != nil {
		env.Warnf("looking for the partial files beside %s: %v", out, err)
		return
	}
	var left []string
	for _, p := range paths {
		if p != resumed {
			left = append(left, shellQuote(p))
		}
	}
	switch len(left) {
	case 0:
	case 1:
		env.Notef("left %s: an unfinished run's weights (apic train --init %s … resumes it); remove it when no longer needed", left[0], left[0])
	default:
		env.Notef("left %s: unfinished runs' weights (apic train --init NAME … resumes one); remove them when no longer needed", strings.Join(left, " "))
	}
}
