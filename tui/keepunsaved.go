package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"apic/core"
	"apic/nets"
)

// keepUnsaved saves the weights an interrupted session would lose (a
// SIGTERM, or SIGHUP from a closed SSH session: no one is there to be
// asked twice, as q asks): those trained here and not saved, and those
// of the runs it stopped, each to a new file in the save directory
// named as s would suggest. It returns "FILE (system/backbone, what)"
// per file saved, and "system/backbone (what) …: cause" per failure.
func (m Model) keepUnsaved() (saved, failed []string) {
	keep := func(k entryKey, what string, model *core.Model, info core.Info) {
		path, err := saveKept(m.opts.SaveDir, k, model, info)
		if err == nil {
			saved = append(saved, fmt.Sprintf("%s (%s/%s, %s)", path, k.system, k.backbone, what))
			return
		}
		// A save directory that takes no files (read-only, removed since
		// the start) lost the weights no one is there to save by hand:
		// the temporary directory takes them instead, and the note says
		// why they are there.
		if tmp := os.TempDir(); filepath.Clean(tmp) != filepath.Clean(m.opts.SaveDir) {
			if path, tmpErr := saveKept(tmp, k, model, info); tmpErr == nil {
				dir := m.opts.SaveDir
				if abs, err := filepath.Abs(dir); err == nil {
					dir = abs // "not in ." says little on a terminal closed since
				}
				saved = append(saved, fmt.Sprintf("%s (%s/%s, %s; not in %s: %s)", path, k.system, k.backbone, what, dir, fileCause(err)))
				return
			}
		}
		failed = append(failed, fmt.Sprintf("%s/%s (%s) could not be saved and are lost: %v", k.system, k.backbone, what, err))
	}
	for _, k := range sortedKeys(m.entries) {
		if e := unsavedTrained(m.entries[k]); e != nil {
			keep(k, "trained", e.model, e.info)
		}
	}
	for _, r := range m.runs { // ended: stopAll waited for them
		if r.model != nil && r.res.Steps1+r.res.Steps2 > 0 {
			keep(r.key, "a stopped run", r.model, r.info())
		}
	}
	return saved, failed
}

// saveKept saves model to a new file in dir named as s would suggest,
// and returns its path.
func saveKept(dir string, k entryKey, model *core.Model, info core.Info) (string, error) {
	for range 100 { // a name taken meanwhile: the next one
		path := suggestPath(dir, k)
		err := core.SaveNewCheckpoint(path, model, info, nets.F64)
		if !errors.Is(err, fs.ErrExist) {
			return path, err
		}
	}
	return "", fmt.Errorf("no free name in %s", dir)
}

// fileCause is the cause of a failed file operation without the paths
// it names ("permission denied"), which may be a temporary file's: the
// message around it names the file meant.
func fileCause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// unsavedTrained is the weights trained in this session and not saved
// that e shows or that opened files and atlas models hide (one u away),
// or nil.
func unsavedTrained(e *entry) *entry {
	for ; e != nil; e = e.prev {
		switch {
		case e.src == srcTrained && e.saved == "":
			return e
		case e.src != srcFile && e.src != srcAtlas:
			return nil
		}
	}
	return nil
}

// keptText is what keepUnsaved kept and lost, as the sentences the
// command line prints after "interrupted"; "" when there was nothing.
func keptText(saved, failed []string) string {
	var parts []string
	if len(saved) > 0 {
		parts = append(parts, "the weights trained here and not saved are in "+strings.Join(saved, ", "))
	}
	if len(failed) > 0 {
		parts = append(parts, "the weights of "+strings.Join(failed, "; the weights of "))
	}
	return strings.Join(parts, "; ")
}

// sortedKeys are the keys of entries by system, then backbone.
func sortedKeys(entries map[entryKey]*entry) []entryKey {
	keys := make([]entryKey, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b entryKey) int {
		return strings.Compare(a.system+"/"+a.backbone, b.system+"/"+b.backbone)
	})
	return keys
}
