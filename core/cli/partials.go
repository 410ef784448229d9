package cli

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"apic/core"
	"apic/nets"
)

// partialFilesOf lists the partial files of earlier unfinished runs that
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

// removePartialFiles removes the partial files of earlier unfinished
// runs of out (partialFilesOf) once out holds a finished model, which
// supersedes them (the run may have resumed from one of them), and says
// which it removed; one it cannot remove is a warning, not a failure.
func removePartialFiles(out string, env *Env) {
	paths, err := partialFilesOf(out)
	if err != nil {
		env.Warnf("looking for the partial files of earlier runs of %s: %v", out, err)
		return
	}
	var removed []string
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			env.Warnf("could not remove %s, the partial weights of an earlier unfinished run of %s: %v", p, out, err)
			continue
		}
		removed = append(removed, p)
	}
	if len(removed) > 0 {
		env.Notef("removed %s: the partial weights of earlier unfinished runs of %s, which it now supersedes", strings.Join(removed, ", "), out)
	}
}
