package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"apic/core"
	"apic/nets"
)

// keepUnsaved saves the weights an interrupted session would lose (a
// SIGTERM, or SIGHUP from a closed SSH session: no one is there to be
// asked twice, as q asks): those trained here and not saved, and those
// of the runs it stopped, each to a new file in the save directory
// named as s would suggest. It returns "FILE (system/backbone)" per
// file saved and "system/backbone: cause" per failure.
func (m Model) keepUnsaved() []string {
	var out []string
	keep := func(k entryKey, model *core.Model, info core.Info) {
		for range 100 { // a name taken meanwhile: the next one
			path := suggestPath(m.opts.SaveDir, k)
			err := core.SaveNewCheckpoint(path, model, info, nets.F64)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				out = append(out, fmt.Sprintf("%s/%s: %v", k.system, k.backbone, err))
			} else {
				out = append(out, fmt.Sprintf("%s (%s/%s)", path, k.system, k.backbone))
			}
			return
		}
	}
	for _, k := range sortedKeys(m.entries) {
		if e := unsavedTrained(m.entries[k]); e != nil {
			keep(k, e.model, e.info)
		}
	}
	for _, r := range m.runs { // ended: stopAll waited for them
		if r.model != nil && r.res.Steps1+r.res.Steps2 > 0 {
			keep(r.key, r.model, core.Info{Steps1: r.res.Steps1, Steps2: r.res.Steps2, WallSeconds: r.res.Wall.Seconds()})
		}
	}
	return out
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

// keptText is what keepUnsaved kept, as the sentence the command line
// prints after "interrupted".
func keptText(kept []string) string {
	return "the weights trained here and not saved are in " + strings.Join(kept, ", ")
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
