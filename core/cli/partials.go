package cli

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"apic/core"
	"apic/nets"
)

// partialFilesOf lists the partial files of unfinished runs that
// keepPartial wrote beside out: in out's directory, named
// NAME.partial.safetensors or NAME.partial-N.safetensors (N ≥ 2, as
// keepPartial counts), regular files (not links, whose target may be
// anything), and apic checkpoints that carry the unfinished flag. Nothing
// else is listed, whatever its name: a finished model renamed so, a
// user's notes, a link.
func partialFilesOf(out string) ([]string, error) {
	dir := filepath.Dir(out)
	base := filepath.Base(strings.TrimSuffix(out, ".safetensors"))
	name := regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `\.partial(?:-([2-9]|[1-9][0-9]+))?\.safetensors$`)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, e := range entries {
		if !name.MatchString(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if sameFile(path, out) {
			continue
		}
		if isUnfinishedCheckpoint(path) {
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
	meta, err := nets.DecodeSafetensorsMetadata(buf)
	return err == nil && meta["format"] == core.FormatName && meta["unfinished"] == "true"
}

// settlePartialFiles runs once out holds a finished model. It removes
// the partial file this run resumed from, which out now supersedes:
// init (the --init flag, recorded as initStat when the run started),
// when that is one of out's partial files (partialFilesOf: a regular
// file, an unfinished apic checkpoint, named as keepPartial names them
// beside out), the same file as when the run started, and not modified
// since start. Every other partial file of out stays (another run's, an
// unrelated system's, a colleague's, or one written while this run
// went on), and one line names them. One it cannot remove is a
// warning, not a failure.
func settlePartialFiles(out, init string, initStat os.FileInfo, start time.Time, env *Env) {
	paths, err := partialFilesOf(out)
	if err != nil {
		env.Warnf("looking for the partial files beside %s: %v", out, err)
		return
	}
	resumed := ""
	if init != "" && initStat != nil && !strings.HasPrefix(init, embeddedPrefix) {
		if st, err := os.Lstat(init); err == nil && st.Mode().IsRegular() &&
			os.SameFile(st, initStat) && !st.ModTime().After(start) {
			for _, p := range paths {
				if sameFile(p, init) {
					resumed = p
				}
			}
		}
	}
	var left []string
	for _, p := range paths {
		if p != resumed {
			left = append(left, shellQuote(p))
		}
	}
	if resumed != "" {
		if err := os.Remove(resumed); err != nil && !errors.Is(err, os.ErrNotExist) {
			env.Warnf("could not remove %s, the partial weights this run resumed from: %v", shellQuote(resumed), err)
		} else {
			env.Notef("removed %s: the partial weights this run resumed from, which %s now supersedes", shellQuote(resumed), shellQuote(out))
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
