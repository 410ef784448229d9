package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"apic/core"
)

// TestKeepUnsavedSaysWhatWasLost: weights that cannot be saved (here:
// the save directory is gone) are said to be lost, not listed as saved.
func TestKeepUnsavedSaysWhatWasLost(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.SaveDir = filepath.Join(t.TempDir(), "gone")
	base := m.entry()
	m.entries[m.key()] = &entry{model: base.model, src: srcTrained, prev: base}
	saved, failed := m.keepUnsaved()
	text := keptText(saved, failed)
	if len(saved) != 0 || len(failed) != 1 || !strings.HasPrefix(text, "the weights of spring/lnp (trained) could not be saved and are lost: ") {
		t.Errorf("saved %q, failed %q: %q", saved, failed, text)
	}
	if got := keptText([]string{"a.safetensors (spring/lnp, trained)"}, []string{"lv/cnp (trained) could not be saved and are lost: no room"}); got != "the weights trained here and not saved are in a.safetensors (spring/lnp, trained); the weights of lv/cnp (trained) could not be saved and are lost: no room" {
		t.Errorf("both: %q", got)
	}
	if got := keptText(nil, nil); got != "" {
		t.Errorf("nothing kept: %q", got)
	}
}

// TestRunInfo: a stopped run's weights are marked unfinished (their
// spread was fitted to other weights), a fine-tune's steps and time add
// to those of the weights it started from, and a run that reached its
// refit is finished.
func TestRunInfo(t *testing.T) {
	base := &entry{info: core.Info{Steps1: 1000, Steps2: 6000, WallSeconds: 10}}
	r := &trainRun{mode: modeFineTune, base: base, res: core.TrainResult{Steps2: 181, Wall: 2 * time.Second}, err: context.Canceled}
	if got := r.info(); got.Steps1 != 1000 || got.Steps2 != 6181 || got.WallSeconds != 12 || !got.Unfinished {
		t.Errorf("stopped fine-tune: %+v, want 1000+6181 steps, 12 s, unfinished", got)
	}
	r.refitStarted = true
	if r.info().Unfinished {
		t.Error("a run stopped in its refit is marked unfinished")
	}
	r = &trainRun{mode: modeScratch, base: base, res: core.TrainResult{Steps1: 5, Steps2: 7}}
	if got := r.info(); got.Steps1 != 5 || got.Steps2 != 7 || got.Unfinished {
		t.Errorf("finished scratch run: %+v, want 5+7 steps, finished", got)
	}
}
