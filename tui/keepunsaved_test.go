package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"apic/checkpoints"
	"apic/core"
)

// TestKeepUnsavedSaysWhatWasLost: weights that cannot be saved (here:
// the save directory is gone, and the temporary directory too) are said
// to be lost, not listed as saved.
func TestKeepUnsavedSaysWhatWasLost(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.SaveDir = filepath.Join(t.TempDir(), "gone")
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone too"))
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

// TestKeepUnsavedPastLinksAndToTemp: a SIGTERM keeps unsaved weights
// under the next free name where a dangling link holds the first (it
// tried that name a hundred times and gave the weights up), and in the
// temporary directory where the save directory takes no files, saying
// why they are there.
func TestKeepUnsavedPastLinksAndToTemp(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	m.opts.SaveDir = dir
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "apic-spring-lnp-1.safetensors")); err != nil {
		t.Fatal(err)
	}
	base := m.entry()
	m.entries[m.key()] = &entry{model: base.model, src: srcTrained, info: core.Info{Steps1: 2}, prev: base}
	want := filepath.Join(dir, "apic-spring-lnp-2.safetensors")
	if saved, failed := m.keepUnsaved(); len(failed) != 0 || len(saved) != 1 || !strings.HasPrefix(saved[0], want+" ") {
		t.Errorf("beside a dangling link: saved %q, failed %q; want %s", saved, failed, want)
	}
	if _, info, err := core.LoadCheckpoint(want); err != nil || info.Steps1 != 2 {
		t.Errorf("the kept file: %v, %d steps", err, info.Steps1)
	}
	if m, _ = press(t, m, "s"); m.prompt.path() != filepath.Join(dir, "apic-spring-lnp-3.safetensors") {
		t.Errorf("s suggests %q", m.prompt.path())
	}

	m.opts.SaveDir = filepath.Join(dir, "gone")
	saved, failed := m.keepUnsaved()
	want = filepath.Join(tmp, "apic-spring-lnp-1.safetensors") + " (spring/lnp, trained; not in " + m.opts.SaveDir + ": no such file or directory)"
	if len(failed) != 0 || len(saved) != 1 || saved[0] != want {
		t.Errorf("save directory gone: saved %q, failed %q; want %q", saved, failed, want)
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

// TestRunInfoNamesItsParent: a fine-tune's weights record the checkpoint
// they started from, by name and SHA-256, as train --init does: the
// shipped model, an atlas model or an opened file; for weights trained
// here, the one those were tuned from; a run from scratch none.
func TestRunInfoNamesItsParent(t *testing.T) {
	data, ok := checkpoints.Lookup("spring", "lnp")
	if !ok {
		t.Fatal("no shipped spring/lnp")
	}
	model, info, err := core.DecodeCheckpoint(data)
	if err != nil || len(info.SHA256) != 64 {
		t.Fatalf("the shipped model: sha256 %q, %v", info.SHA256, err)
	}
	shipped := &entry{src: srcEmbedded, model: model, info: info}
	tune := func(base *entry, mode trainMode) core.Info {
		return (&trainRun{mode: mode, base: base}).info()
	}
	got := tune(shipped, modeFineTune)
	if got.Init != "embedded:spring-lnp.safetensors" || got.InitSHA256 != shipped.info.SHA256 {
		t.Errorf("fine-tune of the shipped model: parent %q %q", got.Init, got.InitSHA256)
	}
	trained := &entry{src: srcTrained, model: model, info: got}
	if again := tune(trained, modeFineTune); again.Init != got.Init || again.InitSHA256 != got.InitSHA256 {
		t.Errorf("fine-tune of weights trained here: parent %q, want the shipped model's", again.Init)
	}
	file := &entry{src: srcFile, path: "runs/m.safetensors", model: model, info: core.Info{SHA256: "ab"}}
	if p := tune(file, modeFineTune); p.Init != "runs/m.safetensors" || p.InitSHA256 != "ab" {
		t.Errorf("fine-tune of an opened file: parent %q %q", p.Init, p.InitSHA256)
	}
	if p := tune(shipped, modeScratch); p.Init != "" || p.InitSHA256 != "" {
		t.Errorf("run from scratch: parent %q %q", p.Init, p.InitSHA256)
	}
}
